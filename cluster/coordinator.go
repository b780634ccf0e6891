package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/core"
)

// maxRoots caps the root tasks: the plan record lists them all.
const maxRoots = 4096

// CoordinatorConfig configures SolveMCS.
type CoordinatorConfig struct {
	URL   string
	Token string
	// Credentials beyond the token, and TLS.
	Credentials Credentials
	// Tasks is how many root tasks to aim for (default 256): many more
	// than workers, so that they balance; MaxDepth caps the levels split
	// for them (default 8).
	Tasks    int
	MaxDepth int
	// Budget is a task's node budget before it splits (default 1,000,000).
	Budget int64
	// AckWait is the workers' consumer ack wait (default DefaultAckWait);
	// set on the consumer when the job starts.
	AckWait time.Duration
	// Log receives rejected records and notes (default: discarded).
	Log io.Writer
	// Progress, when set, is called after every record taken in.
	Progress func(Progress)
	// Fresh starts a new job even if the streams hold one of the same
	// instance and options (which is otherwise resumed, or answered from
	// its records when it ended): for timing, or to solve again after a
	// change of workers. A fresh job cannot be resumed by a second
	// coordinator.
	Fresh bool
}

// freshRun is a label that makes a job new (MCSOptions.Run).
func freshRun(fresh bool) (string, error) {
	if !fresh {
		return "", nil
	}
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("cluster: a fresh job's label: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Progress is the state of a job as the coordinator knows it.
type Progress struct {
	Job   string
	Size  int // best size found
	Bound int // no solution beats it (mcs: an upper bound; vc: a lower bound)
	Tasks int // tasks the job is known to need
	Done  int // of those, finished
	// Queued and Running are the tasks waiting in the queue and taken but
	// not finished, over all jobs (the shared consumer's counts, read at
	// most once a second); Workers the workers heard from lately.
	Queued, Running, Workers int
	Records                  int   // records read
	Nodes                    int64 // nodes of the finished tasks
	Resumed                  bool  // the job was found in the streams: this coordinator carries on
}

// Result is the outcome of a distributed search.
type Result struct {
	Job     string
	Size    int
	Mapping [][2]int // common subgraph: pairs of input vertex ids
	Cover   []int    // vertex cover: input vertex ids
	Found   bool     // vertex cover: Cover is a cover
	Proven  bool
	Tasks   int   // tasks finished (roots and split-off ones)
	Roots   int   // root tasks published
	Nodes   int64 // nodes of all finished tasks
	Resumed bool
	Elapsed time.Duration
}

// ledger accounts for the tasks of a job: a task is expected once it is a
// root or named as a child in an accepted done record; the job is proven
// when every expected task has its done record. Records are keyed by task
// id, so replays and duplicates change nothing.
type ledger struct {
	expected map[string]bool
	done     map[string]*Record
	finished int // expected tasks with a done record
	minimize bool
	has      bool // a solution is known (vertex cover: a cover)
	size     int
	mapping  [][2]int
	cover    []int
	nodes    int64
	roots    []Task
	plan     bool
	ended    *Record
	// bound holds the tasks' bounds where known (plan roots, children of
	// done records that give them); open counts the bounds of expected
	// tasks not yet done, by value.
	bound map[string]int
	open  map[int]int
}

func newLedger(minimize bool) *ledger {
	return &ledger{expected: map[string]bool{}, done: map[string]*Record{}, minimize: minimize,
		bound: map[string]int{}, open: map[int]int{}}
}

// jobBound is the best any solution can be: the incumbent, or an open
// task's bound beyond it (mcs: the largest upper bound; vc: the smallest
// lower bound).
func (l *ledger) jobBound() int {
	b := l.size
	for v, n := range l.open {
		if n > 0 && (l.minimize && v < b || !l.minimize && v > b) {
			b = v
		}
	}
	return b
}

// offer keeps r's solution if it is better than the best known.
func (l *ledger) offer(r *Record) {
	switch {
	case !r.certified():
	case l.minimize && (!l.has || r.Size < l.size):
		l.has, l.size, l.cover = true, r.Size, r.Cover
	case !l.minimize && r.Size > l.size:
		l.has, l.size, l.mapping = true, r.Size, r.Mapping
	}
}

// expect adds a task, and the tasks its done record names if it has one.
func (l *ledger) expect(id string) {
	stack := []string{id}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if l.expected[id] {
			continue
		}
		l.expected[id] = true
		if r := l.done[id]; r != nil {
			l.finished++
			l.nodes += r.Nodes
			stack = append(stack, r.Children...)
		} else if b, ok := l.bound[id]; ok {
			l.open[b]++
		}
	}
}

func (l *ledger) take(r *Record) {
	switch r.Kind {
	case kindPlan:
		if l.plan {
			return
		}
		l.plan = true
		l.roots = r.Roots
		for _, t := range r.Roots {
			l.bound[t.ID] = t.Bound
			l.expect(t.ID)
		}
	case kindDone:
		l.offer(r)
		if l.done[r.Task] != nil {
			return // a duplicate: the first record of a task counts
		}
		l.done[r.Task] = r
		for i, c := range r.Children {
			if i < len(r.Bounds) {
				l.bound[c] = r.Bounds[i]
			}
		}
		if l.expected[r.Task] {
			if b, ok := l.bound[r.Task]; ok {
				l.open[b]--
			}
			l.finished++
			l.nodes += r.Nodes
			for _, c := range r.Children {
				l.expect(c)
			}
		}
	case kindBest, kindEnd:
		l.offer(r)
		if r.Kind == kindEnd {
			l.ended = r
		}
	}
}

func (l *ledger) proven() bool { return l.plan && l.finished == len(l.expected) }

// checkRoots checks the root tasks of a plan as a worker would check them.
func checkRoots(roots []Task, job, hash string) error {
	for i := range roots {
		b, err := json.Marshal(&roots[i])
		if err != nil {
			return err
		}
		t, err := decodeTask(b)
		if err != nil {
			return fmt.Errorf("plan: root %d: %w", i, err)
		}
		if t.Job != job || t.Instance != hash {
			return fmt.Errorf("plan: root %d belongs to job %s", i, t.Job)
		}
	}
	return nil
}

// rootTasks splits the search tree into the job's root tasks.
func rootTasks(g, h *core.Graph, opts mcs.Options, copts MCSOptions, hash string, cfg CoordinatorConfig) ([]Task, error) {
	pr, err := mcs.Prepare(g, h, opts)
	if err != nil {
		return nil, err
	}
	subs, err := pr.Expand(cfg.Tasks, cfg.MaxDepth)
	if err != nil {
		return nil, err
	}
	job := JobID(hash, copts)
	roots := make([]Task, 0, len(subs))
	for _, s := range subs {
		roots = append(roots, Task{Protocol: protocol, Problem: "mcs", Job: job, ID: taskID(job, s.Path), Instance: hash,
			Options: copts, Path: fromSteps(s.Path), Bound: s.Bound, Budget: cfg.Budget})
	}
	return roots, nil
}

// SolveMCS finds a maximum common induced subgraph of g and h on the
// workers of the cluster at cfg.URL. It resumes the job if the streams
// already hold it (same graphs and options). The result is proven when
// every task was accounted for; the mapping is checked with mcs.Verify.
// Cancelling ctx returns the best known so far, unproven, with ctx's error.
func SolveMCS(ctx context.Context, cfg CoordinatorConfig, g, h *core.Graph, opts mcs.Options) (Result, error) {
	copts, err := FromMCS(opts)
	if err != nil {
		return Result{}, err
	}
	if copts.Run, err = freshRun(cfg.Fresh); err != nil {
		return Result{}, err
	}
	data, hash, err := encodeMCS(g, h)
	if err != nil {
		return Result{}, err
	}
	return runJob(ctx, cfg, jobSpec{
		data: data, hash: hash, job: JobID(hash, copts),
		roots: func(cfg CoordinatorConfig) ([]Task, error) { return rootTasks(g, h, opts, copts, hash, cfg) },
		verify: func(r *Record) error {
			if len(r.Cover) > 0 || r.Found {
				return errors.New("a vertex cover in a common subgraph job")
			}
			return mcs.Verify(g, h, r.Mapping, opts)
		},
	})
}

// jobSpec is what runJob needs to know of a problem.
type jobSpec struct {
	data     []byte // the canonical instance
	hash     string
	job      string
	minimize bool
	start    *Record // a solution known from the outset (vertex cover: every vertex)
	roots    func(CoordinatorConfig) ([]Task, error)
	verify   func(*Record) error // checks a record's certificate
}

// runJob uploads the instance, publishes the root tasks unless the job is
// in the streams already, and follows the records until every task is
// accounted for.
func runJob(ctx context.Context, cfg CoordinatorConfig, spec jobSpec) (Result, error) {
	start := time.Now()
	var err error
	if cfg.Tasks <= 0 {
		cfg.Tasks = 256
	}
	if cfg.Tasks > maxRoots {
		return Result{}, fmt.Errorf("cluster: %d root tasks asked for; at most %d (a task splits itself when it runs over its node budget)", cfg.Tasks, maxRoots)
	}
	if cfg.MaxDepth <= 0 {
		cfg.MaxDepth = 8
	}
	if cfg.Budget <= 0 {
		cfg.Budget = 1_000_000
	}
	out := cfg.Log
	if out == nil {
		out = io.Discard
	}
	lg := log.New(out, "arbor coordinator: ", log.LstdFlags)
	data, hash, job := spec.data, spec.hash, spec.job
	conn, err := Connect(cfg.URL, cfg.Token, "arbor coordinator "+job, cfg.Credentials)
	if err != nil {
		return Result{}, err
	}
	defer conn.Close()
	workCons, err := conn.setup(ctx, cfg.AckWait, cfg.AckWait > 0)
	if err != nil {
		return Result{}, err
	}
	alive, err := listenAlive(conn)
	if err != nil {
		return Result{}, err
	}
	defer alive.stop()
	obs, err := conn.instances(ctx)
	if err != nil {
		return Result{}, err
	}
	if _, err := obs.GetInfo(ctx, hash); errors.Is(err, jetstream.ErrObjectNotFound) {
		if _, err := obs.PutBytes(ctx, hash, data); err != nil {
			return Result{}, fmt.Errorf("cluster: uploading the instance: %w", err)
		}
	} else if err != nil {
		return Result{}, fmt.Errorf("cluster: looking up the instance: %w", err)
	}
	results, err := conn.JS.Stream(ctx, ResultStream)
	if err != nil {
		return Result{}, fmt.Errorf("cluster: stream %s: %w", ResultStream, err)
	}
	has := func(kind string) (bool, error) {
		_, err := results.GetLastMsgForSubject(ctx, resultSubject(job, kind))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("cluster: reading the results of job %s: %w", job, err)
		}
		return true, nil
	}
	resumed, err := has(kindPlan)
	if err != nil {
		return Result{}, err
	}
	publish := func(kind string, r Record) error {
		r.Protocol, r.Kind, r.Job = protocol, kind, job
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if _, err := conn.JS.Publish(ctx, resultSubject(job, kind), b, jetstream.WithMsgID(job+"."+kind)); err != nil {
			return fmt.Errorf("cluster: publishing the %s record: %w", kind, err)
		}
		return nil
	}
	publishTasks := func(roots []Task) error {
		for i := range roots {
			b, err := json.Marshal(&roots[i])
			if err != nil {
				return err
			}
			if _, err := conn.JS.Publish(ctx, taskSubject(job), b, jetstream.WithMsgID(roots[i].ID)); err != nil {
				return fmt.Errorf("cluster: publishing a task: %w", err)
			}
		}
		return publish(kindPublished, Record{})
	}
	var roots []Task
	if !resumed {
		if roots, err = spec.roots(cfg); err != nil {
			return Result{}, err
		}
		// The plan goes first: from then on the job can be resumed.
		if b, _ := json.Marshal(Record{Roots: roots}); int64(len(b)) > conn.NC.MaxPayload() {
			return Result{}, fmt.Errorf("cluster: a plan of %d root tasks (%d KiB) exceeds the server's message limit (%d KiB): ask for fewer tasks",
				len(roots), len(b)>>10, conn.NC.MaxPayload()>>10)
		}
		if err := publish(kindPlan, Record{Roots: roots}); err != nil {
			return Result{}, err
		}
		if err := publishTasks(roots); err != nil {
			return Result{}, err
		}
	}

	// Read every record of the job from the start, then follow new ones.
	cons, err := conn.JS.OrderedConsumer(ctx, ResultStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{resultPrefix + job + ".>"},
	})
	if err != nil {
		return Result{}, fmt.Errorf("cluster: reading the results of job %s: %w", job, err)
	}
	it, err := cons.Messages()
	if err != nil {
		return Result{}, fmt.Errorf("cluster: reading the results of job %s: %w", job, err)
	}
	defer it.Stop()
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()

	l := newLedger(spec.minimize)
	if spec.start != nil {
		l.offer(spec.start)
	}
	records := 0
	var queueRead time.Time
	queued, running := 0, 0
	checkedPublished := !resumed
	result := func() Result {
		return Result{Job: job, Size: l.size, Mapping: l.mapping, Cover: l.cover, Found: l.has && spec.minimize, Proven: l.proven(), Tasks: l.finished,
			Roots: len(l.roots), Nodes: l.nodes, Resumed: resumed, Elapsed: time.Since(start)}
	}
	// An end record is not taken as proof: the done records it rests on
	// are in the stream, and the ledger counts them again.
	for !l.proven() {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return result(), fmt.Errorf("cluster: job %s stopped with %d of %d tasks done: %w", job, l.finished, len(l.expected), ctx.Err())
			}
			return result(), fmt.Errorf("cluster: reading the results of job %s: %w", job, err)
		}
		records++
		r, err := decodeRecord(msg.Data())
		if err == nil && r.Job != job {
			err = fmt.Errorf("record of job %s", r.Job)
		}
		if err == nil && r.Kind == kindDone && !isHex(r.Task, 24) {
			err = errors.New("done record without a valid task id")
		}
		if err == nil && r.Kind == kindPlan {
			err = checkRoots(r.Roots, job, hash)
		}
		if err == nil && r.certified() {
			if verr := spec.verify(r); verr != nil {
				err = fmt.Errorf("%s record with an invalid certificate: %w", r.Kind, verr)
			}
		}
		if err != nil {
			lg.Printf("ignored a message on %s: %v", msg.Subject(), err)
			continue
		}
		l.take(r)
		if !checkedPublished && l.plan {
			// A coordinator stopped between plan and published may have
			// left roots unpublished: publish them again (duplicates are
			// dropped by id, or harmless).
			checkedPublished = true
			ok, err := has(kindPublished)
			if err != nil {
				return result(), err
			}
			if !ok {
				lg.Printf("job %s: republishing its %d root tasks", job, len(l.roots))
				if err := publishTasks(l.roots); err != nil {
					return result(), err
				}
			}
		}
		if cfg.Progress != nil {
			if time.Since(queueRead) >= time.Second {
				queueRead = time.Now()
				if info, err := workCons.Info(ctx); err == nil {
					queued, running = int(info.NumPending), info.NumAckPending
				}
			}
			cfg.Progress(Progress{Job: job, Size: l.size, Bound: l.jobBound(), Tasks: len(l.expected), Done: l.finished,
				Queued: queued, Running: running, Workers: alive.count(), Records: records, Nodes: l.nodes, Resumed: resumed})
		}
	}
	res := result()
	final := &Record{Size: res.Size, Mapping: res.Mapping, Cover: res.Cover, Found: res.Found, Nodes: res.Nodes}
	if err := spec.verify(final); err != nil {
		return res, fmt.Errorf("cluster: job %s: the final answer fails verification: %w", job, err)
	}
	if l.ended == nil {
		if err := publish(kindEnd, *final); err != nil {
			return res, err
		}
	}
	// Tasks left in the queue are duplicates of finished ones.
	if tasks, err := conn.JS.Stream(ctx, TaskStream); err == nil {
		if err := tasks.Purge(ctx, jetstream.WithPurgeSubject(taskSubject(job))); err != nil {
			lg.Printf("job %s: purging leftover tasks: %v", job, err)
		}
	}
	return res, nil
}

