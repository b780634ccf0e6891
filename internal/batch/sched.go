// Package batch runs many independent instances in one process: a list
// parser (ParseList) and a scheduler (Run) that orders instances by a
// cheap bound and feeds two kinds of slot from the two ends of that order.
//
// Why two ends: a device search pays a fixed cost per launch and wins on
// long searches, a single CPU thread answers a small instance in
// microseconds. The device slots take the largest-bound instances first
// and the CPU slots the smallest, so each works where it is best and they
// meet somewhere in the middle, whatever the mix; neither waits for the
// other to decide a split in advance.
package batch

import (
	"context"
	"slices"
	"sync"
)

// Job is an instance as the scheduler sees it: its index in the caller's
// list and a cheap bound on its difficulty (larger: harder).
type Job struct {
	Index int
	Bound int64
}

// Slot says where a job runs: a CPU slot or a device slot, and which one
// of its kind (0-based). HandedOff says a CPU slot handed the job on
// (RunHandOff): it must now run to its end.
type Slot struct {
	Device    bool
	ID        int
	HandedOff bool
}

// Order returns jobs sorted by bound, ascending; equal bounds keep index
// order, so the order is deterministic whatever the input order.
func Order(jobs []Job) []Job {
	out := slices.Clone(jobs)
	slices.SortStableFunc(out, func(a, b Job) int {
		if a.Bound != b.Bound {
			if a.Bound < b.Bound {
				return -1
			}
			return 1
		}
		return a.Index - b.Index
	})
	return out
}

// Run runs every job once on cpu CPU slots and dev device slots, each slot
// a goroutine calling run for one job at a time: CPU slots take jobs from
// the small end of Order, device slots from the large end. Once ctx is
// cancelled no job is started (the running ones get the cancelled ctx and
// are expected to return soon); Run returns when every started job has
// returned, with the number that ran. With no slot at all, one CPU slot
// runs.
func Run(ctx context.Context, jobs []Job, cpu, dev int, run func(ctx context.Context, j Job, s Slot)) int {
	return RunHandOff(ctx, jobs, cpu, dev, func(ctx context.Context, j Job, s Slot) bool {
		run(ctx, j, s)
		return false
	})
}

// RunHandOff is Run in which a CPU slot may hand a job on to the device
// slots (run returns true: it did not settle the job in the short time
// the caller gives a CPU slot). Handed-off jobs go before the large end:
// the cheap bound only guesses at difficulty, and a job a single thread
// has not settled quickly is one the device's fixed cost per search is
// worth paying for. A device slot waits while a CPU slot may still hand
// something on; with no device slot nothing is handed on (run's return is
// ignored and the job counts as done). It returns the number of jobs that
// ran to their end (a job handed on but never run again, because ctx was
// cancelled, is not among them).
func RunHandOff(ctx context.Context, jobs []Job, cpu, dev int, run func(ctx context.Context, j Job, s Slot) (handOff bool)) int {
	if cpu <= 0 && dev <= 0 {
		cpu = 1
	}
	cpu, dev = max(cpu, 0), max(dev, 0)
	order := Order(jobs)
	var mu sync.Mutex
	wake := sync.NewCond(&mu)
	stopWatch := context.AfterFunc(ctx, func() {
		mu.Lock()
		wake.Broadcast()
		mu.Unlock()
	})
	defer stopWatch()
	lo, hi, done := 0, len(order)-1, 0
	var handed []Job
	cpuBusy := 0 // CPU slots running a job they may hand on
	take := func(s Slot) (Job, Slot, bool) {
		mu.Lock()
		defer mu.Unlock()
		for {
			switch {
			case ctx.Err() != nil:
				return Job{}, s, false
			case s.Device && len(handed) > 0:
				j := handed[0]
				handed = handed[1:]
				s.HandedOff = true
				return j, s, true
			case lo <= hi && s.Device:
				hi--
				s.HandedOff = false
				return order[hi+1], s, true
			case lo <= hi:
				lo++
				if dev > 0 {
					cpuBusy++
				}
				return order[lo-1], s, true
			case s.Device && cpuBusy > 0:
				wake.Wait() // a CPU slot may still hand a job on
			default:
				return Job{}, s, false
			}
		}
	}
	// Each device slot takes its first job (from the large end) before any
	// slot starts: however fast the CPU slots are, the device slots get
	// the largest jobs, as the order promises, and not only what is left
	// once their goroutines happen to be scheduled.
	first := make([]*Job, dev)
	for i := range first {
		if j, _, ok := take(Slot{Device: true, ID: i}); ok {
			first[i] = &j
		}
	}
	var wg sync.WaitGroup
	slot := func(s Slot, j0 *Job) {
		for {
			var j Job
			var ok bool
			if j0 != nil {
				j, s, ok, j0 = *j0, Slot{Device: s.Device, ID: s.ID}, true, nil
			} else {
				j, s, ok = take(s)
			}
			if !ok {
				return
			}
			handOff := run(ctx, j, s) && !s.Device && dev > 0
			mu.Lock()
			if !s.Device && dev > 0 {
				cpuBusy--
			}
			if handOff {
				handed = append(handed, j)
			} else {
				done++
			}
			wake.Broadcast()
			mu.Unlock()
		}
	}
	for i := range cpu {
		wg.Go(func() { slot(Slot{ID: i}, nil) })
	}
	for i := range dev {
		wg.Go(func() { slot(Slot{Device: true, ID: i}, first[i]) })
	}
	wg.Wait()
	return done
}
