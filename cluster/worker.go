package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
)

// WorkerConfig configures RunWorker.
type WorkerConfig struct {
	URL   string
	Token string
	// Credentials beyond the token, and TLS.
	Credentials Credentials
	// Name identifies the worker in records and logs (default host:pid).
	Name string
	// Threads for the local engine (0: every core).
	Threads int
	// Slots is how many tasks the CPU searches at once, the threads shared
	// out among them (0: one per thread). Many single-thread tasks keep
	// cores busier than one task of many threads, whose threads wait for
	// each other's donations at its start and end: on the H100 machine's
	// 16 cores, 4 workers of 4 one-thread slots took 0.91 times the time
	// of one 16-thread process over 21 medium MIVIA pairs, 4 workers of
	// one 4-thread slot 1.32 times.
	Slots int
	// Log receives one line per rejected message or failed task (default:
	// discarded).
	Log io.Writer
	// BeforeSolve, when set, is called with each valid task before the
	// search starts and before heartbeats begin (tests use it to hold a
	// task in a worker they then kill).
	BeforeSolve func(*Task)
	// Devices each take tasks of their own, one at a time, beside the CPU
	// (which takes its own with Threads threads): one process serves a
	// machine's GPUs and cores from the same queue, with one incumbent.
	// A device that cannot run a job's options solves its tasks with one
	// CPU thread.
	Devices []backend.Device
	// NoCPU leaves the tasks to the devices alone (arbor worker --engine gpu).
	NoCPU bool
	// DeviceBudget is the node budget of a task searched on a device (0:
	// DeviceBudgetScale times the task's own).
	DeviceBudget int64
	// DeviceWorkers is the device engines' number of workers (0: sized from
	// the device).
	DeviceWorkers int
}

// DeviceBudgetScale is how many times a task's node budget a device gets
// by default: its nodes are cheaper (an H100 searches McSplit nodes about
// ten times faster than 16 cores), and a task that overruns its budget on
// a device loses the search it did (DeviceSubtrees), so the budget should
// be worth many launches.
const DeviceBudgetScale = 64

// deviceBatch is the most tasks a device takes at once. One McSplit task
// of a medium pair is milliseconds of a GPU's time, much of it spent
// filling and emptying its thousands of workers: on the H100 a worker with
// the GPU took task by task 6.8 times as long as one process searching
// the whole tree there, 2.2 times with batches.
const deviceBatch = 64

// devicePublish is how many subtrees of a device's open work go to the
// queue per round; the device keeps the rest (its open work is thousands
// of small subtrees, one per untried candidate on each worker's stack,
// and publishing them all would cost more than searching them).
const devicePublish = 64

// worker is the state of one RunWorker.
type worker struct {
	cfg  WorkerConfig
	conn *Conn
	obs  jetstream.ObjectStore
	log  *log.Logger

	mu        sync.Mutex
	jobs      map[string]*jobState         // by job id
	raise     map[string]map[chan int]bool // by job: the running tasks' raise channels
	ended     map[string]bool              // jobs whose end was announced
	heartbeat atomic.Int64                 // a time.Duration: how often a running task says so
	lastInfo  time.Time                    // when the consumer's ack wait was last read
	results   jetstream.Stream
}

// slot is one solver of a worker: the CPU or one device, each taking one
// task at a time. A device slot keeps its McSplit kernel for the job it
// last solved.
type slot struct {
	name    string
	dev     backend.Device
	threads int // CPU threads: the CPU's search, or a device slot's fallback
	budget  func(task int64) int64
	batch   int // tasks taken at once (a device searches a job's together)

	mcsJob string
	mcs    *mcs.DeviceSubtrees
	mcsErr error // why the device cannot take mcsJob's tasks
}

func (s *slot) release() {
	if s.mcs != nil {
		s.mcs.Release()
		s.mcs = nil
	}
}

