package mcs

import (
	"context"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/internal/halt"
	"github.com/arbor-gpu/arbor/internal/pool"
	"github.com/arbor-gpu/arbor/internal/ticker"
)

// shared is what the workers of one Solve share: the incumbent, the stop
// flag, the node count and, in parallel, the queue of given-away subtrees.
type shared struct {
	// Read at every node by every worker, written rarely: kept on their own
	// cache line, away from the node counter every worker adds to.
	best atomic.Int32 // size of inc
	stop atomic.Bool
	goal atomic.Int32
	_    [52]byte

	nodes    atomic.Int64
	branched atomic.Int64 // nodes that branched: RRSplit counts only these
	limit    int64
	// Dead-end detection (Options.DeadEnd): halt once deadEnd nodes pass
	// without a better incumbent, saying so in deadHit.
	deadEnd    int64
	improvedAt atomic.Int64
	deadHit    atomic.Bool
	targets    int // target searches run (only the coordinating goroutine writes it)
	_          [24]byte

	mu  sync.Mutex
	inc []pair
	// frozen (Options.Goal): best stays Goal−1 for pruning; inc still
	// keeps the largest solution found, whose size found mirrors.
	frozen bool
	found  atomic.Int32

	// Work sharing: the queue of given-away subtrees, each named by its path.
	q pool.Queue[[]op]

	// Subtree solving (subtree.go): collect makes a worker stopped by the
	// node limit keep what it had not explored in rest, and onImprove
	// hears of every new incumbent.
	collect   bool
	restMu    sync.Mutex
	rest      [][]op
	onImprove func([]pair)
}

func newShared(limit int64) *shared {
	sh := &shared{limit: limit}
	sh.q.Init(&sh.stop)
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
		sh.improvedAt.Store(sh.nodes.Load())
	}
	sh.mu.Unlock()
	if improved && sh.onImprove != nil {
		sh.onImprove(slices.Clone(cur))
	}
}

// halt asks every worker to stop and wakes the waiting ones.
func (sh *shared) halt() { sh.q.Halt() }

// donate gives away one not-yet-started child of the shallowest node on
// this worker's path that has one, in the order the sequential search
// would take them: its next candidate w, or once none is left, its
// "v unmatched" continuation. Following the sequential order keeps the
// incumbent as strong as the sequential search's where it matters.
func (w *worker[C]) donate(depth int) {
	for k := 0; k < depth; k++ {
		f := &w.frames[k]
		if f.next < f.end {
			w.sh.q.Push(appendOp(w.path[:f.pathLen], op{f.v, f.ws[f.next]}))
			f.next++
			return
		}
		if !f.skipGiven {
			f.skipGiven = true
			w.sh.q.Push(appendOp(w.path[:f.pathLen], op{f.v, -1}))
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
	return p.runShared(ctx, p.newShared(), threads, start)
}

// newShared makes the shared state of one Solve of p.
func (p *problem[C]) newShared() *shared {
	sh := newShared(p.opts.NodeLimit)
	if p.opts.Goal > 0 {
		sh.frozen = true
		sh.best.Store(int32(p.opts.Goal - 1))
	} else if p.opts.Floor > 0 {
		sh.best.Store(int32(p.opts.Floor - 1))
	}
	return sh
}

// raise lifts the incumbent size to b, found elsewhere (the portfolio's
// other engines, a cluster's other processes): the search prunes with it,
// and inc keeps this search's own best.
func (sh *shared) raise(b int32) {
	if sh.frozen || b <= sh.best.Load() {
		return
	}
	sh.mu.Lock()
	if b > sh.best.Load() {
		sh.best.Store(b)
	}
	sh.mu.Unlock()
}

// runShared is run with the shared state made by the caller.
func (p *problem[C]) runShared(ctx context.Context, sh *shared, threads int, start time.Time) Result {
	defer halt.OnDone(ctx, sh.halt)()
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
		if p.opts.DeadEnd > 0 {
			sh.deadEnd = p.opts.DeadEnd
		}
		if p.opts.Restarts {
			nodes = p.runRestarts(sh)
		} else {
			nodes = p.runGoal(sh, threads, 1)
		}
		if sh.deadHit.Load() {
			nodes += p.raiseTarget(ctx, sh, threads)
		}
	}
	res := Result{Size: len(sh.inc), Nodes: nodes, Branched: sh.branched.Load(), Proven: !sh.stop.Load(), Threads: threads, Shared: sh.q.Given(), Targets: sh.targets}
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
		w.explore(w.rebuild(nil))
		w.flush()
		return w.nodes
	}
	queue := [][]op{{}}
	var split int64
	// The seed is cut by expand, in the tree the workers search (pruned
	// or not: subtree_prune.go).
	if !sh.frozen && !p.opts.BigFirst {
		queue, split = p.seed(threads)
	}
	sh.q.Start(threads, queue)
	return runPool(sh, threads, func(int) *worker[C] { return p.newWorker(sh, goal, true) }) + split
}

