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
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/core"
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
}

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
		if l.plan && r.Round <= l.round {
			return
		}
		if l.plan {
			// A re-search: the earlier round's records no longer count.
			l.expected, l.done, l.finished = map[string]bool{}, map[string]*Record{}, 0
			l.bound, l.open = map[string]int{}, map[int]int{}
		}
		l.plan, l.round = true, r.Round
		l.roots = r.Roots
		for _, t := range r.Roots {
			l.bound[t.ID] = t.Bound
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

// rootTasks splits the search tree into the job's root tasks.
func rootTasks(g, h *core.Graph, opts mcs.Options, copts MCSOptions, hash, job, epoch string, round int, cfg CoordinatorConfig) ([]Task, error) {
	pr, err := mcs.Prepare(g, h, opts)
	if err != nil {
		return nil, err
	}
	subs, err := pr.Expand(cfg.Tasks, cfg.MaxDepth)
	if err != nil {
		return nil, err
	}
	scope := scopeOf(job, epoch, round)
	roots := make([]Task, 0, len(subs))
	for _, s := range subs {
		roots = append(roots, Task{Protocol: protocol, Problem: "mcs", Job: job, Epoch: epoch, Round: round, ID: taskID(scope, s.Path), Instance: hash,
			Options: copts, Path: fromSteps(s.Path), Bound: s.Bound, Budget: cfg.Budget})
	}
	return roots, nil
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
	// The tasks are paths of the original McSplit tree (mcs.SubtreePrune):
	// the coordinator's own short search (the canary) searches it too.
	opts.Prune = mcs.PruneNone
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
	job := JobID("mcs", hash, copts)
	verify := func(r *Record) error {
		if len(r.Cover) > 0 || r.Found {
			return errors.New("a vertex cover in a common subgraph job")
		}
		return mcs.Verify(g, h, r.Mapping, opts)
	}
	return runJob(ctx, cfg, jobSpec{
		problem: "mcs", data: data, hash: hash, job: job,
		roots: func(cfg CoordinatorConfig, epoch string, round int) ([]Task, error) {
			return rootTasks(g, h, opts, copts, hash, job, epoch, round, cfg)
		},
		verify: verify,
		canary: func(ctx context.Context) *Record {
			o := opts
			o.Threads, o.NodeLimit, o.Timeout, o.Engine, o.Devices, o.Progress = 1, canaryNodes, 0, mcs.EngineCPU, nil, nil
			res, err := mcs.Solve(ctx, g, h, o)
			if err != nil || len(res.Mapping) == 0 {
				return nil
			}
			return &Record{Size: len(res.Mapping), Mapping: res.Mapping}
		},
		weaken: func(r *Record) *Record {
			// A pair fewer: any pair will do for an induced common
			// subgraph; with --connected, one whose removal keeps it
			// connected (the checker decides; the last pairs are tried).
			if len(r.Mapping) < 2 {
				return nil
			}
			for i := len(r.Mapping) - 1; i >= max(0, len(r.Mapping)-64); i-- {
				m := slices.Delete(slices.Clone(r.Mapping), i, i+1)
				if verify(&Record{Mapping: m}) == nil {
					return &Record{Size: len(m), Mapping: m}
				}
			}
			return nil
		},
	})
}

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
	// connected is false while the connection is down (for the progress).
	connected atomic.Bool
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
		if cur != nil && !c.forceNew && (cur.State == StateRunning && !cur.Expired(now) || cur.State == StateEnded) {
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

// runEpoch runs the job in its live epoch (claiming one first) until it
// is proven, stopped, cancelled, or vanishes.
func (c *coordinator) runEpoch(ctx context.Context) (Result, error) {
	cfg, spec, conn, lg := c.cfg, c.spec, c.conn, c.lg
	job, hash := spec.job, spec.hash
	workCons, err := conn.setup(ctx)
	if err != nil {
		return Result{}, err
	}
	store, err := conn.openJobs(ctx, true)
	if err != nil {
		return Result{}, err
	}
	info, key, resumed, err := c.claim(ctx, store)
	if err != nil {
		return Result{}, err
	}
	epoch := info.Epoch
	obs, err := conn.JS.ObjectStore(ctx, InstanceBucket)
	if err != nil {
		return Result{}, fmt.Errorf("cluster: object store %s: %w", InstanceBucket, err)
	}
	if _, err := obs.GetInfo(ctx, hash); errors.Is(err, jetstream.ErrObjectNotFound) {
		if _, err := obs.PutBytes(ctx, hash, spec.data); err != nil {
			return Result{}, fmt.Errorf("cluster: uploading the instance: %w", err)
		}
	} else if err != nil {
		return Result{}, fmt.Errorf("cluster: looking up the instance: %w", err)
	}
	results, err := conn.JS.Stream(ctx, ResultStream)
	if err != nil {
		return Result{}, fmt.Errorf("cluster: stream %s: %w", ResultStream, err)
	}
	tasks, err := conn.JS.Stream(ctx, TaskStream)
	if err != nil {
		return Result{}, fmt.Errorf("cluster: stream %s: %w", TaskStream, err)
	}
	publish := func(kind string, r Record) error {
		r.Protocol, r.Kind, r.Job, r.Epoch = protocol, kind, job, epoch
		if signedKind(kind) {
			if err := signRecord(&r, key); err != nil {
				return err
			}
		}
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		id := fmt.Sprintf("%s.%s.%s.%d", job, epoch, kind, r.Round)
		if _, err := conn.JS.Publish(ctx, resultSubject(job, kind), b, jetstream.WithMsgID(id)); err != nil {
			return fmt.Errorf("cluster: publishing the %s record: %w", kind, err)
		}
		return nil
	}
	publishTasks := func(roots []Task, round int) error {
		for i := range roots {
			b, err := json.Marshal(&roots[i])
			if err != nil {
				return err
			}
			if _, err := conn.JS.Publish(ctx, taskSubject(job), b, jetstream.WithMsgID(roots[i].ID)); err != nil {
				return fmt.Errorf("cluster: publishing a task: %w", err)
			}
		}
		return publish(kindPublished, Record{Round: round})
	}
	plan := func(round int) error {
		roots, err := spec.roots(cfg, epoch, round)
		if err != nil {
			return err
		}
		// The plan goes first: from then on the job can be resumed.
		if b, _ := json.Marshal(Record{Roots: roots}); int64(len(b)) > conn.NC.MaxPayload() {
			return fmt.Errorf("cluster: a plan of %d root tasks (%d KiB) exceeds the server's message limit (%d KiB): ask for fewer tasks",
				len(roots), len(b)>>10, conn.NC.MaxPayload()>>10)
		}
		if err := publish(kindPlan, Record{Roots: roots, Round: round}); err != nil {
			return err
		}
		return publishTasks(roots, round)
	}
	if !resumed {
		if err := plan(0); err != nil {
			return Result{}, err
		}
	}
	// The hint: the canary made one worse, published as an incumbent. The
	// workers prune with it (without it they search, until one of them
	// finds as good a solution, subtrees the canary's size rules out: a
	// calm local run of mcs90_b09m_s100.A01 made 9,836 tasks and timed out
	// where the hinted run proves it in about 300), and the canary still
	// catches done records of unsearched tasks: they prove only the hint,
	// one worse than what the coordinator holds.
	hint := func(round int) {
		if c.canary == nil || spec.weaken == nil {
			return
		}
		if r := spec.weaken(c.canary); r != nil && spec.verify(r) == nil {
			r.Worker, r.Round = "coordinator "+cfg.Name, round
			if err := publish(kindBest, *r); err != nil {
				lg.Printf("job %s: publishing the starting incumbent: %v", job, err)
			}
		}
	}
	hint(0)
	alive, err := listenAlive(conn, func(f string, a ...any) { lg.Printf("job %s: "+f, append([]any{job}, a...)...) })
	if err != nil {
		return Result{}, err
	}
	defer alive.stop()

	l := newLedger(spec.minimize)
	if spec.start != nil {
		l.offer(spec.start)
	}
	records, leftovers := 0, 0
	result := func() Result {
		r := Result{Job: job, Epoch: epoch, Size: l.size, Mapping: l.mapping, Cover: l.cover, Found: l.has && spec.minimize, Proven: l.proven(), Tasks: l.finished,
			Roots: len(l.roots), Nodes: l.nodes, Resumed: resumed, Elapsed: time.Since(c.start), Workers: alive.count()}
		if cn := c.canary; cn != nil && (!l.has && spec.minimize || spec.better(cn.Size, l.size)) {
			// Never report less than what this coordinator holds itself.
			r.Size, r.Mapping, r.Cover, r.Found, r.Proven = cn.Size, cn.Mapping, cn.Cover, cn.Found, false
		}
		return r
	}

	// Read every record of the job from the start, then follow new ones.
	// A reader that fails is started again from the start: the ledger
	// ignores what it has seen.
	msgs := make(chan jetstream.Msg, 256)
	readErr := make(chan error, 1)
	rctx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	startReader := func() error {
		cons, err := conn.JS.OrderedConsumer(rctx, ResultStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{resultPrefix + job + ".>"}})
		if err != nil {
			return fmt.Errorf("cluster: reading the results of job %s: %w", job, err)
		}
		it, err := cons.Messages()
		if err != nil {
			return fmt.Errorf("cluster: reading the results of job %s: %w", job, err)
		}
		go func() {
			defer it.Stop()
			stop := context.AfterFunc(rctx, it.Stop)
			defer stop()
			for {
				m, err := it.Next()
				if err != nil {
					readErr <- err
					return
				}
				select {
				case msgs <- m:
				case <-rctx.Done():
					return
				}
			}
		}()
		return nil
	}
	if err := startReader(); err != nil {
		return result(), err
	}
	readBack := newBackoff("job "+job+": reading its records", lg.Printf)
	renewBack := newBackoff("job "+job+": renewing its lease", lg.Printf)

	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var lastRenew, lastQueue, lastProgress time.Time
	lastRenew = time.Now()
	queued, running := 0, 0
	publishedChecked := map[int]bool{}
	awaitRound := 0
	handedBack := map[uint64]bool{}
	// The watchdog: when the job has open tasks while the shared queue has
	// nothing queued or running for stallAfter, its open roots were lost
	// (seen once in a chaos run: a root never done, never handed back);
	// they are published again. Children cannot be: only their ids are
	// recorded.
	var idleSince time.Time
	var lastCheck time.Time
	republished := 0
	watchdog := func() {
		if !l.plan || l.proven() || time.Since(lastCheck) < time.Second || !c.connected.Load() {
			return
		}
		lastCheck = time.Now()
		ci, err := workCons.Info(ctx)
		if err != nil {
			return
		}
		if ci.NumPending > 0 || ci.NumAckPending > 0 || ci.NumWaiting == 0 {
			idleSince = time.Time{} // busy, or no worker is asking for tasks
			return
		}
		if idleSince.IsZero() {
			idleSince = time.Now()
		}
		if time.Since(idleSince) < stallAfter {
			return
		}
		idleSince = time.Time{}
		republished++
		n := 0
		for i := range l.roots {
			t := &l.roots[i]
			if l.done[t.ID] != nil {
				continue
			}
			b, err := json.Marshal(t)
			if err != nil {
				continue
			}
			if _, err := conn.JS.Publish(ctx, taskSubject(job), b, jetstream.WithMsgID(fmt.Sprintf("%s.w%d", t.ID, republished))); err == nil {
				n++
			}
		}
		if n > 0 || republished == 1 {
			lg.Printf("job %s: %d of %d tasks open but nothing queued or running for %v: published its %d open root tasks again", job,
				len(l.expected)-l.finished, len(l.expected), stallAfter, n)
		}
	}
	progress := func(force bool) {
		if cfg.Progress == nil || !force && time.Since(lastProgress) < 100*time.Millisecond {
			return
		}
		lastProgress = time.Now()
		if time.Since(lastQueue) >= time.Second && c.connected.Load() {
			lastQueue = time.Now()
			if ci, err := workCons.Info(ctx); err == nil {
				queued, running = int(ci.NumPending), ci.NumAckPending
			}
		}
		r := result()
		cfg.Progress(Progress{Job: job, Epoch: epoch, Size: r.Size, Bound: l.jobBound(), Tasks: len(l.expected), Done: l.finished,
			Queued: queued, Running: running, Workers: alive.count(), Records: records, Nodes: l.nodes, Resumed: resumed,
			Elapsed: time.Since(c.start), Connected: c.connected.Load()})
	}
	// renew writes the job's progress and lease, and checks the job is
	// still this epoch's.
	renew := func() error {
		cur, err := store.get(ctx, job)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if c.connected.Load() && notFound(err) {
				return fmt.Errorf("cluster: job %s (epoch %s) %w: its records are gone (did the server lose its store?)", job, epoch, errVanished)
			}
			renewBack.fail(ctx, err)
			return nil
		}
		switch {
		case cur == nil:
			return fmt.Errorf("cluster: job %s (epoch %s) %w: its record is gone (did the server lose its store?)", job, epoch, errVanished)
		case cur.Epoch != epoch:
			return fmt.Errorf("cluster: job %s %w: epoch %s replaced epoch %s", job, errVanished, cur.Epoch, epoch)
		case cur.State == StateCancelled:
			return fmt.Errorf("cluster: job %s was cancelled", job)
		case cur.State == StatePurged:
			return fmt.Errorf("cluster: job %s was purged while it ran", job)
		}
		r := result()
		upd := *cur
		upd.Renewed, upd.Coordinator = time.Now(), cfg.Name
		upd.Size, upd.Bound, upd.Tasks, upd.Done, upd.Nodes = r.Size, l.jobBound(), len(l.expected), l.finished, l.nodes
		if err := store.create(ctx, &upd, cur.Rev); err != nil {
			renewBack.fail(ctx, err) // another coordinator of the job renewed it: next time
			return nil
		}
		renewBack.ok()
		info = &upd
		return nil
	}
	// handBack republishes the tasks of this job held by workers that went
	// silent: a worker killed mid-task need not wait for the consumer's ack
	// wait.
	handBack := func() {
		for _, h := range alive.silent(cfg.AckWait, job) {
			if handedBack[h.Seq] {
				continue
			}
			handedBack[h.Seq] = true
			m, err := tasks.GetMsg(ctx, h.Seq)
			if err != nil {
				continue // acked meanwhile: done, or handed back already
			}
			t, err := decodeTask(m.Data)
			if err != nil || t.Job != job || t.Epoch != epoch || l.done[t.ID] != nil {
				continue
			}
			if _, err := conn.JS.Publish(ctx, taskSubject(job), m.Data, jetstream.WithMsgID(fmt.Sprintf("%s.h%d", t.ID, h.Seq))); err != nil {
				lg.Printf("job %s: handing back task %s: %v", job, t.ID, err)
				continue
			}
			why := fmt.Sprintf("unheard for %v", cfg.AckWait)
			if h.restarted {
				why = "restarted under its name"
			}
			lg.Printf("job %s: worker %s %s: handed its task %s to the others", job, strings.TrimSuffix(h.worker, "/"), why, t.ID)
		}
	}
	stopped := func(cause error) (Result, error) {
		res := result()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if cfg.Fresh {
			// Nobody can resume a fresh job: its queued tasks would only
			// delay later jobs.
			_ = conn.endJob(cctx, store, info, key, Record{Cancelled: true})
			if err := conn.purgeJob(cctx, store, info); err != nil {
				lg.Printf("%v", err)
			} else {
				lg.Printf("job %s stopped: cancelled and purged (a --fresh job cannot be resumed)", job)
			}
		} else {
			lg.Printf("job %s stopped with %d of %d tasks done: a rerun within %v resumes it; then it expires ('arbor jobs cancel %s' ends it now)",
				job, l.finished, len(l.expected), cfg.Lease, job)
		}
		return res, fmt.Errorf("cluster: job %s stopped with %d of %d tasks done: %w", job, l.finished, len(l.expected), cause)
	}

	for {
		if l.proven() && l.round >= awaitRound {
			if cn := c.canary; cn != nil && spec.better(cn.Size, l.size) {
				lg.Printf("job %s: contradiction: its done records prove %d, but this coordinator holds a verified solution of %d: "+
					"some task was reported done without its search (a misused worker token?)", job, l.size, cn.Size)
				if l.ended != nil {
					return result(), fmt.Errorf("cluster: job %s %w (its records end it with a false proof)", job, errReplan)
				}
				if l.round+1 >= maxRounds {
					return result(), fmt.Errorf("cluster: job %s: the done records contradicted the coordinator's own solution in %d rounds; answer unproven", job, maxRounds)
				}
				awaitRound = l.round + 1
				lg.Printf("job %s: searching it again (round %d)", job, awaitRound)
				if err := plan(awaitRound); err != nil {
					return result(), err
				}
				hint(awaitRound)
				continue
			}
			break
		}
		select {
		case <-ctx.Done():
			return stopped(ctx.Err())
		case err := <-readErr:
			if ctx.Err() != nil {
				continue
			}
			readBack.fail(ctx, err)
			if err := startReader(); err != nil {
				readBack.fail(ctx, err)
				readErr <- err
			}
			continue
		case <-tick.C:
			if time.Since(lastRenew) >= min(cfg.Lease/4, 2*time.Second) || !c.connected.Load() {
				if err := renew(); err != nil {
					return result(), err
				}
				lastRenew = time.Now()
			}
			handBack()
			watchdog()
			progress(true)
			continue
		case msg := <-msgs:
			records++
			readBack.ok()
			r, err := decodeRecord(msg.Data())
			if err == nil && r.Job != job {
				err = fmt.Errorf("record of job %s", r.Job)
			}
			if err == nil && r.certified() {
				if verr := spec.verify(r); verr != nil {
					err = fmt.Errorf("%s record with an invalid certificate: %w", r.Kind, verr)
				}
			}
			if err == nil && r.Epoch != epoch {
				leftovers++
				if leftovers == 1 {
					lg.Printf("job %s: ignoring records of epoch %q (not the live epoch %s)", job, r.Epoch, epoch)
				}
				continue
			}
			if err == nil && signedKind(r.Kind) {
				if verr := verifyRecord(r, info.Key); verr != nil {
					err = fmt.Errorf("an unauthenticated %s record: %v", r.Kind, verr)
				}
			}
			if err == nil && r.Kind == kindDone && !isHex(r.Task, 24) {
				err = errors.New("done record without a valid task id")
			}
			if err == nil && r.Kind == kindPlan {
				err = checkRoots(r.Roots, job, hash, epoch, r.Round)
			}
			if err != nil {
				lg.Printf("ignored a message on %s: %v", msg.Subject(), err)
				continue
			}
			if r.Kind == kindEnd && r.Cancelled {
				return result(), fmt.Errorf("cluster: job %s was cancelled", job)
			}
			l.take(r)
			if resumed && l.plan && !publishedChecked[l.round] {
				// A coordinator stopped between plan and published may have
				// left roots unpublished: publish them again (duplicates are
				// dropped by id, or harmless).
				publishedChecked[l.round] = true
				m, err := results.GetLastMsgForSubject(ctx, resultSubject(job, kindPublished))
				var pr *Record
				if err == nil {
					pr, _ = decodeRecord(m.Data)
				}
				if err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
					return result(), fmt.Errorf("cluster: reading the results of job %s: %w", job, err)
				}
				if pr == nil || pr.Epoch != epoch || pr.Round < l.round {
					lg.Printf("job %s: republishing its %d root tasks", job, len(l.roots))
					if err := publishTasks(l.roots, l.round); err != nil {
						return result(), err
					}
				}
			}
			progress(false)
		}
	}
	res := result()
	progress(true)
	final := &Record{Size: res.Size, Mapping: res.Mapping, Cover: res.Cover, Found: res.Found, Nodes: res.Nodes, Proven: true}
	if err := spec.verify(final); err != nil {
		return res, fmt.Errorf("cluster: job %s: the final answer fails verification: %w", job, err)
	}
	if l.ended == nil {
		info.Size, info.Bound, info.Tasks, info.Done, info.Nodes = res.Size, res.Size, len(l.expected), l.finished, l.nodes
		if err := conn.endJob(ctx, store, info, key, *final); err != nil {
			return res, err
		}
	}
	// Tasks left in the queue are duplicates of finished ones.
	if err := tasks.Purge(ctx, jetstream.WithPurgeSubject(taskSubject(job))); err != nil {
		lg.Printf("job %s: purging leftover tasks: %v", job, err)
	}
	return res, nil
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
	seen map[string]*heard // by worker/run
	runs map[string]string // worker name → its latest run label
	// gone are the workers whose tasks went to others because they fell
	// silent, with when; one heard again was alive after all (logged).
	gone map[string]time.Time
	logf func(string, ...any)
	sub  *nats.Subscription
}

