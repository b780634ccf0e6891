// Package cluster spreads Arbor's exact searches — McSplit maximum common
// induced subgraph, and minimum vertex cover (vc.go) — over many processes
// and machines through NATS JetStream.
//
// A job is one instance (two graphs for McSplit) with its options. The
// coordinator uploads the instance once to an object store, keyed by the
// sha256 of its canonical bytes, splits the search tree into many more
// subtrees than there are workers (mcs.Prepared.Expand) and publishes one
// task per subtree to a work-queue stream, largest bound first. Workers
// pull tasks through one durable consumer with explicit acks, solve the
// subtree with the local engine on all their cores, and when a task runs
// past its node budget publish what it left unexplored as new tasks before
// acking it. Every task ends in a "done" record on the results stream
// naming the children it published; every improved incumbent goes out as
// a "best" record (with its mapping, the certificate) that every worker
// hears and, once it has checked the certificate, prunes with. The
// coordinator counts: the optimum is proven when every task reachable from
// the plan's roots through done records has its own done record. Records are keyed by task id, so duplicates
// from redeliveries change nothing, and because they are durable a
// restarted coordinator replays them and carries on.
//
// Subjects (JOB is a hex id: the hash of instance and options):
//
//	arbor.task.JOB             tasks              stream ARBOR_TASKS (work queue)
//	arbor.result.JOB.plan      the root tasks     stream ARBOR_RESULTS
//	arbor.result.JOB.published the roots are all in the task stream
//	arbor.result.JOB.done.TASK one per finished task
//	arbor.result.JOB.best      an improved incumbent, with its mapping
//	arbor.result.JOB.end       the proven result
//
// Instances live in the object store ARBOR_INSTANCES under their hash.
package cluster

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Names of the JetStream assets, shared by every job.
const (
	TaskStream     = "ARBOR_TASKS"
	ResultStream   = "ARBOR_RESULTS"
	InstanceBucket = "ARBOR_INSTANCES"
	// WorkerConsumer is the durable pull consumer all workers share.
	WorkerConsumer = "arbor-workers"

	taskPrefix   = "arbor.task."
	resultPrefix = "arbor.result."
	// Workers say they are alive on aliveSubject every aliveEvery, and at
	// once when asked on pingSubject (plain NATS, not kept in a stream).
	aliveSubject = "arbor.alive"
	pingSubject  = "arbor.ping"
	// A coordinator that stops its job says so on stoppedSubject (the job
	// id): workers read the job's record again at once and skip its tasks.
	stoppedSubject = "arbor.stopped"
)

// aliveEvery is how often a worker says it is alive; a coordinator counts
// a worker alive for three times as long, and hands its tasks to others
// when it has not heard it for the job's hand-back wait (at least three
// beats). Half a second: a killed worker's tasks hold up their jobs for
// the whole wait, and an announcement is a few dozen bytes.
const aliveEvery = 500 * time.Millisecond

// Alive is a worker's announcement.
type Alive struct {
	Protocol int    `json:"protocol"`
	Worker   string `json:"worker"`
	// Run tells apart processes of one name (a worker killed and started
	// again under its name must not inherit the dead one's tasks).
	Run string `json:"run,omitempty"`
	// Named: the operator gave the name (--name), so a new run under it
	// means the process before it is gone (restarted): its tasks go back
	// at once. Default names (host:pid) are one process's alone.
	Named bool `json:"named,omitempty"`
	Slots int  `json:"slots"` // tasks it searches at once
	// Held are the tasks it holds now: their coordinators hand them to
	// other workers when the announcements stop.
	Held []Held `json:"held,omitempty"`
	// Signer is the worker's registered key (hex), Count a number that
	// rises with every announcement of the process, Sig the key's
	// signature: a coordinator hears only signed announcements, each
	// once, so a worker cannot speak for another or replay its beats.
	Signer string `json:"signer,omitempty"`
	Count  uint64 `json:"count,omitempty"`
	Sig    string `json:"sig,omitempty"`
}

