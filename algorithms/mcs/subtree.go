package mcs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/halt"
)

// Step is one decision on the way down the search tree, in the search's
// own vertex numbering (vertices sorted by degree, which Prepare makes the
// same way in every process): match V of the first graph to W of the
// second, or, with W = −1, leave V unmatched. A path of steps from the
// root names a subtree; it is what the parallel engine hands from one
// worker to another, and what a cluster task carries.
type Step struct{ V, W int32 }

// Subtask is a subtree named by its path, with an upper bound on the size
// of any solution inside it (the McSplit bound at its root).
type Subtask struct {
	Path  []Step
	Bound int
}

// SubtreeOptions says how to solve one subtree.
type SubtreeOptions struct {
	// Incumbent is the size of a solution known elsewhere: only larger
	// ones are looked for.
	Incumbent int
	// NodeBudget stops the search after about this many nodes (0: none);
	// what is left is returned as subtasks.
	NodeBudget int64
	// Threads: 0 uses every core.
	Threads int
	// Raise, when set, delivers sizes found elsewhere while the search runs;
	// they raise the bar. Closing it is allowed.
	Raise <-chan int
	// Improved, when set, is called with every new incumbent this search
	// finds (pairs of input vertex ids), from a search goroutine: it
	// should return quickly.
	Improved func(mapping [][2]int)
}

// SubtreeResult is what solving a subtree found.
type SubtreeResult struct {
	// Size and Mapping: the best solution found inside the subtree that
	// beats the incumbent (Size 0, Mapping nil when none did).
	Size    int
	Mapping [][2]int
	Nodes   int64
	// Rest lists the parts of the subtree left unexplored when the node
	// budget ran out, pruned against the final incumbent: together with
	// what was explored they cover the subtree. Empty when it was finished.
	Rest []Subtask
	// Cancelled: the context ended the search; Rest is then incomplete and
	// the subtree must be solved again.
	Cancelled bool
}

// Prepared is a pair of graphs prepared once for solving many subtrees of
// their search tree (a cluster worker keeps one per instance).
type Prepared struct {
	impl subtreeSolver
}

type subtreeSolver interface {
	expand(from []op, target, maxDepth int) ([]Subtask, int64, error)
	solveSubtree(ctx context.Context, path []op, so SubtreeOptions) (SubtreeResult, error)
}

// Prepare readies g and h for Expand and SolveSubtree. The search is the
// CPU engine's, in the tree opts.Prune chooses (every subtree of one
// instance must be solved with the same one: a path names a node of one
// tree): BigFirst and Goal are refused, Engine, Threads, Timeout and
// NodeLimit are ignored.
func Prepare(g, h *core.Graph, opts Options) (*Prepared, error) {
	if g == nil || h == nil {
		return nil, errors.New("mcs: nil graph")
	}
	if opts.BigFirst || opts.Goal > 0 {
		return nil, errors.New("mcs: subtree solving supports neither BigFirst nor a fixed goal")
	}
	if opts.Heuristic != MinMax && opts.Heuristic != MinProduct {
		return nil, fmt.Errorf("mcs: unknown heuristic %v", opts.Heuristic)
	}
	if opts.Prune != PruneNone && opts.Prune != PruneRR && opts.Prune != PruneRR2 {
		return nil, fmt.Errorf("mcs: unknown pruning %v", opts.Prune)
	}
	if g.N > maxVertices || h.N > maxVertices {
		return nil, fmt.Errorf("mcs: graphs of %d and %d vertices: McSplit handles at most %d", g.N, h.N, maxVertices)
	}
	if err := CheckMemory([]*core.Graph{g, h}, opts); err != nil {
		return nil, fmt.Errorf("mcs: %w", err)
	}
	cell := 1
	if opts.Directed || opts.EdgeLabels {
		cell = 4
	}
	if need := (g.N*g.N + h.N*h.N) * cell; need > maxMatrixBytes {
		return nil, fmt.Errorf("mcs: graphs of %d and %d vertices need %d MiB of adjacency matrices; the limit is %d MiB",
			g.N, h.N, need>>20, maxMatrixBytes>>20)
	}
	if opts.Directed || opts.EdgeLabels {
		p, err := newProblem[uint32](g, h, opts)
		if err != nil {
			return nil, err
		}
		p.usePrune()
		return &Prepared{p}, nil
	}
	p, err := newProblem[uint8](g, h, opts)
	if err != nil {
		return nil, err
	}
	p.usePrune()
	return &Prepared{p}, nil
}

// Expand splits the search tree into subtrees, breadth first from the
// root, until there are at least target of them (a few more: a node's
// children come together) or the nodes left are maxDepth decisions deep. The subtasks cover the whole tree (the search from the root
// explores nothing they do not), and are sorted by bound, largest first.
func (pr *Prepared) Expand(target, maxDepth int) ([]Subtask, error) {
	subs, _, err := pr.impl.expand(nil, target, maxDepth)
	return subs, err
}

// SolveSubtree searches the subtree at path. Paths come from Expand or an
// earlier SolveSubtree of the same instance and options; a path that does
// not name a node of the tree is an error.
func (pr *Prepared) SolveSubtree(ctx context.Context, path []Step, so SubtreeOptions) (SubtreeResult, error) {
	ops := make([]op, len(path))
	for i, s := range path {
		if s.W < -1 {
			return SubtreeResult{}, fmt.Errorf("mcs: path step %d: bad candidate %d", i, s.W)
		}
		ops[i] = op{s.V, s.W}
	}
	return pr.impl.solveSubtree(ctx, ops, so)
}