type heard struct {
	at   time.Time
	held []Held
	// restarted: a process of the same worker name with another run label
	// announced itself, so this one is gone (a worker restarted under its
	// --name after a crash or a kill): its tasks go back at once, without
	// waiting for it to fall silent.
	restarted bool
}

// silentTask is a task held by a worker gone silent or restarted.
type silentTask struct {
	worker    string
	restarted bool
	Held
}

// listenAlive hears the workers' announcements, and asks every worker to
// announce itself now rather than at its next beat. logf says when a
// worker whose tasks were handed back is heard again.
func listenAlive(conn *Conn, logf func(string, ...any)) (*aliveWorkers, error) {
	a := &aliveWorkers{seen: map[string]*heard{}, runs: map[string]string{}, gone: map[string]time.Time{}, logf: logf}
	sub, err := conn.NC.Subscribe(aliveSubject, func(m *nats.Msg) {
		var w Alive
		if json.Unmarshal(m.Data, &w) != nil || w.Protocol != protocol || w.Worker == "" {
			return // not an announcement: nothing to count
		}
		key := w.Worker + "/" + w.Run
		now := time.Now()
		a.mu.Lock()
		defer a.mu.Unlock()
		if prev, ok := a.runs[w.Worker]; ok && prev != w.Run && w.Named {
			if h := a.seen[w.Worker+"/"+prev]; h != nil {
				h.restarted = true
			}
		}
		if w.Named {
			a.runs[w.Worker] = w.Run
		}
		if t, ok := a.gone[key]; ok {
			delete(a.gone, key)
			if a.logf != nil {
				a.logf("worker %s heard again %v after its tasks were handed back (they are searched twice; a longer --ack-wait avoids that)",
					key, now.Sub(t).Round(time.Millisecond))
			}
		}
		a.seen[key] = &heard{at: now, held: w.Held}
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
// than wait or restarted, and forgets those workers.
func (a *aliveWorkers) silent(wait time.Duration, job string) []silentTask {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []silentTask
	now := time.Now()
	for w, h := range a.seen {
		if now.Sub(h.at) <= wait && !h.restarted {
			continue
		}
		for _, t := range h.held {
			if t.Job == job {
				out = append(out, silentTask{w, h.restarted, t})
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