// runPool runs threads workers (worker(t) makes the t-th) on sh's queue of
// subtrees until the search is over, and returns the nodes they counted.
func runPool[C cell](sh *shared, threads int, worker func(t int) *worker[C]) int64 {
	return sh.q.Work(threads, func(t int) (func([]op), func() int64) {
		w := worker(t)
		return func(task []op) { w.explore(w.rebuild(task)) }, w.finish
	})
}

// seedPerThread is how many subtrees per thread the parallel search starts
// from, in the order the sequential search visits them. Started from the
// root alone, the workers took the root's far children (what the first
// worker gives away first) and searched them under a weak incumbent while
// the sequential order's good solutions lay deep in the first child: on
// mcs90_b03m_s70.A02, 16 threads took 11.0 s (579 M nodes) against 13.4 s
// for one. Taking the subtrees largest bound first instead fixed that pair
// (1.0 s) and broke others that the sequential order solves at once
// (mcs90_r005_s90.A00: 1.6 s sequential, no proof in 60 s): the degree
// order's first candidates are a better guide than the bound.
const seedPerThread = 64

// seed splits the top of the tree into about seedPerThread·threads
// subtrees, in the sequential search's order, as the queue the workers
// start from, and returns the number of nodes split on the way (counted
// as searched). A goal (frozen incumbent) or McSplit↓ search starts from
// the root: their node counts must equal the sequential search's.
func (p *problem[C]) seed(threads int) ([][]op, int64) {
	subs, split, err := p.expand(nil, seedPerThread*threads, math.MaxInt)
	if err != nil || len(subs) == 0 {
		return [][]op{{}}, 0
	}
	queue := make([][]op, len(subs))
	for i, st := range subs {
		path := make([]op, len(st.Path))
		for j, x := range st.Path {
			path[j] = op{x.V, x.W}
		}
		queue[i] = path
	}
	slices.SortFunc(queue, searchOrder)
	return queue, split
}

// searchOrder compares two disjoint subtrees by when the sequential search
// enters them: at the first step where their paths part (the same vertex
// v, branched on by their common ancestor), the smaller candidate w comes
// first and "v unmatched" (w < 0) last.
func searchOrder(a, b []op) int {
	for i := 0; i < min(len(a), len(b)); i++ {
		x, y := a[i].w, b[i].w
		if x == y {
			continue
		}
		switch {
		case x < 0:
			return 1
		case y < 0:
			return -1
		case x < y:
			return -1
		}
		return 1
	}
	return len(a) - len(b)
}

// resume clears a dead-end halt so that the next search can run, unless
// the search was also stopped for good (cancelled, or out of nodes).
func (sh *shared) resume(ctx context.Context) bool {
	sh.deadHit.Store(false)
	sh.stop.Store(false)
	if ctx.Err() != nil || (sh.limit > 0 && sh.nodes.Load() >= sh.limit) {
		sh.halt()
		return false
	}
	sh.improvedAt.Store(sh.nodes.Load())
	return true
}

// raiseTarget is Options.DeadEnd's second phase, after the plain search
// went DeadEnd nodes without improving: searches with a target T above
// best+1, which prune every node whose bound is below T. Why it is exact:
// a target search that runs to the end either finds a solution of at
// least T, and then it has searched every node that could hold a larger
// one (their bounds exceed the final best ≥ T, so neither rule pruned
// them): best is optimal; or it finds none, and no solution of T or more
// exists (their nodes' bounds are ≥ T): the upper bound drops to T−1.
// A target search that dead-ends proves nothing (it may still improve
// best) and the target rises by the step (doubling with DoubleRaise);
// one at the upper bound runs to the end. After a failure the target is
// the middle of (best, upper bound]: a binary search. Each round either
// raises the target, which the upper bound caps, or lowers the upper
// bound, so it ends, with best equal to the upper bound.
func (p *problem[C]) raiseTarget(ctx context.Context, sh *shared, threads int) int64 {
	ub := 0
	for _, d := range p.doms {
		ub += int(min(d.ll, d.rl))
	}
	ub = min(ub, p.n0, p.n1)
	var nodes int64
	step := 1
	target := int(sh.best.Load()) + 1 + step
	for sh.resume(ctx) {
		best := int(sh.best.Load())
		if best >= ub {
			break
		}
		target = max(min(target, ub), best+1)
		sh.deadEnd = 0
		if target < ub {
			sh.deadEnd = p.opts.DeadEnd
		}
		sh.goal.Store(int32(target))
		sh.targets++
		nodes += p.runGoal(sh, threads, target)
		switch {
		case sh.deadHit.Load():
			if p.opts.DoubleRaise {
				step *= 2
			}
			target += step
		case sh.stop.Load():
			return nodes
		case int(sh.best.Load()) >= target:
			return nodes // proven optimal, see above
		default:
			ub = target - 1
			best = int(sh.best.Load())
			target = best + 1 + (ub-best)/2
		}
	}
	return nodes
}