func toSteps(path []op) []Step {
	s := make([]Step, len(path))
	for i, o := range path {
		s[i] = Step{o.v, o.w}
	}
	return s
}

// choose is the bound and branching choice at the top of search: the
// node's bound, and the bidomain to branch on (−1 when none).
func (w *worker[C]) choose(doms []bidomain) (bound int32, chosen int) {
	m := int32(len(w.cur))
	bound, chosen = m, -1
	bestKey := uint64(math.MaxUint64)
	restrict := w.connected && m > 0
	for i := range doms {
		d := &doms[i]
		bound += min(d.ll, d.rl)
		if restrict && !d.adj {
			continue
		}
		size := max(d.ll, d.rl)
		if w.minProduct {
			size = d.ll * d.rl
		}
		if key := uint64(size)<<32 | uint64(d.minL); key < bestKey {
			bestKey, chosen = key, i
		}
	}
	return bound, chosen
}

// expand is Expand from the node at from (the root when empty); it also
// returns the number of nodes it split or dropped for a bound below 1
// (each one the search would have counted on its way to the subtasks).
// The subtasks are nodes of p's tree, pruned or not (children).
func (p *problem[C]) expand(from []op, target, maxDepth int) ([]Subtask, int64, error) {
	w := p.newWorker(newShared(0), 1, true)
	var split int64
	// Breadth first, one node at a time, so the count lands near target
	// instead of overshooting by a whole level.
	queue := [][]op{slices.Clone(from)}
	var final [][]op // leaves and nodes at maxDepth: not split further
	for len(queue) > 0 && len(queue)+len(final) < target {
		path := queue[0]
		queue = queue[1:]
		if len(path) >= maxDepth {
			final = append(final, path)
			continue
		}
		doms, err := w.follow(path)
		if err != nil {
			return nil, 0, err
		}
		bound, chosen := w.choose(doms)
		if bound < 1 {
			split++
			continue // nothing to find below
		}
		if chosen < 0 {
			final = append(final, path) // a leaf: its matching is its answer
			continue
		}
		split++
		for _, o := range w.subtreeSteps(doms, chosen) {
			queue = append(queue, appendOp(path, o))
		}
	}
	out := make([]Subtask, 0, len(final)+len(queue))
	for _, path := range append(final, queue...) {
		doms, err := w.follow(path)
		if err != nil {
			return nil, 0, err
		}
		bound, _ := w.choose(doms)
		if bound >= 1 {
			out = append(out, Subtask{Path: toSteps(path), Bound: int(bound)})
		} else {
			split++
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Bound > out[j].Bound })
	return out, split, nil
}

// keepRest records, for a worker stopped by the node limit at a node of
// the given depth, everything below its task root it has not explored: the
// node itself, and at every ancestor the candidates not yet started and
// the "v unmatched" continuation.
func (w *worker[C]) keepRest(depth int) {
	rest := [][]op{slices.Clone(w.path)}
	for k := 0; k < depth; k++ {
		f := &w.frames[k]
		for _, x := range f.ws[f.next:f.end] {
			rest = append(rest, appendOp(w.path[:f.pathLen], op{f.v, x}))
		}
		if !f.skipGiven {
			rest = append(rest, appendOp(w.path[:f.pathLen], op{f.v, -1}))
		}
	}
	w.sh.restMu.Lock()
	w.sh.rest = append(w.sh.rest, rest...)
	w.sh.restMu.Unlock()
}

func (p *problem[C]) mapping(cur []pair) [][2]int {
	m := make([][2]int, len(cur))
	for i, pr := range cur {
		m[i] = [2]int{p.order0[pr.v], p.order1[pr.w]}
	}
	sort.Slice(m, func(i, j int) bool { return m[i][0] < m[j][0] })
	return m
}

func (p *problem[C]) solveSubtree(ctx context.Context, path []op, so SubtreeOptions) (SubtreeResult, error) {
	sh := newShared(so.NodeBudget)
	sh.collect = true
	sh.best.Store(int32(max(so.Incumbent, 0)))
	if so.Improved != nil {
		sh.onImprove = func(cur []pair) { so.Improved(p.mapping(cur)) }
	}
	first := p.newWorker(sh, 1, true)
	if _, err := first.follow(path); err != nil {
		return SubtreeResult{}, err
	}
	threads := so.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	defer halt.OnDone(ctx, sh.halt)()
	finished := make(chan struct{})
	defer close(finished)
	if so.Raise != nil {
		go func() {
			for {
				select {
				case k, ok := <-so.Raise:
					if !ok {
						return
					}
					sh.raise(int32(k))
				case <-finished:
					return
				}
			}
		}()
	}

	sh.q.Start(threads, [][]op{slices.Clone(path)})
	nodes := runPool(sh, threads, func(t int) *worker[C] {
		if t == 0 {
			return first
		}
		return p.newWorker(sh, 1, true)
	})

	res := SubtreeResult{Size: len(sh.inc), Nodes: nodes, Cancelled: ctx.Err() != nil}
	if len(sh.inc) > 0 {
		res.Mapping = p.mapping(sh.inc)
	}
	// Subtrees still queued were given away but never taken.
	rest := append(sh.rest, sh.q.Rest()...)
	best := sh.best.Load()
	for _, r := range rest {
		doms, err := first.follow(r)
		if err != nil {
			return SubtreeResult{}, fmt.Errorf("mcs: a subtree left over is broken (a bug): %w", err)
		}
		if bound, _ := first.choose(doms); bound > best {
			res.Rest = append(res.Rest, Subtask{Path: toSteps(r), Bound: int(bound)})
		}
	}
	return res, nil
}
