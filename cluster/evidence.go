package cluster

// Worker identities and the evidence behind a proof (issue #43).
//
// Every worker signs its done and best records and its announcements with
// an ed25519 key of its own, registered on the server in WorkerBucket
// (key: the public key in hex; value: the worker's name). Only
// coordinator-token holders write that bucket: 'arbor jobs add-worker'
// mints a key file for a worker that connects with the worker token, the
// embedded mode mints one per worker process, and a worker that connects
// with the coordinator token registers a key of its own. A coordinator
// counts only records signed by a registered key whose name is the
// record's, so a leaked worker token alone cannot report anything.
//
// A worker with a valid key can still lie. So the coordinator re-searches
// a random sample of every worker's done tasks itself (audit), and always
// the last done records before it declares a proof: a CPU task searched by
// one thread with the bar frozen at its start (Record.Replay) is searched
// again exactly so, and nodes, children and the size found must agree; a
// task searched otherwise (a device batch, several threads) is checked at
// the proof for a solution better than the answer inside it. A worker
// whose record disagrees is quarantined: its records no longer count in
// this job, the ledger is rebuilt without them and the tasks they claimed
// are published again; the result says so.

import (
	"context"
	"crypto/ed25519"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// WorkerBucket is the registry of worker keys.
const WorkerBucket = "ARBOR_WORKERS"

// EnvWorkerKey hands a locally started worker its key (the key file's
// contents), like EnvToken its token.
const EnvWorkerKey = "ARBOR_CLUSTER_WORKER_KEY"

// DefaultAuditRate is the share of every worker's done tasks its
// coordinators search again (besides the last ones of a proof, always).
const DefaultAuditRate = 0.02

// auditLast is how many of the last done records before a proof are
// always audited: a forger who reports every open task done at once is
// among them.
const auditLast = 16

// WorkerKey is a worker's identity: its name and signing key.
type WorkerKey struct {
	Name string
	Key  ed25519.PrivateKey
}

// NewWorkerKey makes a key for a worker called name.
func NewWorkerKey(name string) (WorkerKey, error) {
	if name == "" || strings.ContainsAny(name, " \t\n/") {
		return WorkerKey{}, fmt.Errorf("cluster: %q is not a worker name (no spaces or slashes)", name)
	}
	_, priv, err := ed25519.GenerateKey(crand.Reader)
	if err != nil {
		return WorkerKey{}, fmt.Errorf("cluster: a worker key: %w", err)
	}
	return WorkerKey{Name: name, Key: priv}, nil
}

// Public is the key's public half in hex: its name in the registry.
func (k WorkerKey) Public() string { return hex.EncodeToString(k.Key.Public().(ed25519.PublicKey)) }

type workerKeyFile struct {
	Name string `json:"name"`
	Seed string `json:"seed"`
}

// Encode is the key file's contents (keep it secret: it signs as the
// worker).
func (k WorkerKey) Encode() []byte {
	b, _ := json.Marshal(workerKeyFile{Name: k.Name, Seed: hex.EncodeToString(k.Key.Seed())})
	return append(b, '\n')
}

// DecodeWorkerKey reads a key file's contents; what names the source in
// errors.
func DecodeWorkerKey(data []byte, what string) (WorkerKey, error) {
	var f workerKeyFile
	if err := json.Unmarshal(data, &f); err != nil {
		return WorkerKey{}, fmt.Errorf("cluster: worker key %s: not a key file (%v)", what, err)
	}
	seed, err := hex.DecodeString(f.Seed)
	if err != nil || len(seed) != ed25519.SeedSize || f.Name == "" {
		return WorkerKey{}, fmt.Errorf("cluster: worker key %s: want a name and a %d-byte hex seed", what, ed25519.SeedSize)
	}
	return WorkerKey{Name: f.Name, Key: ed25519.NewKeyFromSeed(seed)}, nil
}

// ReadWorkerKey reads a key file ('arbor jobs add-worker').
func ReadWorkerKey(path string) (WorkerKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return WorkerKey{}, fmt.Errorf("cluster: %w", err)
	}
	return DecodeWorkerKey(b, path)
}

type registered struct {
	Name  string    `json:"name"`
	Added time.Time `json:"added"`
}

// register writes k's public key to the registry (coordinator rights).
func (c *Conn) register(ctx context.Context, k WorkerKey) error {
	kv, err := c.JS.KeyValue(ctx, WorkerBucket)
	if err != nil {
		return fmt.Errorf("cluster: bucket %s: %w", WorkerBucket, err)
	}
	b, _ := json.Marshal(registered{Name: k.Name, Added: time.Now()})
	if _, err := kv.Put(ctx, k.Public(), b); err != nil {
		return fmt.Errorf("cluster: registering worker %s: %w", k.Name, err)
	}
	return nil
}

// AddWorker mints and registers a key for a worker called name ('arbor
// jobs add-worker'); the worker signs with it (--key).
func AddWorker(ctx context.Context, cl Client, name string) (WorkerKey, error) {
	k, err := NewWorkerKey(name)
	if err != nil {
		return WorkerKey{}, err
	}
	conn, err := Connect(cl.URL, cl.Token, "arbor jobs", cl.Credentials)
	if err != nil {
		return WorkerKey{}, err
	}
	defer conn.Close()
	if _, err := conn.setup(ctx); err != nil {
		return WorkerKey{}, err
	}
	return k, conn.register(ctx, k)
}

