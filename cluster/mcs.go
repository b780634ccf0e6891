package cluster

import (
	"context"
	"errors"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/core"
)

// McSplit maximum common induced subgraph over the cluster: the codec of
// problem "mcs". The coordinator's side is SolveMCS (coordinator.go); a
// task is a path of the search's decisions, (v, w) matching v to w in its
// numbering, w = −1 leaving v unmatched, in the tree MCSOptions.Prune
// names; a device slot searches a job's tasks together (worker.go,
// solveBatch).

func init() { RegisterCodec("mcs", mcsCodec{}) }

type mcsCodec struct{}

func (mcsCodec) Minimize() bool { return false }

func (mcsCodec) CheckInstance(graphs []*core.Graph) error {
	if len(graphs) != 2 {
		return errors.New("a common subgraph instance with one graph")
	}
	return nil
}

func (mcsCodec) Open(graphs []*core.Graph, o MCSOptions) (Job, error) {
	opts, err := o.MCS()
	if err != nil {
		return nil, err
	}
	g, h := graphs[0], graphs[1]
	pr, err := mcs.Prepare(g, h, opts)
	if err != nil {
		return nil, err
	}
	return &mcsState{g: g, h: h, opts: opts, pr: pr}, nil
}

// mcsState is a worker's McSplit job: the pair, prepared.
type mcsState struct {
	g, h *core.Graph
	opts mcs.Options
	pr   *mcs.Prepared
}

func (j *mcsState) Trivial() int { return 0 }

func (j *mcsState) Verify(r *Record) error {
	if r.Found {
		return errors.New("a cover in a common subgraph job")
	}
	return mcs.Verify(j.g, j.h, r.Mapping, j.opts)
}

// Solve searches an mcs task's subtree on the CPU (a device slot's tasks
// go to solveBatch) and completes it with what it left as child tasks.
func (j *mcsState) Solve(ctx context.Context, run *TaskRun) error {
	t := run.Task
	// One thread searches with the bar frozen at its start, so that an
	// audit searching the task again gets the same nodes and children
	// (evidence.go); several threads hear improvements as they come.
	var raise <-chan int
	if run.Threads > 1 {
		var stopListening func()
		raise, stopListening = run.Listen()
		defer stopListening()
	}
	// The task's own incumbent is a hint from whoever published it, not a
	// proof: only sizes verified here prune.
	incumbent := run.Best()
	improved := func(m [][2]int) { run.Improved(Record{Size: len(m), Mapping: m}) }
	so := mcs.SubtreeOptions{Incumbent: incumbent, NodeBudget: t.Budget, Threads: run.Threads, Improved: improved}
	if raise != nil {
		so.Raise = raise
	}
	res, err := j.pr.SolveSubtree(ctx, t.steps(), so)
	if err != nil {
		return BadTask(err)
	}
	if res.Cancelled {
		return ctx.Err()
	}
	known := run.Best()
	var children []Task
	for _, r := range res.Rest {
		if r.Bound <= known {
			continue // pruned by an incumbent heard of since
		}
		children = append(children, t.Child(fromSteps(r.Path), r.Bound, known))
	}
	return run.Complete(ctx, children, Record{Nodes: res.Nodes, Size: res.Size, Mapping: res.Mapping,
		Bar: incumbent, Pruned: known, Replay: run.Threads <= 1})
}

// mcsOf is the McSplit job of a worker's job state, or nil for another
// problem's (which has no device batches).
func mcsOf(j *jobState) *mcsState {
	m, _ := j.job.(*mcsState)
	return m
}
