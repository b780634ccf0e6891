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
	"encoding/json"
	"errors"
	"fmt"
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
)

// aliveEvery is how often a worker says it is alive; a coordinator counts
// a worker alive for three times as long.
const aliveEvery = 2 * time.Second

// Alive is a worker's announcement.
type Alive struct {
	Protocol int    `json:"protocol"`
	Worker   string `json:"worker"`
	Slots    int    `json:"slots"` // tasks it searches at once
}

// announce publishes a every aliveEvery and when pinged, until the
// returned function is called or ctx ends.
func announce(ctx context.Context, c *Conn, a Alive) (stop func(), err error) {
	b, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	say := func() { _ = c.NC.Publish(aliveSubject, b) }
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
			}
		}
	}()
	return func() { cancel(); _ = sub.Unsubscribe() }, nil
}

// DefaultAckWait is how long a task may go without an ack or a heartbeat
// before JetStream gives it to another worker.
const DefaultAckWait = 30 * time.Second

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
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.RetryOnFailedConnect(false)}
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
		if errors.Is(err, nats.ErrAuthorization) {
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

// Close drains pending publications and closes the connection.
func (c *Conn) Close() {
	if err := c.NC.Drain(); err != nil {
		c.NC.Close()
	}
}

// setup creates the streams, the object store and the worker consumer
// where they are missing, and returns the consumer. ackWait applies when
// the consumer is created (0: DefaultAckWait); update it to change it.
func (c *Conn) setup(ctx context.Context, ackWait time.Duration, update bool) (jetstream.Consumer, error) {
	if ackWait <= 0 {
		ackWait = DefaultAckWait
	}
	if _, err := c.JS.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: TaskStream, Subjects: []string{taskPrefix + "*"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage,
		Duplicates: 2 * time.Minute,
	}); err != nil {
		return nil, fmt.Errorf("cluster: creating stream %s: %w", TaskStream, err)
	}
	if _, err := c.JS.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: ResultStream, Subjects: []string{resultPrefix + ">"},
		Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage,
		MaxAge: 7 * 24 * time.Hour, Duplicates: 2 * time.Minute,
	}); err != nil {
		return nil, fmt.Errorf("cluster: creating stream %s: %w", ResultStream, err)
	}
	cfg := jetstream.ConsumerConfig{
		Durable: WorkerConsumer, FilterSubject: taskPrefix + "*",
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxDeliver: -1,
	}
	var cons jetstream.Consumer
	var err error
	if update {
		cons, err = c.JS.CreateOrUpdateConsumer(ctx, TaskStream, cfg)
	} else if cons, err = c.JS.Consumer(ctx, TaskStream, WorkerConsumer); errors.Is(err, jetstream.ErrConsumerNotFound) {
		// Create, never update: a coordinator may have set its ack wait
		// meanwhile, and a worker must not undo it.
		cons, err = c.JS.CreateConsumer(ctx, TaskStream, cfg)
		if errors.Is(err, jetstream.ErrConsumerExists) {
			cons, err = c.JS.Consumer(ctx, TaskStream, WorkerConsumer)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: consumer %s: %w", WorkerConsumer, err)
	}
	return cons, nil
}

func (c *Conn) instances(ctx context.Context) (jetstream.ObjectStore, error) {
	obs, err := c.JS.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: InstanceBucket, Storage: jetstream.FileStorage})
	if err != nil {
		return nil, fmt.Errorf("cluster: object store %s: %w", InstanceBucket, err)
	}
	return obs, nil
}

// redact hides a token or password in a URL for messages.
func redact(url string) string {
	u, err := nurl(url)
	if err != nil {
		return url
	}
	return u
}
