package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/cluster"
)

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
	cli.RegisterCredentials(fs, &creds)
	if err := cli.ParseNone(fs, e.Args, " (got %q)"); err != nil {
		return err
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
	if err := cli.ParseNone(fs, e.Args, " (got %q)"); err != nil {
		return err
	}
	host, portText, err := net.SplitHostPort(*listen)
	if err != nil {
		return cli.Usagef("--listen %q: want HOST:PORT (%v)", *listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return cli.Usagef("--listen %q: the port must be 0 (any free one) to 65535", *listen)
	}
	capBytes, err := cli.ParseSize(*maxStore)
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

// runJobs is 'arbor jobs list|cancel JOB|purge JOB': the life cycle of a
// cluster's jobs (a coordinator's token is needed).
func runJobs(e *cli.Env) error {
	fs := cli.NewFlags(e, "jobs", "list|cancel JOB|purge JOB|add-worker NAME [-o KEYFILE] [--cluster nats://HOST:4222] [--cluster-token T] [--json]")
	keyOut := fs.String("o", "", "add-worker: write the worker's key file here (default: NAME.key; mode 0600)")
	url := fs.String("cluster", "", "the NATS server (default $"+cluster.EnvURL+")")
	token := fs.String("cluster-token", "", "a coordinator's token (default $"+cluster.EnvToken+"; or in the URL)")
	asJSON := fs.Bool("json", false, "list: one JSON object per job")
	var creds cluster.Credentials
	cli.RegisterCredentials(fs, &creds)
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
