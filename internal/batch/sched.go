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
// of its kind (0-based).
type Slot struct {
	Device bool
	ID     int
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
// returned, with the number started. With no slot at all, one CPU slot
// runs.
func Run(ctx context.Context, jobs []Job, cpu, dev int, run func(ctx context.Context, j Job, s Slot)) int {
	if cpu <= 0 && dev <= 0 {
		cpu = 1
	}
	order := Order(jobs)
	var mu sync.Mutex
	lo, hi, started := 0, len(order)-1, 0
	take := func(back bool) (Job, bool) {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil || lo > hi {
			return Job{}, false
		}
		started++
		if back {
			hi--
			return order[hi+1], true
		}
		lo++
		return order[lo-1], true
	}
	var wg sync.WaitGroup
	slot := func(s Slot) {
		for {
			j, ok := take(s.Device)
			if !ok {
				return
			}
			run(ctx, j, s)
		}
	}
	for i := range max(cpu, 0) {
		wg.Go(func() { slot(Slot{ID: i}) })
	}
	for i := range max(dev, 0) {
		wg.Go(func() { slot(Slot{Device: true, ID: i}) })
	}
	wg.Wait()
	return started
}