// aliveWorkers tracks the workers' announcements (Alive).
type aliveWorkers struct {
	mu   sync.Mutex
	seen map[string]time.Time
	sub  *nats.Subscription
}

// listenAlive hears the workers' announcements, and asks every worker to
// announce itself now rather than at its next beat.
func listenAlive(conn *Conn) (*aliveWorkers, error) {
	a := &aliveWorkers{seen: map[string]time.Time{}}
	sub, err := conn.NC.Subscribe(aliveSubject, func(m *nats.Msg) {
		var w Alive
		if json.Unmarshal(m.Data, &w) != nil || w.Protocol != protocol || w.Worker == "" {
			return // not an announcement: nothing to count
		}
		a.mu.Lock()
		a.seen[w.Worker] = time.Now()
		a.mu.Unlock()
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: subscribing to %s: %w", aliveSubject, err)
	}
	a.sub = sub
	if err := conn.NC.Publish(pingSubject, nil); err != nil {
		_ = sub.Unsubscribe()
		return nil, fmt.Errorf("cluster: asking the workers: %w", err)
	}
	return a, nil
}

// count is the number of workers heard from within three beats.
func (a *aliveWorkers) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, t := range a.seen {
		if time.Since(t) < 3*aliveEvery {
			n++
		}
	}
	return n
}

func (a *aliveWorkers) stop() { _ = a.sub.Unsubscribe() }
