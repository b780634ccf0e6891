// Package pool is the work-sharing queue of the parallel CPU tree
// searches (mcs's pair and k-graph engines, clique's): workers take
// subtrees from it, and a worker that sees another one waiting gives away
// one of its own not-yet-started children. The search is over when every
// worker waits and nothing is queued, or when it is stopped.
//
// A worker polls Hungry at every node, so the queue keeps that flag on a
// cache line of its own, away from the lock and the slice that Push and
// Take write.
package pool

import (
	"sync"
	"sync/atomic"
)

// Queue is a queue of subtrees of type T. The zero value is not ready:
// Init it with the search's stop flag, then Start it before the workers
// run. One Queue serves one search at a time; Start again for the next.
type Queue[T any] struct {
	hungry atomic.Int32 // waiting workers − queued subtrees: someone needs work
	_      [60]byte

	given   atomic.Int64
	stop    *atomic.Bool
	mu      sync.Mutex
	cond    sync.Cond
	items   []T
	waiting int
	workers int
	done    bool
}

// Init binds the queue to the search's stop flag, which Halt sets and
// Take watches.
func (q *Queue[T]) Init(stop *atomic.Bool) {
	q.stop = stop
	q.cond.L = &q.mu
}

// Start makes items the queue for workers workers (none of them waiting
// yet).
func (q *Queue[T]) Start(workers int, items []T) {
	q.mu.Lock()
	q.items = items
	q.workers, q.waiting, q.done = workers, 0, false
	q.updateHungry()
	q.mu.Unlock()
}

func (q *Queue[T]) updateHungry() { q.hungry.Store(int32(q.waiting - len(q.items))) }

// Hungry reports whether more workers wait than subtrees are queued: a
// worker that sees it should give one away.
func (q *Queue[T]) Hungry() bool { return q.hungry.Load() > 0 }

// Given is the number of subtrees pushed since Init.
func (q *Queue[T]) Given() int64 { return q.given.Load() }

// Halt sets the stop flag and wakes the waiting workers.
func (q *Queue[T]) Halt() {
	q.stop.Store(true)
	q.mu.Lock()
	q.cond.Broadcast()
	q.mu.Unlock()
}

// Push queues a subtree given away and wakes a waiting worker.
func (q *Queue[T]) Push(t T) {
	q.given.Add(1)
	q.mu.Lock()
	q.items = append(q.items, t)
	q.updateHungry()
	q.cond.Signal()
	q.mu.Unlock()
}

// Take waits for a subtree, oldest first. It returns false when the search
// is over: every worker waits and nothing is queued, or it was stopped.
func (q *Queue[T]) Take() (T, bool) {
	var none T
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.done && !q.stop.Load() {
		q.waiting++
		if q.waiting == q.workers {
			q.done = true
			q.cond.Broadcast()
			return none, false
		}
		q.updateHungry()
		q.cond.Wait()
		q.waiting--
	}
	if q.done || q.stop.Load() {
		return none, false
	}
	t := q.items[0]
	q.items = q.items[1:]
	q.updateHungry()
	return t, true
}

// Rest returns the subtrees still queued (after a stopped search: the work
// not done).
func (q *Queue[T]) Rest() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.items
}

// Work runs workers goroutines on the queue until the search is over.
// start(i), called before goroutine i starts, returns how it searches a
// subtree it takes and how it ends, returning its node count; Work waits
// for them all and returns the sum.
func (q *Queue[T]) Work(workers int, start func(i int) (search func(T), finish func() int64)) int64 {
	var wg sync.WaitGroup
	var total atomic.Int64
	for i := range workers {
		search, finish := start(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				t, ok := q.Take()
				if !ok {
					break
				}
				search(t)
			}
			total.Add(finish())
		}()
	}
	wg.Wait()
	return total.Load()
}
