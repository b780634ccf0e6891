package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
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
}

func (c *clusterFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.url, "cluster", "", "run on a NATS JetStream cluster: nats://HOST:4222 (workers: 'arbor worker'), or 'embedded' for a loopback server with --workers local worker processes")
	fs.StringVar(&c.token, "cluster-token", "", "the cluster's auth token (default $"+cluster.EnvToken+"; or put it in the URL, nats://TOKEN@HOST:4222)")
	fs.Int64Var(&c.taskNodes, "task-nodes", 1_000_000, "cluster: search nodes a task may take before it splits what it has left into new tasks")
	fs.IntVar(&c.tasks, "tasks", 256, "cluster: root tasks to split the search into")
	fs.DurationVar(&c.ackWait, "ack-wait", cluster.DefaultAckWait, "cluster: how long a task may go without a worker's heartbeat before another worker gets it")
}

func (c *clusterFlags) tokenOrEnv() string {
	if c.token != "" {
		return c.token
	}
	return os.Getenv(cluster.EnvToken)
}

// runMCSCluster is 'arbor mcs G H --cluster ...'.
func runMCSCluster(e *env, cf clusterFlags, workers, threads int, names [2]string, g, h *core.Graph, opts mcs.Options, asJSON, verify bool) error {
	if cf.taskNodes <= 0 || cf.tasks <= 0 || cf.ackWait <= 0 {
		return usagef("--task-nodes, --tasks and --ack-wait must be > 0")
	}
	cfg := cluster.CoordinatorConfig{URL: cf.url, Token: cf.tokenOrEnv(), Tasks: cf.tasks, Budget: cf.taskNodes, AckWait: cf.ackWait, Log: e.stderr}
	if cf.url == "embedded" {
		if workers <= 0 {
			workers = runtime.NumCPU()
		}
		if threads <= 0 {
			threads = max(1, runtime.NumCPU()/workers)
		}
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding the arbor binary for local workers: %w", err)
		}
		emb, err := cluster.StartEmbedded(workers, e.stderr, func(int) *exec.Cmd {
			return exec.Command(exe, "worker", "--threads", strconv.Itoa(threads))
		})
		if err != nil {
			return err
		}
		defer emb.Close()
		cfg.URL, cfg.Token = emb.Server.URL(), emb.Server.Token
		if !asJSON {
			fmt.Fprintf(e.stderr, "arbor: embedded NATS server at %s, %d local workers of %d threads\n", cfg.URL, workers, threads)
		}
	}
	ctx := e.ctx
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	prog := newProgress(e)
	cfg.Progress = func(p cluster.Progress) {
		prog.Update(fmt.Sprintf("incumbent %d  tasks %d/%d  nodes %d", p.Size, p.Done, p.Tasks, p.Nodes))
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
			Engine   string   `json:"engine"`
			Job      string   `json:"job"`
			Tasks    int      `json:"tasks"`
			Roots    int      `json:"roots"`
			Resumed  bool     `json:"resumed"`
			Verified bool     `json:"verified"`
			Mapping  [][2]int `json:"mapping"`
		}{names[0], names[1], g.N, h.N, res.Size, res.Proven, res.Nodes, res.Elapsed.Seconds(), "cluster",
			res.Job, res.Tasks, res.Roots, res.Resumed, verify, m})
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
	fmt.Fprintf(w, "nodes %d  time %v  %s\n", res.Nodes, res.Elapsed.Round(time.Microsecond), rate(res.Nodes, res.Elapsed))
	fmt.Fprintf(w, "engine cluster (job %s: %d tasks from %d roots%s)\n", res.Job, res.Tasks, res.Roots, resumed)
	var sb strings.Builder
	for i, p := range res.Mapping {
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "%d→%d", p[0], p[1])
	}
	fmt.Fprintf(w, "mapping %s\n", sb.String())
	return nil
}

// runWorker is 'arbor worker': take tasks from a cluster until stopped.
func runWorker(e *env) error {
	fs := newFlags(e, "worker", "--cluster nats://HOST:4222 [--cluster-token T] [--threads N] [--name NAME]")
	url := fs.String("cluster", "", "the NATS server (default $"+cluster.EnvURL+")")
	token := fs.String("cluster-token", "", "the auth token (default $"+cluster.EnvToken+"; or in the URL)")
	threads := fs.Int("threads", 0, "search threads per task; 0 uses every core")
	name := fs.String("name", "", "the worker's name in records and logs (default host:pid)")
	pos, err := parse(fs, e.args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("worker takes no arguments (got %q)", pos)
	}
	if *threads < 0 {
		return usagef("--threads must be ≥ 0")
	}
	cfg := cluster.WorkerFromEnv(cluster.WorkerConfig{URL: *url, Token: *token, Threads: *threads, Name: *name, Log: e.stderr})
	if cfg.URL == "" {
		return usagef("worker needs --cluster nats://HOST:4222 (or $%s)", cluster.EnvURL)
	}
	return cluster.RunWorker(e.ctx, cfg)
}
