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
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/backend"
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
	// DeviceHold is how long a device batch keeps its open work before it
	// hands all of it to the queue (0: deviceHold).
	DeviceHold time.Duration
	// Key signs the worker's records and announcements ('arbor jobs
	// add-worker' mints one; its name is the worker's). Without one, a
	// worker with the coordinator token registers a key of its own; with
	// the worker token it cannot (its records would not count).
	Key *WorkerKey
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

// deviceHold bounds how long a device slot keeps a batch's open work to
// itself: after it, the rest goes to the queue and the batch is done. In
// the chaos run on the H100 machine (8 workers, each with a device slot
// on the one GPU, a worker killed every 5 s) batches held dozens of tasks
// for as long as their search lasted; every kill handed a batch back to be
// searched from its roots again, and long batches never finished.
//
// Half a second since issue #43: with 8 hybrid workers on one H200 and a
// kill every 5 s, a kill cost the whole held batch (the subtasks it had
// published were orphaned with it: their parent's done record never
// came), +1,662 % over the calm run with a 2 s hold.
const deviceHold = 500 * time.Millisecond

// worker is the state of one RunWorker.
type worker struct {
	cfg   WorkerConfig
	key   WorkerKey
	conn  *Conn
	obs   jetstream.ObjectStore
	store *jobStore
	log   *log.Logger

	mu      sync.Mutex
	jobs    map[string]*jobState         // by job and epoch (endKey)
	raise   map[string]map[chan int]bool // by endKey: the running tasks' raise channels
	ended   map[string]time.Time         // by job and epoch (endKey): when its end was heard
	infos   map[string]*infoCache        // job records, by job id
	runs    map[string]*jobRun           // by endKey: cancels the running tasks of an ended job
	held    map[uint64]string            // tasks held now: stream sequence → job
	poke    chan struct{}                // a task was taken: announce soon
	said    map[string]time.Time         // log lines said lately (said once a minute at most)
	results jetstream.Stream
}

// endedFor is how long a worker remembers that a job epoch ended (its
// leftover tasks are dropped without a look at the server meanwhile).
const endedFor = 30 * time.Minute

func endKey(job, epoch string) string { return job + "/" + epoch }

// infoCache is a job record as this worker last read it. changed is when
// its revision last changed, on this worker's clock: a running job whose
// record has not changed for its lease has lost its coordinator (the
// coordinator renews it every few seconds), whatever the clocks say.
type infoCache struct {
	info             *JobInfo
	fetched, changed time.Time
	first            time.Time
}

