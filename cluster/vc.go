package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
)

// Minimum vertex cover over the cluster. A task is a path of branching
// decisions on input vertices from the whole graph: (v, 1) puts v in the
// cover, (v, 0) leaves v out and so puts its live neighbours in; what is
// left is the residual graph, which a worker hands to the local engine
// (vertexcover.Solve, all its reductions and bounds) asking for covers
// smaller than the incumbent allows (Options.Below). A task that runs over
// its node budget branches the residual graph breadth first into up to
// vcFanout children and publishes them: the search it did is lost (at most
// the budget), the subtree is covered by the children. The job starts as
// one task, the whole graph: an instance the reductions settle never gets
// split (the engine's reductions beat any branching done before them).

// vcFanout is how many children a vc task that runs over its budget
// splits into: enough for the workers to fill up after a few splits.
const vcFanout = 16

// Defaults of a vc job: one root; nodes of the vertex cover engine cost
// about 100 times those of McSplit.
const (
	vcDefaultTasks  = 1
	vcDefaultBudget = 20_000
)

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

func init() { RegisterCodec("vc", vcCodec{}) }

// vcCodec is the codec of problem "vc".
type vcCodec struct{}

func (vcCodec) Minimize() bool { return true }

func (vcCodec) CheckInstance(graphs []*core.Graph) error {
	if len(graphs) != 1 {
		return fmt.Errorf("a vertex cover instance of %d graphs", len(graphs))
	}
	return vcGraphOK(graphs[0])
}

func (vcCodec) Open(graphs []*core.Graph, _ MCSOptions) (Job, error) {
	return &vcJob{g: graphs[0]}, nil
}

// vcJob is a vertex cover job: its graph.
type vcJob struct{ g *core.Graph }

// Trivial: every vertex is a cover from the outset.
func (j *vcJob) Trivial() int { return j.g.N }

func (j *vcJob) Verify(r *Record) error {
	if !r.Found || len(r.Mapping) > 0 {
		return errors.New("not a vertex cover record")
	}
	return vertexcover.Verify(j.g, r.Cover)
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

// vcExpand branches breadth first from the node at path until there are
// at least target nodes (or paths of maxDepth decisions), returning the
// paths of the nodes, none of whose forced covers reaches best.
func vcExpand(g *core.Graph, path [][2]int32, target, maxDepth, best int) ([][][2]int32, error) {
	queue := [][][2]int32{path}
	var final [][][2]int32
	for len(queue) > 0 && len(queue)+len(final) < target {
		p := queue[0]
		queue = queue[1:]
		alive, forced, err := vcApply(g, p)
		if err != nil {
			return nil, err
		}
		if len(forced) >= best {
			continue // no better cover below
		}
		r, ids, err := vcResidual(g, alive)
		if err != nil {
			return nil, err
		}
		if r.N == 0 || len(p) >= maxDepth {
			final = append(final, p)
			continue
		}
		queue = append(queue, vcChildren(p, r, ids)...)
	}
	return append(final, queue...), nil
}

// vcTasks makes the tasks of paths with task (Task.Child of the node's
// parent, or Run's root), smallest forced cover first (the likeliest to
// hold the optimum).
func vcTasks(g *core.Graph, paths [][][2]int32, task func([][2]int32, int, int) Task, incumbent int) ([]Task, error) {
	var tasks []Task
	for _, p := range paths {
		_, forced, err := vcApply(g, p)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, task(p, len(forced), incumbent))
	}
	slices.SortStableFunc(tasks, func(a, b Task) int { return a.Bound - b.Bound })
	return tasks, nil
}

