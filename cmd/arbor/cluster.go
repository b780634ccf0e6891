package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
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
	creds     cluster.Credentials
	// deviceArgs are the first local worker's engine and device flags
	// (--cluster embedded with --engine gpu or hybrid).
	deviceArgs []string
}

// onDevices hands --engine gpu|hybrid and the device flags to the first
// local worker of --cluster embedded (the others search on the CPU). A
// remote cluster's workers choose their own engine.
func (c *clusterFlags) onDevices(engine string, df deviceFlags) error {
	if c.url != "embedded" {
		return usagef("with --cluster %s every 'arbor worker' chooses its own engine (arbor worker --engine %s --device …); leave --engine out here", c.url, engine)
	}
	c.deviceArgs = []string{"--engine", engine}
	if df.backend != "" {
		c.deviceArgs = append(c.deviceArgs, "--backend", df.backend)
	}
	if df.device != "" {
		c.deviceArgs = append(c.deviceArgs, "--device", df.device)
	}
	return nil
}

func (c *clusterFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.url, "cluster", "", "run on a NATS JetStream cluster: nats://HOST:4222 (workers: 'arbor worker'), or 'embedded' for a loopback server with --workers local worker processes")
	fs.StringVar(&c.token, "cluster-token", "", "the cluster's auth token (default $"+cluster.EnvToken+"; or put it in the URL, nats://TOKEN@HOST:4222)")
	fs.Int64Var(&c.taskNodes, "task-nodes", 0, "cluster: search nodes a task may take before it splits what it has left into new tasks (0: mcs 1000000, vc 20000)")
	fs.IntVar(&c.tasks, "tasks", 0, "cluster: root tasks to split the search into (0: mcs 256, vc 1, the whole graph)")
	fs.DurationVar(&c.ackWait, "ack-wait", cluster.DefaultHandBack, "cluster: how long a worker may go unheard before its tasks of this job go to other workers (at least 3 s)")
	fs.DurationVar(&c.lease, "lease", cluster.DefaultLease, "cluster: how long the job outlives this coordinator if it dies: a rerun within it resumes the job, after it the job expires and is purged")
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
func (c *clusterFlags) coordinator(e *env, workers, threads int, quiet bool) (cluster.CoordinatorConfig, func(), error) {
	if c.taskNodes < 0 || c.tasks < 0 || c.ackWait <= 0 || c.lease <= 0 {
		return cluster.CoordinatorConfig{}, nil, usagef("--task-nodes and --tasks must be ≥ 0, --ack-wait and --lease > 0")
	}
	if c.tasks > cluster.MaxRoots {
		return cluster.CoordinatorConfig{}, nil, usagef("--tasks %d: at most %d root tasks (a task splits itself when it runs over --task-nodes)", c.tasks, cluster.MaxRoots)
	}
	cfg := cluster.CoordinatorConfig{URL: c.url, Token: c.tokenOrEnv(), Credentials: c.creds, Tasks: c.tasks, Budget: c.taskNodes, AckWait: c.ackWait,
		Lease: c.lease, Log: e.stderr, Fresh: c.fresh}
	if c.url != "embedded" {
		return cfg, func() {}, nil
	}
	if workers <= 0 {
		workers = runtime.NumCPU()
		if len(c.deviceArgs) > 0 && c.deviceArgs[1] == "gpu" {
			workers = 1 // the devices alone
		}
	}
	if threads <= 0 {
		threads = max(1, runtime.NumCPU()/workers)
	}
	exe, err := os.Executable()
	if err != nil {
		return cfg, nil, fmt.Errorf("finding the arbor binary for local workers: %w", err)
	}
	emb, err := cluster.StartEmbedded(workers, e.stderr, func(i int) *exec.Cmd {
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
		fmt.Fprintf(e.stderr, "arbor: embedded NATS server at %s, %d local workers of %d threads%s\n", cfg.URL, workers, threads, devices)
	}
	return cfg, emb.Close, nil
}

// runMCSCluster is 'arbor mcs G H --cluster ...'.
func runMCSCluster(e *env, cf clusterFlags, workers, threads int, names [2]string, g, h *core.Graph, opts mcs.Options, asJSON, verify bool) error {
	cfg, closeCluster, err := cf.coordinator(e, workers, threads, asJSON)
	if err != nil {
		return err
	}
	defer closeCluster()
	ctx := e.ctx
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	prog := newProgress(e)
	cfg.Progress = func(p cluster.Progress) {
		prog.Update(clusterProgress("incumbent", "bound ≤", p))
	}
	res, err := cluster.SolveMCS(ctx, cfg, g, h, opts)
	prog.Done()
	if err != nil && !(ctx.Err() != nil && errors.Is(err, ctx.Err())) {
		return err
	}
	// Stopped by --timeout or Ctrl-C: the best found, unproven, as Solve does.
	if verify {
		if err := mcs.Verify(g, h, res.Mapping, opts); err != nil {
			return fmt.Errorf("%s, %s: verification failed: %w", names[0], names[1], err)
		}
	}
	if asJSON {
		m := res.Mapping
		if m == nil {
			m = [][2]int{}
		}
		return json.NewEncoder(e.stdout).Encode(struct {
			G        string   `json:"g"`
			H        string   `json:"h"`
			NG       int      `json:"n_g"`
			NH       int      `json:"n_h"`
			Size     int      `json:"size"`
			Proven   bool     `json:"proven"`
			Nodes    int64    `json:"nodes"`
			Seconds  float64  `json:"seconds"`
			Status   string   `json:"status"`
			Engine   string   `json:"engine"`
			Job      string   `json:"job"`
			Epoch    string   `json:"epoch"`
			Tasks    int      `json:"tasks"`
			Roots    int      `json:"roots"`
			Resumed  bool     `json:"resumed"`
			Verified bool     `json:"verified"`
			Mapping  [][2]int `json:"mapping"`
		}{names[0], names[1], g.N, h.N, res.Size, res.Proven, res.Nodes, res.Elapsed.Seconds(), clusterStatus(res), "cluster",
			res.Job, res.Epoch, res.Tasks, res.Roots, res.Resumed, verify, m})
	}
	status := "proven maximum"
	if !res.Proven {
		status = "unproven (stopped early)"
	}
	if verify {
		status += ", verified"
	}
	w := e.stdout
	fmt.Fprintf(w, "size %d  %s\n", res.Size, status)
	resumed := ""
	if res.Resumed {
		resumed = ", resumed"
	}
	// A resumed job's nodes were searched before this run too: no rate.
	speed := rate(res.Nodes, res.Elapsed)
	if res.Resumed {
		speed = "(resumed: nodes of the whole job)"
	}
	fmt.Fprintf(w, "nodes %d  time %v  %s\n", res.Nodes, res.Elapsed.Round(time.Microsecond), speed)
	fmt.Fprintf(w, "engine cluster (job %s epoch %s: %d tasks from %d roots%s)\n", res.Job, res.Epoch, res.Tasks, res.Roots, resumed)
	writeMapping(w, res.Mapping)
	return nil
}

// runWorker is 'arbor worker': take tasks from a cluster until stopped.
func runWorker(e *env) error {
	fs := newFlags(e, "worker", "--cluster nats://HOST:4222 [--cluster-token T] [--threads N] [--slots S] [--name NAME] [--engine auto|cpu|gpu|hybrid] [--backend B] [--device D] [--device-nodes B] [--workers N]")
	url := fs.String("cluster", "", "the NATS server (default $"+cluster.EnvURL+")")
	token := fs.String("cluster-token", "", "the worker token, or the server's only token (default $"+cluster.EnvToken+", then $"+cluster.EnvWorkerToken+"; or in the URL)")
	threads := fs.Int("threads", 0, "CPU search threads; 0 uses every core (less one per device with --engine hybrid)")
	slots := fs.Int("slots", 0, "tasks the CPU searches at once, sharing the threads out (0: one per thread)")
	name := fs.String("name", "", "the worker's name in records and logs (default host:pid)")
	engine := fs.String("engine", "auto", "what solves tasks: cpu, gpu (each device of --device takes tasks of its own), hybrid (the devices and the CPU, each taking its own tasks) or auto (hybrid when the chosen devices are GPUs, else cpu)")
	var df deviceFlags
	df.registerMany(fs)
	deviceNodes := fs.Int64("device-nodes", 0, fmt.Sprintf("node budget of a task searched on a device (0: %d × the task's own)", cluster.DeviceBudgetScale))
	workers := fs.Int("workers", 0, "device engine workers (work-groups) per device; 0 sizes it from the device")
	var creds cluster.Credentials
	registerCredentials(fs, &creds)
	pos, err := parse(fs, e.args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("worker takes no arguments (got %q)", pos)
	}
	if *threads < 0 || *slots < 0 || *deviceNodes < 0 || *workers < 0 {
		return usagef("--threads, --slots, --device-nodes and --workers must be ≥ 0")
	}
	cfg := cluster.WorkerFromEnv(cluster.WorkerConfig{URL: *url, Token: *token, Credentials: creds, Threads: *threads, Name: *name, Log: e.stderr,
		Slots: *slots, DeviceBudget: *deviceNodes, DeviceWorkers: *workers})
	if cfg.URL == "" {
		return usagef("worker needs --cluster nats://HOST:4222 (or $%s)", cluster.EnvURL)
	}
	switch *engine {
	case "cpu":
	case "gpu", "hybrid", "auto":
		devs, err := df.openMany(e, true)
		if err != nil {
			if *engine != "auto" {
				return fmt.Errorf("--engine %s: %w", *engine, err)
			}
			fmt.Fprintf(e.stderr, "arbor worker: no device (%v): tasks run on the CPU\n", err)
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
			fmt.Fprintf(e.stderr, "arbor worker: tasks on %s\n", d.Info())
		}
		cfg.Devices, cfg.NoCPU = devs, *engine == "gpu"
		if !cfg.NoCPU && cfg.Threads == 0 {
			// Each device's search loop keeps a core busy.
			cfg.Threads = max(1, runtime.NumCPU()-len(devs))
		}
	default:
		return usagef("--engine must be auto, cpu, gpu or hybrid (got %q)", *engine)
	}
	return cluster.RunWorker(e.ctx, cfg)
}

// runVCCluster is 'arbor vc GRAPH --cluster ...': a minimum vertex cover.
func runVCCluster(e *env, cf clusterFlags, workers, threads int, name string, g *core.Graph, timeout time.Duration, asJSON, verify bool, out string) error {
	cfg, closeCluster, err := cf.coordinator(e, workers, threads, asJSON)
	if err != nil {
		return err
	}
	defer closeCluster()
	ctx := e.ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	prog := newProgress(e)
	cfg.Progress = func(p cluster.Progress) {
		prog.Update(clusterProgress("best", "bound ≥", p))
	}
	res, err := cluster.SolveVC(ctx, cfg, g)
	prog.Done()
	if err != nil && !(ctx.Err() != nil && errors.Is(err, ctx.Err())) {
		return err
	}
	// Every vertex is a cover, so there is always one to report.
	if verify {
		if err := vertexcover.Verify(g, res.Cover); err != nil {
			return fmt.Errorf("%s: verification failed: %w", name, err)
		}
	}
	if out != "" {
		if err := writeCover(out, g.N, res.Cover); err != nil {
			return err
		}
	}
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(struct {
			Graph    string  `json:"graph"`
			N        int     `json:"n"`
			M        int     `json:"m"`
			Size     int     `json:"size"`
			Proven   bool    `json:"proven"`
			Found    bool    `json:"found"`
			Nodes    int64   `json:"nodes"`
			Status   string  `json:"status"`
			Engine   string  `json:"engine"`
			Seconds  float64 `json:"seconds"`
			Job      string  `json:"job"`
			Epoch    string  `json:"epoch"`
			Tasks    int     `json:"tasks"`
			Roots    int     `json:"roots"`
			Resumed  bool    `json:"resumed"`
			Verified bool    `json:"verified"`
			Cover    []int   `json:"cover"`
		}{name, g.N, g.Edges(), res.Size, res.Proven, res.Found, res.Nodes, clusterStatus(res), "cluster", res.Elapsed.Seconds(),
			res.Job, res.Epoch, res.Tasks, res.Roots, res.Resumed, verify, oneBased(res.Cover)})
	}
	status := "unproven (stopped early)"
	if res.Proven {
		status = "proven minimum"
	}
	if verify {
		status += ", cover verified"
	}
	resumed := ""
	if res.Resumed {
		resumed = ", resumed"
	}
	fmt.Fprintf(e.stdout, "%s: n=%d m=%d  cover %d  %s  nodes %d  %v  engine cluster (job %s epoch %s: %d tasks from %d roots%s)\n",
		name, g.N, g.Edges(), res.Size, status, res.Nodes, res.Elapsed.Round(time.Millisecond), res.Job, res.Epoch, res.Tasks, res.Roots, resumed)
	return nil
}

