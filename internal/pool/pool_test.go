package pool

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestTreeSearchEnds runs workers (Work) that expand a binary tree of
// depth 12 through the queue, giving a child away whenever another worker is
// hungry: every node must be visited exactly once, and Take must report
// the end once the tree is exhausted.
func TestTreeSearchEnds(t *testing.T) {
	const depth = 12
	for _, workers := range []int{1, 2, 4, 7} {
		var stop atomic.Bool
		var q Queue[int]
		q.Init(&stop)
		q.Start(workers, []int{0})
		var visited atomic.Int64
		var walk func(d int)
		walk = func(d int) {
			visited.Add(1)
			if d == depth {
				return
			}
			if q.Hungry() {
				q.Push(d + 1)
			} else {
				walk(d + 1)
			}
			walk(d + 1)
		}
		counted := q.Work(workers, func(int) (func(int), func() int64) {
			return walk, func() int64 { return 1 }
		})
		if counted != int64(workers) {
			t.Errorf("%d workers: Work summed %d, want one per worker", workers, counted)
		}
		if got, want := visited.Load(), int64(1<<(depth+1)-1); got != want {
			t.Errorf("%d workers: visited %d nodes, want %d", workers, got, want)
		}
		if workers == 1 && q.Given() != 0 {
			t.Errorf("1 worker gave %d subtrees away, want 0", q.Given())
		}
	}
}

// TestHaltWakesWaiters: workers waiting on an empty queue return when the
// search is halted, and the queued rest is kept for the caller.
func TestHaltWakesWaiters(t *testing.T) {
	var stop atomic.Bool
	var q Queue[string]
	q.Init(&stop)
	q.Start(3, nil)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := q.Take(); ok {
				t.Error("Take returned a subtree from an empty queue")
			}
		}()
	}
	q.Halt()
	wg.Wait()
	if !stop.Load() {
		t.Fatal("Halt did not set the stop flag")
	}
	q.Push("left")
	if _, ok := q.Take(); ok {
		t.Error("Take returned a subtree after Halt")
	}
	if r := q.Rest(); len(r) != 1 || r[0] != "left" {
		t.Errorf("Rest = %q, want [left]", r)
	}
}