// sign signs a with k.
func (a *Alive) sign(k WorkerKey) {
	a.Signer, a.Sig = k.Public(), ""
	b, _ := json.Marshal(a)
	a.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(k.Key, b))
}

// signed says whether a carries its Signer's signature.
func (a Alive) signed() bool {
	pub, err := hex.DecodeString(a.Signer)
	sig, serr := base64.StdEncoding.DecodeString(a.Sig)
	if err != nil || serr != nil || len(pub) != ed25519.PublicKeySize || a.Sig == "" {
		return false
	}
	a.Sig = ""
	b, err := json.Marshal(a)
	return err == nil && ed25519.Verify(pub, b, sig)
}

// Held names a task a worker holds: its job and its sequence number in
// the task stream (where its coordinator reads it back).
type Held struct {
	Job string `json:"job"`
	Seq uint64 `json:"seq"`
}

// announce publishes the worker's announcement (a, with the tasks held()
// returns) every aliveEvery, when pinged, and soon after poke receives
// (the worker took a task: its coordinator must know who holds it before
// the worker can die with it), at most every announceGap, until the
// returned function is called or ctx ends.
func announce(ctx context.Context, c *Conn, a Alive, k WorkerKey, held func() []Held, poke <-chan struct{}) (stop func(), err error) {
	var mu sync.Mutex
	say := func() {
		mu.Lock()
		a.Count++
		a := a
		mu.Unlock()
		a.Held = held()
		a.sign(k)
		if b, err := json.Marshal(a); err == nil {
			_ = c.NC.Publish(aliveSubject, b)
		}
	}
	sub, err := c.NC.Subscribe(pingSubject, func(*nats.Msg) { say() })
	if err != nil {
		return nil, fmt.Errorf("cluster: subscribing to %s: %w", pingSubject, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		tick := time.NewTicker(aliveEvery)
		defer tick.Stop()
		for {
			say()
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			case <-poke:
				sleep(ctx, announceGap) // the tasks taken meanwhile go in one announcement
			}
		}
	}()
	return func() { cancel(); _ = sub.Unsubscribe() }, nil
}

// announceGap is the least time between two announcements a worker makes
// because it took tasks.
const announceGap = 50 * time.Millisecond

// DefaultAckWait is the task consumer's ack wait: how long JetStream lets
// a task go without an ack or a heartbeat before it gives it to another
// worker. It is fixed, for every job; a job's own --ack-wait is how soon
// its coordinator hands back the tasks of a worker it no longer hears
// (CoordinatorConfig.AckWait), which is usually much sooner.
//
// 10 s: it is what a task waits when its worker's announcements did not
// name it (a worker killed within announceGap of taking it), or when the
// server died while the worker finished it and the ack was lost.
const DefaultAckWait = 10 * time.Second

func taskSubject(job string) string         { return taskPrefix + job }
func resultSubject(job, kind string) string { return resultPrefix + job + "." + kind }

// doneSubject carries a task's id, so a worker given a task again can ask
// the stream whether it is already done.
func doneSubject(job, task string) string { return resultPrefix + job + "." + kindDone + "." + task }

// Conn is a connection to the NATS server with JetStream.
type Conn struct {
	NC *nats.Conn
	JS jetstream.JetStream
}

// Credentials are what a client shows the server beyond a token, and how
// it checks the server: NATS's own options, passed through.
type Credentials struct {
	// Creds is a NATS credentials file: a user JWT and its NKey seed
	// (decentralised authentication, as nsc writes it).
	Creds string
	// NKey is a file holding a user NKey seed (NKey authentication).
	NKey string
	// CA is a PEM file of the authorities the server's TLS certificate
	// must chain to; setting it requires TLS.
	CA string
	// Cert and Key are a client certificate and its key, for servers that
	// verify clients (mutual TLS).
	Cert, Key string
}