// runServer is 'arbor server': a cluster's NATS JetStream server from this
// binary, for machines without a NATS deployment.
func runServer(e *env) error {
	fs := newFlags(e, "server", "[--listen HOST:PORT] [--store DIR] [--max-store SIZE] [--coordinator-token T [--worker-token W] | --nkey U…[,U…]] [--tls-cert F --tls-key F [--tls-ca F]]")
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
	pos, err := parse(fs, e.args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("server takes no arguments (got %q)", pos)
	}
	host, portText, err := net.SplitHostPort(*listen)
	if err != nil {
		return usagef("--listen %q: want HOST:PORT (%v)", *listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return usagef("--listen %q: the port must be 0 (any free one) to 65535", *listen)
	}
	capBytes, err := parseSize(*maxStore)
	if err != nil {
		return usagef("--max-store %q: %v", *maxStore, err)
	}
	if capBytes == 0 {
		capBytes = -1 // no cap
	}
	if *coordToken != "" {
		if *token != "" && *token != *coordToken {
			return usagef("--cluster-token and --coordinator-token name the same token: give one")
		}
		*token = *coordToken
	}
	if *workerToken == "" {
		*workerToken = os.Getenv(cluster.EnvWorkerToken)
	}
	cfg := cluster.ServerConfig{Host: host, Port: port, Dir: *store, Token: *token, WorkerToken: *workerToken, TLSCert: *tlsCert, TLSKey: *tlsKey, TLSCA: *tlsCA,
		MaxStore: capBytes, Log: func(f string, a ...any) { fmt.Fprintf(e.stderr, "arbor server: "+f+"\n", a...) }}
	if *nkeyUsers != "" {
		if *token != "" || *workerToken != "" {
			return usagef("--nkey and tokens: a server takes one or the other")
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
			fmt.Fprintf(e.stderr, "arbor server: token %s (give it to workers and coordinators as $%s)\n", cfg.Token, cluster.EnvToken)
		}
		if cfg.WorkerToken == cfg.Token {
			return usagef("--worker-token must differ from the coordinator token")
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
	fmt.Fprintf(e.stderr, "arbor server: %s; %s\n", roles, limit)
	fmt.Fprintf(e.stderr, "arbor server: listening on %s\n", srv.URL())
	<-e.ctx.Done()
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

// clusterStatus is a result's status: optimal when proven, else
// feasible (a solution, unproven).
func clusterStatus(res cluster.Result) string {
	if res.Proven {
		return "optimal"
	}
	return "feasible"
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
func runJobs(e *env) error {
	fs := newFlags(e, "jobs", "list|cancel JOB|purge JOB [--cluster nats://HOST:4222] [--cluster-token T] [--json]")
	url := fs.String("cluster", "", "the NATS server (default $"+cluster.EnvURL+")")
	token := fs.String("cluster-token", "", "a coordinator's token (default $"+cluster.EnvToken+"; or in the URL)")
	asJSON := fs.Bool("json", false, "list: one JSON object per job")
	var creds cluster.Credentials
	registerCredentials(fs, &creds)
	pos, err := parse(fs, e.args)
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
		return usagef("jobs needs --cluster nats://HOST:4222 (or $%s)", cluster.EnvURL)
	}
	cl := cluster.Client{URL: *url, Token: *token, Credentials: creds}
	switch {
	case len(pos) == 1 && pos[0] == "list":
		jobs, err := cluster.ListJobs(e.ctx, cl)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(e.stdout)
			for _, j := range jobs {
				if err := enc.Encode(j); err != nil {
					return err
				}
			}
			return nil
		}
		if len(jobs) == 0 {
			fmt.Fprintln(e.stdout, "no jobs")
			return nil
		}
		fmt.Fprintf(e.stdout, "%-28s %-16s %-9s %8s %8s %13s %6s  %s\n", "JOB", "EPOCH", "STATE", "AGE", "SILENT", "TASKS", "SIZE", "COORDINATOR")
		now := time.Now()
		for _, j := range jobs {
			state := j.State
			if j.Expired(now) {
				state = "expired"
			}
			if j.Proven {
				state += "*"
			}
			fmt.Fprintf(e.stdout, "%-28s %-16s %-9s %8v %8v %13s %6d  %s\n", j.Job, j.Epoch, state, now.Sub(j.Started).Round(time.Second),
				now.Sub(j.Written).Round(time.Second), fmt.Sprintf("%d/%d", j.Done, j.Tasks), j.Size, j.Coordinator)
		}
		return nil
	case len(pos) == 2 && pos[0] == "cancel":
		if err := cluster.CancelJob(e.ctx, cl, pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "cancelled job %s\n", pos[1])
		return nil
	case len(pos) == 2 && pos[0] == "purge":
		if err := cluster.PurgeJob(e.ctx, cl, pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "purged job %s\n", pos[1])
		return nil
	}
	return usagef("jobs takes list, cancel JOB or purge JOB (got %q)", pos)
}
