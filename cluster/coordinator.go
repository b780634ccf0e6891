package cluster

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// MaxRoots caps the root tasks: the plan record lists them all.
const MaxRoots = 4096

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
	// AckWait is how long a worker may go unheard (its announcements stop)
	// before the coordinator hands its tasks of this job to other workers
	// (default DefaultHandBack; at least 3 announcements). It is the job's
	// own: the shared consumer's ack wait (DefaultAckWait) is never
	// changed, and is only the backstop.
	AckWait time.Duration
	// Lease is how long the job outlives this coordinator's last renewal
	// (default DefaultLease): a rerun within it resumes the job, after it
	// the job expires and is purged.
	Lease time.Duration
	// Log receives rejected records and notes (default: discarded).
	Log io.Writer
	// Progress, when set, is called after records are taken in and at
	// least once a second (the clock runs while nothing arrives).
	Progress func(Progress)
	// Fresh starts a new job even if the streams hold one of the same
	// instance and options (which is otherwise resumed, or answered from
	// its records when it ended): for timing, or to solve again after a
	// change of workers. A fresh job cannot be resumed by a second
	// coordinator, so one stopped early is cancelled and purged.
	Fresh bool
	// Name names the coordinator in the job record (default host:pid).
	Name string
	// AuditRate is the share of every worker's done tasks this
	// coordinator searches again to check them (DefaultAuditRate when 0;
	// < 0: none but the last ones of a proof, which are always checked).
	AuditRate float64
	// TaskDeadline is how long a worker may hold one task, however
	// alive it says it is, before the task goes to others too (default
	// DefaultTaskDeadline).
	TaskDeadline time.Duration
}

// DefaultTaskDeadline: a task is a node budget's search (about 0.1 s on
// one core by default; a device batch hands its work out after
// deviceHold), so a minute held is a stalled or lying worker.
const DefaultTaskDeadline = time.Minute

// DefaultHandBack is how long a worker may go unheard before its tasks
// are handed to others: six beats. Every job whose task a killed worker
// held waits this long (the chaos runs: a job took a 5 s wait for nearly
// every kill); a live worker heard again after its tasks went to others
// is logged (the tasks were searched twice, the first done record counts).
const DefaultHandBack = 3 * time.Second

// stallAfter is how long a job with open tasks may see the task queue
// empty, nothing running and workers waiting, before its coordinator
// publishes its open roots again.
const stallAfter = 5 * time.Second

// maxRounds bounds the re-searches of a job whose done records contradict
// what its coordinator knows.
const maxRounds = 3

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
	Epoch string
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
	Elapsed                  time.Duration
	Connected                bool // false while the connection to the server is down
}

// Result is the outcome of a distributed search.
type Result struct {
	Job     string
	Epoch   string
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
	// Workers is how many workers were heard from at the end (alive
	// within three beats).
	Workers int
	// Audited is how many done records this coordinator searched again;
	// Quarantined names the workers whose records disagreed with the
	// audit (their records were dropped and their tasks searched again).
	Audited     int
	Quarantined []string
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
	round    int
	ended    *Record
	// bound holds the tasks' bounds where known (plan roots, children of
	// done records that give them); open counts the bounds of expected
	// tasks not yet done, by value.
	bound map[string]int
	open  map[int]int
	// paths are the tasks' paths where known (roots, children of done
	// records that list them): what the coordinator can publish again.
	paths map[string][][2]int32
}

