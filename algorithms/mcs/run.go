package mcs

import (
	"context"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/internal/ticker"
)

// shared is what the workers of one Solve share: the incumbent, the stop
// flag, the node count and, in parallel, the queue of given-away subtrees.
type shared struct {
	// Read at every node by every worker, written rarely: kept on their own
	// cache line, away from the node counter every worker adds to.
	best   atomic.Int32 // size of inc
	stop   atomic.Bool
	hungry atomic.Int32 // waiting workers − queued subtrees: someone needs work
	goal   atomic.Int32
	_      [48]byte

	nodes atomic.Int64
	limit int64
	_     [48]byte

	mu  sync.Mutex
	inc []pair
	// frozen (Options.Goal): best stays Goal−1 for pruning; inc still
	// keeps the largest solution found, whose size found mirrors.
	frozen bool
	found  atomic.Int32

	// Work sharing: the queue of given-away subtrees, each named by its path.
	qmu     sync.Mutex
	cond    *sync.Cond
	queue   [][]op
	given   atomic.Int64 // subtrees given away, for the result
	waiting int
	workers int
	done    bool

	// Subtree solving (subtree.go): collect makes a worker stopped by the
	// node limit keep what it had not explored in rest, and onImprove
	// hears of every new incumbent.
	collect   bool
	rest      [][]op
	onImprove func([]pair)
}

func newShared(limit int64) *shared {
	sh := &shared{limit: limit}
	sh.cond = sync.NewCond(&sh.qmu)
	return sh
}

// offer makes cur the incumbent if it is larger.
func (sh *shared) offer(cur []pair) {
	if sh.frozen {
		if int32(len(cur)) <= sh.found.Load() {
			return
		}
		sh.mu.Lock()
		if len(cur) > len(sh.inc) {
			sh.inc = append(sh.inc[:0], cur...)
			sh.found.Store(int32(len(cur)))
		}
		sh.mu.Unlock()
		return
	}
	sh.mu.Lock()
	improved := int32(len(cur)) > sh.best.Load()
	if improved {
		sh.inc = append(sh.inc[:0], cur...)
		sh.best.Store(int32(len(cur)))
	}
	sh.mu.Unlock()
	if improved && sh.onImprove != nil {
		sh.onImprove(slices.Clone(cur))
	}
}

// raise lifts the pruning bar to k, a size found elsewhere (another
// process of a cluster); inc keeps what this search found itself.
func (sh *shared) raise(k int32) {
	for {
		b := sh.best.Load()
		if k <= b || sh.best.CompareAndSwap(b, k) {
			return
		}
	}
}

// halt asks every worker to stop and wakes the waiting ones.
func (sh *shared) halt() {
	sh.stop.Store(true)
	sh.qmu.Lock()
	sh.cond.Broadcast()
	sh.qmu.Unlock()
}

func (sh *shared) updateHungry() { sh.hungry.Store(int32(sh.waiting - len(sh.queue))) }

// push queues a subtree named by its path from the root.
func (sh *shared) push(t []op) {
	sh.given.Add(1)
	sh.qmu.Lock()
	sh.queue = append(sh.queue, t)
	sh.updateHungry()
	sh.cond.Signal()
	sh.qmu.Unlock()
}

// take waits for a subtree; it returns false when the search is over:
// every worker waits and nothing is queued, or the search was stopped.
func (sh *shared) take() ([]op, bool) {
	sh.qmu.Lock()
	defer sh.qmu.Unlock()
	for len(sh.queue) == 0 && !sh.done && !sh.stop.Load() {
		sh.waiting++
		if sh.waiting == sh.workers {
			sh.done = true
			sh.cond.Broadcast()
			return nil, false
		}
		sh.updateHungry()
		sh.cond.Wait()
		sh.waiting--
	}
	if sh.done || sh.stop.Load() {
		return nil, false
	}
	t := sh.queue[0]
	sh.queue = sh.queue[1:]
	sh.updateHungry()
	return t, true
}

// donate gives away one not-yet-started child of the shallowest node on
// this worker's path that has one, in the order the sequential search
// would take them: its next candidate w, or once none is left, its
// "v unmatched" continuation. Following the sequential order keeps the
// incumbent as strong as the sequential search's where it matters.
func (w *worker[C]) donate(depth int) {
	for k := 0; k < depth; k++ {
		f := &w.frames[k]
		if f.next < f.end {
			w.sh.push(appendOp(w.path[:f.pathLen], op{f.v, f.ws[f.next]}))
			f.next++
			return
		}
		if !f.skipGiven {
			f.skipGiven = true
			w.sh.push(appendOp(w.path[:f.pathLen], op{f.v, -1}))
			return
		}
	}
}

func appendOp(path []op, o op) []op {
	t := make([]op, len(path)+1)
	copy(t, path)
	t[len(path)] = o
	return t
}

// run solves the prepared problem with the given number of workers.
func (p *problem[C]) run(ctx context.Context, threads int, start time.Time) Result {
	sh := newShared(p.opts.NodeLimit)
	if p.opts.Goal > 0 {
		sh.frozen = true
		sh.best.Store(int32(p.opts.Goal - 1))
	}
	stopWatch := context.AfterFunc(ctx, sh.halt)
	defer stopWatch()
	if ctx.Err() != nil {
		sh.halt()
	}
	if p.opts.Progress != nil {
		defer ticker.Every(p.opts.ProgressInterval, func() {
			p.opts.Progress(Progress{Incumbent: int(sh.best.Load()), Goal: int(sh.goal.Load()),
				Nodes: sh.nodes.Load(), Elapsed: time.Since(start)})
		})()
	}

	var nodes int64
	if p.opts.BigFirst {
		// McSplit↓: goals |G|, |G|−1, …; the incumbent carries over.
		for goal := p.n0; goal >= 1; goal-- {
			sh.goal.Store(int32(goal))
			nodes += p.runGoal(sh, threads, goal)
			if int(sh.best.Load()) == goal || sh.stop.Load() {
				break
			}
		}
	} else {
		nodes = p.runGoal(sh, threads, 1)
	}
	res := Result{Size: len(sh.inc), Nodes: nodes, Proven: !sh.stop.Load(), Threads: threads, Shared: sh.given.Load()}
	for _, pr := range sh.inc {
		res.Mapping = append(res.Mapping, [2]int{p.order0[pr.v], p.order1[pr.w]})
	}
	sort.Slice(res.Mapping, func(i, j int) bool { return res.Mapping[i][0] < res.Mapping[j][0] })
	return res
}

// runGoal runs one search from the root and returns its node count.
func (p *problem[C]) runGoal(sh *shared, threads, goal int) int64 {
	if threads <= 1 {
		w := p.newWorker(sh, goal, false)
		w.search(0, w.rebuild(nil))
		w.flush()
		return w.nodes
	}
	sh.qmu.Lock()
	sh.queue = [][]op{{}}
	sh.workers, sh.waiting, sh.done = threads, 0, false
	sh.updateHungry()
	sh.qmu.Unlock()
	var wg sync.WaitGroup
	var total atomic.Int64
	for t := 0; t < threads; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := p.newWorker(sh, goal, true)
			for {
				task, ok := sh.take()
				if !ok {
					break
				}
				w.search(0, w.rebuild(task))
			}
			w.flush()
			total.Add(w.nodes)
		}()
	}
	wg.Wait()
	return total.Load()
}
