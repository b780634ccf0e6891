package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/startup"
)

// runVC is 'arbor vc': a minimum vertex cover, or with -k a cover of at
// most K vertices or a proof that none exists.
func runVC(e *env) error {
	fs := newFlags(e, "vc", "GRAPH [-k K] [--threads N] [--timeout D] [--complement] [--engine auto|cpu|branch|clique|gpu|hybrid] [--ls-device auto|on|off] [--workers N] [--backend B] [--device D] [--format F] [--verify] [--json] [--require-optimal] [--zero-based] [-o FILE] [-v] [--cluster URL|embedded [--workers N] [--cluster-token T] [--task-nodes B] [--tasks N] [--ack-wait D] [--fresh]] | --batch LIST [--device-slots D] …")
	var sr searchFlags
	sr.register(fs, searchHelp{what: "cover",
		out:     "write the cover to `FILE` (atomically) in PACE solution format: 'c' lines saying the status, 's vc n k', then one vertex per line, numbered from 1 as PACE requires",
		threads: "worker threads (default: all cores)",
		timeout: "stop after `D` (e.g. 30s) and report the best cover found, unproven",
		engine:  "where and how the kernel is solved: auto (the CPU engine at once: clique route on the complement from density " + fmt.Sprint(vertexcover.DenseThreshold) + ", else branch and reduce; a dense kernel opens the device in the background and, on a GPU with warp-level operations, the clique engine's device search joins if the CPU engine has not settled it by then), cpu (the CPU engine alone, no device), branch, clique, gpu (the device search on --backend/--device; the CPU backend runs its Go twin) or hybrid (the device and the CPU engine side by side, one incumbent)",
		engines: string(vertexcover.EngineAuto),
		workers: "device engine workers (work-groups; 0 sizes it from the device). With --cluster embedded: local worker processes (0: one per core)",
	})
	sf, threads, timeout, engine, workers := &sr.solverFlags, sr.threads, sr.timeout, sr.engine, sr.workers
	k := fs.Int("k", -1, "parameterized mode: find a cover of at most `K` vertices (K ≥ 0) or prove none exists (default: a minimum cover)")
	complement := fs.Bool("complement", false, "solve the complement graph (DIMACS clique files: n − cover = maximum clique)")
	ls := fs.Duration("ls", 0, "local search budget for the initial cover (default 300ms; negative: none)")
	lsDevice := fs.String("ls-device", "auto", "where BHOSLIB-like kernels (a clique partition's bound is the target) also run the partition local search: auto (a GPU of --backend/--device, if there is one), on (the device of --backend/--device, whatever it is) or off")
	mirrors := fs.Bool("mirrors", false, "also take v's mirrors in the branch that takes v (rarely pays: see the package doc)")
	var cf clusterFlags
	cf.register(fs)
	var bf batchFlags
	bf.register(fs, "vc")
	pos, err := parse(fs, e.args)
	if err != nil {
		return err
	}
	if len(pos) != 1 && !bf.active() {
		return usagef("vc needs exactly one graph file (got %s)", plural(len(pos), "argument"))
	}
	df := sr.df // as parsed
	if err := sr.check(); err != nil {
		return err
	}
	if err := checkOutNotInput(sf.out, append(pos, bf.list)...); err != nil {
		return err
	}
	eng, err := vertexcover.ParseEngine(*engine)
	if err != nil {
		return usagef("--engine must be auto, cpu, branch, clique, gpu or hybrid (got %q)", *engine)
	}
	onDevice := eng == vertexcover.EngineGPU || eng == vertexcover.EngineHybrid
	lsMode, err := vertexcover.ParseLSMode(*lsDevice)
	if err != nil {
		return usagef("%v", err)
	}
	if *k < 0 && flagSet(fs, "k") {
		return usagef("-k must be ≥ 0 (got %d); leave it out for a minimum cover", *k)
	}
	if bf.active() {
		if cf.url != "" {
			return usagef("--batch runs each graph in this process: leave out --cluster")
		}
		opts := vertexcover.Options{Parameterized: *k >= 0, K: *k, Threads: *threads, LocalSearch: *ls, Mirrors: *mirrors, Engine: eng, Workers: *workers}
		return runVCBatch(e, &sr, &bf, pos, opts, *complement)
	}
	opts := vertexcover.Options{Parameterized: *k >= 0, K: *k, Threads: *threads, LocalSearch: *ls, Mirrors: *mirrors, Engine: eng}
	// gpu and hybrid search on the device, which opens while the graph is
	// read; auto lets it join a dense kernel, and starts opening it only
	// then (sparse kernels never pay for it), in the background: as
	// vertexcover.Solve would open it (vertexcover.OpenDevices: its
	// start-up policy). The partition local search (--ls-device) borrows
	// the same device: one context for all. (-k's auto keeps to the CPU;
	// its local search opens a device of its own, lazily.)
	var opening *startup.Opening
	if cf.url == "" {
		sel := opts
		sel.Select = sr.selection()
		if opening = vertexcover.OpenDevices(sel); opening != nil {
			defer opening.Release()
		}
	}
	g, err := e.readGraph(pos[0], core.ReadOptions{Format: *sr.format})
	if err != nil {
		return err
	}
	if g.Directed {
		return fmt.Errorf("%s: vertex cover needs an undirected graph", pos[0])
	}
	if *complement {
		if err := e.checkComplement(pos[0], g); err != nil {
			return err
		}
		g = vertexcover.Complement(g)
	}
	if cf.url != "" {
		if *k >= 0 {
			return usagef("-k is not distributed; run it without --cluster")
		}
		if onDevice {
			if err := cf.onDevices(*engine, df); err != nil {
				return err
			}
		} else if *engine != "auto" && *engine != "cpu" {
			return usagef("--engine %s is not distributed: cluster workers run the vertex cover engine (cpu) or, with 'arbor worker --engine gpu', the device", *engine)
		}
		return runVCCluster(e, cf, *workers, *threads, pos[0], g, *timeout, *sf)
	}
	ctx := e.ctx
	if *timeout > 0 {
		var cancel func()
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	prog := newProgress(e)
	if opening != nil {
		if err := opening.Settle(); err != nil {
			return err
		}
		opts.Opening, opts.Workers = opening, *workers
	}
	// The partition local search borrows the opening's device, or opens
	// the selected one itself when it needs it (vertexcover.LSMode.Device).
	opts.LSDevice = lsMode.Device(opening, sr.selection().Selection, func(line string) {
		if sf.verbose {
			fmt.Fprintf(e.stderr, "arbor: %s\n", line)
		}
	})
	opts.Progress = func(p vertexcover.Progress) {
		best := "-"
		if p.Best >= 0 {
			best = fmt.Sprint(p.Best)
		}
		prog.Update(fmt.Sprintf("best %s  lower bound %d  nodes %d  %s", best, p.LowerBound, p.Nodes, rate(p.Nodes, p.Elapsed)))
	}
	res, err := solveVC(ctx, pos, g, opts)
	prog.Done()
	if opening != nil {
		say(e, sf.verbose, opening.Report())
		opts.Devices = opening.Devices()
	}
	if err != nil {
		return err
	}
	return printVC(e, sf, pos, g, opts, res, *k, *threads)
}

// solveVC is one vertex cover search and its guard: what a single run and
// every instance of a batch go through (ctx carries --timeout).
func solveVC(ctx context.Context, pos []string, g *core.Graph, opts vertexcover.Options) (vertexcover.Result, error) {
	res, err := vertexcover.Solve(ctx, g, opts)
	if err != nil {
		return res, err
	}
	k := -1
	if opts.Parameterized {
		k = opts.K
	}
	if err := guardVC(g, res, k); err != nil {
		return res, fmt.Errorf("%s: %w", pos[0], err)
	}
	return res, nil
}

// printVC prints a vertex cover result: -o, then JSON or text on stdout,
// then --require-optimal's verdict.
func printVC(e *env, sf *solverFlags, pos []string, g *core.Graph, opts vertexcover.Options, res vertexcover.Result, k, threads int) error {
	v := newVerdict(res.Status, k >= 0, k, k >= 0 && res.Cover != nil)
	if sf.out != "" && res.Cover != nil {
		if err := writePACE(sf.out, g.N, res.Cover, paceComments(v)); err != nil {
			return err
		}
	}
	if sf.json {
		if err := json.NewEncoder(e.stdout).Encode(vcObject(sf, pos, g, opts, res, v, threads)); err != nil {
			return err
		}
		return v.require(sf.requireOptimal)
	}
	status := statusText(v, "minimum", fmt.Sprintf("cover of size ≤ %d", k))
	size := "none"
	if res.Cover != nil {
		size = fmt.Sprint(len(res.Cover))
	}
	fmt.Fprintf(e.stdout, "%s: %d vertices, %d edges  cover %s  %s  lower bound %d  kernel %d  nodes %d  %v  engine %s (%s)",
		pos[0], g.N, g.Edges(), size, status, res.LowerBound, res.Kernel, res.Nodes, res.Elapsed.Round(time.Millisecond), res.Engine, res.Why)
	if res.Device != "" {
		fmt.Fprintf(e.stdout, "  device %s, %s, %s", res.Device, plural(res.Workers, "worker"), plural(res.Epochs, "epoch"))
	}
	if res.LSDevice != "" {
		fmt.Fprintf(e.stdout, "  local search device %s", res.LSDevice)
	}
	if sf.verify && res.Cover != nil {
		fmt.Fprintf(e.stdout, "  cover verified")
	}
	fmt.Fprintln(e.stdout)
	return v.require(sf.requireOptimal)
}

// vcObject is the JSON object of a vertex cover result: a single run
// prints it, a batch adds its place in the list.
func vcObject(sf *solverFlags, pos []string, g *core.Graph, opts vertexcover.Options, res vertexcover.Result, v verdict, threads int) any {
	base := sf.base(g)
	type jsonResult struct {
		Files []string `json:"files"`
		N     int      `json:"vertices"`
		M     int      `json:"edges"`
		Base  int      `json:"base"`
		Size  *int     `json:"size,omitempty"` // absent: no cover (-k)
		verdict
		LowerBound int     `json:"lower_bound"`
		Kernel     int     `json:"kernel"`
		Nodes      int64   `json:"nodes"`
		Engine     string  `json:"engine"`
		Why        string  `json:"why"`
		Threshold  float64 `json:"dense_threshold"`
		Backend    string  `json:"backend,omitempty"`
		Device     string  `json:"device,omitempty"`
		Workers    int     `json:"workers,omitempty"`
		Epochs     int     `json:"epochs,omitempty"`
		Moved      int64   `json:"moved_between_devices,omitempty"`
		LSDevice   string  `json:"ls_device,omitempty"`
		Seconds    float64 `json:"seconds"`
		Threads    int     `json:"threads"`
		Verified   bool    `json:"verified"`
		Cover      []int   `json:"cover,omitempty"` // absent with size
	}
	jr := jsonResult{Files: pos, N: g.N, M: g.Edges(), Base: base, verdict: v,
		LowerBound: res.LowerBound, Kernel: res.Kernel, Nodes: res.Nodes, Engine: res.Engine, Why: res.Why, Threshold: res.DenseThreshold, Device: res.Device, Workers: res.Workers, Epochs: res.Epochs, Moved: res.Moved, LSDevice: res.LSDevice, Seconds: res.Elapsed.Seconds(), Verified: sf.verify && res.Cover != nil}
	if jr.Threads = threads; jr.Threads == 0 {
		jr.Threads = runtime.GOMAXPROCS(0)
	}
	if res.Cover != nil {
		size := len(res.Cover)
		jr.Size, jr.Cover = &size, shifted(res.Cover, base)
	}
	jr.Backend = backendOf(opts.Devices, res.Device)
	return jr
}

func oneBased(c []int) []int { return shifted(c, 1) }

// paceComments are the 'c' lines of vc -o: the status, and that the
// cover is not proven minimum when it is not.
func paceComments(v verdict) []string {
	c := []string{"arbor vc: status " + string(v.Status)}
	if v.Status != core.StatusOptimal {
		c = append(c, "not proven minimum")
	}
	if v.GoalMet != nil {
		c = append(c, fmt.Sprintf("goal: a cover of at most %d vertices, met %v", *v.Goal, *v.GoalMet))
	}
	return c
}

// writePACE writes a cover atomically in the PACE solution format, with
// 'c' comment lines first.
func writePACE(path string, n int, cover []int, comments []string) error {
	return writeAtomic(path, func(w io.Writer) error {
		for _, c := range comments {
			if _, err := fmt.Fprintf(w, "c %s\n", c); err != nil {
				return err
			}
		}
		return vertexcover.WriteSolution(w, n, cover)
	})
}