// AddWorker mints and registers a key for a worker of this server.
func (s *Server) AddWorker(name string) (WorkerKey, error) {
	k, err := NewWorkerKey(name)
	if err != nil {
		return WorkerKey{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return k, s.conn.register(ctx, k)
}

// Register registers an existing key with this server (a server that
// lost its store lost its registry with it).
func (s *Server) Register(k WorkerKey) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.conn.register(ctx, k)
}

// signers looks up and caches registered keys.
type signers struct {
	kv   jetstream.KeyValue
	mu   sync.Mutex
	name map[string]string    // public key → name
	miss map[string]time.Time // looked up and absent, when
}

func (c *Conn) signers(ctx context.Context) (*signers, error) {
	kv, err := c.JS.KeyValue(ctx, WorkerBucket)
	if err != nil {
		return nil, fmt.Errorf("cluster: bucket %s: %w", WorkerBucket, err)
	}
	return &signers{kv: kv, name: map[string]string{}, miss: map[string]time.Time{}}, nil
}

// lookup returns the registered name of a public key ("" when none).
func (s *signers) lookup(pub string) string {
	if !isHex(pub, 2*ed25519.PublicKeySize) {
		return ""
	}
	s.mu.Lock()
	n, ok := s.name[pub]
	t, missed := s.miss[pub]
	s.mu.Unlock()
	if ok {
		return n
	}
	if missed && time.Since(t) < time.Second {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var reg registered
	e, err := s.kv.Get(ctx, pub)
	if err == nil && json.Unmarshal(e.Value(), &reg) == nil && reg.Name != "" {
		s.mu.Lock()
		s.name[pub] = reg.Name
		s.mu.Unlock()
		return reg.Name
	}
	s.mu.Lock()
	if len(s.miss) > 4096 {
		clear(s.miss)
	}
	s.miss[pub] = time.Now()
	s.mu.Unlock()
	return ""
}

// check verifies a worker's signature on r and that its key is registered
// under r.Worker.
func (s *signers) check(r *Record) error {
	if r.Signer == "" || r.Sig == "" {
		return errors.New("not signed by a worker key")
	}
	if err := verifyRecord(r, r.Signer); err != nil {
		return err
	}
	switch n := s.lookup(r.Signer); {
	case n == "":
		return fmt.Errorf("key %.12s… %w", r.Signer, errUnregistered)
	case n != r.Worker:
		return fmt.Errorf("key %.12s… is worker %s's, not %s's", r.Signer, n, r.Worker)
	}
	return nil
}

// errUnregistered: a record's key is not (yet) in the registry. Such
// records wait: a server that lost its store has its workers added again.
var errUnregistered = errors.New("is not registered (arbor jobs add-worker)")

// signAs signs r as worker k.
func signAs(r *Record, k WorkerKey) error {
	r.Worker, r.Signer = k.Name, k.Public()
	return signRecord(r, k.Key)
}

// auditVerdict is what an audit found.
type auditVerdict struct {
	rec *Record
	// why is the disagreement ("" when the record held up); better is a
	// solution the audit found beyond the answer (a certificate).
	why    string
	better *Record
	// later: the record cannot be judged yet (its bar is above every
	// solution this coordinator has seen); asked again at the proof.
	later bool
}

// auditor re-searches done records on the coordinator, one at a time, in
// a goroutine of its own.
type auditor struct {
	in    chan auditJob
	out   chan auditVerdict
	n     int // audits asked for, not yet answered
	rate  float64
	rng   *rand.Rand
	asked map[string]bool // task ids audited (or queued)
	done  int             // audits answered
	fails int
}

type auditJob struct {
	r     *Record
	best  int
	final bool
}

// auditThreads is how many audits run at once: a proof waits for its
// last records' audits.
const auditThreads = 4

func newAuditor(ctx context.Context, rate float64, check func() func(context.Context, *Record, int, bool) auditVerdict) *auditor {
	a := &auditor{in: make(chan auditJob, 1<<16), out: make(chan auditVerdict, 1<<16), rate: rate,
		rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 43)), asked: map[string]bool{}}
	for range auditThreads {
		a.run(ctx, check())
	}
	return a
}

// run starts one auditing goroutine with its own check (each its own
// prepared instance).
func (a *auditor) run(ctx context.Context, check func(context.Context, *Record, int, bool) auditVerdict) {
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case j := <-a.in:
				v := check(ctx, j.r, j.best, j.final)
				select {
				case a.out <- v:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
}

// ask queues an audit of r unless it was asked for already.
func (a *auditor) ask(r *Record, best int, final bool) {
	key := r.Task + "/" + r.Signer
	if a.asked[key] && !final {
		return
	}
	a.asked[key] = true
	a.n++
	a.in <- auditJob{r, best, final}
}

// sample decides whether a done record is audited.
func (a *auditor) sample() bool { return a.rate > 0 && a.rng.Float64() < a.rate }

// sameIDs says whether two id lists hold the same ids.
func sameIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
