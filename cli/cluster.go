package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-gpu/arbor/cluster"
)

// ClusterFlags are the flags of a distributed run.
type ClusterFlags struct {
	URL       string
	token     string
	taskNodes int64
	tasks     int
	ackWait   time.Duration
	lease     time.Duration
	fresh     bool
	auditRate float64
	creds     cluster.Credentials
	// deviceArgs are the first local worker's engine and device flags
	// (--cluster embedded with --engine gpu or hybrid).
	deviceArgs []string
	// workerThreads: each local worker's threads (--cluster embedded), set
	// by coordinator.
	workerThreads int
}

// OnDevices hands --engine gpu|hybrid and the device flags to the first
// local worker of --cluster embedded (the others search on the CPU). A
// remote cluster's workers choose their own engine.
func (c *ClusterFlags) OnDevices(engine string, df DeviceFlags) error {
	if c.URL != "embedded" {
		return Usagef("with --cluster %s every 'arbor worker' chooses its own engine (arbor worker --engine %s --device …); leave --engine out here", c.URL, engine)
	}
	c.deviceArgs = []string{"--engine", engine}
	if df.Backend != "" {
		c.deviceArgs = append(c.deviceArgs, "--backend", df.Backend)
	}
	if df.Device != "" {
		c.deviceArgs = append(c.deviceArgs, "--device", df.Device)
	}
	return nil
}

func (c *ClusterFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.URL, "cluster", "", "run on a NATS JetStream cluster: nats://HOST:4222 (workers: 'arbor worker'), or 'embedded' for a loopback server with --workers local worker processes")
	fs.StringVar(&c.token, "cluster-token", "", "the cluster's auth token (default $"+cluster.EnvToken+"; or put it in the URL, nats://TOKEN@HOST:4222)")
	fs.Int64Var(&c.taskNodes, "task-nodes", 0, "cluster: search nodes a task may take before it splits what it has left into new tasks (0: mcs 1000000, vc 20000)")
	fs.IntVar(&c.tasks, "tasks", 0, "cluster: root tasks to split the search into (0: mcs 256, vc 1, the whole graph)")
	fs.DurationVar(&c.ackWait, "ack-wait", cluster.DefaultHandBack, "cluster: how long a worker may go unheard before its tasks of this job go to other workers (at least 1.5 s; at once when a worker restarted under the same --name announces itself)")
	fs.DurationVar(&c.lease, "lease", cluster.DefaultLease, "cluster: how long the job outlives this coordinator if it dies: a rerun within it resumes the job, after it the job expires and is purged")
	fs.Float64Var(&c.auditRate, "audit-rate", cluster.DefaultAuditRate, "cluster: share of every worker's done tasks the coordinator searches again to check them (0: only the last tasks of a proof, which are always checked); a worker whose record disagrees is quarantined and its tasks searched again")
	fs.BoolVar(&c.fresh, "fresh", false, "cluster: start a new job even if the server holds this one (which is otherwise resumed, or answered from its records if it ended); stopped early, a fresh job is cancelled and purged")
	RegisterCredentials(fs, &c.creds)
}

// RegisterCredentials adds the NATS credential and TLS flags a client of
// the cluster (coordinator or worker) passes through.
func RegisterCredentials(fs *flag.FlagSet, cr *cluster.Credentials) {
	fs.StringVar(&cr.Creds, "cluster-creds", "", "cluster: a NATS credentials file (user JWT and NKey seed)")
	fs.StringVar(&cr.NKey, "cluster-nkey", "", "cluster: a file holding a user NKey seed (for servers with NKey users: arbor server --nkey)")
	fs.StringVar(&cr.CA, "cluster-ca", "", "cluster: PEM file of the authorities the server's TLS certificate must chain to")
	fs.StringVar(&cr.Cert, "cluster-cert", "", "cluster: a client TLS certificate (with --cluster-key), for servers that verify clients")
	fs.StringVar(&cr.Key, "cluster-key", "", "cluster: the client TLS certificate's key")
}

func (c *ClusterFlags) TokenOrEnv() string {
	if c.token != "" {
		return c.token
	}
	return os.Getenv(cluster.EnvToken)
}