// RunWorker pulls tasks and solves them until ctx ends. It returns an error
// when it cannot connect (a refused token included) or set up; problems
// with single messages are logged, the message rejected, and work goes on.
func RunWorker(ctx context.Context, cfg WorkerConfig) error {
	if cfg.Name == "" {
		host, _ := os.Hostname()
		cfg.Name = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	out := cfg.Log
	if out == nil {
		out = io.Discard
	}
	conn, err := Connect(cfg.URL, cfg.Token, "arbor worker "+cfg.Name, cfg.Credentials)
	if err != nil {
		return err
	}
	defer conn.Close()
	cons, err := conn.setup(ctx, 0, false)
	if err != nil {
		return err
	}
	obs, err := conn.instances(ctx)
	if err != nil {
		return err
	}
	w := &worker{cfg: cfg, conn: conn, obs: obs, log: log.New(out, "arbor worker "+cfg.Name+": ", log.LstdFlags),
		jobs: map[string]*jobState{}, raise: map[string]map[chan int]bool{}, ended: map[string]bool{}}
	// Heartbeats three times per ack wait keep a long task ours. A
	// coordinator may change the ack wait when its job starts, so it is
	// read again now and then.
	w.heartbeat.Store(int64(DefaultAckWait / 3))
	// Incumbents and ends of every job, as they happen.
	for _, kind := range []string{kindBest, kindEnd} {
		sub, err := conn.NC.Subscribe(resultPrefix+"*."+kind, w.hear)
		if err != nil {
			return fmt.Errorf("cluster: subscribing to results: %w", err)
		}
		defer sub.Unsubscribe()
	}
	results, err := conn.JS.Stream(ctx, ResultStream)
	if err != nil {
		return fmt.Errorf("cluster: stream %s: %w", ResultStream, err)
	}
	w.results = results

	slots := w.slots()
	if len(slots) == 0 {
		return errors.New("cluster: a worker with no devices and no CPU has nothing to solve with")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopAlive, err := announce(ctx, conn, Alive{Protocol: protocol, Worker: cfg.Name, Slots: len(slots)})
	if err != nil {
		return err
	}
	defer stopAlive()
	errs := make(chan error, len(slots))
	for _, s := range slots {
		go func() {
			defer s.release()
			err := w.serve(ctx, cons, s)
			if err != nil {
				cancel() // the connection is gone: every slot stops
			}
			errs <- err
		}()
	}
	var first error
	for range slots {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// slots are the worker's solvers: each device, then the CPU.
func (w *worker) slots() []*slot {
	var out []*slot
	fallback := 1
	if w.cfg.NoCPU {
		fallback = w.cfg.Threads
	}
	for _, d := range w.cfg.Devices {
		out = append(out, &slot{name: d.Info().String(), dev: d, threads: fallback, batch: deviceBatch, budget: func(task int64) int64 {
			if w.cfg.DeviceBudget > 0 {
				return w.cfg.DeviceBudget
			}
			return task * DeviceBudgetScale
		}})
	}
	if !w.cfg.NoCPU {
		threads := w.cfg.Threads
		if threads <= 0 {
			threads = runtime.GOMAXPROCS(0)
		}
		n := w.cfg.Slots
		if n <= 0 {
			n = threads
		}
		for i := range n {
			// Threads dealt out as evenly as they go: 5 over 2 slots is 3 + 2.
			t := max(threads/n+btoi(i < threads%n), 1)
			out = append(out, &slot{name: fmt.Sprintf("cpu%d", i), threads: t, budget: func(task int64) int64 { return task }})
		}
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// serve takes tasks for one slot until ctx ends or the connection closes.
// A device slot takes whatever is queued up to its batch size at once.
func (w *worker) serve(ctx context.Context, cons jetstream.Consumer, s *slot) error {
	for ctx.Err() == nil {
		var msgs []jetstream.Msg
		if s.batch > 1 {
			b, err := cons.FetchNoWait(s.batch)
			if err == nil {
				for msg := range b.Messages() {
					msgs = append(msgs, msg)
				}
			}
		}
		if len(msgs) == 0 {
			batch, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
			if err != nil {
				if ctx.Err() != nil {
					break
				}
				if errors.Is(err, nats.ErrConnectionClosed) {
					return fmt.Errorf("cluster: worker %s: %w", w.cfg.Name, err)
				}
				w.log.Printf("fetch: %v", err)
				sleep(ctx, time.Second)
				continue
			}
			for msg := range batch.Messages() {
				msgs = append(msgs, msg)
			}
			if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && ctx.Err() == nil {
				w.log.Printf("fetch: %v", err)
			}
		}
		if len(msgs) > 0 {
			w.refresh(ctx, cons)
			w.handle(ctx, msgs, s)
		}
	}
	return nil
}

// refresh reads the consumer's ack wait again, at most every 5 s.
func (w *worker) refresh(ctx context.Context, cons jetstream.Consumer) {
	w.mu.Lock()
	if time.Since(w.lastInfo) < 5*time.Second {
		w.mu.Unlock()
		return
	}
	w.lastInfo = time.Now()
	w.mu.Unlock()
	if info, err := cons.Info(ctx); err == nil && info.Config.AckWait > 0 {
		w.heartbeat.Store(int64(info.Config.AckWait / 3))
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// hear takes best and end records of any job from the plain subscription.
func (w *worker) hear(m *nats.Msg) {
	kind := m.Subject[strings.LastIndexByte(m.Subject, '.')+1:]
	if kind != kindBest && kind != kindEnd {
		return
	}
	r, err := decodeRecord(m.Data)
	if err != nil {
		return // the coordinator reports bad records; a worker only listens
	}
	w.mu.Lock()
	j := w.jobs[r.Job]
	if kind == kindEnd {
		w.ended[r.Job] = true
	}
	w.mu.Unlock()
	if j == nil || !r.certified() {
		return // not a job this worker works on (it catches up when it does)
	}
	// A size is trusted only with a certificate that proves it: a false
	// one would prune the optimum away.
	if err := j.verify(r); err != nil {
		w.log.Printf("ignored a %s record of job %s: %v", kind, r.Job, err)
		return
	}
	w.raiseBest(r.Job, r.Size)
}

// raiseBest records a verified size for a job and passes it to the
// running task of that job.
func (w *worker) raiseBest(job string, size int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	j := w.jobs[job]
	if j == nil || !j.better(size, j.best) {
		return
	}
	j.best = size
	for ch := range w.raise[job] {
		select {
		case ch <- size:
		default: // a later, larger size will follow; the bar only rises
		}
	}
}

// listen registers a raise channel for a task of job: it hears every
// verified improvement until stop.
func (w *worker) listen(job string) (ch chan int, stop func()) {
	ch = make(chan int, 16)
	w.mu.Lock()
	if w.raise[job] == nil {
		w.raise[job] = map[chan int]bool{}
	}
	w.raise[job][ch] = true
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		delete(w.raise[job], ch)
		if len(w.raise[job]) == 0 {
			delete(w.raise, job)
		}
		w.mu.Unlock()
	}
}

// reject terminates a message that can never be processed, so it is not
// redelivered, and says why.
func (w *worker) reject(msg jetstream.Msg, why error) {
	w.log.Printf("rejected message on %s: %v", msg.Subject(), why)
	if err := msg.Term(); err != nil {
		w.log.Printf("terminating a rejected message: %v", err)
	}
}

// accept checks a message and readies its job: the task, or false when
// the message was dealt with (rejected, acked as already done, or handed
// back on shutdown).
func (w *worker) accept(ctx context.Context, msg jetstream.Msg) (*Task, *jobState, bool) {
	t, err := decodeTask(msg.Data())
	if err != nil {
		w.reject(msg, err)
		return nil, nil, false
	}
	if msg.Subject() != taskSubject(t.Job) {
		w.reject(msg, fmt.Errorf("task of job %s on subject %s", t.Job, msg.Subject()))
		return nil, nil, false
	}
	w.mu.Lock()
	ended := w.ended[t.Job]
	w.mu.Unlock()
	if ended {
		_ = msg.Ack() // a leftover of a proven job
		return nil, nil, false
	}
	if md, err := msg.Metadata(); err == nil && md.NumDelivered > 1 {
		// Given again: maybe its worker died between the done record and
		// the ack. Then there is nothing left to do.
		if _, err := w.results.GetLastMsgForSubject(ctx, doneSubject(t.Job, t.ID)); err == nil {
			_ = msg.Ack()
			return nil, nil, false
		}
	}
	j, err := w.job(ctx, t)
	if err != nil {
		if ctx.Err() != nil {
			_ = msg.Nak()
			return nil, nil, false
		}
		w.reject(msg, fmt.Errorf("task %s: %w", t.ID, err))
		return nil, nil, false
	}
	if w.cfg.BeforeSolve != nil {
		w.cfg.BeforeSolve(t)
	}
	return t, j, true
}

// handle solves the tasks of msgs on slot s: a device's McSplit tasks of
// one job together, every other task alone.
func (w *worker) handle(ctx context.Context, msgs []jetstream.Msg, s *slot) {
	var batch []pending
	for _, msg := range msgs {
		t, j, ok := w.accept(ctx, msg)
		if !ok {
			continue
		}
		// Every task says it is in progress until handle returns: while it
		// is searched, and while the ones before it are (or the ack wait
		// would hand it to other workers meanwhile).
		stopBeat := w.heartbeats(msg, t)
		defer stopBeat()
		if s.dev != nil && t.Problem == "mcs" && (len(batch) == 0 || batch[0].t.Job == t.Job) {
			batch = append(batch, pending{msg, t, j})
			continue
		}
		solve := w.solve
		if t.Problem == "vc" {
			solve = w.solveVC
		}
		w.settle(ctx, msg, t, solve(ctx, msg, t, j, s))
	}
	if len(batch) > 0 {
		w.solveBatch(ctx, batch, s)
	}
}

// pending is an accepted task with its message and job.
type pending struct {
	msg jetstream.Msg
	t   *Task
	j   *jobState
}

// settle deals with a task whose solve returned err: nothing when it was
// completed, else handed back or rejected.
func (w *worker) settle(ctx context.Context, msg jetstream.Msg, t *Task, err error) {
	if err == nil {
		return
	}
	if ctx.Err() != nil {
		_ = msg.Nak() // shutting down: someone else takes it now
		return
	}
	var bad badTaskError
	if errors.As(err, &bad) {
		w.reject(msg, fmt.Errorf("task %s: %w", t.ID, err))
		return
	}
	w.log.Printf("task %s: %v (it will be redelivered)", t.ID, err)
	_ = msg.NakWithDelay(time.Second)
}

type badTaskError struct{ error }

// jobState is what a worker keeps per job: the instance, prepared, and
// the best size heard of.
type jobState struct {
	problem string
	g, h    *core.Graph
	opts    mcs.Options
	pr      *mcs.Prepared // mcs
	best    int           // the best size known (vc: the smallest cover)
	// better says whether size a beats size b; verify checks a record's
	// certificate against the instance.
	better func(a, b int) bool
	verify func(*Record) error
}

// job returns the state of a task's job, fetching the instance by hash and
// catching up with the job's incumbent the first time.
func (w *worker) job(ctx context.Context, t *Task) (*jobState, error) {
	w.mu.Lock()
	j := w.jobs[t.Job]
	w.mu.Unlock()
	if j != nil {
		return j, nil
	}
	data, err := w.obs.GetBytes(ctx, t.Instance)
	if err != nil {
		return nil, fmt.Errorf("fetching instance %.12s…: %w", t.Instance, err)
	}
	inst, err := decodeInstance(data, t.Instance)
	if err != nil {
		return nil, err
	}
	if inst.problem != t.Problem {
		return nil, fmt.Errorf("a %s task for a %s instance", t.Problem, inst.problem)
	}
	switch t.Problem {
	case "mcs":
		opts, err := t.Options.MCS()
		if err != nil {
			return nil, err
		}
		pr, err := mcs.Prepare(inst.g, inst.h, opts)
		if err != nil {
			return nil, err
		}
		g, h := inst.g, inst.h
		j = &jobState{problem: "mcs", g: g, h: h, opts: opts, pr: pr,
			better: func(a, b int) bool { return a > b },
			verify: func(r *Record) error {
				if r.Found {
					return errors.New("a cover in a common subgraph job")
				}
				return mcs.Verify(g, h, r.Mapping, opts)
			}}
	case "vc":
		j = newVCJob(inst.g)
	}
	w.mu.Lock()
	if len(w.jobs) >= 8 {
		clear(w.jobs) // a worker serves few jobs at a time; keep memory bounded
	}
	w.jobs[t.Job] = j
	w.mu.Unlock()
	// A worker joining a job late catches up with its incumbent from the
	// stream (the last improvement published); from now on it hears them.
	if m, err := w.results.GetLastMsgForSubject(ctx, resultSubject(t.Job, kindBest)); err == nil {
		if r, err := decodeRecord(m.Data); err == nil && r.Job == t.Job && r.certified() && j.verify(r) == nil {
			w.raiseBest(t.Job, r.Size)
		}
	}
	return j, nil
}

// solve searches an mcs task's subtree on the CPU (a device slot's tasks
// go to solveBatch) and completes it with what it left as child tasks.
func (w *worker) solve(ctx context.Context, msg jetstream.Msg, t *Task, j *jobState, s *slot) error {
	raise, stopListening := w.listen(t.Job)
	defer stopListening()
	w.mu.Lock()
	// The task's own incumbent is a hint from whoever published it, not a
	// proof: only sizes verified here prune.
	incumbent := j.best
	w.mu.Unlock()

	improved := func(m [][2]int) {
		w.raiseBest(t.Job, len(m))
		w.publishBest(t, Record{Size: len(m), Mapping: m})
	}
	res, err := j.pr.SolveSubtree(ctx, t.steps(), mcs.SubtreeOptions{
		Incumbent: incumbent, NodeBudget: t.Budget, Threads: s.threads, Raise: raise, Improved: improved,
	})
	if err != nil {
		return badTaskError{err}
	}
	if res.Cancelled {
		return ctx.Err()
	}
	w.mu.Lock()
	known := j.best
	w.mu.Unlock()
	var children []Task
	for _, r := range res.Rest {
		if r.Bound <= known {
			continue // pruned by an incumbent heard of since
		}
		children = append(children, Task{Protocol: protocol, Problem: "mcs", Job: t.Job, ID: taskID(t.Job, r.Path), Instance: t.Instance,
			Options: t.Options, Path: fromSteps(r.Path), Bound: r.Bound, Incumbent: known, Budget: t.Budget})
	}
	return w.complete(ctx, msg, t, children, Record{Nodes: res.Nodes, Size: res.Size, Mapping: res.Mapping})
}

// deviceFor is the slot's McSplit kernel for job, made on first use, or
// nil for the CPU slot and for jobs the device cannot run (then the slot
// searches on the CPU; the reason is logged once per job).
func (w *worker) deviceFor(s *slot, job string, j *jobState) *mcs.DeviceSubtrees {
	if s.dev == nil {
		return nil
	}
	if s.mcsJob != job {
		s.release()
		s.mcsJob = job
		s.mcs, s.mcsErr = j.pr.OnDevice(s.dev, w.cfg.DeviceWorkers)
		if s.mcsErr != nil {
			w.log.Printf("job %s on %s: %v; its tasks run on %d CPU thread(s)", job, s.name, s.mcsErr, max(s.threads, 1))
		}
	}
	return s.mcs
}

// solveBatch searches McSplit tasks of one job on a device, together: a
// device is only busy with far more work than one small task gives it.
// Each round is one device search with one task's device budget. When it
// runs over, the device hands back its open work as subtrees
// (mcs.DeviceSubtrees.SolveBatch): the devicePublish most promising go to
// the queue as subtasks at once, for other workers, and the device goes
// on with the rest in the next round. The batch's tasks are done when
// nothing is left; the one with the shortest path (every subtree handed
// back lies below it) names the subtasks and carries the nodes and the
// best solution, the others finish empty.
func (w *worker) solveBatch(ctx context.Context, batch []pending, s *slot) {
	first, j := batch[0].t, batch[0].j
	ds := w.deviceFor(s, first.Job, j)
	if ds == nil {
		for _, p := range batch {
			w.settle(ctx, p.msg, p.t, w.solve(ctx, p.msg, p.t, j, s))
		}
		return
	}
	raise, stopListening := w.listen(first.Job)
	defer stopListening()
	paths := make([][]mcs.Step, len(batch))
	owner := 0
	for i, p := range batch {
		paths[i] = p.t.steps()
		if len(p.t.Path) < len(batch[owner].t.Path) {
			owner = i
		}
	}
	fail := func(err error) {
		for _, p := range batch {
			w.settle(ctx, p.msg, p.t, err)
		}
	}
	improved := func(m [][2]int) {
		w.raiseBest(first.Job, len(m))
		w.publishBest(first, Record{Size: len(m), Mapping: m})
	}
	done := Record{}
	var ids []string
	var bounds []int
	for round := 0; len(paths) > 0; round++ {
		w.mu.Lock()
		incumbent := j.best
		w.mu.Unlock()
		res, err := ds.SolveBatch(ctx, paths, mcs.SubtreeOptions{Incumbent: incumbent, NodeBudget: s.budget(first.Budget), Raise: raise, Improved: improved})
		var pe *mcs.PathError
		if round == 0 && errors.As(err, &pe) {
			// A task's own path is bad: reject it, search the others.
			w.reject(batch[pe.Index].msg, fmt.Errorf("task %s: %w", batch[pe.Index].t.ID, pe.Err))
			w.solveBatch(ctx, slices.Delete(slices.Clone(batch), pe.Index, pe.Index+1), s)
			return
		}
		if err == nil && res[0].Cancelled {
			err = ctx.Err()
		}
		if err != nil {
			fail(err) // handed back (a failed device, or shutting down)
			return
		}
		var rest []mcs.Subtask
		for _, r := range res {
			done.Nodes += r.Nodes
			if r.Size > done.Size {
				done.Size, done.Mapping = r.Size, r.Mapping
			}
			rest = append(rest, r.Rest...)
		}
		w.mu.Lock()
		known := j.best
		w.mu.Unlock()
		rest = slices.DeleteFunc(rest, func(r mcs.Subtask) bool { return r.Bound <= known })
		slices.SortStableFunc(rest, func(a, b mcs.Subtask) int { return b.Bound - a.Bound })
		// Out go the most promising subtrees strictly below the owner's
		// node. A subtree of a batch task the device never started comes
		// back as that task's own node, maybe by the very same path (then
		// with the task's own id, which the queue would drop as a
		// duplicate while the owner's record named it): those stay here.
		var children []Task
		paths = paths[:0]
		for _, r := range rest {
			id := taskID(first.Job, r.Path)
			if len(children) == devicePublish || len(r.Path) <= len(batch[owner].t.Path) || slices.ContainsFunc(batch, func(p pending) bool { return p.t.ID == id }) {
				paths = append(paths, r.Path)
				continue
			}
			children = append(children, Task{Protocol: protocol, Problem: "mcs", Job: first.Job, ID: id,
				Instance: first.Instance, Options: first.Options, Path: fromSteps(r.Path), Bound: r.Bound, Incumbent: known, Budget: first.Budget})
		}
		published, err := w.publishTasks(ctx, batch[owner].t, children)
		if err != nil {
			fail(err)
			return
		}
		ids = append(ids, published...)
		for _, c := range children {
			bounds = append(bounds, c.Bound)
		}
	}
	for i, p := range batch {
		rec, kids := Record{}, []string(nil)
		if i == owner {
			rec, kids = done, ids
			rec.Bounds = bounds
		}
		w.settle(ctx, p.msg, p.t, w.finish(ctx, p.msg, p.t, kids, rec))
	}
}

// heartbeats tells JetStream every third of the ack wait that the task is
// still being worked on, until the returned function is called.
func (w *worker) heartbeats(msg jetstream.Msg, t *Task) (stop func()) {
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(time.Duration(w.heartbeat.Load()))
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if err := msg.InProgress(); err != nil && !errors.Is(err, jetstream.ErrMsgAlreadyAckd) {
					w.log.Printf("task %s: heartbeat: %v", t.ID, err)
				}
			}
		}
	}()
	return func() { close(done) }
}

// publishBest sends an improved solution (with its certificate) to every
// worker and to the results stream, without waiting: the search goes on.
func (w *worker) publishBest(t *Task, rec Record) {
	rec.Protocol, rec.Kind, rec.Job, rec.Task, rec.Worker = protocol, kindBest, t.Job, t.ID, w.cfg.Name
	b, err := json.Marshal(rec)
	if err != nil {
		w.log.Printf("task %s: encoding an incumbent: %v", t.ID, err)
		return
	}
	if _, err := w.conn.JS.PublishAsync(resultSubject(t.Job, kindBest), b); err != nil {
		w.log.Printf("task %s: publishing an incumbent: %v", t.ID, err)
	}
}

// complete publishes a solved task's children, then its done record (done
// gives the nodes and the best found), then acks the task: in that order,
// so that a done record always names children that exist.
func (w *worker) complete(ctx context.Context, msg jetstream.Msg, t *Task, children []Task, done Record) error {
	ids, err := w.publishTasks(ctx, t, children)
	if err != nil {
		return err
	}
	done.Bounds = nil
	for _, c := range children {
		done.Bounds = append(done.Bounds, c.Bound)
	}
	return w.finish(ctx, msg, t, ids, done)
}

// publishTasks publishes subtasks of t (each with its id as the message
// id, so a retry's copies are dropped) and returns their ids.
func (w *worker) publishTasks(ctx context.Context, t *Task, children []Task) ([]string, error) {
	ids := make([]string, 0, len(children))
	for i := range children {
		c := &children[i]
		if len(c.Path) <= len(t.Path) {
			return nil, fmt.Errorf("a subtask of %s is not below it (a bug)", t.ID)
		}
		b, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		if _, err := w.conn.JS.Publish(ctx, taskSubject(t.Job), b, jetstream.WithMsgID(c.ID)); err != nil {
			return nil, fmt.Errorf("publishing subtask: %w", err)
		}
		ids = append(ids, c.ID)
	}
	return ids, nil
}

// finish publishes t's done record naming its children's ids, then acks.
func (w *worker) finish(ctx context.Context, msg jetstream.Msg, t *Task, ids []string, done Record) error {
	done.Protocol, done.Kind, done.Job, done.Task, done.Children, done.Worker = protocol, kindDone, t.Job, t.ID, ids, w.cfg.Name
	b, err := json.Marshal(done)
	if err != nil {
		return err
	}
	if _, err := w.conn.JS.Publish(ctx, doneSubject(t.Job, t.ID), b); err != nil {
		return fmt.Errorf("publishing the done record: %w", err)
	}
	select {
	case <-w.conn.JS.PublishAsyncComplete():
	case <-ctx.Done():
	}
	// The ack gets its own time: a worker told to stop right after the done
	// record should still hand the task in rather than have it redone.
	actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := msg.DoubleAck(actx); err != nil {
		// The done record is out; a redelivery only repeats work.
		w.log.Printf("task %s: ack: %v", t.ID, err)
	}
	return nil
}
