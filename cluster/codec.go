package cluster

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
)

// The cluster knows a problem only through its Codec, registered under
// the problem's name (Task.Problem, JobInfo.Problem, the job ids'
// prefix): the task and record protocol, the ledger, the audits and the
// workers' slots are the same for every problem. A problem registers
// from init, in a package of its own that imports this one (as the
// database/sql drivers do); a binary that runs workers imports it, so
// every worker decodes its tasks. This package registers mcs (mcs.go) and
// vc (vc.go) itself, since SolveMCS and SolveVC are its API.
//
// The coordinator's side is Run with a JobSpec: the instance's graphs,
// the root tasks, the certificate check, and optionally a canary search,
// a weakened hint and audits. The worker's side is Codec.Open and
// Job.Solve, which searches a task through a TaskRun: the incumbent
// (Best, Listen), improvements (Improved), the slot (Threads, Device,
// Budget) and the done record with the child tasks (Complete, Task.Child).
// The wire formats are fixed: a task's options are MCSOptions (Params
// holds another problem's own), its path pairs of int32, a record's
// certificate a Mapping of pairs or a Cover (Found).

// Codec is a problem the cluster distributes.
type Codec interface {
	// Minimize says a smaller size is better (a cover); else a larger
	// (a common subgraph).
	Minimize() bool
	// CheckInstance checks the graphs of a decoded instance (one, or two
	// when the job's spec had two): a wrong count or a graph the problem
	// does not take is an error.
	CheckInstance(graphs []*core.Graph) error
	// Open makes a worker's state of a job from its checked instance and
	// the options of its tasks (all a job's tasks carry the same).
	Open(graphs []*core.Graph, opts MCSOptions) (Job, error)
}

// Job is a worker's state of one job, used by one task at a time or by
// several at once (Verify and Solve must be safe for that).
type Job interface {
	// Trivial is the size of a solution known without search, the bar
	// the job starts with (a cover: every vertex; a common subgraph: 0).
	Trivial() int
	// Verify checks a record's certificate against the instance: the best
	// records of other workers prune only once verified.
	Verify(r *Record) error
	// Solve searches run's task and ends it with run.Complete. It returns
	// Complete's error, ctx's when cancelled (the task goes back to the
	// queue), BadTask(err) for a task that can never be searched (it is
	// rejected), or another error (it is redelivered).
	Solve(ctx context.Context, run *TaskRun) error
}

var (
	codecMu sync.RWMutex
	codecs  = map[string]Codec{}
)