// jobRun is the context of a job epoch's tasks on this worker.
type jobRun struct {
	ctx    context.Context
	cancel context.CancelFunc
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

// RunWorker pulls tasks and solves them until ctx ends. It waits for a
// server that is not up yet, and for a server whose streams are not set
// up, saying so; it returns an error when the server refuses it (a wrong
// token) or when its connection is closed for good. Problems with single
// messages are logged, the message rejected, and work goes on; failures
// that repeat are retried with a capped exponential back-off, logged once
// when they start and once when they end.
func RunWorker(ctx context.Context, cfg WorkerConfig) error {
	named, err := cfg.resolveName()
	if err != nil {
		return err
	}
	out := cfg.Log
	if out == nil {
		out = io.Discard
	}
	lg := log.New(out, "arbor worker "+cfg.Name+": ", log.LstdFlags)
	lg.Printf("connecting to %s", redact(cfg.URL))
	conn, err := dialWorker(ctx, cfg, lg)
	if err != nil {
		return err
	}
	defer conn.Close()
	cons, obs, store, err := awaitStreams(ctx, conn, lg)
	if err != nil || cons == nil {
		return err // nil: cancelled while waiting
	}
	if cfg.Key == nil {
		if cfg.Name, cfg.Key, err = registerKey(ctx, conn, cfg.Name); err != nil {
			return err
		}
	}
	results, err := conn.JS.Stream(ctx, ResultStream)
	if err != nil {
		return fmt.Errorf("cluster: stream %s: %w", ResultStream, err)
	}
	w := &worker{cfg: cfg, key: *cfg.Key, conn: conn, obs: obs, store: store, log: lg, results: results,
		jobs: map[string]*jobState{}, raise: map[string]map[chan int]bool{}, ended: map[string]time.Time{},
		infos: map[string]*infoCache{}, runs: map[string]*jobRun{}, held: map[uint64]string{}, said: map[string]time.Time{},
		poke: make(chan struct{}, 1)}
	unsubscribe, err := w.subscribe()
	if err != nil {
		return err
	}
	defer unsubscribe()
	return w.serveSlots(ctx, cons, named)
}

// resolveName settles the worker's name: its key's (a different --name is
// an error), the one given, or host:pid. It reports whether the name was
// chosen (a restarted worker of the same name gets its tasks back).
func (cfg *WorkerConfig) resolveName() (named bool, err error) {
	if cfg.Key != nil {
		if cfg.Name != "" && cfg.Name != cfg.Key.Name {
			return false, fmt.Errorf("cluster: worker name %q, but its key is worker %q's", cfg.Name, cfg.Key.Name)
		}
		cfg.Name = cfg.Key.Name
	}
	if cfg.Name != "" {
		return true, nil
	}
	host, _ := os.Hostname()
	cfg.Name = fmt.Sprintf("%s:%d", host, os.Getpid())
	return false, nil
}

// dialWorker connects to the server, waiting (with back-off) while it is
// unreachable.
func dialWorker(ctx context.Context, cfg WorkerConfig, lg *log.Logger) (*Conn, error) {
	wait := newBackoff("waiting for the server at "+redact(cfg.URL), lg.Printf)
	for {
		conn, err := dial(cfg.URL, cfg.Token, "arbor worker "+cfg.Name, cfg.Credentials, dialOptions{logf: lg.Printf})
		if err == nil {
			wait.ok()
			return conn, nil
		}
		if !unreachable(err) || ctx.Err() != nil {
			return nil, err
		}
		wait.fail(ctx, err)
	}
}

// awaitStreams waits (with back-off) until a coordinator or the server
// has set up the task stream's consumer, the instance bucket and the job
// records, and returns them; a nil consumer and no error when ctx ends
// first.
func awaitStreams(ctx context.Context, conn *Conn, lg *log.Logger) (jetstream.Consumer, jetstream.ObjectStore, *jobStore, error) {
	ready := newBackoff("waiting for a coordinator or 'arbor server' to set up the streams", lg.Printf)
	for {
		cons, err := conn.JS.Consumer(ctx, TaskStream, WorkerConsumer)
		var obs jetstream.ObjectStore
		var store *jobStore
		if err == nil {
			if obs, err = conn.JS.ObjectStore(ctx, InstanceBucket); err == nil {
				store, err = conn.openJobs(ctx, false)
			}
		}
		if err == nil {
			ready.ok()
			return cons, obs, store, nil
		}
		if ctx.Err() != nil {
			return nil, nil, nil, nil
		}
		ready.fail(ctx, err)
	}
}

// registerKey gives a worker without a key one of its own: only a
// coordinator token may register it. It returns the key's name and key.
func registerKey(ctx context.Context, conn *Conn, name string) (string, *WorkerKey, error) {
	k, err := NewWorkerKey(strings.ReplaceAll(name, " ", "_"))
	if err != nil {
		return "", nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err = conn.register(rctx, k)
	cancel()
	if err != nil {
		return "", nil, fmt.Errorf("cluster: worker %s has no key and may not register one (a worker token needs a key from 'arbor jobs add-worker'): %w", name, err)
	}
	return k.Name, &k, nil
}

// subscribe makes the worker hear of jobs stopped by their coordinator
// (their record is read again) and of every job's incumbents and ends, as
// they happen. It returns the function that ends the subscriptions.
func (w *worker) subscribe() (func(), error) {
	var subs []*nats.Subscription
	unsubscribe := func() {
		for _, s := range subs {
			_ = s.Unsubscribe()
		}
	}
	stopSub, err := w.conn.NC.Subscribe(stoppedSubject, func(m *nats.Msg) {
		if job := string(m.Data); validJob(job) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, _ = w.jobInfo(ctx, job, 0)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: subscribing to %s: %w", stoppedSubject, err)
	}
	subs = append(subs, stopSub)
	for _, kind := range []string{kindBest, kindEnd} {
		sub, err := w.conn.NC.Subscribe(resultPrefix+"*."+kind, w.hear)
		if err != nil {
			unsubscribe()
			return nil, fmt.Errorf("cluster: subscribing to results: %w", err)
		}
		subs = append(subs, sub)
	}
	return unsubscribe, nil
}

// serveSlots announces the worker and serves tasks on every slot until
// ctx ends or the connection is gone; the first slot's error is returned.
func (w *worker) serveSlots(ctx context.Context, cons jetstream.Consumer, named bool) error {
	slots := w.slots()
	if len(slots) == 0 {
		return errors.New("cluster: a worker with no devices and no CPU has nothing to solve with")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer w.stopRuns()
	run, err := newEpoch() // a random label of this process
	if err != nil {
		return err
	}
	stopAlive, err := announce(ctx, w.conn, Alive{Protocol: protocol, Worker: w.cfg.Name, Run: run, Named: named, Slots: len(slots)}, w.key, w.heldTasks, w.poke)
	if err != nil {
		return err
	}
	defer stopAlive()
	w.log.Printf("taking tasks with %d slot(s)", len(slots))
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

// heldTasks lists the tasks held now, for the announcements.
func (w *worker) heldTasks() []Held {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]Held, 0, len(w.held))
	for seq, job := range w.held {
		out = append(out, Held{Job: job, Seq: seq})
	}
	return out
}

func (w *worker) stopRuns() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.runs {
		r.cancel()
	}
}

// sayOnce logs a line unless the same key was logged within a minute (a
// flood of forged or leftover messages makes one line a minute).
func (w *worker) sayOnce(key, format string, a ...any) {
	w.mu.Lock()
	t, ok := w.said[key]
	now := time.Now()
	if ok && now.Sub(t) < time.Minute {
		w.mu.Unlock()
		return
	}
	if len(w.said) > 1000 {
		clear(w.said)
	}
	w.said[key] = now
	w.mu.Unlock()
	w.log.Printf(format, a...)
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
// Every error path backs off (a missing consumer answers at once, and
// without a pause the worker would spin).
func (w *worker) serve(ctx context.Context, cons jetstream.Consumer, s *slot) error {
	bo := newBackoff("slot "+s.name+": taking tasks", w.log.Printf)
	for ctx.Err() == nil {
		var msgs []jetstream.Msg
		// A device slot takes a batch only while its kernel is ready:
		// a slot still setting up (a restarted worker opening the GPU,
		// a job new to it) holds one task, not a batch a kill would
		// hand back whole.
		if s.batch > 1 && s.mcs != nil {
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
				bo.fail(ctx, err)
				continue
			}
			for msg := range batch.Messages() {
				msgs = append(msgs, msg)
			}
			if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && ctx.Err() == nil {
				if errors.Is(err, nats.ErrConnectionClosed) {
					return fmt.Errorf("cluster: worker %s: %w", w.cfg.Name, err)
				}
				bo.fail(ctx, err)
				continue
			}
		}
		bo.ok()
		if len(msgs) > 0 {
			w.handle(ctx, cons, msgs, s)
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

// jobInfo returns a job's record, read again when the copy is older than
// maxAge (nil: the server holds no such job).
func (w *worker) jobInfo(ctx context.Context, job string, maxAge time.Duration) (*JobInfo, error) {
	now := time.Now()
	// The cache entry's fields change under w.mu (below, from the other
	// handlers and slots): read them under it too.
	w.mu.Lock()
	if c := w.infos[job]; c != nil && now.Sub(c.fetched) < maxAge {
		info := c.info
		w.mu.Unlock()
		return info, nil
	}
	w.mu.Unlock()
	info, err := w.store.get(ctx, job)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.infos[job]
	if c == nil {
		if len(w.infos) > 256 {
			for k, o := range w.infos {
				if now.Sub(o.fetched) > endedFor {
					delete(w.infos, k)
				}
			}
		}
		c = &infoCache{first: now, changed: now}
		w.infos[job] = c
	}
	if info != nil && (c.info == nil || c.info.Rev != info.Rev) {
		c.changed = now
	}
	c.info, c.fetched = info, now
	return info, nil
}

// expired says whether a running job's record has not changed for longer
// than its lease, as this worker has seen it.
func (w *worker) expired(job string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.infos[job]
	if c == nil || c.info == nil || c.info.State != StateRunning {
		return false
	}
	now := time.Now()
	return now.Sub(c.changed) > c.info.Lease() && now.Sub(c.first) > c.info.Lease()
}

// orphanAfter: a running job whose record has not changed for this long
// has no live coordinator (one renews it every 2 s at most): its tasks
// are skipped until it is renewed, and dropped once it expires.
const orphanAfter = 6 * time.Second

// skipDelay is how long a skipped task of a stopped job stays out of the
// queue before it is looked at again.
const skipDelay = 5 * time.Second

// orphaned says whether a running job's record has not changed for
// orphanAfter, as this worker has seen it.
func (w *worker) orphaned(job string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.infos[job]
	if c == nil || c.info == nil {
		return false
	}
	now := time.Now()
	return now.Sub(c.changed) > orphanAfter && now.Sub(c.first) > orphanAfter
}

// run returns the context of a job epoch's tasks: cancelled when its end
// is heard.
func (w *worker) run(ctx context.Context, job, epoch string) context.Context {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := endKey(job, epoch)
	if r := w.runs[k]; r != nil {
		return r.ctx
	}
	if len(w.runs) > 64 {
		for k, r := range w.runs {
			if r.ctx.Err() != nil {
				delete(w.runs, k)
			}
		}
	}
	rctx, cancel := context.WithCancel(ctx)
	w.runs[k] = &jobRun{rctx, cancel}
	return rctx
}

// markEnded remembers that a job epoch ended and stops its running tasks.
func (w *worker) markEnded(job, epoch string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	for k, t := range w.ended {
		if now.Sub(t) > endedFor {
			delete(w.ended, k)
		}
	}
	k := endKey(job, epoch)
	w.ended[k] = now
	if r := w.runs[k]; r != nil {
		r.cancel()
	}
}

func (w *worker) isEnded(job, epoch string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.ended[endKey(job, epoch)]
	return ok && time.Since(t) < endedFor
}

// hear takes best and end records of any job from the plain subscription.
// An end is believed only with the signature of the job epoch's key, read
// from the job's record on the server: anyone else's end is logged and
// ignored.
func (w *worker) hear(m *nats.Msg) {
	kind := m.Subject[strings.LastIndexByte(m.Subject, '.')+1:]
	if kind != kindBest && kind != kindEnd {
		return
	}
	r, err := decodeRecord(m.Data)
	if err != nil {
		if kind == kindEnd {
			w.sayOnce("bad end "+m.Subject, "ignored a malformed end record on %s: %v", m.Subject, err)
		}
		return // the coordinator reports bad records; a worker only listens
	}
	if kind == kindEnd {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		info, err := w.jobInfo(ctx, r.Job, 0)
		switch {
		case err != nil:
			err = fmt.Errorf("reading the job's record: %w", err)
		case info == nil:
			err = errors.New("the server holds no such job")
		case r.Epoch != info.Epoch || r.Job != info.Job:
			err = fmt.Errorf("epoch %q is not the job's epoch %s", r.Epoch, info.Epoch)
		default:
			err = verifyRecord(r, info.Key)
		}
		if err != nil {
			w.sayOnce("unauthenticated end "+r.Job, "ignored an unauthenticated end record of job %s: %v", r.Job, err)
			return
		}
		what := "proven"
		if r.Cancelled {
			what = "cancelled"
		}
		w.markEnded(r.Job, r.Epoch)
		w.mu.Lock()
		_, known := w.jobs[endKey(r.Job, r.Epoch)]
		w.mu.Unlock()
		if known {
			w.log.Printf("job %s (epoch %s) ended (%s): dropping its tasks", r.Job, r.Epoch, what)
		}
		return
	}
	w.mu.Lock()
	j := w.jobs[endKey(r.Job, r.Epoch)]
	w.mu.Unlock()
	if j == nil || !r.certified() {
		return // not a job this worker works on (it catches up when it does)
	}
	// A size is trusted only with a certificate that proves it: a false
	// one would prune the optimum away.
	if err := j.verify(r); err != nil {
		w.sayOnce("bad best "+r.Job, "ignored a %s record of job %s: %v", kind, r.Job, err)
		return
	}
	w.raiseBest(endKey(r.Job, r.Epoch), r.Size)
}

// raiseBest records a verified size for a job epoch (endKey) and passes
// it to the running tasks of that epoch. Per epoch, not per job: a
// solution from an earlier epoch is not in this epoch's records, and
// pruning with it would leave the records proving less than the
// coordinator's own solution (a false contradiction).
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

// drop acks a task that is not to be searched (a leftover of an ended,
// vanished or expired job, or of another epoch) and says why, once a
// minute per job.
func (w *worker) drop(msg jetstream.Msg, t *Task, why string) {
	_ = msg.Ack()
	w.sayOnce("drop "+t.Job+why, "dropped tasks of job %s (epoch %s): %s", t.Job, t.Epoch, why)
}

// accept checks a message and readies its job: the task, its job and the
// context to search it in, or false when the message was dealt with
// (rejected, dropped, acked as already done, or handed back on shutdown).
func (w *worker) accept(ctx context.Context, msg jetstream.Msg) (*Task, *jobState, context.Context, bool) {
	t, err := decodeTask(msg.Data())
	if err != nil {
		w.reject(msg, err)
		return nil, nil, nil, false
	}
	if msg.Subject() != taskSubject(t.Job) {
		w.reject(msg, fmt.Errorf("task of job %s on subject %s", t.Job, msg.Subject()))
		return nil, nil, nil, false
	}
	if w.isEnded(t.Job, t.Epoch) {
		_ = msg.Ack() // a leftover of an ended job
		return nil, nil, nil, false
	}
	info, err := w.jobInfo(ctx, t.Job, 2*time.Second)
	if err == nil && (info == nil || info.Epoch != t.Epoch) {
		info, err = w.jobInfo(ctx, t.Job, 0) // maybe a new epoch: look again
	}
	if err != nil {
		if ctx.Err() == nil {
			w.sayOnce("info "+t.Job, "task %s: %v (it will be redelivered)", t.ID, err)
		}
		_ = msg.NakWithDelay(time.Second)
		return nil, nil, nil, false
	}
	switch {
	case info == nil || info.State == StatePurged:
		w.drop(msg, t, "the job vanished from the server (purged, or the server lost its store)")
		return nil, nil, nil, false
	case info.Epoch != t.Epoch:
		w.drop(msg, t, fmt.Sprintf("a leftover: the job's epoch is now %s", info.Epoch))
		return nil, nil, nil, false
	case w.expired(t.Job):
		w.drop(msg, t, fmt.Sprintf("the job expired: its coordinator has not renewed it for %v", info.Lease()))
		return nil, nil, nil, false
	case info.State == StateStopped || info.State == StateRunning && w.orphaned(t.Job):
		// No coordinator: the task waits for a rerun, behind every live
		// job's (a stopped job's tasks ran ahead of new jobs: 8 times
		// the time of the next job).
		_ = msg.NakWithDelay(skipDelay)
		w.sayOnce("skip "+t.Job, "skipping tasks of job %s (epoch %s) for now: no coordinator holds it", t.Job, t.Epoch)
		return nil, nil, nil, false
	case info.State != StateRunning:
		w.markEnded(t.Job, t.Epoch)
		w.drop(msg, t, "the job is "+info.State)
		return nil, nil, nil, false
	}
	if md, err := msg.Metadata(); err == nil && md.NumDelivered > 1 {
		// Given again: maybe its worker died between the done record and
		// the ack. Then there is nothing left to do.
		// Only a done record of its own counts here: another worker's
		// (maybe forged) would make this one skip the task.
		if m, err := w.results.GetLastMsgForSubject(ctx, doneSubject(t.Job, t.ID)); err == nil {
			if r, err := decodeRecord(m.Data); err == nil && r.Signer == w.key.Public() && verifyRecord(r, r.Signer) == nil {
				_ = msg.Ack()
				return nil, nil, nil, false
			}
		}
	}
	j, err := w.job(ctx, t)
	if err != nil {
		if ctx.Err() != nil {
			_ = msg.Nak()
			return nil, nil, nil, false
		}
		w.reject(msg, fmt.Errorf("task %s: %w", t.ID, err))
		return nil, nil, nil, false
	}
	return t, j, w.run(ctx, t.Job, t.Epoch), true
}

// hold records msg as held (announced) until the returned function runs.
func (w *worker) hold(msg jetstream.Msg, t *Task) func() {
	md, err := msg.Metadata()
	if err != nil {
		return func() {}
	}
	seq := md.Sequence.Stream
	w.mu.Lock()
	w.held[seq] = t.Job
	w.mu.Unlock()
	select {
	case w.poke <- struct{}{}:
	default: // an announcement is due already
	}
	return func() {
		w.mu.Lock()
		delete(w.held, seq)
		w.mu.Unlock()
	}
}

// handle solves the tasks of msgs on slot s: a device's McSplit tasks of
// one job together, every other task alone.
func (w *worker) handle(ctx context.Context, cons jetstream.Consumer, msgs []jetstream.Msg, s *slot) {
	var batch []pending
	var bctx context.Context
	subject := msgs[0].Subject()
	toppedUp := false
	for i := 0; i < len(msgs); i++ {
		msg := msgs[i]
		switch {
		case i > 0 && msg.Subject() != subject:
			// Another job's task, fetched with a device batch: back to the
			// queue at once (a redelivery comes before new tasks). Held
			// here it would wait for the whole batch, and its job with it:
			// with four jobs at a time that was seconds of every job's tail.
			_ = msg.Nak()
		case i > 0 && s.dev != nil && !w.readyFor(s, msgs[0]):
			// The slot's kernel is another job's: it holds one task of
			// this job while it gets ready; the rest go back at once.
			_ = msg.Nak()
		default:
			t, j, jctx, ok := w.accept(ctx, msg)
			if !ok {
				break
			}
			defer w.hold(msg, t)()
			if w.cfg.BeforeSolve != nil {
				w.cfg.BeforeSolve(t)
			}
			// Every task says it is in progress until handle returns:
			// while it is searched, and while the ones before it are (or
			// the ack wait would hand it to other workers meanwhile).
			stopBeat := w.heartbeats(msg, t)
			defer stopBeat()
			if s.dev != nil && mcsOf(j) != nil && (len(batch) == 0 || batch[0].t.Job == t.Job && batch[0].t.Epoch == t.Epoch) {
				batch = append(batch, pending{msg, t, j})
				bctx = jctx
				break
			}
			w.settle(ctx, jctx, msg, t, j.job.Solve(jctx, w.taskRun(msg, t, j, s)))
		}
		if i == len(msgs)-1 && !toppedUp && len(batch) > 0 && len(batch) < s.batch {
			// The kernel is made ready for the batch's job now (while
			// only these tasks are held), and the batch topped up before
			// the search: a device searching one task alone with a whole
			// batch's budget explored 15 times the nodes.
			toppedUp = true
			first := batch[0]
			if w.deviceFor(s, endKey(first.t.Job, first.t.Epoch), first.j) != nil {
				if more, err := cons.FetchNoWait(s.batch - len(batch)); err == nil {
					for m := range more.Messages() {
						msgs = append(msgs, m)
					}
				}
			}
		}
	}
	if len(batch) > 0 {
		w.solveBatch(ctx, bctx, batch, s)
	}
}

// readyFor says whether slot s has its device kernel for the job of msg
// (by subject: the job; the epoch is checked when the batch is solved).
func (w *worker) readyFor(s *slot, msg jetstream.Msg) bool {
	return s.mcs != nil && strings.HasPrefix(s.mcsJob, strings.TrimPrefix(msg.Subject(), taskPrefix)+"/")
}

// pending is an accepted task with its message and job.
type pending struct {
	msg jetstream.Msg
	t   *Task
	j   *jobState
}

// settle deals with a task whose solve (in jctx, under the worker's ctx)
// returned err: nothing when it was completed, else dropped (its job
// ended), handed back or rejected.
func (w *worker) settle(ctx, jctx context.Context, msg jetstream.Msg, t *Task, err error) {
	if err == nil {
		return
	}
	if ctx.Err() != nil {
		_ = msg.Nak() // shutting down: someone else takes it now
		return
	}
	if jctx.Err() != nil {
		_ = msg.Ack() // its job ended (proven or cancelled) while it ran
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

// jobState is what a worker keeps per job: its problem's state (the
// instance, prepared) and the best size heard of.
type jobState struct {
	codec Codec
	job   Job
	best  int // the best size known (vc: the smallest cover)
}

// better says whether size a beats size b.
func (j *jobState) better(a, b int) bool {
	if j.codec.Minimize() {
		return a < b
	}
	return a > b
}

// verify checks a record's certificate against the instance.
func (j *jobState) verify(r *Record) error { return j.job.Verify(r) }

// taskRun is the TaskRun of task t of job j on slot s.
func (w *worker) taskRun(msg jetstream.Msg, t *Task, j *jobState, s *slot) *TaskRun {
	return &TaskRun{Task: t, Threads: s.threads, Device: s.dev, DeviceWorkers: w.cfg.DeviceWorkers, w: w, msg: msg, j: j, s: s}
}

// job returns the state of a task's job, fetching the instance by hash and
// catching up with the job's incumbent the first time.
func (w *worker) job(ctx context.Context, t *Task) (*jobState, error) {
	w.mu.Lock()
	j := w.jobs[endKey(t.Job, t.Epoch)]
	w.mu.Unlock()
	if j != nil {
		return j, nil
	}
	data, err := fetchInstance(ctx, w.conn, w.obs, t.Instance)
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
	job, err := inst.codec.Open(inst.graphs, t.Options)
	if err != nil {
		return nil, err
	}
	j = &jobState{codec: inst.codec, job: job, best: job.Trivial()}
	w.mu.Lock()
	if len(w.jobs) >= 8 {
		clear(w.jobs) // a worker serves few jobs at a time; keep memory bounded
	}
	w.jobs[endKey(t.Job, t.Epoch)] = j
	w.mu.Unlock()
	// A worker joining a job late catches up with its incumbent from the
	// stream (the last improvement published); from now on it hears them.
	if m, err := w.results.GetLastMsgForSubject(ctx, resultSubject(t.Job, kindBest)); err == nil {
		if r, err := decodeRecord(m.Data); err == nil && r.Job == t.Job && r.Epoch == t.Epoch && r.certified() && j.verify(r) == nil {
			w.raiseBest(endKey(t.Job, t.Epoch), r.Size)
		}
	}
	return j, nil
}

// fetchInstance reads an instance from the object store by message gets,
// chunk after chunk, without the consumer the object store's own reader
// makes: workers may create no consumers at all (Roles), so that no
// worker can fill the server with them.
func fetchInstance(ctx context.Context, conn *Conn, obs jetstream.ObjectStore, name string) ([]byte, error) {
	info, err := obs.GetInfo(ctx, name)
	if err != nil {
		return nil, err
	}
	st, err := conn.JS.Stream(ctx, "OBJ_"+InstanceBucket)
	if err != nil {
		return nil, err
	}
	subject := "$O." + InstanceBucket + ".C." + info.NUID
	data := make([]byte, 0, info.Size)
	var seq uint64
	for range info.Chunks {
		m, err := st.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if err != nil {
			return nil, fmt.Errorf("reading a chunk: %w", err)
		}
		data = append(data, m.Data...)
		seq = m.Sequence + 1
	}
	if uint64(len(data)) != info.Size {
		return nil, fmt.Errorf("%d bytes read of %d", len(data), info.Size)
	}
	return data, nil
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
		s.mcs, s.mcsErr = mcsOf(j).pr.OnDevice(s.dev, w.cfg.DeviceWorkers)
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
func (w *worker) solveBatch(wctx, ctx context.Context, batch []pending, s *slot) {
	first, j := batch[0].t, batch[0].j
	ds := w.deviceFor(s, endKey(first.Job, first.Epoch), j)
	if ds == nil {
		for _, p := range batch {
			w.settle(wctx, ctx, p.msg, p.t, j.job.Solve(ctx, w.taskRun(p.msg, p.t, j, s)))
		}
		return
	}
	raise, stopListening := w.listen(endKey(first.Job, first.Epoch))
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
			w.settle(wctx, ctx, p.msg, p.t, err)
		}
	}
	improved := func(m [][2]int) {
		w.raiseBest(endKey(first.Job, first.Epoch), len(m))
		w.publishBest(first, Record{Size: len(m), Mapping: m})
	}
	done := Record{}
	var ids []string
	var bounds []int
	var cpaths [][][2]int32
	start := time.Now()
	returned := map[int]bool{} // batch tasks handed back unstarted
	for round := 0; len(paths) > 0; round++ {
		w.mu.Lock()
		incumbent := j.best
		w.mu.Unlock()
		res, err := ds.SolveBatch(ctx, paths, mcs.SubtreeOptions{Incumbent: incumbent, NodeBudget: s.budget(first.Budget), Raise: raise, Improved: improved})
		var pe *mcs.PathError
		if round == 0 && errors.As(err, &pe) {
			// A task's own path is bad: reject it, search the others.
			w.reject(batch[pe.Index].msg, fmt.Errorf("task %s: %w", batch[pe.Index].t.ID, pe.Err))
			w.solveBatch(wctx, ctx, slices.Delete(slices.Clone(batch), pe.Index, pe.Index+1), s)
			return
		}
		if err == nil && res[0].Cancelled {
			err = ctx.Err()
		}
		if err != nil {
			fail(err) // handed back (a failed device, or shutting down)
			return
		}
		rest := done.add(res)
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
		// Past deviceHold the batch hands out all it has left, and the
		// tasks it never started go back to the queue as they are: its
		// tasks are done only when nothing is left, and a worker killed
		// meanwhile loses the whole batch's search (it comes back from
		// its roots, and a batch killed again and again never ends).
		hold := w.cfg.DeviceHold
		if hold <= 0 {
			hold = deviceHold
		}
		var children []Task
		paths, children = shareRest(batch, owner, rest, known, time.Since(start) > hold, paths[:0], returned)
		published, err := w.publishTasks(ctx, batch[owner].t, children)
		if err != nil {
			fail(err)
			return
		}
		ids = append(ids, published...)
		for _, c := range children {
			bounds = append(bounds, c.Bound)
			cpaths = append(cpaths, c.Path)
		}
	}
	done.Bounds, done.Paths = bounds, cpaths
	w.finishBatch(wctx, ctx, batch, owner, returned, done, ids)
}

// finishBatch ends a device batch's tasks: the owner's record holds what
// the batch found and the children it published (ids); the others end
// with empty records, but those the device never started (returned) go
// back to the queue for whoever takes them next.
func (w *worker) finishBatch(wctx, ctx context.Context, batch []pending, owner int, returned map[int]bool, done Record, ids []string) {
	for i, p := range batch {
		if returned[i] {
			_ = p.msg.Nak() // searched by whoever takes it next
			continue
		}
		rec, kids := Record{}, []string(nil)
		if i == owner {
			rec, kids = done, ids
		}
		w.settle(wctx, ctx, p.msg, p.t, w.finish(ctx, p.msg, p.t, kids, rec))
	}
}

// add counts a device batch round's results (res) into the batch's record
// (nodes, the largest solution) and returns the subtrees they left.
func (rec *Record) add(res []mcs.SubtreeResult) []mcs.Subtask {
	var rest []mcs.Subtask
	for _, r := range res {
		rec.Nodes += r.Nodes
		if r.Size > rec.Size {
			rec.Size, rec.Mapping = r.Size, r.Mapping
		}
		rest = append(rest, r.Rest...)
	}
	return rest
}

// shareRest splits what a round of a device batch left (rest, most
// promising first) between the paths the batch searches next (appended to
// paths) and the child tasks it publishes: at most devicePublish children,
// each strictly below the owner's node and no batch task's own node. Past
// the batch's hold (past) every such subtree goes out, and the batch tasks
// the device never started are marked in returned, to go back to the
// queue as they are.
func shareRest(batch []pending, owner int, rest []mcs.Subtask, known int, past bool, paths [][]mcs.Step, returned map[int]bool) ([][]mcs.Step, []Task) {
	first := batch[0].t
	limit := devicePublish
	if past {
		limit = len(rest)
	}
	var children []Task
	for _, r := range rest {
		id := taskID(first.scope(), r.Path)
		own := slices.IndexFunc(batch, func(p pending) bool { return p.t.ID == id })
		if past && own >= 0 && own != owner {
			returned[own] = true // its whole subtree: not started here
			continue
		}
		if len(children) == limit || len(r.Path) <= len(batch[owner].t.Path) || own >= 0 {
			paths = append(paths, r.Path)
			continue
		}
		children = append(children, Task{Protocol: protocol, Problem: "mcs", Job: first.Job, Epoch: first.Epoch, Round: first.Round, ID: id,
			Instance: first.Instance, Options: first.Options, Path: fromSteps(r.Path), Bound: r.Bound, Incumbent: known, Budget: first.Budget})
	}
	return paths, children
}

// heartbeats tells JetStream every third of the ack wait that the task is
// still being worked on, until the returned function is called.
func (w *worker) heartbeats(msg jetstream.Msg, t *Task) (stop func()) {
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(DefaultAckWait / 3)
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
	rec.Protocol, rec.Kind, rec.Job, rec.Epoch, rec.Task = protocol, kindBest, t.Job, t.Epoch, t.ID
	if err := signAs(&rec, w.key); err != nil {
		w.log.Printf("task %s: signing an incumbent: %v", t.ID, err)
		return
	}
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
	done.Bounds, done.Paths = nil, nil
	for _, c := range children {
		done.Bounds = append(done.Bounds, c.Bound)
		done.Paths = append(done.Paths, c.Path)
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
	done.Protocol, done.Kind, done.Job, done.Epoch, done.Round, done.Task, done.Children = protocol, kindDone, t.Job, t.Epoch, t.Round, t.ID, ids
	done.Path, done.Budget = t.Path, t.Budget
	if err := signAs(&done, w.key); err != nil {
		return err
	}
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