// Coordinator makes the coordinator's configuration; with --cluster
// embedded it starts the loopback server and the local worker processes
// (this binary's 'worker' command), which the returned function stops.
func (c *ClusterFlags) Coordinator(e *Env, workers, threads int, quiet bool) (cluster.CoordinatorConfig, func(), error) {
	if c.auditRate < 0 || c.auditRate > 1 {
		return cluster.CoordinatorConfig{}, nil, Usagef("--audit-rate must be between 0 and 1 (got %v)", c.auditRate)
	}
	if c.auditRate == 0 {
		c.auditRate = -1 // none but a proof's last tasks
	}
	if c.taskNodes < 0 || c.tasks < 0 || c.ackWait <= 0 || c.lease <= 0 {
		return cluster.CoordinatorConfig{}, nil, Usagef("--task-nodes and --tasks must be ≥ 0, --ack-wait and --lease > 0")
	}
	if c.tasks > cluster.MaxRoots {
		return cluster.CoordinatorConfig{}, nil, Usagef("--tasks %d: at most %d root tasks (a task splits itself when it runs over --task-nodes)", c.tasks, cluster.MaxRoots)
	}
	cfg := cluster.CoordinatorConfig{URL: c.URL, Token: c.TokenOrEnv(), Credentials: c.creds, Tasks: c.tasks, Budget: c.taskNodes, AckWait: c.ackWait,
		Lease: c.lease, Log: e.Stderr, Fresh: c.fresh, AuditRate: c.auditRate}
	if c.URL != "embedded" {
		return cfg, func() {}, nil
	}
	// The local workers' output, the coordinator's log and the progress
	// line share stderr: one synchronised writer for all of them (a test's
	// buffer is not a file, and each process's output is copied into it
	// by a goroutine of its own).
	e.Stderr = cluster.SyncWriter(e.Stderr)
	cfg.Log = e.Stderr
	if workers <= 0 {
		workers = runtime.NumCPU()
		if len(c.deviceArgs) > 0 && c.deviceArgs[1] == "gpu" {
			workers = 1 // the devices alone
		}
	}
	if threads <= 0 {
		threads = max(1, runtime.NumCPU()/workers)
	}
	c.workerThreads = threads
	exe, err := os.Executable()
	if err != nil {
		return cfg, nil, fmt.Errorf("finding the arbor binary for local workers: %w", err)
	}
	emb, err := cluster.StartEmbedded(workers, e.Stderr, func(i int) *exec.Cmd {
		args := []string{"worker", "--threads", strconv.Itoa(threads)}
		if i == 0 {
			args = append(args, c.deviceArgs...)
		}
		return exec.Command(exe, args...)
	})
	if err != nil {
		return cfg, nil, err
	}
	cfg.URL, cfg.Token = emb.Server.URL(), emb.Server.Token
	if !quiet {
		devices := ""
		if len(c.deviceArgs) > 0 {
			devices = fmt.Sprintf(" (the first with %s %s)", c.deviceArgs[0], c.deviceArgs[1])
		}
		fmt.Fprintf(e.Stderr, "arbor: embedded NATS server at %s, %d local workers of %d threads%s\n", cfg.URL, workers, threads, devices)
	}
	return cfg, emb.Close, nil
}

// ClusterJSON are the fields of a distributed run's --json beyond the
// command's own (docs/schema: the "cluster" object).
type ClusterJSON struct {
	Job     string `json:"job"`
	Epoch   string `json:"epoch"`
	Tasks   int    `json:"tasks"`
	Roots   int    `json:"roots"`
	Resumed bool   `json:"resumed"`
	Workers int    `json:"workers"`
	Audited int    `json:"audited"`
	// Quarantined are the workers whose records failed an audit.
	Quarantined []string `json:"quarantined,omitempty"`
}

func NewClusterJSON(res cluster.Result) *ClusterJSON {
	return &ClusterJSON{Job: res.Job, Epoch: res.Epoch, Tasks: res.Tasks, Roots: res.Roots, Resumed: res.Resumed, Workers: res.Workers,
		Audited: res.Audited, Quarantined: res.Quarantined}
}

// ClusterWhy is the "why" of a distributed run.
func ClusterWhy(cf ClusterFlags, res cluster.Result) string {
	where := "the cluster at " + cluster.Redact(cf.URL)
	if cf.URL == "embedded" {
		where = "an embedded cluster of local worker processes"
	}
	if res.Job == "" {
		return fmt.Sprintf("--cluster: %s, stopped before the job started", where)
	}
	resumed := ""
	if res.Resumed {
		resumed = ", resumed"
	}
	audit := fmt.Sprintf(", %d audited", res.Audited)
	if len(res.Quarantined) > 0 {
		audit += fmt.Sprintf("; quarantined for failed audits, their tasks searched again: %s", strings.Join(res.Quarantined, ", "))
	}
	return fmt.Sprintf("--cluster: distributed over %s (job %s epoch %s: %s from %s%s%s)", where, res.Job, res.Epoch,
		Plural(res.Tasks, "task"), Plural(res.Roots, "root"), resumed, audit)
}

// ClusterThreads is the threads field of a distributed run: each local
// worker's threads with --cluster embedded, absent for a remote cluster
// (its workers choose their own).
func ClusterThreads(cf ClusterFlags) *int {
	if cf.URL != "embedded" {
		return nil
	}
	t := cf.workerThreads
	return &t
}

// ClusterProgress is the progress line of a distributed run; the
// coordinator calls it every second at least, so the clock runs.
func ClusterProgress(best, bound string, p cluster.Progress) string {
	conn := ""
	if !p.Connected {
		conn = "  [disconnected: reconnecting]"
	}
	return fmt.Sprintf("%v  %s %d  %s %d  tasks %d/%d done, %d queued, %d running  workers %d  nodes %d%s",
		p.Elapsed.Round(time.Second), best, p.Size, bound, p.Bound, p.Done, p.Tasks, p.Queued, p.Running, p.Workers, p.Nodes, conn)
}

// ParseSize reads a size: a number with an optional unit (B, K/KB/KiB, M…,
// G…, T…; all powers of 1024).
func ParseSize(text string) (int64, error) {
	t := strings.TrimSpace(strings.ToUpper(text))
	num := strings.TrimRightFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(t[len(num):]), "B"), "I")
	shift := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30, "T": 40}
	sh, ok := shift[unit]
	n, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || n < 0 || num == "" {
		return 0, errors.New("want a size such as 512MiB, 2GB or 0")
	}
	if n > (1<<62)>>sh {
		return 0, errors.New("too large")
	}
	return n << sh, nil
}
