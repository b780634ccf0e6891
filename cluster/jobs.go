package cluster

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A job's life on the server. Its record (JobInfo, bucket JobBucket, key =
// job id) says which epoch runs now, with what public key, and whether
// its coordinator still holds the lease. The epoch is a random label made
// when a coordinator finds no live record: a rerun after the server lost
// its store, or after the job expired or was purged, is a new epoch, and
// tasks and records of another epoch are leftovers. The job's private key
// lives in KeyBucket, which only coordinators may read (Roles): plan,
// published and end records are signed with it, so a worker can tell its
// coordinator's end from anyone else's.

// Buckets of the job records and of the job keys.
const (
	JobBucket = "ARBOR_JOBS"
	KeyBucket = "ARBOR_KEYS"
)

// Job states.
const (
	StateRunning = "running"
	// StateStopped: its coordinator stopped (a timeout, ^C) and let go of
	// the job; its tasks wait, unsearched, for a rerun within the lease,
	// then it expires and is purged.
	StateStopped   = "stopped"
	StateEnded     = "ended"     // proven; its records answer a rerun
	StateCancelled = "cancelled" // by 'arbor jobs cancel'
	StatePurged    = "purged"    // records and tasks removed; the record goes soon
)

// DefaultLease is how long a job outlives its coordinator's last renewal
// (every lease/4): a coordinator killed mid-job leaves a job that expires,
// and is purged, after it.
const DefaultLease = time.Minute

// recordsKept is how long an ended job's records stay to answer reruns.
const recordsKept = 7 * 24 * time.Hour

// JobInfo is a job's record on the server.
type JobInfo struct {
	Protocol    int       `json:"protocol"`
	Job         string    `json:"job"`
	Problem     string    `json:"problem"`
	Epoch       string    `json:"epoch"`
	Instance    string    `json:"instance"`
	Key         string    `json:"key"` // ed25519 public key, hex
	State       string    `json:"state"`
	Fresh       bool      `json:"fresh,omitempty"`
	Coordinator string    `json:"coordinator,omitempty"`
	Started     time.Time `json:"started"`
	Renewed     time.Time `json:"renewed"`  // the coordinator's clock
	LeaseMS     int64     `json:"lease_ms"` // the job expires this long after its last renewal
	AckWaitMS   int64     `json:"ack_wait_ms,omitempty"`
	// Progress, as of the last renewal.
	Size   int   `json:"size"`
	Bound  int   `json:"bound"`
	Tasks  int   `json:"tasks"`
	Done   int   `json:"done"`
	Nodes  int64 `json:"nodes"`
	Proven bool  `json:"proven,omitempty"`
	// Rev is the record's revision and Written the server's time of it
	// (not stored: filled in when read).
	Rev     uint64    `json:"-"`
	Written time.Time `json:"-"`
}

// Lease is the job's lease.
func (j *JobInfo) Lease() time.Duration { return time.Duration(j.LeaseMS) * time.Millisecond }

// Expired says whether a running job's coordinator has not renewed it for
// longer than its lease, measured on the server's clock against now
// (another machine's clock: a lease of a minute absorbs usual skew).
func (j *JobInfo) Expired(now time.Time) bool {
	return (j.State == StateRunning || j.State == StateStopped) && now.Sub(j.Written) > j.Lease()
}

func newEpoch() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("cluster: an epoch: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

func newJobKey() (ed25519.PrivateKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("cluster: a job key: %w", err)
	}
	return priv, nil
}

// signRecord signs r (Sig cleared first) with key.
func signRecord(r *Record, key ed25519.PrivateKey) error {
	r.Sig = ""
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	r.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(key, b))
	return nil
}

// verifyRecord checks r's signature against the job's public key (hex).
func verifyRecord(r *Record, pubHex string) error {
	pub, err := hex.DecodeString(pubHex)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return errors.New("the job has no valid public key")
	}
	sig, err := base64.StdEncoding.DecodeString(r.Sig)
	if err != nil || r.Sig == "" {
		return errors.New("not signed")
	}
	c := *r
	c.Sig = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return err
	}
	if !ed25519.Verify(pub, b, sig) {
		return errors.New("the signature is not the job key's")
	}
	return nil
}

// jobStore is the job and key buckets of a connection.
type jobStore struct {
	jobs jetstream.KeyValue
	keys jetstream.KeyValue // nil for a worker, which may not read it
}

// openJobs looks up the job bucket (and the key bucket when withKeys).
func (c *Conn) openJobs(ctx context.Context, withKeys bool) (*jobStore, error) {
	jobs, err := c.JS.KeyValue(ctx, JobBucket)
	if err != nil {
		return nil, fmt.Errorf("cluster: bucket %s: %w", JobBucket, err)
	}
	s := &jobStore{jobs: jobs}
	if withKeys {
		if s.keys, err = c.JS.KeyValue(ctx, KeyBucket); err != nil {
			return nil, fmt.Errorf("cluster: bucket %s: %w", KeyBucket, err)
		}
	}
	return s, nil
}

