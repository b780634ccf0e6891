package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/core"
)

// WorkerConfig configures RunWorker.
type WorkerConfig struct {
	URL   string
	Token string
	// Name identifies the worker in records and logs (default host:pid).
	Name string
	// Threads for the local engine (0: every core).
	Threads int
	// Log receives one line per rejected message or failed task (default:
	// discarded).
	Log io.Writer
	// BeforeSolve, when set, is called with each valid task before the
	// search starts and before heartbeats begin (tests use it to hold a
	// task in a worker they then kill).
	BeforeSolve func(*Task)
}

// worker is the state of one RunWorker.
type worker struct {
	cfg  WorkerConfig
	conn *Conn
	obs  jetstream.ObjectStore
	log  *log.Logger

	mu        sync.Mutex
	jobs      map[string]*jobState // by job id
	raise     map[string]chan int  // by job: the running task's raise channel
	ended     map[string]bool      // jobs whose end was announced
	heartbeat time.Duration
	results   jetstream.Stream
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
	conn, err := Connect(cfg.URL, cfg.Token, "arbor worker "+cfg.Name)
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
		jobs: map[string]*jobState{}, raise: map[string]chan int{}, ended: map[string]bool{}}
	// Heartbeats three times per ack wait keep a long task ours. A
	// coordinator may change the ack wait when its job starts, so it is
	// read again now and then.
	w.heartbeat = DefaultAckWait / 3
	var lastInfo time.Time
	refresh := func() {
		if time.Since(lastInfo) < 5*time.Second {
			return
		}
		lastInfo = time.Now()
		if info, err := cons.Info(ctx); err == nil && info.Config.AckWait > 0 {
			w.heartbeat = info.Config.AckWait / 3
		}
	}
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

	for ctx.Err() == nil {
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			if errors.Is(err, nats.ErrConnectionClosed) {
				return fmt.Errorf("cluster: worker %s: %w", cfg.Name, err)
			}
			w.log.Printf("fetch: %v", err)
			sleep(ctx, time.Second)
			continue
		}
		for msg := range batch.Messages() {
			refresh()
			w.handle(ctx, msg)
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && ctx.Err() == nil {
			w.log.Printf("fetch: %v", err)
		}
	}
	return nil
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
	if ch := w.raise[job]; ch != nil {
		select {
		case ch <- size:
		default: // a later, larger size will follow; the bar only rises
		}
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

func (w *worker) handle(ctx context.Context, msg jetstream.Msg) {
	t, err := decodeTask(msg.Data())
	if err != nil {
		w.reject(msg, err)
		return
	}
	if msg.Subject() != taskSubject(t.Job) {
		w.reject(msg, fmt.Errorf("task of job %s on subject %s", t.Job, msg.Subject()))
		return
	}
	w.mu.Lock()
	ended := w.ended[t.Job]
	w.mu.Unlock()
	if ended {
		_ = msg.Ack() // a leftover of a proven job
		return
	}
	if md, err := msg.Metadata(); err == nil && md.NumDelivered > 1 {
		// Given again: maybe its worker died between the done record and
		// the ack. Then there is nothing left to do.
		if _, err := w.results.GetLastMsgForSubject(ctx, doneSubject(t.Job, t.ID)); err == nil {
			_ = msg.Ack()
			return
		}
	}
	j, err := w.job(ctx, t)
	if err != nil {
		if ctx.Err() != nil {
			_ = msg.Nak()
			return
		}
		w.reject(msg, fmt.Errorf("task %s: %w", t.ID, err))
		return
	}
	if w.cfg.BeforeSolve != nil {
		w.cfg.BeforeSolve(t)
	}
	solve := w.solve
	if t.Problem == "vc" {
		solve = w.solveVC
	}
	if err := solve(ctx, msg, t, j); err != nil {
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

// solve searches an mcs task's subtree and completes it with what it
// left as child tasks.
func (w *worker) solve(ctx context.Context, msg jetstream.Msg, t *Task, j *jobState) error {
	raise := make(chan int, 16)
	w.mu.Lock()
	// The task's own incumbent is a hint from whoever published it, not a
	// proof: only sizes verified here prune.
	incumbent := j.best
	w.raise[t.Job] = raise
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		if w.raise[t.Job] == raise {
			delete(w.raise, t.Job)
		}
		w.mu.Unlock()
	}()

	stopBeat := w.heartbeats(msg, t)
	defer stopBeat()

	improved := func(m [][2]int) {
		w.raiseBest(t.Job, len(m))
		w.publishBest(t, Record{Size: len(m), Mapping: m})
	}
	res, err := j.pr.SolveSubtree(ctx, t.steps(), mcs.SubtreeOptions{
		Incumbent: incumbent, NodeBudget: t.Budget, Threads: w.cfg.Threads, Raise: raise, Improved: improved,
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

// heartbeats tells JetStream every third of the ack wait that the task is
// still being worked on, until the returned function is called.
func (w *worker) heartbeats(msg jetstream.Msg, t *Task) (stop func()) {
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(w.heartbeat)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if err := msg.InProgress(); err != nil {
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
	ids := make([]string, 0, len(children))
	for i := range children {
		c := &children[i]
		if len(c.Path) <= len(t.Path) {
			return fmt.Errorf("a subtask of %s is not below it (a bug)", t.ID)
		}
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if _, err := w.conn.JS.Publish(ctx, taskSubject(t.Job), b, jetstream.WithMsgID(c.ID)); err != nil {
			return fmt.Errorf("publishing subtask: %w", err)
		}
		ids = append(ids, c.ID)
	}
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