// options turns c into NATS options.
func (c Credentials) options() ([]nats.Option, error) {
	var opts []nats.Option
	if c.Creds != "" {
		opts = append(opts, nats.UserCredentials(c.Creds))
	}
	if c.NKey != "" {
		o, err := nats.NkeyOptionFromSeed(c.NKey)
		if err != nil {
			return nil, fmt.Errorf("cluster: NKey seed %s: %w", c.NKey, err)
		}
		opts = append(opts, o)
	}
	if c.CA != "" {
		opts = append(opts, nats.RootCAs(c.CA))
	}
	if (c.Cert == "") != (c.Key == "") {
		return nil, errors.New("cluster: a client certificate needs both its file and its key")
	}
	if c.Cert != "" {
		opts = append(opts, nats.ClientCert(c.Cert, c.Key))
	}
	return opts, nil
}

// Connect dials url; a non-empty token is sent for token authentication (a
// token may also be given in the URL, nats://TOKEN@host:port), and cr's
// credentials and TLS settings as given. The error of a refused client
// says so.
func Connect(url, token, name string, cr Credentials) (*Conn, error) {
	return dial(url, token, name, cr, dialOptions{coordinator: true})
}

// dialOptions are how a connection reports itself.
type dialOptions struct {
	// coordinator connections reply on coordInbox, which workers may not
	// read (Roles): replies carry job keys.
	coordinator bool
	// logf receives one line when the connection drops and one when it is
	// back (nil: silent).
	logf func(format string, a ...any)
}

// coordInbox is the reply prefix of coordinators' requests.
const coordInbox = "_ARBOR_C"

func dial(url, token, name string, cr Credentials, do dialOptions) (*Conn, error) {
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.RetryOnFailedConnect(false), nats.ReconnectWait(time.Second)}
	if do.coordinator {
		opts = append(opts, nats.CustomInboxPrefix(coordInbox))
	}
	if do.logf != nil {
		opts = append(opts,
			nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
				if err != nil { // nil: closed by this process
					do.logf("lost the connection to %s (%v): reconnecting", redact(url), err)
				}
			}),
			nats.ReconnectHandler(func(*nats.Conn) { do.logf("reconnected to %s", redact(url)) }))
	}
	if token != "" {
		opts = append(opts, nats.Token(token))
	}
	more, err := cr.options()
	if err != nil {
		return nil, err
	}
	opts = append(opts, more...)
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		if refused(err) {
			return nil, fmt.Errorf("cluster: %s refused the connection: wrong or missing token or credentials (%w)", redact(url), err)
		}
		return nil, fmt.Errorf("cluster: connecting to %s: %w", redact(url), err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("cluster: JetStream on %s: %w", redact(url), err)
	}
	return &Conn{NC: nc, JS: js}, nil
}

// unreachable says whether a connection error is a server not (yet) up,
// worth waiting for, rather than a refusal or a TLS or credentials
// problem, which no retry mends.
func unreachable(err error) bool {
	var ne net.Error
	return !refused(err) && (errors.Is(err, nats.ErrNoServers) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, nats.ErrTimeout) || errors.As(err, &ne) && ne.Timeout())
}

// refused says whether a connection error is the server's refusal (no
// retry helps) rather than a server not up.
func refused(err error) bool {
	return errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) || errors.Is(err, nats.ErrAuthRevoked) ||
		strings.Contains(strings.ToLower(err.Error()), "authorization")
}

// Close drains pending publications and closes the connection.
func (c *Conn) Close() {
	if err := c.NC.Drain(); err != nil {
		c.NC.Close()
	}
}

