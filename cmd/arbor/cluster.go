package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/arbor-gpu/arbor/cli"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cluster"
	"github.com/arbor-gpu/arbor/core"
)

// clusterFlags are the flags of a distributed run.
type clusterFlags struct {
	url       string
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

// onDevices hands --engine gpu|hybrid and the device flags to the first
// local worker of --cluster embedded (the others search on the CPU). A
// remote cluster's workers choose their own engine.
func (c *clusterFlags) onDevices(engine string, df cli.DeviceFlags) error {
	if c.url != "embedded" {
		return cli.Usagef("with --cluster %s every 'arbor worker' chooses its own engine (arbor worker --engine %s --device …); leave --engine out here", c.url, engine)
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

func (c *clusterFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.url, "cluster", "", "run on a NATS JetStream cluster: nats://HOST:4222 (workers: 'arbor worker'), or 'embedded' for a loopback server with --workers local worker processes")
	fs.StringVar(&c.token, "cluster-token", "", "the cluster's auth token (default $"+cluster.EnvToken+"; or put it in the URL, nats://TOKEN@HOST:4222)")
	fs.Int64Var(&c.taskNodes, "task-nodes", 0, "cluster: search nodes a task may take before it splits what it has left into new tasks (0: mcs 1000000, vc 20000)")
	fs.IntVar(&c.tasks, "tasks", 0, "cluster: root tasks to split the search into (0: mcs 256, vc 1, the whole graph)")
	fs.DurationVar(&c.ackWait, "ack-wait", cluster.DefaultHandBack, "cluster: how long a worker may go unheard before its tasks of this job go to other workers (at least 1.5 s; at once when a worker restarted under the same --name announces itself)")
	fs.DurationVar(&c.lease, "lease", cluster.DefaultLease, "cluster: how long the job outlives this coordinator if it dies: a rerun within it resumes the job, after it the job expires and is purged")
	fs.Float64Var(&c.auditRate, "audit-rate", cluster.DefaultAuditRate, "cluster: share of every worker's done tasks the coordinator searches again to check them (0: only the last tasks of a proof, which are always checked); a worker whose record disagrees is quarantined and its tasks searched again")
	fs.BoolVar(&c.fresh, "fresh", false, "cluster: start a new job even if the server holds this one (which is otherwise resumed, or answered from its records if it ended); stopped early, a fresh job is cancelled and purged")
	registerCredentials(fs, &c.creds)
}

// registerCredentials adds the NATS credential and TLS flags a client of
// the cluster (coordinator or worker) passes through.
func registerCredentials(fs *flag.FlagSet, cr *cluster.Credentials) {
	fs.StringVar(&cr.Creds, "cluster-creds", "", "cluster: a NATS credentials file (user JWT and NKey seed)")
	fs.StringVar(&cr.NKey, "cluster-nkey", "", "cluster: a file holding a user NKey seed (for servers with NKey users: arbor server --nkey)")
	fs.StringVar(&cr.CA, "cluster-ca", "", "cluster: PEM file of the authorities the server's TLS certificate must chain to")
	fs.StringVar(&cr.Cert, "cluster-cert", "", "cluster: a client TLS certificate (with --cluster-key), for servers that verify clients")
	fs.StringVar(&cr.Key, "cluster-key", "", "cluster: the client TLS certificate's key")
}

func (c *clusterFlags) tokenOrEnv() string {
	if c.token != "" {
		return c.token
	}
	return os.Getenv(cluster.EnvToken)
}

// coordinator makes the coordinator's configuration; with --cluster
// embedded it starts the loopback server and the local worker processes
// (this binary's 'worker' command), which the returned function stops.
func (c *clusterFlags) coordinator(e *cli.Env, workers, threads int, quiet bool) (cluster.CoordinatorConfig, func(), error) {
	if c.auditRate < 0 || c.auditRate > 1 {
		return cluster.CoordinatorConfig{}, nil, cli.Usagef("--audit-rate must be between 0 and 1 (got %v)", c.auditRate)
	}
	if c.auditRate == 0 {
		c.auditRate = -1 // none but a proof's last tasks
	}
	if c.taskNodes < 0 || c.tasks < 0 || c.ackWait <= 0 || c.lease <= 0 {
		return cluster.CoordinatorConfig{}, nil, cli.Usagef("--task-nodes and --tasks must be ≥ 0, --ack-wait and --lease > 0")
	}
	if c.tasks > cluster.MaxRoots {
		return cluster.CoordinatorConfig{}, nil, cli.Usagef("--tasks %d: at most %d root tasks (a task splits itself when it runs over --task-nodes)", c.tasks, cluster.MaxRoots)
	}
	cfg := cluster.CoordinatorConfig{URL: c.url, Token: c.tokenOrEnv(), Credentials: c.creds, Tasks: c.tasks, Budget: c.taskNodes, AckWait: c.ackWait,
		Lease: c.lease, Log: e.Stderr, Fresh: c.fresh, AuditRate: c.auditRate}
	if c.url != "embedded" {
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

// clusterJSON are the fields of a distributed run's --json beyond the
// command's own (docs/schema: the "cluster" object).
type clusterJSON struct {
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

func newClusterJSON(res cluster.Result) *clusterJSON {
	return &clusterJSON{Job: res.Job, Epoch: res.Epoch, Tasks: res.Tasks, Roots: res.Roots, Resumed: res.Resumed, Workers: res.Workers,
		Audited: res.Audited, Quarantined: res.Quarantined}
}

// clusterWhy is the "why" of a distributed run.
func clusterWhy(cf clusterFlags, res cluster.Result) string {
	where := "the cluster at " + cluster.Redact(cf.url)
	if cf.url == "embedded" {
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
		cli.Plural(res.Tasks, "task"), cli.Plural(res.Roots, "root"), resumed, audit)
}

// clusterThreads is the threads field of a distributed run: each local
// worker's threads with --cluster embedded, absent for a remote cluster
// (its workers choose their own).
func clusterThreads(cf clusterFlags) *int {
	if cf.url != "embedded" {
		return nil
	}
	t := cf.workerThreads
	return &t
}

// runMCSCluster is 'arbor mcs G H --cluster ...'. Its result goes through
// the contract of a local run (output.go): the checker and guard, the
// status, the files' own numbering, -o and --require-optimal.
func runMCSCluster(e *cli.Env, cf clusterFlags, workers, threads int, pos []string, g, h *core.Graph, opts mcs.Options, sf cli.SolverFlags) error {
	cfg, closeCluster, err := cf.coordinator(e, workers, threads, sf.JSON || !sf.Verbose)
	if err != nil {
		return err
	}
	defer closeCluster()
	ctx := e.Ctx
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	prog := cli.NewProgress(e)
	cfg.Progress = func(p cluster.Progress) {
		prog.Update(clusterProgress("incumbent", "bound ≤", p))
	}
	cres, err := cluster.SolveMCS(ctx, cfg, g, h, opts)
	prog.Done()
	if err != nil && !(ctx.Err() != nil && errors.Is(err, ctx.Err())) {
		return err
	}
	// Stopped by --timeout or Ctrl-C: the best found, unproven, as Solve does.
	res := mcs.Result{Mapping: cres.Mapping, Size: cres.Size, Proven: cres.Proven, Status: core.MaxStatus(cres.Proven, cres.Size, 0)}
	if res.Mapping == nil {
		res.Mapping = [][2]int{}
	}
	if err := cli.GuardMCS(g, h, res, opts); err != nil {
		return fmt.Errorf("%s, %s: %w", pos[0], pos[1], err)
	}
	v := cli.NewVerdict(res.Status, false, 0, false)
	m, err := outPairs(&sf, pos, v, g, h, res.Mapping, res.Size)
	if err != nil {
		return err
	}
	why := clusterWhy(cf, cres)
	if sf.JSON {
		type jsonResult struct {
			Files []string `json:"files"`
			N     []int    `json:"vertices"`
			Base  []int    `json:"base"`
			Size  int      `json:"size"`
			cli.Verdict
			Nodes    int64        `json:"nodes"`
			Seconds  float64      `json:"seconds"`
			Threads  *int         `json:"threads,omitempty"`
			Engine   string       `json:"engine"`
			Why      string       `json:"why"`
			Prune    pruneJSON    `json:"prune"`
			Verified bool         `json:"verified"`
			Mapping  [][2]int     `json:"mapping"`
			Columns  [][]int      `json:"columns"`
			Cluster  *clusterJSON `json:"cluster"`
		}
		cols := [][]int{make([]int, len(m)), make([]int, len(m))}
		for i, pr := range m {
			cols[0][i], cols[1][i] = pr[0], pr[1]
		}
		if err := json.NewEncoder(e.Stdout).Encode(jsonResult{Files: pos, N: []int{g.N, h.N}, Base: []int{sf.Base(g), sf.Base(h)}, Size: res.Size, Verdict: v,
			Nodes: cres.Nodes, Seconds: cres.Elapsed.Seconds(), Threads: clusterThreads(cf), Engine: "cluster", Why: why,
			Prune: newPruneJSON(mcs.SubtreePrune(opts)), Verified: sf.Verify, Mapping: m, Columns: cols, Cluster: newClusterJSON(cres)}); err != nil {
			return err
		}
		return v.Require(sf.RequireOptimal)
	}
	status := cli.StatusText(v, "maximum", "")
	if sf.Verify {
		status += ", verified"
	}
	w := e.Stdout
	fmt.Fprintf(w, "size %d  %s\n", res.Size, status)
	// A resumed job's nodes were searched before this run too: no rate.
	speed := cli.Rate(cres.Nodes, cres.Elapsed)
	if cres.Resumed {
		speed = "(resumed: nodes of the whole job)"
	}
	fmt.Fprintf(w, "nodes %d  time %v  %s  %s\n", cres.Nodes, cres.Elapsed.Round(time.Microsecond), cli.Plural(cres.Workers, "worker"), speed)
	fmt.Fprintf(w, "engine cluster (%s)\n", why)
	cli.WriteMapping(w, m)
	return v.Require(sf.RequireOptimal)
}

// runWorker is 'arbor worker': take tasks from a cluster until stopped.
func runWorker(e *cli.Env) error {
	fs := cli.NewFlags(e, "worker", "--cluster nats://HOST:4222 [--cluster-token T] [--threads N] [--slots S] [--name NAME] [--engine auto|cpu|gpu|hybrid] [--backend B] [--device D] [--device-nodes B] [--workers N]")
	url := fs.String("cluster", "", "the NATS server (default $"+cluster.EnvURL+")")
	token := fs.String("cluster-token", "", "the worker token, or the server's only token (default $"+cluster.EnvToken+", then $"+cluster.EnvWorkerToken+"; or in the URL)")
	threads := fs.Int("threads", 0, "CPU search threads; 0 uses every core (less one per device with --engine hybrid)")
	slots := fs.Int("slots", 0, "tasks the CPU searches at once, sharing the threads out (0: one per thread)")
	name := fs.String("name", "", "the worker's name in records and logs (default: its --key's name, else host:pid)")
	keyFile := fs.String("key", "", "the worker's key file ('arbor jobs add-worker NAME'; default $"+cluster.EnvWorkerKey+"): it signs the worker's records; without one, only a worker with the coordinator token can work (it registers a key of its own)")
	engine := fs.String("engine", "auto", "what solves tasks: cpu, gpu (each device of --device takes tasks of its own), hybrid (the devices and the CPU, each taking its own tasks) or auto (hybrid when the chosen devices are GPUs, else cpu)")
	var df cli.DeviceFlags
	df.RegisterMany(fs)
	deviceNodes := fs.Int64("device-nodes", 0, fmt.Sprintf("node budget of a task searched on a device (0: %d × the task's own)", cluster.DeviceBudgetScale))
	workers := fs.Int("workers", 0, "device engine workers (work-groups) per device; 0 sizes it from the device")
	var creds cluster.Credentials
	registerCredentials(fs, &creds)
	pos, err := cli.Parse(fs, e.Args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return cli.Usagef("worker takes no arguments (got %q)", pos)
	}
	if *threads < 0 || *slots < 0 || *deviceNodes < 0 || *workers < 0 {
		return cli.Usagef("--threads, --slots, --device-nodes and --workers must be ≥ 0")
	}
	cfg, err := cluster.WorkerFromEnv(cluster.WorkerConfig{URL: *url, Token: *token, Credentials: creds, Threads: *threads, Name: *name, Log: e.Stderr,
		Slots: *slots, DeviceBudget: *deviceNodes, DeviceWorkers: *workers})
	if err != nil {
		return err
	}
	if *keyFile != "" {
		k, err := cluster.ReadWorkerKey(*keyFile)
		if err != nil {
			return err
		}
		cfg.Key = &k
	}
	if cfg.URL == "" {
		return cli.Usagef("worker needs --cluster nats://HOST:4222 (or $%s)", cluster.EnvURL)
	}
	switch *engine {
	case "cpu":
	case "gpu", "hybrid", "auto":
		devs, err := df.OpenMany(e, true)
		if err != nil {
			if *engine != "auto" {
				return fmt.Errorf("--engine %s: %w", *engine, err)
			}
			fmt.Fprintf(e.Stderr, "arbor worker: no device (%v): tasks run on the CPU\n", err)
			break
		}
		if *engine == "auto" && devs[0].Info().Type != backend.TypeGPU {
			for _, d := range devs {
				d.Close()
			}
			break
		}
		for _, d := range devs {
			defer d.Close()
			fmt.Fprintf(e.Stderr, "arbor worker: tasks on %s\n", d.Info())
		}
		cfg.Devices, cfg.NoCPU = devs, *engine == "gpu"
		if !cfg.NoCPU && cfg.Threads == 0 {
			// Each device's search loop keeps a core busy.
			cfg.Threads = max(1, runtime.NumCPU()-len(devs))
		}
	default:
		return cli.Usagef("--engine must be auto, cpu, gpu or hybrid (got %q)", *engine)
	}
	return cluster.RunWorker(e.Ctx, cfg)
}

// runVCCluster is 'arbor vc GRAPH --cluster ...': a minimum vertex cover,
// through the contract of a local run (output.go).
func runVCCluster(e *cli.Env, cf clusterFlags, workers, threads int, name string, g *core.Graph, timeout time.Duration, sf cli.SolverFlags) error {
	cfg, closeCluster, err := cf.coordinator(e, workers, threads, sf.JSON || !sf.Verbose)
	if err != nil {
		return err
	}
	defer closeCluster()
	ctx := e.Ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	prog := cli.NewProgress(e)
	cfg.Progress = func(p cluster.Progress) {
		prog.Update(clusterProgress("best", "bound ≥", p))
	}
	cres, err := cluster.SolveVC(ctx, cfg, g)
	prog.Done()
	if err != nil && !(ctx.Err() != nil && errors.Is(err, ctx.Err())) {
		return err
	}
	// Every vertex is a cover, so there is always one to report.
	status := core.StatusFeasible
	if cres.Proven {
		status = core.StatusOptimal
	}
	res := vertexcover.Result{Cover: cres.Cover, Proven: cres.Proven, Status: status}
	if err := cli.GuardVC(g, res, -1); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	v := cli.NewVerdict(res.Status, false, 0, false)
	base := sf.Base(g)
	if sf.Out != "" {
		if err := writePACE(sf.Out, g.N, res.Cover, paceComments(v)); err != nil {
			return err
		}
	}
	// The coordinator knows no bound beyond a maximal matching's until
	// the job is proven.
	lower := cli.MaximalMatching(g)
	if res.Proven {
		lower = len(res.Cover)
	}
	why := clusterWhy(cf, cres)
	if sf.JSON {
		type jsonResult struct {
			Files []string `json:"files"`
			N     int      `json:"vertices"`
			M     int      `json:"edges"`
			Base  int      `json:"base"`
			Size  int      `json:"size"`
			cli.Verdict
			LowerBound int          `json:"lower_bound"`
			Nodes      int64        `json:"nodes"`
			Engine     string       `json:"engine"`
			Why        string       `json:"why"`
			Seconds    float64      `json:"seconds"`
			Threads    *int         `json:"threads,omitempty"`
			Verified   bool         `json:"verified"`
			Cover      []int        `json:"cover"`
			Cluster    *clusterJSON `json:"cluster"`
		}
		if err := json.NewEncoder(e.Stdout).Encode(jsonResult{Files: []string{name}, N: g.N, M: g.Edges(), Base: base, Size: len(res.Cover), Verdict: v,
			LowerBound: lower, Nodes: cres.Nodes, Engine: "cluster", Why: why, Seconds: cres.Elapsed.Seconds(), Threads: clusterThreads(cf),
			Verified: sf.Verify, Cover: cli.Shifted(res.Cover, base), Cluster: newClusterJSON(cres)}); err != nil {
			return err
		}
		return v.Require(sf.RequireOptimal)
	}
	text := cli.StatusText(v, "minimum", "")
	if sf.Verify {
		text += ", cover verified"
	}
	fmt.Fprintf(e.Stdout, "%s: %d vertices, %d edges  cover %d  %s  lower bound %d  nodes %d  %v  engine cluster (%s)\n",
		name, g.N, g.Edges(), len(res.Cover), text, lower, cres.Nodes, cres.Elapsed.Round(time.Millisecond), why)
	return v.Require(sf.RequireOptimal)
}

// runServer is 'arbor server': a cluster's NATS JetStream server from this
// binary, for machines without a NATS deployment.
func runServer(e *cli.Env) error {
	fs := cli.NewFlags(e, "server", "[--listen HOST:PORT] [--store DIR] [--max-store SIZE] [--coordinator-token T [--worker-token W] | --nkey U…[,U…]] [--tls-cert F --tls-key F [--tls-ca F]]")
	listen := fs.String("listen", "127.0.0.1:4222", "address to serve on (0.0.0.0:4222 serves other machines)")
	store := fs.String("store", "", "JetStream data directory: tasks and records survive a restart there (default: a temporary one, removed on exit)")
	maxStore := fs.String("max-store", "2GiB", "cap on the stored tasks, records and instances (e.g. 512MiB, 20GB; 0: none); past 80 % of it ended jobs are purged, oldest first")
	token := fs.String("cluster-token", "", "the coordinators' token, every right (default $"+cluster.EnvToken+"; a random one, printed, when neither is set and no --nkey)")
	coordToken := fs.String("coordinator-token", "", "the same as --cluster-token")
	workerToken := fs.String("worker-token", "", "a second token for workers: they may take tasks and publish results, not plan, end, cancel or delete jobs (default $"+cluster.EnvWorkerToken+")")
	nkeyUsers := fs.String("nkey", "", "NKey users instead of a token: their public keys (U…), comma-separated; clients give the seed (--cluster-nkey)")
	tlsCert := fs.String("tls-cert", "", "serve TLS with this certificate (PEM)")
	tlsKey := fs.String("tls-key", "", "the TLS certificate's key (PEM)")
	tlsCA := fs.String("tls-ca", "", "also require client certificates that chain to these authorities (PEM): mutual TLS")
	pos, err := cli.Parse(fs, e.Args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return cli.Usagef("server takes no arguments (got %q)", pos)
	}
	host, portText, err := net.SplitHostPort(*listen)
	if err != nil {
		return cli.Usagef("--listen %q: want HOST:PORT (%v)", *listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return cli.Usagef("--listen %q: the port must be 0 (any free one) to 65535", *listen)
	}
	capBytes, err := parseSize(*maxStore)
	if err != nil {
		return cli.Usagef("--max-store %q: %v", *maxStore, err)
	}
	if capBytes == 0 {
		capBytes = -1 // no cap
	}
	if *coordToken != "" {
		if *token != "" && *token != *coordToken {
			return cli.Usagef("--cluster-token and --coordinator-token name the same token: give one")
		}
		*token = *coordToken
	}
	if *workerToken == "" {
		*workerToken = os.Getenv(cluster.EnvWorkerToken)
	}
	cfg := cluster.ServerConfig{Host: host, Port: port, Dir: *store, Token: *token, WorkerToken: *workerToken, TLSCert: *tlsCert, TLSKey: *tlsKey, TLSCA: *tlsCA,
		MaxStore: capBytes, Log: func(f string, a ...any) { fmt.Fprintf(e.Stderr, "arbor server: "+f+"\n", a...) }}
	if *nkeyUsers != "" {
		if *token != "" || *workerToken != "" {
			return cli.Usagef("--nkey and tokens: a server takes one or the other")
		}
		cfg.NKeys = strings.Split(*nkeyUsers, ",")
	} else {
		if cfg.Token == "" {
			cfg.Token = os.Getenv(cluster.EnvToken)
		}
		if cfg.Token == "" {
			if cfg.Token, err = cluster.NewToken(); err != nil {
				return err
			}
			fmt.Fprintf(e.Stderr, "arbor server: token %s (give it to workers and coordinators as $%s)\n", cfg.Token, cluster.EnvToken)
		}
		if cfg.WorkerToken == cfg.Token {
			return cli.Usagef("--worker-token must differ from the coordinator token")
		}
	}
	srv, err := cluster.Listen(cfg)
	if err != nil {
		return err
	}
	defer srv.Shutdown()
	roles := "one token, every right"
	if cfg.WorkerToken != "" {
		roles = "coordinator and worker tokens"
	} else if len(cfg.NKeys) > 0 {
		roles = fmt.Sprintf("%d NKey users", len(cfg.NKeys))
	}
	limit := "no storage cap"
	if capBytes > 0 {
		limit = fmt.Sprintf("storage cap %d MiB", capBytes>>20)
	}
	fmt.Fprintf(e.Stderr, "arbor server: %s; %s\n", roles, limit)
	fmt.Fprintf(e.Stderr, "arbor server: listening on %s\n", srv.URL())
	<-e.Ctx.Done()
	return nil
}

// clusterProgress is the progress line of a distributed run; the
// coordinator calls it every second at least, so the clock runs.
func clusterProgress(best, bound string, p cluster.Progress) string {
	conn := ""
	if !p.Connected {
		conn = "  [disconnected: reconnecting]"
	}
	return fmt.Sprintf("%v  %s %d  %s %d  tasks %d/%d done, %d queued, %d running  workers %d  nodes %d%s",
		p.Elapsed.Round(time.Second), best, p.Size, bound, p.Bound, p.Done, p.Tasks, p.Queued, p.Running, p.Workers, p.Nodes, conn)
}

// parseSize reads a size: a number with an optional unit (B, K/KB/KiB, M…,
// G…, T…; all powers of 1024).
func parseSize(text string) (int64, error) {
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

// runJobs is 'arbor jobs list|cancel JOB|purge JOB': the life cycle of a
// cluster's jobs (a coordinator's token is needed).
func runJobs(e *cli.Env) error {
	fs := cli.NewFlags(e, "jobs", "list|cancel JOB|purge JOB|add-worker NAME [-o KEYFILE] [--cluster nats://HOST:4222] [--cluster-token T] [--json]")
	keyOut := fs.String("o", "", "add-worker: write the worker's key file here (default: NAME.key; mode 0600)")
	url := fs.String("cluster", "", "the NATS server (default $"+cluster.EnvURL+")")
	token := fs.String("cluster-token", "", "a coordinator's token (default $"+cluster.EnvToken+"; or in the URL)")
	asJSON := fs.Bool("json", false, "list: one JSON object per job")
	var creds cluster.Credentials
	registerCredentials(fs, &creds)
	pos, err := cli.Parse(fs, e.Args)
	if err != nil {
		return err
	}
	if *url == "" {
		*url = os.Getenv(cluster.EnvURL)
	}
	if *token == "" {
		*token = os.Getenv(cluster.EnvToken)
	}
	if *url == "" {
		return cli.Usagef("jobs needs --cluster nats://HOST:4222 (or $%s)", cluster.EnvURL)
	}
	cl := cluster.Client{URL: *url, Token: *token, Credentials: creds}
	switch {
	case len(pos) == 1 && pos[0] == "list":
		jobs, err := cluster.ListJobs(e.Ctx, cl)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(e.Stdout)
			for _, j := range jobs {
				if err := enc.Encode(j); err != nil {
					return err
				}
			}
			return nil
		}
		if len(jobs) == 0 {
			fmt.Fprintln(e.Stdout, "no jobs")
			return nil
		}
		fmt.Fprintf(e.Stdout, "%-28s %-16s %-9s %8s %8s %13s %6s  %s\n", "JOB", "EPOCH", "STATE", "AGE", "SILENT", "TASKS", "SIZE", "COORDINATOR")
		now := time.Now()
		for _, j := range jobs {
			state := j.State
			if j.Expired(now) {
				state = "expired"
			}
			if j.Proven {
				state += "*"
			}
			fmt.Fprintf(e.Stdout, "%-28s %-16s %-9s %8v %8v %13s %6d  %s\n", j.Job, j.Epoch, state, now.Sub(j.Started).Round(time.Second),
				now.Sub(j.Written).Round(time.Second), fmt.Sprintf("%d/%d", j.Done, j.Tasks), j.Size, j.Coordinator)
		}
		return nil
	case len(pos) == 2 && pos[0] == "cancel":
		if err := cluster.CancelJob(e.Ctx, cl, pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "cancelled job %s\n", pos[1])
		return nil
	case len(pos) == 2 && pos[0] == "purge":
		if err := cluster.PurgeJob(e.Ctx, cl, pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "purged job %s\n", pos[1])
		return nil
	case len(pos) == 2 && pos[0] == "add-worker":
		path := *keyOut
		if path == "" {
			path = pos[1] + ".key"
		}
		k, err := cluster.AddWorker(e.Ctx, cl, pos[1])
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, k.Encode(), 0o600); err != nil {
			return fmt.Errorf("writing the key of worker %s: %w", pos[1], err)
		}
		fmt.Fprintf(e.Stdout, "worker %s registered (key %.12s…); its key file is %s: arbor worker --key %s\n", k.Name, k.Public(), path, path)
		return nil
	}
	return cli.Usagef("jobs takes list, cancel JOB, purge JOB or add-worker NAME (got %q)", pos)
}
