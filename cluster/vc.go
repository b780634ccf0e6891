package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/core"
)

// Minimum vertex cover over the cluster. A task is a path of branching
// decisions on input vertices from the whole graph: (v, 1) puts v in the
// cover, (v, 0) leaves v out and so puts its live neighbours in; what is
// left is the residual graph, which a worker hands to the local engine
// (vertexcover.Solve, all its reductions and bounds) in parameterized mode:
// "a cover of the residual graph smaller than the incumbent allows", asked
// again with a smaller bound each time one is found. A task that runs over
// its node budget branches once more, on a vertex of largest residual
// degree, and publishes the two children: the search it did is lost (at
// most the budget), the subtree is covered by the children.

// vcGraphOK checks that g is a vertex cover instance.
func vcGraphOK(g *core.Graph) error {
	if g.Directed {
		return errors.New("vertex cover needs an undirected graph")
	}
	for v := 0; v < g.N; v++ {
		if slices.Contains(g.Neighbors(v), int32(v)) {
			return fmt.Errorf("vertex cover: a self-loop at vertex %d", v)
		}
	}
	return nil
}

func newVCJob(g *core.Graph) *jobState {
	return &jobState{problem: "vc", g: g, best: g.N, // every vertex: a cover from the outset
		better: func(a, b int) bool { return a < b },
		verify: func(r *Record) error {
			if !r.Found || len(r.Mapping) > 0 {
				return errors.New("not a vertex cover record")
			}
			return vertexcover.Verify(g, r.Cover)
		}}
}

// vcApply follows a path from the whole graph: the vertices still alive
// and the ones the path put in the cover. A step on a vertex no longer
// alive, or out of range, is an error.
func vcApply(g *core.Graph, path [][2]int32) (alive []bool, forced []int, err error) {
	alive = make([]bool, g.N)
	for v := range alive {
		alive[v] = true
	}
	for i, st := range path {
		v := int(st[0])
		if v < 0 || v >= g.N || !alive[v] || st[1] != 0 && st[1] != 1 {
			return nil, nil, fmt.Errorf("path step %d (%d, %d) names no live vertex and decision", i, st[0], st[1])
		}
		alive[v] = false
		if st[1] == 1 {
			forced = append(forced, v)
			continue
		}
		for _, u := range g.Neighbors(v) {
			if alive[u] {
				alive[u] = false
				forced = append(forced, int(u))
			}
		}
	}
	return alive, forced, nil
}

// vcResidual returns the subgraph induced by the live vertices that have a
// live neighbour (an isolated vertex is never needed in a cover), and its
// vertices' input ids.
func vcResidual(g *core.Graph, alive []bool) (*core.Graph, []int, error) {
	idx := make([]int32, g.N)
	var ids []int
	for v := 0; v < g.N; v++ {
		idx[v] = -1
		if !alive[v] {
			continue
		}
		for _, u := range g.Neighbors(v) {
			if alive[u] {
				idx[v] = int32(len(ids))
				ids = append(ids, v)
				break
			}
		}
	}
	b := core.NewBuilder(len(ids), false)
	for _, v := range ids {
		for _, u := range g.Neighbors(v) {
			if int(u) > v && idx[u] >= 0 {
				b.AddEdge(int(idx[v]), int(idx[u]))
			}
		}
	}
	r, err := b.Build()
	if err != nil {
		return nil, nil, fmt.Errorf("the residual graph: %w", err)
	}
	return r, ids, nil
}

// vcBranchVertex is a vertex of largest degree of r (the smallest on ties).
func vcBranchVertex(r *core.Graph) int {
	best := 0
	for v := 1; v < r.N; v++ {
		if r.Degree(v) > r.Degree(best) {
			best = v
		}
	}
	return best
}

// vcChildren are the two children of a node whose residual graph r (with
// input ids ids) has an edge.
func vcChildren(path [][2]int32, r *core.Graph, ids []int) [][][2]int32 {
	v := int32(ids[vcBranchVertex(r)])
	in := append(slices.Clone(path), [2]int32{v, 1})
	out := append(slices.Clone(path), [2]int32{v, 0})
	return [][][2]int32{in, out}
}