// get reads a job's record: nil when there is none.
func (s *jobStore) get(ctx context.Context, job string) (*JobInfo, error) {
	e, err := s.jobs.Get(ctx, job)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: reading the record of job %s: %w", job, err)
	}
	var j JobInfo
	if err := json.Unmarshal(e.Value(), &j); err != nil || j.Job != job {
		return nil, fmt.Errorf("cluster: the record of job %s does not parse", job)
	}
	j.Rev, j.Written = e.Revision(), e.Created()
	return &j, nil
}

func (s *jobStore) put(ctx context.Context, j *JobInfo) error {
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	rev, err := s.jobs.Put(ctx, j.Job, b)
	if err != nil {
		return fmt.Errorf("cluster: writing the record of job %s: %w", j.Job, err)
	}
	j.Rev = rev
	return nil
}

// create writes a new record, failing with jetstream.ErrKeyExists when
// another coordinator got there first (expect = 0), or replacing the
// revision expect.
func (s *jobStore) create(ctx context.Context, j *JobInfo, expect uint64) error {
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	var rev uint64
	if expect == 0 {
		rev, err = s.jobs.Create(ctx, j.Job, b)
	} else {
		rev, err = s.jobs.Update(ctx, j.Job, b, expect)
	}
	if err != nil {
		return err
	}
	j.Rev = rev
	return nil
}

// keyName is a job epoch's key in KeyBucket: per epoch, so that two
// coordinators starting the same job at once cannot overwrite each
// other's key (the loser of the record's creation takes the winner's
// epoch, and needs its key).
func keyName(job, epoch string) string { return job + "." + epoch }

// key reads a job epoch's private key.
func (s *jobStore) key(ctx context.Context, job, epoch string) (ed25519.PrivateKey, error) {
	e, err := s.keys.Get(ctx, keyName(job, epoch))
	if err != nil {
		return nil, fmt.Errorf("cluster: the key of job %s: %w", job, err)
	}
	var k struct {
		Epoch string `json:"epoch"`
		Seed  []byte `json:"seed"`
	}
	if err := json.Unmarshal(e.Value(), &k); err != nil || k.Epoch != epoch || len(k.Seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("cluster: no key for epoch %s of job %s", epoch, job)
	}
	return ed25519.NewKeyFromSeed(k.Seed), nil
}

func (s *jobStore) putKey(ctx context.Context, job, epoch string, key ed25519.PrivateKey) error {
	b, _ := json.Marshal(struct {
		Epoch string `json:"epoch"`
		Seed  []byte `json:"seed"`
	}{epoch, key.Seed()})
	if _, err := s.keys.Put(ctx, keyName(job, epoch), b); err != nil {
		return fmt.Errorf("cluster: storing the key of job %s: %w", job, err)
	}
	return nil
}

// list reads every job record.
func (s *jobStore) list(ctx context.Context) ([]*JobInfo, error) {
	keys, err := s.jobs.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster: listing jobs: %w", err)
	}
	var out []*JobInfo
	for k := range keys.Keys() {
		j, err := s.get(ctx, k)
		if err != nil || j == nil {
			continue // deleted meanwhile, or not ours
		}
		out = append(out, j)
	}
	slices.SortFunc(out, func(a, b *JobInfo) int { return a.Started.Compare(b.Started) })
	return out, nil
}

// purgeJob removes a job's queued tasks and records and marks its record
// purged; the instance goes with the next sweep if no other job uses it.
func (c *Conn) purgeJob(ctx context.Context, s *jobStore, j *JobInfo) error {
	var errs []error
	if tasks, err := c.JS.Stream(ctx, TaskStream); err == nil {
		errs = append(errs, tasks.Purge(ctx, jetstream.WithPurgeSubject(taskSubject(j.Job))))
	}
	if results, err := c.JS.Stream(ctx, ResultStream); err == nil {
		errs = append(errs, results.Purge(ctx, jetstream.WithPurgeSubject(resultPrefix+j.Job+".>")))
	}
	if s.keys != nil {
		if err := s.keys.Purge(ctx, keyName(j.Job, j.Epoch)); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
			errs = append(errs, err)
		}
	}
	p := *j
	p.State = StatePurged
	errs = append(errs, s.put(ctx, &p))
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cluster: purging job %s: %w", j.Job, err)
	}
	return nil
}

// endJob marks a job ended or cancelled and publishes its signed end
// record.
func (c *Conn) endJob(ctx context.Context, s *jobStore, j *JobInfo, key ed25519.PrivateKey, end Record) error {
	end.Protocol, end.Kind, end.Job, end.Epoch = protocol, kindEnd, j.Job, j.Epoch
	if err := signRecord(&end, key); err != nil {
		return err
	}
	b, err := json.Marshal(&end)
	if err != nil {
		return err
	}
	if _, err := c.JS.Publish(ctx, resultSubject(j.Job, kindEnd), b); err != nil {
		return fmt.Errorf("cluster: publishing the end of job %s: %w", j.Job, err)
	}
	p := *j
	p.State = StateEnded
	if end.Cancelled {
		p.State = StateCancelled
	}
	p.Proven = end.Proven
	return s.put(ctx, &p)
}