func newLedger(minimize bool) *ledger {
	return &ledger{expected: map[string]bool{}, done: map[string]*Record{}, minimize: minimize,
		bound: map[string]int{}, open: map[int]int{}, paths: map[string][][2]int32{}}
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
		if l.plan && r.Round <= l.round {
			return
		}
		if l.plan {
			// A re-search: the earlier round's records no longer count.
			l.expected, l.done, l.finished = map[string]bool{}, map[string]*Record{}, 0
			l.bound, l.open, l.paths = map[string]int{}, map[int]int{}, map[string][][2]int32{}
		}
		l.plan, l.round = true, r.Round
		l.roots = r.Roots
		for _, t := range r.Roots {
			l.bound[t.ID] = t.Bound
			l.paths[t.ID] = t.Path
			l.expect(t.ID)
		}
	case kindDone:
		l.offer(r)
		if l.done[r.Task] != nil || r.Round != l.round {
			return // a duplicate: the first record of a task counts
		}
		l.done[r.Task] = r
		for i, c := range r.Children {
			if i < len(r.Bounds) {
				l.bound[c] = r.Bounds[i]
			}
			if i < len(r.Paths) {
				l.paths[c] = r.Paths[i]
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

// probeNodes bounds the proof-time search of a record that cannot be
// replayed: a probe, not a proof. On the H200 chaos run the proofs' last
// records were a device batch's (dozens of them, each a subtree), and
// searching each to the task budget on one thread held every job's end.
const probeNodes = 50_000

// jobSpec is what runJob needs to know of a problem.
type jobSpec struct {
	problem  string
	data     []byte // the canonical instance
	hash     string
	job      string
	minimize bool
	start    *Record // a solution known from the outset (vertex cover: every vertex)
	roots    func(cfg CoordinatorConfig, epoch string, round int) ([]Task, error)
	verify   func(*Record) error // checks a record's certificate
	// canary finds a solution quickly, before the job is distributed (nil
	// result: none).
	canary func(context.Context) *Record
	// weaken returns a solution one worse than r (mcs: a pair fewer, vc: a
	// vertex more), checked, or nil: the hint the coordinator publishes.
	weaken func(r *Record) *Record
	// audit searches a done record's task again (evidence.go): best is
	// the best size this coordinator knows, final says the ledger proves
	// it now (nil: the problem's records are not audited).
	// (audit makes one such function per auditing goroutine.)
	audit func() func(ctx context.Context, r *Record, best int, final bool) auditVerdict
}

func (s *jobSpec) better(a, b int) bool {
	if s.minimize {
		return a < b
	}
	return a > b
}

// errVanished: the server no longer holds the job's epoch (it lost its
// store, or another coordinator replaced the epoch); errReplan: the job
// must start again in a new epoch.
var (
	errVanished = errors.New("vanished from the server")
	errReplan   = errors.New("must be searched again")
)

// coordinator is one runJob.
type coordinator struct {
	cfg      CoordinatorConfig
	spec     jobSpec
	conn     *Conn
	lg       *log.Logger
	start    time.Time
	canary   *Record
	forceNew bool
	// connected is false while the connection is down (for the progress);
	// back is when it last came back (unix ns).
	connected atomic.Bool
	back      atomic.Int64
}

// runJob uploads the instance, publishes the root tasks unless the job is
// on the server already, and follows the records until every task is
// accounted for.
//
// Evidence: before it distributes anything the coordinator searches a
// little itself (spec.canary) and keeps what it finds to itself. Every
// solution a worker prunes with is in the records (best records, or the
// done record of the task that found it), and the subtree holding the
// canary's solution is searched by someone who does not know it; so in an
// honest run the records' best is at least as good as the canary. A
// ledger that proves something worse rests on done records of tasks that
// were never searched: that is logged and the job searched again (a new
// round: new task ids, so the old records no longer count), at most
// maxRounds times, then it is an error. The answer is never worse than
// the canary.
func runJob(ctx context.Context, cfg CoordinatorConfig, spec jobSpec) (Result, error) {
	start := time.Now()
	if cfg.Tasks <= 0 {
		cfg.Tasks = 256
	}
	if cfg.Tasks > MaxRoots {
		return Result{}, fmt.Errorf("cluster: %d root tasks asked for; at most %d (a task splits itself when it runs over its node budget)", cfg.Tasks, MaxRoots)
	}
	if cfg.MaxDepth <= 0 {
		cfg.MaxDepth = 8
	}
	if cfg.Budget <= 0 {
		cfg.Budget = 1_000_000
	}
	if cfg.AckWait <= 0 {
		cfg.AckWait = DefaultHandBack
	}
	cfg.AckWait = max(cfg.AckWait, 3*aliveEvery)
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.TaskDeadline <= 0 {
		cfg.TaskDeadline = DefaultTaskDeadline
	}
	if cfg.Name == "" {
		host, _ := os.Hostname()
		cfg.Name = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	out := cfg.Log
	if out == nil {
		out = io.Discard
	}
	lg := log.New(out, "arbor coordinator: ", log.LstdFlags)
	c := &coordinator{cfg: cfg, spec: spec, lg: lg, start: start}
	c.connected.Store(true)
	conn, err := dial(cfg.URL, cfg.Token, "arbor coordinator "+spec.job, cfg.Credentials, dialOptions{coordinator: true, logf: func(f string, a ...any) {
		c.connected.Store(strings.HasPrefix(f, "reconnected"))
		if strings.HasPrefix(f, "reconnected") {
			c.back.Store(time.Now().UnixNano())
		}
		lg.Printf(f, a...)
	}})
	if err != nil {
		return Result{}, err
	}
	defer conn.Close()
	c.conn = conn
	if spec.canary != nil {
		if r := spec.canary(ctx); r != nil && spec.verify(r) == nil {
			c.canary = r
		}
	}
	for restarts := 0; ; restarts++ {
		res, err := c.runEpoch(ctx)
		res.Elapsed = time.Since(start)
		if (errors.Is(err, errVanished) || errors.Is(err, errReplan)) && restarts < maxRounds && ctx.Err() == nil {
			lg.Printf("%v: starting it again as a new epoch", err)
			c.forceNew = errors.Is(err, errReplan)
			continue
		}
		return res, err
	}
}

// claim finds the job's live epoch on the server, or starts a new one
// (purging what a dead, cancelled or replaced epoch left).
func (c *coordinator) claim(ctx context.Context, s *jobStore) (*JobInfo, ed25519.PrivateKey, bool, error) {
	job := c.spec.job
	for try := 0; try < 5; try++ {
		cur, err := s.get(ctx, job)
		if err != nil {
			return nil, nil, false, err
		}
		now := time.Now()
		if cur != nil && !c.forceNew && ((cur.State == StateRunning || cur.State == StateStopped) && !cur.Expired(now) || cur.State == StateEnded) {
			key, err := s.key(ctx, job, cur.Epoch)
			if err != nil {
				return nil, nil, false, fmt.Errorf("cluster: job %s (epoch %s) is on the server but its key is not: %w", job, cur.Epoch, err)
			}
			return cur, key, true, nil
		}
		if cur != nil && cur.State != StatePurged {
			why := cur.State
			if cur.Expired(now) {
				why = "expired"
			}
			c.lg.Printf("job %s: epoch %s %s; purging it for a new epoch", job, cur.Epoch, why)
			if err := c.conn.purgeJob(ctx, s, cur); err != nil {
				return nil, nil, false, err
			}
			continue
		}
		c.forceNew = false
		epoch, err := newEpoch()
		if err != nil {
			return nil, nil, false, err
		}
		key, err := newJobKey()
		if err != nil {
			return nil, nil, false, err
		}
		if err := s.putKey(ctx, job, epoch, key); err != nil {
			return nil, nil, false, err
		}
		info := &JobInfo{Protocol: protocol, Job: job, Problem: c.spec.problem, Epoch: epoch, Instance: c.spec.hash,
			Key: hex.EncodeToString(key.Public().(ed25519.PublicKey)), State: StateRunning, Fresh: c.cfg.Fresh,
			Coordinator: c.cfg.Name, Started: now, Renewed: now, LeaseMS: c.cfg.Lease.Milliseconds(), AckWaitMS: c.cfg.AckWait.Milliseconds()}
		var rev uint64
		if cur != nil {
			rev = cur.Rev
		}
		if err := s.create(ctx, info, rev); err != nil {
			// Another coordinator made an epoch first: take that one.
			c.lg.Printf("job %s: another coordinator started it meanwhile (%v)", job, err)
			continue
		}
		return info, key, false, nil
	}
	return nil, nil, false, fmt.Errorf("cluster: job %s: could not claim it (its record kept changing)", job)
}

// notFound says whether err means the server has no such asset (a store
// that was wiped).
func notFound(err error) bool {
	return errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrBucketNotFound) ||
		strings.Contains(err.Error(), "not found")
}

// checkEvidence checks that a done record's paths are those of its task
// and its children (the coordinator audits and republishes by them).
func checkEvidence(r *Record) error {
	scope := scopeOf(r.Job, r.Epoch, r.Round)
	if taskID(scope, (&Task{Path: r.Path}).steps()) != r.Task {
		return errors.New("done record whose path is not its task's")
	}
	if len(r.Paths) != len(r.Children) {
		return fmt.Errorf("done record with %d subtasks and %d paths", len(r.Children), len(r.Paths))
	}
	for i, p := range r.Paths {
		if taskID(scope, (&Task{Path: p}).steps()) != r.Children[i] {
			return fmt.Errorf("done record: subtask %d's path is not its id's", i)
		}
	}
	return nil
}

// checkRoots checks the root tasks of a plan as a worker would check them.
func checkRoots(roots []Task, job, hash, epoch string, round int) error {
	for i := range roots {
		b, err := json.Marshal(&roots[i])
		if err != nil {
			return err
		}
		t, err := decodeTask(b)
		if err != nil {
			return fmt.Errorf("plan: root %d: %w", i, err)
		}
		if t.Job != job || t.Instance != hash || t.Epoch != epoch || t.Round != round {
			return fmt.Errorf("plan: root %d belongs to job %s epoch %s round %d", i, t.Job, t.Epoch, t.Round)
		}
	}
	return nil
}

// aliveWorkers tracks the workers' announcements (Alive).
type aliveWorkers struct {
	mu   sync.Mutex
	seen map[string]*heard // by key/run
	runs map[string]string // worker name → its latest run label
	// gone are the workers whose tasks went to others because they fell
	// silent, with when; one heard again was alive after all (logged).
	gone map[string]time.Time
	// count is the last announcement number heard per key and run: an
	// announcement is heard once (a replay is ignored).
	heardN map[string]uint64
	// since is when a task (by stream sequence) was first heard held, and
	// overdue the tasks handed back for their deadline.
	since   map[uint64]time.Time
	overdue map[uint64]bool
	sg      *signers
	logf    func(string, ...any)
	sub     *nats.Subscription
}

type heard struct {
	at     time.Time
	worker string
	held   []Held
	// restarted: a process of the same worker name with another run label
	// announced itself, so this one is gone (a worker restarted under its
	// --name after a crash or a kill): its tasks go back at once, without
	// waiting for it to fall silent.
	restarted bool
}

// silentTask is a task held by a worker gone silent or restarted, or
// past its deadline.
type silentTask struct {
	worker    string
	restarted bool
	overdue   bool
	Held
}

// listenAlive hears the workers' announcements, and asks every worker to
// announce itself now rather than at its next beat. Only announcements
// signed by a registered key under its name count, each once. logf says
// when a worker whose tasks were handed back is heard again.
func listenAlive(conn *Conn, sg *signers, logf func(string, ...any)) (*aliveWorkers, error) {
	a := &aliveWorkers{seen: map[string]*heard{}, runs: map[string]string{}, gone: map[string]time.Time{}, heardN: map[string]uint64{},
		since: map[uint64]time.Time{}, overdue: map[uint64]bool{}, sg: sg, logf: logf}
	sub, err := conn.NC.Subscribe(aliveSubject, func(m *nats.Msg) {
		var w Alive
		if json.Unmarshal(m.Data, &w) != nil || w.Protocol != protocol || w.Worker == "" || !w.signed() {
			return // not an announcement: nothing to count
		}
		if sg.lookup(w.Signer) != w.Worker {
			return // not this worker's key
		}
		key := w.Signer + "/" + w.Run
		now := time.Now()
		a.mu.Lock()
		defer a.mu.Unlock()
		if w.Count <= a.heardN[key] {
			return // heard already: a replay
		}
		a.heardN[key] = w.Count
		if prev, ok := a.runs[w.Worker]; ok && prev != key && w.Named {
			if h := a.seen[prev]; h != nil {
				h.restarted = true
			}
		}
		if w.Named {
			a.runs[w.Worker] = key
		}
		if t, ok := a.gone[key]; ok {
			delete(a.gone, key)
			if a.logf != nil {
				a.logf("worker %s heard again %v after its tasks were handed back (they are searched twice; a longer --ack-wait avoids that)",
					w.Worker+"/"+w.Run, now.Sub(t).Round(time.Millisecond))
			}
		}
		for _, h := range w.Held {
			if _, ok := a.since[h.Seq]; !ok {
				a.since[h.Seq] = now
			}
		}
		a.seen[key] = &heard{at: now, worker: w.Worker + "/" + w.Run, held: w.Held}
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
	for _, h := range a.seen {
		if time.Since(h.at) < 3*aliveEvery && !h.restarted {
			n++
		}
	}
	return n
}

// silent returns the tasks of job held by workers unheard for longer
// than wait or restarted, and forgets those workers; and the tasks held
// longer than deadline by anyone, once each. Silence counts from back at
// the earliest: when this coordinator's connection came back (a server
// restart is no worker's silence).
func (a *aliveWorkers) silent(wait, deadline time.Duration, job string, back time.Time) []silentTask {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []silentTask
	now := time.Now()
	for w, h := range a.seen {
		if now.Sub(h.at) <= wait && !h.restarted || now.Sub(back) <= wait && !h.restarted {
			for _, t := range h.held {
				if t.Job == job && deadline > 0 && !a.overdue[t.Seq] && now.Sub(a.since[t.Seq]) > deadline {
					a.overdue[t.Seq] = true
					out = append(out, silentTask{h.worker, false, true, t})
				}
			}
			continue
		}
		for _, t := range h.held {
			if t.Job == job {
				out = append(out, silentTask{h.worker, h.restarted, false, t})
			}
		}
		delete(a.seen, w)
		if !h.restarted {
			if len(a.gone) > 1024 {
				clear(a.gone)
			}
			a.gone[w] = now
		}
	}
	return out
}

func (a *aliveWorkers) stop() { _ = a.sub.Unsubscribe() }