// RegisterCodec makes a problem distributable under name: lower-case
// letters and digits (it starts the job ids, before a dash). It panics on
// a bad or second registration, a porting error.
func RegisterCodec(name string, c Codec) {
	ok := name != "" && c != nil
	for _, r := range name {
		ok = ok && ('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	}
	if !ok {
		panic(fmt.Sprintf("cluster: RegisterCodec(%q): want a name of lower-case letters and digits and a codec", name))
	}
	codecMu.Lock()
	defer codecMu.Unlock()
	if _, dup := codecs[name]; dup {
		panic(fmt.Sprintf("cluster: RegisterCodec called twice for %q", name))
	}
	codecs[name] = c
}

// codecOf returns the codec of a problem name.
func codecOf(name string) (Codec, bool) {
	codecMu.RLock()
	defer codecMu.RUnlock()
	c, ok := codecs[name]
	return c, ok
}

// Problems are the registered problems' names, sorted.
func Problems() []string {
	codecMu.RLock()
	defer codecMu.RUnlock()
	out := make([]string, 0, len(codecs))
	for n := range codecs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// BadTask marks err as the task's own fault: the task can never be
// searched (a path naming no node), so it is rejected, not redelivered.
func BadTask(err error) error { return badTaskError{err} }

// TaskRun is one task being searched on one slot of a worker: what a
// Job's Solve knows of the worker.
type TaskRun struct {
	Task *Task
	// Threads are the CPU threads the search may use; Device is the
	// slot's device (nil: the CPU's slot), DeviceWorkers its work-groups
	// (0: sized from the device).
	Threads       int
	Device        backend.Device
	DeviceWorkers int

	w   *worker
	msg jetstream.Msg
	j   *jobState
	s   *slot
}

// Best is the best size this worker has verified for the job: the bar a
// search prunes with (Task.Incumbent is a hint, never a proof).
func (r *TaskRun) Best() int {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	return r.j.best
}

// Improved publishes a better solution found by the search, with its
// certificate (Size and Mapping or Cover): every worker hears it.
func (r *TaskRun) Improved(rec Record) {
	r.w.raiseBest(endKey(r.Task.Job, r.Task.Epoch), rec.Size)
	r.w.publishBest(r.Task, rec)
}

// Listen sends the sizes of improvements heard from now on (verified),
// for a search of several threads, until stop is called.
func (r *TaskRun) Listen() (sizes <-chan int, stop func()) {
	return r.w.listen(endKey(r.Task.Job, r.Task.Epoch))
}

// Budget is the nodes the slot may search the task for before it splits
// (the task's Budget, scaled for a device; 0: none).
func (r *TaskRun) Budget() int64 { return r.s.budget(r.Task.Budget) }

// Complete publishes children (Task.Child) and then the task's done
// record: done carries the nodes, the best solution found in the
// subtree and the audit's evidence (Record: Bar, Pruned, Replay).
func (r *TaskRun) Complete(ctx context.Context, children []Task, done Record) error {
	return r.w.complete(ctx, r.msg, r.Task, children, done)
}

// Child is a task of t's job, epoch and round for the node at path (its
// id follows from the path), with its bound and the incumbent known.
func (t *Task) Child(path [][2]int32, bound, incumbent int) Task {
	c := Task{Protocol: protocol, Problem: t.Problem, Job: t.Job, Epoch: t.Epoch, Round: t.Round, Instance: t.Instance,
		Options: t.Options, Path: path, Bound: bound, Incumbent: incumbent, Budget: t.Budget}
	c.ID = taskID(c.scope(), c.steps())
	return c
}

// JobSpec is a job as a problem's coordinator hands it to Run (SolveMCS
// and SolveVC build theirs so).
type JobSpec struct {
	// Problem is the registered codec's name; Graphs the instance (one or
	// two), uploaded once and named by its hash.
	Problem string
	Graphs  []*core.Graph
	// Options go in every task and in the job's id (MCSOptions.Run is set
	// from CoordinatorConfig.Fresh).
	Options MCSOptions
	// Start is a solution known from the outset (a cover: every vertex),
	// or nil.
	Start *Record
	// Roots splits the search into the job's root tasks for an epoch and
	// round, made with Root.
	Roots func(cfg CoordinatorConfig, root func(path [][2]int32, bound, incumbent int) Task) ([]Task, error)
	// Verify checks a record's certificate against the instance.
	Verify func(*Record) error
	// Canary, when set, finds a solution quickly before the job is
	// distributed (nil result: none); Weaken, when set, returns a checked
	// solution one worse than r (or nil), the hint the coordinator
	// publishes.
	Canary func(context.Context) *Record
	Weaken func(r *Record) *Record
	// Audit, when set, makes a function that searches a done record's
	// task again as the record says it was searched (evidence.go), one per
	// auditing goroutine; nil: the job's records are not audited.
	Audit func() func(ctx context.Context, r *Record, best int, final bool) AuditVerdict
}

// AuditVerdict is what an audit of a done record found.
type AuditVerdict struct {
	// Why is the disagreement ("" when the record held up); Better a
	// solution the audit found beyond the answer (a certificate).
	Why    string
	Better *Record
	// Later: the record cannot be judged yet (its bar is above every
	// solution known); asked again at the proof.
	Later bool
}

// Run distributes a job of a registered problem over the workers of the
// cluster at cfg.URL, as SolveMCS does a common subgraph: it resumes the
// job if the server holds it with a live lease, and the result is proven
// when every task was accounted for. Cancelling ctx returns the best
// known so far, unproven, with ctx's error.
func Run(ctx context.Context, cfg CoordinatorConfig, spec JobSpec) (Result, error) {
	c, ok := codecOf(spec.Problem)
	if !ok {
		return Result{}, fmt.Errorf("cluster: no codec for problem %q", spec.Problem)
	}
	if err := c.CheckInstance(spec.Graphs); err != nil {
		return Result{}, err
	}
	if spec.Roots == nil || spec.Verify == nil {
		return Result{}, fmt.Errorf("cluster: a %s job needs Roots and Verify", spec.Problem)
	}
	data, hash, err := EncodeInstance(spec.Problem, spec.Graphs...)
	if err != nil {
		return Result{}, err
	}
	opts := spec.Options
	if opts.Run, err = freshRun(cfg.Fresh); err != nil {
		return Result{}, err
	}
	job := JobID(spec.Problem, hash, opts)
	js := jobSpec{problem: spec.Problem, data: data, hash: hash, job: job, minimize: c.Minimize(), start: spec.Start,
		roots: func(cfg CoordinatorConfig, epoch string, round int) ([]Task, error) {
			base := Task{Protocol: protocol, Problem: spec.Problem, Job: job, Epoch: epoch, Round: round, Instance: hash, Options: opts, Budget: cfg.Budget}
			return spec.Roots(cfg, base.Child)
		},
		verify: spec.Verify, canary: spec.Canary, weaken: spec.Weaken}
	if spec.Audit != nil {
		js.audit = func() func(context.Context, *Record, int, bool) auditVerdict {
			audit := spec.Audit()
			return func(ctx context.Context, r *Record, best int, final bool) auditVerdict {
				v := audit(ctx, r, best, final)
				return auditVerdict{rec: r, why: v.Why, better: v.Better, later: v.Later}
			}
		}
	}
	return runJob(ctx, cfg, js)
}
