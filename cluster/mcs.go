package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"

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
	if r.Found || len(r.Cover) > 0 {
		return errors.New("a vertex cover in a common subgraph job")
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

// canaryNodes is the search the coordinator does itself before it
// distributes a job: a few milliseconds, for a solution it keeps to itself
// (runJob).
const canaryNodes = 50_000

// SolveMCS finds a maximum common induced subgraph of g and h on the
// workers of the cluster at cfg.URL. It resumes the job if the server
// holds it (same graphs and options) with a live lease. The result is
// proven when every task was accounted for; the mapping is checked with
// mcs.Verify. Cancelling ctx returns the best known so far, unproven,
// with ctx's error.
func SolveMCS(ctx context.Context, cfg CoordinatorConfig, g, h *core.Graph, opts mcs.Options) (Result, error) {
	// The tasks are paths of opts.Prune's tree (mcs.SubtreePrune), which
	// the task options carry to the workers and the audits.
	copts, err := FromMCS(opts)
	if err != nil {
		return Result{}, err
	}
	j := &mcsState{g: g, h: h, opts: opts}
	return Run(ctx, cfg, JobSpec{
		Problem: "mcs", Graphs: []*core.Graph{g, h}, Options: copts,
		Roots: func(cfg CoordinatorConfig, root func([][2]int32, int, int) Task) ([]Task, error) {
			pr, err := mcs.Prepare(g, h, opts)
			if err != nil {
				return nil, err
			}
			subs, err := pr.Expand(cfg.Tasks, cfg.MaxDepth)
			if err != nil {
				return nil, err
			}
			roots := make([]Task, 0, len(subs))
			for _, s := range subs {
				roots = append(roots, root(fromSteps(s.Path), s.Bound, 0))
			}
			return roots, nil
		},
		Verify: j.Verify,
		Canary: func(ctx context.Context) *Record {
			o := opts
			o.Threads, o.NodeLimit, o.Timeout, o.Engine, o.Devices, o.Progress = 1, canaryNodes, 0, mcs.EngineCPU, nil, nil
			res, err := mcs.Solve(ctx, g, h, o)
			if err != nil || len(res.Mapping) == 0 {
				return nil
			}
			return &Record{Size: len(res.Mapping), Mapping: res.Mapping}
		},
		Audit: func() func(context.Context, *Record, int, bool) AuditVerdict { return mcsAudit(g, h, opts) },
		Weaken: func(r *Record) *Record {
			// A pair fewer: any pair will do for an induced common
			// subgraph; with --connected, one whose removal keeps it
			// connected (the checker decides; the last pairs are tried).
			if len(r.Mapping) < 2 {
				return nil
			}
			for i := len(r.Mapping) - 1; i >= max(0, len(r.Mapping)-64); i-- {
				m := slices.Delete(slices.Clone(r.Mapping), i, i+1)
				if j.Verify(&Record{Mapping: m}) == nil {
					return &Record{Size: len(m), Mapping: m}
				}
			}
			return nil
		},
	})
}

// mcsAudit searches McSplit tasks again as their done records say they
// were searched. A record of one CPU thread with a frozen bar (Replay)
// must agree exactly: nodes, the size found, the children. Any other
// (a device batch, several threads) is searched at the proof with the
// answer as the bar: a better solution inside it refutes it.
func mcsAudit(g, h *core.Graph, opts mcs.Options) func(context.Context, *Record, int, bool) AuditVerdict {
	var pr *mcs.Prepared // the auditor's goroutine alone uses it
	return func(ctx context.Context, r *Record, best int, final bool) AuditVerdict {
		var v AuditVerdict
		if pr == nil {
			var err error
			o := opts
			o.Threads, o.Progress = 1, nil
			if pr, err = mcs.Prepare(g, h, o); err != nil {
				v.Why = fmt.Sprintf("the audit could not prepare the instance: %v", err)
				return v
			}
		}
		steps := (&Task{Path: r.Path}).steps()
		if !r.Replay {
			if !final {
				v.Later = true // judged at the proof
				return v
			}
			res, err := pr.SolveSubtree(ctx, steps, mcs.SubtreeOptions{Incumbent: best, NodeBudget: probeNodes, Threads: 1})
			if err == nil && res.Size > best {
				v.Why = fmt.Sprintf("its subtree holds a solution of %d, better than the answer %d", res.Size, best)
				v.Better = &Record{Size: res.Size, Mapping: res.Mapping}
			}
			return v
		}
		if r.Bar > best || r.Pruned > best {
			if final {
				v.Why = fmt.Sprintf("it searched with a bar of %d (children pruned at %d), above any solution in the records (%d)", r.Bar, r.Pruned, best)
			} else {
				v.Later = true
			}
			return v
		}
		res, err := pr.SolveSubtree(ctx, steps, mcs.SubtreeOptions{Incumbent: r.Bar, NodeBudget: r.Budget, Threads: 1})
		switch {
		case ctx.Err() != nil:
			v.Later = true
			return v
		case err != nil:
			v.Why = fmt.Sprintf("its path: %v", err)
			return v
		}
		scope := scopeOf(r.Job, r.Epoch, r.Round)
		var kids []string
		for _, c := range res.Rest {
			if c.Bound > r.Pruned {
				kids = append(kids, taskID(scope, c.Path))
			}
		}
		switch {
		case res.Nodes != r.Nodes:
			v.Why = fmt.Sprintf("%d nodes reported, %d in the audit", r.Nodes, res.Nodes)
		case res.Size != r.Size:
			v.Why = fmt.Sprintf("a solution of %d reported, %d in the audit", r.Size, res.Size)
		case !sameIDs(kids, r.Children):
			v.Why = fmt.Sprintf("%d subtasks reported, %d in the audit (or others)", len(r.Children), len(kids))
		}
		if res.Size > best {
			v.Better = &Record{Size: res.Size, Mapping: res.Mapping}
		}
		return v
	}
}
