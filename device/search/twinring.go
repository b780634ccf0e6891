package search

// TwinRing: the Go twin of devsearch.cl's ring, for the CPU backend's twins.

import (
	"runtime"
	"sync/atomic"
)

// TwinRing is the Go twin of devsearch.cl's ring over the memory of CPU
// backend buffers. Work-groups run as concurrent goroutines there, so the
// control and sequence words are used through sync/atomic only, which
// also orders the plain slot reads and writes around them.
type TwinRing struct {
	Slots []uint64
	Seq   []uint32
	Ctrl  []uint32
	Cap   uint32
	TaskW int
}

func (r *TwinRing) Slot(pos uint32) []uint64 {
	i := int(pos&(r.Cap-1)) * r.TaskW
	return r.Slots[i : i+r.TaskW]
}

func (r *TwinRing) ReservePush() (uint32, bool) {
	for tries := 0; tries < 64; tries++ {
		pos := atomic.LoadUint32(&r.Ctrl[DSTail])
		s := atomic.LoadUint32(&r.Seq[pos&(r.Cap-1)])
		switch diff := int32(s - pos); {
		case diff == 0:
			if atomic.CompareAndSwapUint32(&r.Ctrl[DSTail], pos, pos+1) {
				return pos, true
			}
		case diff < 0:
			return 0, false
		}
	}
	return 0, false
}

func (r *TwinRing) CommitPush(pos uint32) { atomic.AddUint32(&r.Seq[pos&(r.Cap-1)], 1) }

// Donate is the twins' side of devsearch's donation: it finds the
// shallowest frame j below level for which has(j) holds (has may prune the
// frames it passes over, as the kernels do), reserves a slot and lets fill
// write the task for frame j into it. False when no frame has work to give
// or the ring is full (after the search, as in the kernels).
func (r *TwinRing) Donate(level int, has func(j int) bool, fill func(task []uint64, j int)) bool {
	j := -1
	for k := 0; k < level; k++ {
		if has(k) {
			j = k
			break
		}
	}
	if j < 0 {
		return false
	}
	pos, ok := r.ReservePush()
	if !ok {
		return false
	}
	fill(r.Slot(pos), j)
	r.CommitPush(pos)
	return true
}

func (r *TwinRing) reservePop() (uint32, bool) {
	for tries := 0; tries < 64; tries++ {
		pos := atomic.LoadUint32(&r.Ctrl[DSHead])
		s := atomic.LoadUint32(&r.Seq[pos&(r.Cap-1)])
		switch diff := int32(s - (pos + 1)); {
		case diff == 0:
			if atomic.CompareAndSwapUint32(&r.Ctrl[DSHead], pos, pos+1) {
				return pos, true
			}
		case diff < 0:
			return 0, false
		}
	}
	return 0, false
}

func (r *TwinRing) CommitPop(pos uint32) { atomic.AddUint32(&r.Seq[pos&(r.Cap-1)], r.Cap-1) }

func (r *TwinRing) queued() int32 {
	return int32(atomic.LoadUint32(&r.Ctrl[DSTail]) - atomic.LoadUint32(&r.Ctrl[DSHead]))
}

func (r *TwinRing) Add(word int, delta int32) { atomic.AddUint32(&r.Ctrl[word], uint32(delta)) }

func (r *TwinRing) Load(word int) int32 { return int32(atomic.LoadUint32(&r.Ctrl[word])) }

// MaxInc raises the incumbent word to at least m.
func (r *TwinRing) MaxInc(m int32) {
	for {
		old := atomic.LoadUint32(&r.Ctrl[DSInc])
		if int32(old) >= m || atomic.CompareAndSwapUint32(&r.Ctrl[DSInc], old, uint32(m)) {
			return
		}
	}
}

// tryTake is the twin of devsearch.cl's ds_try_take: the position of a
// task now owned, or ok false with the number of workers still running.
func (r *TwinRing) tryTake(waiting bool) (pos uint32, ok bool, running int32) {
	pos, ok = r.reservePop()
	if !ok {
		if !waiting {
			r.Add(DSHungry, 1)
		}
		return 0, false, r.Load(DSRunning)
	}
	if waiting {
		r.Add(DSHungry, -1)
	}
	r.Add(DSRunning, 1)
	return pos, true, 1
}

// Resume is the twin of ds_resume: the status words the last launch
// saved, less DSWBase (whose meaning is the kernel's: each twin reads it
// itself), and a worker that still holds a task counts as running again.
func (r *TwinRing) Resume(st []int64) (nodes int64, active bool, level, phase int, donated, taken int64) {
	nodes, active = st[DSWNodes], st[DSWActive] != 0
	level, phase = int(st[DSWLevel]), int(st[DSWPhase])
	donated, taken = st[DSWDonated], st[DSWTaken]
	if active {
		r.Add(DSRunning, 1)
	}
	return nodes, active, level, phase, donated, taken
}

// Leave is the twin of ds_leave: the level of the parent's next child,
// or, leaving the task's own root, level 0 and active false (the task is
// done).
func (r *TwinRing) Leave(level int) (int, bool) {
	if level > 0 {
		return level - 1, true
	}
	r.Add(DSRunning, -1)
	return 0, false
}

// Idle is an idle twin worker's attempt to take a task, the twin of
// ds_take: the position it took, or, when none was ready, whether to give
// up (after idleLimit tries, or once no worker that could donate is
// running). Between tries it yields, so that on few cores the busy
// workers run and see this one waiting (otherwise its polls are spent
// before anyone donates).
func (r *TwinRing) Idle(waiting *bool, polls *int32, idleLimit int32) (pos uint32, took, giveUp bool) {
	pos, ok, running := r.tryTake(*waiting)
	if ok {
		*waiting, *polls = false, 0
		return pos, true, false
	}
	*waiting = true
	*polls++
	if *polls >= idleLimit || running <= 0 {
		return 0, false, true
	}
	runtime.Gosched()
	return 0, false, false
}

// ShouldGive is the twin of ds_should_give.
func (r *TwinRing) ShouldGive() bool {
	hungry := r.Load(DSHungry)
	return hungry > 0 && r.queued() < hungry
}

// SaveStatus is the twin of ds_save_status.
func (r *TwinRing) SaveStatus(st []int64, nodes int64, active bool, level, phase, base int, donated, taken int64, waiting bool) {
	st[DSWNodes], st[DSWLevel], st[DSWPhase], st[DSWBase] = nodes, int64(level), int64(phase), int64(base)
	st[DSWDonated], st[DSWTaken] = donated, taken
	st[DSWActive] = 0
	if active {
		st[DSWActive] = 1
		r.Add(DSRunning, -1)
	} else if waiting {
		r.Add(DSHungry, -1)
	}
}
