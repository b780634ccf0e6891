package search

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/arbor-gpu/arbor/backend"
)

// Unit is one device's part of a search: its queue, its kernel (built for
// that device, with the same task layout as the others') and its workers.
type Unit struct {
	Queue   backend.Queue
	Kernel  Kernel
	Workers int
}

// RunMany drives one search over several devices, each unit on its own
// goroutine with its own epochs. They share the host pool, which seeds
// them, and one incumbent, raised on every device between its launches.
// When devices have idle workers that the pool cannot feed, the host sets
// a demand on the others (Ring.SetDemand): their workers donate shallow
// subtrees to their own rings as they would to a hungry worker of their
// own, and the host drains those into the pool for the idle device. The
// search is over when every device is idle and the pool is empty.
// With one unit this is the single-device loop: no demand is ever set.
func RunMany(ctx context.Context, units []Unit, opt Options) (Status, bool, error) {
	if len(units) == 0 {
		return Status{}, false, fmt.Errorf("devsearch: no device to search on")
	}
	m := &many{opt: opt, units: units, start: time.Now(), pool: opt.Pool, per: make([]unitState, len(units))}
	m.wake = sync.NewCond(&m.mu)
	for i := range m.per {
		m.per[i].idle = !opt.Seeded
	}
	if m.opt.Epoch <= 0 {
		m.opt.Epoch = 50 * time.Millisecond
	}
	if m.opt.ProgressInterval <= 0 {
		m.opt.ProgressInterval = 200 * time.Millisecond
	}
	// A cancelled context must also wake the devices waiting for work.
	stopWatch := context.AfterFunc(ctx, func() {
		m.mu.Lock()
		m.stopped = true
		m.wake.Broadcast()
		m.mu.Unlock()
	})
	defer stopWatch()
	var wg sync.WaitGroup
	for i := range units {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.drive(ctx, i); err != nil {
				m.mu.Lock()
				if m.err == nil {
					m.err = err
				}
				m.stopped = true
				m.wake.Broadcast()
				m.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	st := m.status()
	st.Pool = m.pool
	if m.err != nil {
		return st, false, m.err
	}
	return st, m.proven, nil
}

// unitState is what the host knows of a device between its launches.
type unitState struct {
	nodes, donated int64
	active, queued int
	inc            int  // the device's incumbent word
	idle           bool // no worker holds a task and its ring is empty
	epochs         int
	budget         int64
}

type many struct {
	opt   Options
	units []Unit
	start time.Time

	mu       sync.Mutex
	wake     *sync.Cond // broadcast after every launch and when the search ends
	pool     [][]uint64
	inc      int // the best incumbent of any device, or from Between
	per      []unitState
	moved    int64
	finished bool // every task accounted for
	stopped  bool // deadline, cancellation, node limit, Between or an error
	proven   bool
	err      error

	lastProgress time.Time
	tailStart    time.Time
	tail         time.Duration
}

// drive runs unit i's launches until the search ends.
func (m *many) drive(ctx context.Context, i int) error {
	u := m.units[i]
	ring := u.Kernel.TaskRing()
	budget := int64(256)
	if m.opt.Budget > 0 {
		budget = m.opt.Budget
	}
	idleLimit := m.opt.IdleLimit
	lastDemand := 0 // Reset leaves the hungry word at 0
	for {
		m.mu.Lock()
		for {
			if m.finished || m.stopped {
				m.mu.Unlock()
				return nil
			}
			if !m.per[i].idle || len(m.pool) > 0 {
				break
			}
			if m.allIdle() {
				// The last device to run dry ends the search.
				m.finished, m.proven = true, true
				m.wake.Broadcast()
				m.mu.Unlock()
				return nil
			}
			m.wake.Wait()
		}
		s := &m.per[i]
		// A device takes from the pool what its ring holds when no other
		// device has idle workers (always, with one device); else only
		// what its own idle workers can start, leaving the rest (what was
		// moved off it for them, say) to the others.
		n := ring.Capacity - s.queued
		if m.othersRoom(i) > 0 {
			n = min(n, m.room(i))
		}
		take := m.pool[:max(min(len(m.pool), n), 0)]
		m.pool = m.pool[len(take):]
		if len(take) > 0 {
			s.idle = false
		}
		// Ask this device for tasks for the others' idle workers, beyond
		// what the pool already holds for them.
		demand := min(max(m.othersRoom(i)-len(m.pool), 0), ring.Capacity/2)
		inc, devInc := m.inc, s.inc
		m.mu.Unlock()

		pushed := 0
		if len(take) > 0 {
			var err error
			if pushed, err = ring.Push(u.Queue, take); err != nil {
				return fmt.Errorf("devsearch: feeding the ring: %w", err)
			}
		}
		if inc > devInc {
			if err := ring.RaiseIncumbent(u.Queue, int32(inc)); err != nil {
				return fmt.Errorf("devsearch: raising the incumbent: %w", err)
			}
		}
		// The workers leave the demand where they found it: set it only
		// when it changes (one device never has any).
		if demand != lastDemand {
			if err := ring.SetDemand(u.Queue, int32(demand)); err != nil {
				return fmt.Errorf("devsearch: setting the demand: %w", err)
			}
			lastDemand = demand
		}
		if m.opt.EpochLimit > 0 && m.per[i].epochs >= m.opt.EpochLimit {
			return fmt.Errorf("devsearch: not finished after %d launches", m.opt.EpochLimit)
		}
		il := idleLimit
		if il <= 0 {
			il = int32(min(budget, 1<<20))
		}
		t0 := time.Now()
		if err := u.Kernel.Epoch(u.Queue, budget, il); err != nil {
			return err
		}
		ws, err := u.Kernel.WorkerStatus(u.Queue)
		if err != nil {
			return fmt.Errorf("devsearch: reading the workers: %w", err)
		}
		ctrl, err := ring.Control(u.Queue)
		if err != nil {
			return fmt.Errorf("devsearch: reading the ring: %w", err)
		}
		took := time.Since(t0)
		var moved [][]uint64
		if demand > 0 {
			if moved, err = ring.Drain(u.Queue, Queued(ctrl)); err != nil {
				return fmt.Errorf("devsearch: moving tasks: %w", err)
			}
		}

		m.mu.Lock()
		m.pool = append(m.pool, take[pushed:]...)
		m.pool = append(m.pool, moved...)
		m.moved += int64(len(moved))
		tot := SumWorkers(ws, u.Workers)
		s.nodes, s.active, s.donated = tot.Nodes, tot.Active, tot.Donated
		s.queued = Queued(ctrl) - len(moved)
		s.inc = int(int32(ctrl[DSInc]))
		s.idle = s.active == 0 && s.queued == 0
		s.epochs++
		s.budget = budget
		m.inc = max(m.inc, s.inc)
		m.afterEpoch(ctx, t0)
		m.wake.Broadcast()
		m.mu.Unlock()

		// Aim each launch at the target duration: the budget doubles while
		// launches are short and halves when one ran long.
		switch target := m.opt.Epoch; {
		case m.opt.Budget > 0:
			// fixed
		case took < target/2 && budget < 1<<40:
			budget *= 2
		case took > 2*target && budget > 64:
			budget /= 2
		}
	}
}

// room is how many more tasks device i's workers could start: its idle
// workers less the tasks already queued for them. m.mu held.
func (m *many) room(i int) int {
	s := m.per[i]
	if s.idle {
		return m.units[i].Workers
	}
	return max(m.units[i].Workers-s.active-s.queued, 0)
}

// othersRoom is the room of every device but i. m.mu held.
func (m *many) othersRoom(i int) int {
	n := 0
	for j := range m.per {
		if j != i {
			n += m.room(j)
		}
	}
	return n
}

// allIdle: no device holds a task and the pool is empty. m.mu held.
func (m *many) allIdle() bool {
	if len(m.pool) > 0 {
		return false
	}
	for _, s := range m.per {
		if !s.idle {
			return false
		}
	}
	return true
}

// afterEpoch settles the search after a launch: the end, the incumbent
// from elsewhere, progress and the stops. m.mu held.
func (m *many) afterEpoch(ctx context.Context, t0 time.Time) {
	if m.finished || m.stopped {
		return // another device settled it during this launch
	}
	st := m.status()
	if m.tailStart.IsZero() && st.Active+st.Queued+st.Pooled <= m.workers()/2 {
		m.tailStart = t0
	}
	if !m.tailStart.IsZero() {
		m.tail = time.Since(m.tailStart)
		st.Tail = m.tail
	}
	done := m.allIdle()
	if done {
		m.finished, m.proven = true, true
	} else if m.opt.Between != nil {
		better, stop := m.opt.Between(m.inc)
		if stop {
			m.stopped, m.proven = true, true
		}
		m.inc = max(m.inc, better)
	}
	now := time.Now()
	if m.opt.Progress != nil && (done || now.Sub(m.lastProgress) >= m.opt.ProgressInterval) {
		m.opt.Progress(st)
		m.lastProgress = now
	}
	if !done && (ctx.Err() != nil || (!m.opt.Deadline.IsZero() && now.After(m.opt.Deadline)) ||
		(m.opt.NodeLimit > 0 && st.Nodes >= m.opt.NodeLimit)) {
		m.stopped = true
	}
}

func (m *many) workers() int {
	n := 0
	for _, u := range m.units {
		n += u.Workers
	}
	return n
}

// Status sums the devices' states. m.mu held (or every unit finished).
func (m *many) status() Status {
	st := Status{Incumbent: m.inc, Pooled: len(m.pool), Elapsed: time.Since(m.start), Tail: m.tail,
		Devices: len(m.units), Moved: m.moved}
	for _, s := range m.per {
		st.Nodes += s.nodes
		st.Active += s.active
		st.Queued += s.queued
		st.Donated += s.donated
		st.Epochs = max(st.Epochs, s.epochs)
		st.Budget = max(st.Budget, s.budget)
	}
	return st
}