// setup creates the streams, the buckets and the worker consumer where
// they are missing, and returns the consumer. It never updates an asset:
// every process calling CreateOrUpdate at once is what raced inside the
// server (and what let one job's ack wait overwrite another's); 'arbor
// server' creates them once at start, and a coordinator only fills in
// what is missing. Workers never create anything (they may not: Roles).
func (c *Conn) setup(ctx context.Context) (jetstream.Consumer, error) {
	streams := []jetstream.StreamConfig{{
		Name: TaskStream, Subjects: []string{taskPrefix + "*"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage,
		Duplicates: 2 * time.Minute,
	}, {
		Name: ResultStream, Subjects: []string{resultPrefix + ">"},
		Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage,
		MaxAge: recordsKept, Duplicates: 2 * time.Minute,
	}}
	for _, cfg := range streams {
		if _, err := c.JS.Stream(ctx, cfg.Name); errors.Is(err, jetstream.ErrStreamNotFound) {
			if _, err = c.JS.CreateStream(ctx, cfg); err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				return nil, fmt.Errorf("cluster: creating stream %s: %w", cfg.Name, err)
			}
		} else if err != nil {
			return nil, fmt.Errorf("cluster: stream %s: %w", cfg.Name, err)
		}
	}
	for _, b := range []jetstream.KeyValueConfig{
		{Bucket: JobBucket, Storage: jetstream.FileStorage, TTL: recordsKept + 24*time.Hour},
		{Bucket: KeyBucket, Storage: jetstream.FileStorage, TTL: recordsKept + 24*time.Hour},
		{Bucket: WorkerBucket, Storage: jetstream.FileStorage},
	} {
		if _, err := c.JS.KeyValue(ctx, b.Bucket); errors.Is(err, jetstream.ErrBucketNotFound) {
			if _, err = c.JS.CreateKeyValue(ctx, b); err != nil && !errors.Is(err, jetstream.ErrBucketExists) {
				return nil, fmt.Errorf("cluster: creating bucket %s: %w", b.Bucket, err)
			}
		} else if err != nil {
			return nil, fmt.Errorf("cluster: bucket %s: %w", b.Bucket, err)
		}
	}
	if _, err := c.JS.ObjectStore(ctx, InstanceBucket); errors.Is(err, jetstream.ErrBucketNotFound) {
		if _, err = c.JS.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: InstanceBucket, Storage: jetstream.FileStorage}); err != nil && !errors.Is(err, jetstream.ErrBucketExists) {
			return nil, fmt.Errorf("cluster: object store %s: %w", InstanceBucket, err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("cluster: object store %s: %w", InstanceBucket, err)
	}
	cons, err := c.JS.Consumer(ctx, TaskStream, WorkerConsumer)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		cons, err = c.JS.CreateConsumer(ctx, TaskStream, jetstream.ConsumerConfig{
			Durable: WorkerConsumer, FilterSubject: taskPrefix + "*",
			AckPolicy: jetstream.AckExplicitPolicy, AckWait: DefaultAckWait, MaxDeliver: -1,
		})
		if errors.Is(err, jetstream.ErrConsumerExists) {
			cons, err = c.JS.Consumer(ctx, TaskStream, WorkerConsumer)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: consumer %s: %w", WorkerConsumer, err)
	}
	return cons, nil
}

// redact hides a token or password in a URL for messages.
// Redact returns url with any token or password in it replaced by ***,
// for messages.
func Redact(url string) string { return redact(url) }

func redact(url string) string {
	u, err := nurl(url)
	if err != nil {
		return url
	}
	return u
}

// backoff paces retries of a failing operation: capped exponential waits,
// and one log line when it starts failing (or fails differently) and one
// when it works again, not one per try.
type backoff struct {
	what     string
	min, max time.Duration
	logf     func(format string, a ...any)

	wait time.Duration
	last string // the error last logged; "" while working
}

func newBackoff(what string, logf func(string, ...any)) *backoff {
	return &backoff{what: what, min: 100 * time.Millisecond, max: 5 * time.Second, logf: logf}
}

// fail logs err if it is news and sleeps the next wait (or until ctx ends).
func (b *backoff) fail(ctx context.Context, err error) {
	if msg := err.Error(); msg != b.last {
		b.last = msg
		b.logf("%s: %v (retrying, waits up to %v)", b.what, err, b.max)
	}
	if b.wait == 0 {
		b.wait = b.min
	}
	sleep(ctx, b.wait)
	b.wait = min(2*b.wait, b.max)
}

// ok resets the waits, saying so if it was failing.
func (b *backoff) ok() {
	if b.last != "" {
		b.logf("%s: working again", b.what)
	}
	b.last, b.wait = "", 0
}
