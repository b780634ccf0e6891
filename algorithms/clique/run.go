package clique

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/internal/halt"
	"github.com/arbor-gpu/arbor/internal/pool"
	"github.com/arbor-gpu/arbor/internal/ticker"
)

// task is a subtree given from one worker to another: the clique chosen on
// the path from the root and the candidate set that goes with it.
type task struct {
	clique []int32
	p      []uint64
}

// shared is what the workers of one search share: the incumbent, the stop
// flag, the node count and, in parallel, the queue of given-away subtrees.
type shared struct {
	// Read at every node by every worker, written rarely: kept on their own
	// cache line, away from the node counter every worker adds to.
	best atomic.Int32 // size of inc
	stop atomic.Bool
	_    [56]byte

	nodes atomic.Int64
	limit int64
	_     [48]byte

	mu  sync.Mutex
	inc []int32

	q pool.Queue[task] // parallel: the subtrees given away
}

func newShared(limit int64) *shared {
	sh := &shared{limit: limit}
	sh.q.Init(&sh.stop)
	return sh
}

// offer makes c the incumbent if it is larger.
func (sh *shared) offer(c []int32) {
	sh.mu.Lock()
	if int32(len(c)) > sh.best.Load() {
		sh.inc = append(sh.inc[:0], c...)
		sh.best.Store(int32(len(c)))
	}
	sh.mu.Unlock()
}

// halt asks every worker to stop and wakes the waiting ones.
func (sh *shared) halt() { sh.q.Halt() }

// run searches from the root with the given number of workers.
func (p *problem) run(ctx context.Context, threads int, start time.Time) Result {
	sh := newShared(p.opts.NodeLimit)
	sh.offer(p.init)
	defer halt.OnDone(ctx, sh.halt)()
	if p.opts.Progress != nil {
		defer ticker.Every(p.opts.ProgressInterval, func() {
			p.opts.Progress(Progress{Incumbent: int(sh.best.Load()), UpperBound: p.ub,
				Nodes: sh.nodes.Load(), Elapsed: time.Since(start)})
		})()
	}

	root := task{p: make([]uint64, p.words)}
	for v := 0; v < p.n; v++ {
		root.p[v>>6] |= 1 << (uint(v) & 63)
	}
	var nodes int64
	// The heuristic clique may already meet the degeneracy bound.
	if p.n > 0 && int(sh.best.Load()) < p.ub && !sh.stop.Load() {
		nodes = p.search(sh, threads, root)
	}
	res := Result{Size: len(sh.inc), UpperBound: p.ub, Nodes: nodes, Proven: !sh.stop.Load() || len(sh.inc) >= p.ub,
		Threads: threads, Shared: sh.q.Given(), Clique: make([]int, len(sh.inc))}
	for i, v := range sh.inc {
		res.Clique[i] = p.order[v]
	}
	slices.Sort(res.Clique)
	if res.Proven {
		res.UpperBound = res.Size
	}
	return res
}

// search runs the workers over the tree under root and returns the nodes.
func (p *problem) search(sh *shared, threads int, root task) int64 {
	if threads <= 1 {
		w := p.newWorker(sh, false)
		w.start(root)
		w.flush()
		return w.nodes
	}
	sh.q.Start(threads, []task{root})
	return sh.q.Work(threads, func(int) (func(task), func() int64) {
		w := p.newWorker(sh, true)
		return w.start, func() int64 { w.flush(); return w.nodes }
	})
}

// start searches the subtree of t.
func (w *worker) start(t task) {
	w.clique = append(w.clique[:0], t.clique...)
	copy(w.frame(0).p, t.p)
	w.expand(0)
}