// vcRootTasks branches breadth first from the whole graph until there are
// at least cfg.Tasks tasks (or paths of cfg.MaxDepth decisions); the
// bound of a task is the size of the cover its path forces.
func vcRootTasks(g *core.Graph, hash, job string, cfg CoordinatorConfig) ([]Task, error) {
	queue := [][][2]int32{{}}
	var final [][][2]int32
	for len(queue) > 0 && len(queue)+len(final) < cfg.Tasks {
		path := queue[0]
		queue = queue[1:]
		alive, _, err := vcApply(g, path)
		if err != nil {
			return nil, err
		}
		r, ids, err := vcResidual(g, alive)
		if err != nil {
			return nil, err
		}
		if r.N == 0 || len(path) >= cfg.MaxDepth {
			final = append(final, path)
			continue
		}
		queue = append(queue, vcChildren(path, r, ids)...)
	}
	var roots []Task
	for _, path := range append(final, queue...) {
		_, forced, err := vcApply(g, path)
		if err != nil {
			return nil, err
		}
		roots = append(roots, Task{Protocol: protocol, Problem: "vc", Job: job, ID: vcTaskID(job, path), Instance: hash,
			Path: path, Bound: len(forced), Budget: cfg.Budget})
	}
	// Smallest forced cover first: the likeliest to hold the optimum.
	slices.SortStableFunc(roots, func(a, b Task) int { return a.Bound - b.Bound })
	return roots, nil
}

// SolveVC finds a minimum vertex cover of g on the workers of the cluster
// at cfg.URL, as SolveMCS does a common subgraph.
func SolveVC(ctx context.Context, cfg CoordinatorConfig, g *core.Graph) (Result, error) {
	if err := vcGraphOK(g); err != nil {
		return Result{}, err
	}
	data, hash, err := encodeInstance(instanceData{Problem: "vc", G: toData(g)})
	if err != nil {
		return Result{}, err
	}
	job := JobID(hash, MCSOptions{})
	all := make([]int, g.N)
	for v := range all {
		all[v] = v
	}
	vj := newVCJob(g)
	return runJob(ctx, cfg, jobSpec{
		data: data, hash: hash, job: job, minimize: true,
		start:  &Record{Found: true, Size: g.N, Cover: all},
		roots:  func(cfg CoordinatorConfig) ([]Task, error) { return vcRootTasks(g, hash, job, cfg) },
		verify: vj.verify,
	})
}

// solveVC searches a vc task: covers of its residual graph that beat the
// incumbent, until none is left (done) or the node budget runs out (then
// it branches and hands over two children).
func (w *worker) solveVC(ctx context.Context, msg jetstream.Msg, t *Task, j *jobState) error {
	alive, forced, err := vcApply(j.g, t.Path)
	if err != nil {
		return badTaskError{err}
	}
	r, ids, err := vcResidual(j.g, alive)
	if err != nil {
		return badTaskError{err}
	}
	stopBeat := w.heartbeats(msg, t)
	defer stopBeat()

	var nodes int64
	found := Record{}
	offer := func(cover []int) {
		if found.Found && len(cover) >= found.Size {
			return
		}
		found = Record{Found: true, Size: len(cover), Cover: cover}
		w.raiseBest(t.Job, len(cover))
		w.publishBest(t, Record{Found: true, Size: len(cover), Cover: cover})
	}
	split := false
	for {
		w.mu.Lock()
		k := j.best - 1 - len(forced) // residual covers must be ≤ k to improve
		w.mu.Unlock()
		if k < 0 {
			break
		}
		if r.N == 0 {
			offer(slices.Sorted(slices.Values(forced)))
			break
		}
		sctx, cancel := context.WithCancel(ctx)
		var over atomic.Bool
		opts := vertexcover.Options{Parameterized: true, K: k, Threads: w.cfg.Threads, LocalSearch: -1, ProgressEvery: 5 * time.Millisecond}
		if t.Budget > 0 {
			base := nodes
			opts.Progress = func(p vertexcover.Progress) {
				if base+p.Nodes >= t.Budget {
					over.Store(true)
					cancel()
				}
			}
		}
		res, err := vertexcover.Solve(sctx, r, opts)
		cancel()
		if err != nil {
			return badTaskError{err}
		}
		nodes += res.Nodes
		if res.Cover != nil {
			cover := slices.Clone(forced)
			for _, v := range res.Cover {
				cover = append(cover, ids[v])
			}
			slices.Sort(cover)
			offer(cover)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !res.Proven || over.Load() {
			split = true
			break
		}
		if res.Cover == nil {
			break // no cover of ≤ k: the subtree holds nothing better
		}
	}
	var children []Task
	if split {
		w.mu.Lock()
		best := j.best
		w.mu.Unlock()
		for _, p := range vcChildren(t.Path, r, ids) {
			_, f, err := vcApply(j.g, p)
			if err != nil {
				return err
			}
			if len(f) >= best {
				continue // forced alone is no better than the incumbent
			}
			children = append(children, Task{Protocol: protocol, Problem: "vc", Job: t.Job, ID: vcTaskID(t.Job, p),
				Instance: t.Instance, Path: p, Bound: len(f), Incumbent: best, Budget: t.Budget})
		}
	}
	found.Nodes = nodes
	return w.complete(ctx, msg, t, children, found)
}

// vcTaskID names a vc task by its path (decisions, not engine steps).
func vcTaskID(job string, path [][2]int32) string {
	return taskID(job, (&Task{Path: path}).steps())
}