// SolveVC finds a minimum vertex cover of g on the workers of the cluster
// at cfg.URL, as SolveMCS does a common subgraph: a job of Run.
func SolveVC(ctx context.Context, cfg CoordinatorConfig, g *core.Graph) (Result, error) {
	all := make([]int, g.N)
	for v := range all {
		all[v] = v
	}
	vj := &vcJob{g: g}
	if cfg.Tasks <= 0 {
		cfg.Tasks = vcDefaultTasks
	}
	if cfg.Budget <= 0 {
		cfg.Budget = vcDefaultBudget
	}
	return Run(ctx, cfg, JobSpec{
		Problem: "vc", Graphs: []*core.Graph{g},
		Start: &Record{Found: true, Size: g.N, Cover: all},
		Roots: func(cfg CoordinatorConfig, root func([][2]int32, int, int) Task) ([]Task, error) {
			paths, err := vcExpand(g, nil, cfg.Tasks, cfg.MaxDepth, g.N+1)
			if err != nil {
				return nil, err
			}
			return vcTasks(g, paths, root, g.N)
		},
		Verify: vj.Verify,
		// The coordinator's own cover: the engine's first cover (greedy and
		// local search) and a short search.
		Canary: func(ctx context.Context) *Record {
			res, err := vertexcover.Solve(ctx, g, vertexcover.Options{Threads: 1, NodeLimit: 200, LocalSearch: 20 * time.Millisecond})
			if err != nil || res.Cover == nil {
				return nil
			}
			return &Record{Found: true, Size: len(res.Cover), Cover: res.Cover}
		},
		Weaken: func(r *Record) *Record {
			// A vertex more: the first one outside the cover.
			in := make([]bool, g.N)
			for _, v := range r.Cover {
				in[v] = true
			}
			for v := range in {
				if !in[v] {
					c := append(slices.Clone(r.Cover), v)
					slices.Sort(c)
					return &Record{Found: true, Size: len(c), Cover: c}
				}
			}
			return nil
		},
	})
}

// Solve searches a vc task on the slot's device or CPU: covers of its
// residual graph that beat the incumbent, until none is left (done) or the
// node budget runs out (then it branches and hands over children).
func (j *vcJob) Solve(ctx context.Context, run *TaskRun) error {
	t := run.Task
	alive, forced, err := vcApply(j.g, t.Path)
	if err != nil {
		return BadTask(err)
	}
	r, ids, err := vcResidual(j.g, alive)
	if err != nil {
		return BadTask(err)
	}

	found := Record{}
	below := run.Best() - len(forced) // residual covers must be smaller to improve
	if below <= 0 {
		return run.Complete(ctx, nil, found) // forced alone is no better
	}
	offer := func(cover []int) {
		found = Record{Found: true, Size: len(cover), Cover: cover}
		run.Improved(found)
	}
	if r.N == 0 {
		offer(slices.Sorted(slices.Values(forced)))
		return run.Complete(ctx, nil, found)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var over atomic.Bool
	opts := vertexcover.Options{Below: below, Threads: run.Threads, LocalSearch: -1, ProgressEvery: 5 * time.Millisecond}
	budget := run.Budget()
	if run.Device != nil {
		// The device engine; its dense kernels go to the clique engine's
		// device search, as on one machine.
		opts.Engine, opts.Devices, opts.Workers = vertexcover.EngineGPU, []backend.Device{run.Device}, run.DeviceWorkers
	}
	switch {
	case budget > 0 && run.Device == nil:
		// Counted in the search itself: a task that finishes between
		// progress ticks still stops at its budget.
		opts.NodeLimit = budget
	case budget > 0:
		opts.Progress = func(p vertexcover.Progress) {
			if p.Nodes >= budget {
				over.Store(true)
				cancel()
			}
		}
	}
	res, err := vertexcover.Solve(sctx, r, opts)
	if err != nil {
		return BadTask(err)
	}
	if res.Cover != nil && len(res.Cover) < below {
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
	found.Nodes = res.Nodes
	if res.Proven && !over.Load() {
		return run.Complete(ctx, nil, found)
	}
	// Over budget: branch, and leave the children to the cluster.
	best := run.Best()
	paths, err := vcExpand(j.g, t.Path, vcFanout, len(t.Path)+8, best)
	if err != nil {
		return err
	}
	children, err := vcTasks(j.g, paths, t.Child, best)
	if err != nil {
		return err
	}
	return run.Complete(ctx, children, found)
}
