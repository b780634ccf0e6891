package vccmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/startup"
)

// runVC is 'arbor vc': a minimum vertex cover, or with -k a cover of at
// most K vertices or a proof that none exists.
func runVC(e *cli.Env) error {
	fs, sr := cli.NewSearchFlags(e)
	sf, threads, timeout, engine, workers := &sr.SolverFlags, sr.Threads, sr.Timeout, sr.Engine, sr.Workers
	k := fs.Int("k", -1, "parameterized mode: find a cover of at most `K` vertices (K ≥ 0) or prove none exists (default: a minimum cover)")
	complement := fs.Bool("complement", false, "solve the complement graph (DIMACS clique files: n − cover = maximum clique)")
	ls := fs.Duration("ls", 0, "local search budget for the initial cover (default 300ms; negative: none)")
	lsDevice := fs.String("ls-device", "auto", "where BHOSLIB-like kernels (a clique partition's bound is the target) also run the partition local search: auto (a GPU of --backend/--device, if there is one), on (the device of --backend/--device, whatever it is) or off")
	mirrors := fs.Bool("mirrors", false, "also take v's mirrors in the branch that takes v (rarely pays: see the package doc)")
	var cf cli.ClusterFlags
	cf.Register(fs)
	var bf cli.BatchFlags
	bf.Register(fs, "vc")
	pos, err := cli.Parse(fs, e.Args)
	if err != nil {
		return err
	}
	if len(pos) != 1 && !bf.Active() {
		return cli.Usagef("vc needs exactly one graph file (got %s)", cli.Plural(len(pos), "argument"))
	}
	df := sr.Dev // as parsed
	if err := sr.Check(); err != nil {
		return err
	}
	if err := cli.CheckOutNotInput(sf.Out, append(pos, bf.List)...); err != nil {
		return err
	}
	eng, err := vertexcover.ParseEngine(*engine)
	if err != nil {
		return cli.Usagef("--engine must be auto, cpu, branch, clique, gpu or hybrid (got %q)", *engine)
	}
	onDevice := eng == vertexcover.EngineGPU || eng == vertexcover.EngineHybrid
	lsMode, err := vertexcover.ParseLSMode(*lsDevice)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	if *k < 0 && cli.IsSet(fs, "k") {
		return cli.Usagef("-k must be ≥ 0 (got %d); leave it out for a minimum cover", *k)
	}
	if bf.Active() {
		if cf.URL != "" {
			return cli.Usagef("--batch runs each graph in this process: leave out --cluster")
		}
		opts := vertexcover.Options{Parameterized: *k >= 0, K: *k, Threads: *threads, LocalSearch: *ls, Mirrors: *mirrors, Engine: eng, Workers: *workers}
		return runVCBatch(e, sr, &bf, pos, opts, *complement)
	}
	opts := vertexcover.Options{Parameterized: *k >= 0, K: *k, Threads: *threads, LocalSearch: *ls, Mirrors: *mirrors, Engine: eng}
	opts.MaxMemory = e.MaxMemory() // the clique route's bit matrices (a --batch run's: the default limit)
	// gpu and hybrid search on the device, which opens while the graph is
	// read; auto lets it join a dense kernel, and starts opening it only
	// then (sparse kernels never pay for it), in the background: as
	// vertexcover.Solve would open it (vertexcover.OpenDevices: its
	// start-up policy). The partition local search (--ls-device) borrows
	// the same device: one context for all. (-k's auto keeps to the CPU;
	// its local search opens a device of its own, lazily.)
	var opening *startup.Opening
	if cf.URL == "" {
		sel := opts
		sel.Select = sr.Selection()
		if opening = vertexcover.OpenDevices(sel); opening != nil {
			defer opening.Release()
		}
	}
	g, err := readVCGraph(e, pos[0], *sr.Format, *complement)
	if err != nil {
		return err
	}
	if cf.URL != "" {
		if *k >= 0 {
			return cli.Usagef("-k is not distributed; run it without --cluster")
		}
		if onDevice {
			if err := cf.OnDevices(*engine, df); err != nil {
				return err
			}
		} else if *engine != "auto" && *engine != "cpu" {
			return cli.Usagef("--engine %s is not distributed: cluster workers run the vertex cover engine (cpu) or, with 'arbor worker --engine gpu', the device", *engine)
		}
		return runVCCluster(e, cf, *workers, *threads, pos[0], g, *timeout, *sf)
	}
	return solveVCHere(e, sr, df, pos, g, opts, opening, lsMode, *k)
}

// readVCGraph reads the graph a vertex cover is sought in: undirected,
// complemented with --complement.
func readVCGraph(e *cli.Env, path, format string, complement bool) (*core.Graph, error) {
	g, err := e.ReadGraph(path, core.ReadOptions{Format: format})
	if err != nil {
		return nil, err
	}
	if g.Directed {
		return nil, fmt.Errorf("%s: vertex cover needs an undirected graph", path)
	}
	if complement {
		if err := checkComplement(e, path, g); err != nil {
			return nil, err
		}
		g = vertexcover.Complement(g)
	}
	return g, nil
}

// solveVCHere is one vertex cover search in this process under
// --timeout, on the opening device (when there is one) with a progress
// line, and its result printed.
func solveVCHere(e *cli.Env, sr *cli.SearchFlags, df cli.DeviceFlags, pos []string, g *core.Graph, opts vertexcover.Options, opening *startup.Opening, lsMode vertexcover.LSMode, k int) error {
	sf, timeout, threads, workers := &sr.SolverFlags, sr.Timeout, sr.Threads, sr.Workers
	ctx := e.Ctx
	if *timeout > 0 {
		var cancel func()
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	prog, err := cli.StartSearch(e, opening)
	if err != nil {
		return err
	}
	if opening != nil {
		opts.Opening, opts.Workers = opening, *workers
	}
	// The partition local search borrows the opening's device, or opens
	// the selected one itself when it needs it (vertexcover.LSMode.Device).
	opts.LSDevice = lsMode.Device(opening, sr.Selection().Selection, func(line string) {
		if sf.Verbose {
			fmt.Fprintf(e.Stderr, "arbor: %s\n", line)
		}
	})
	opts.Progress = func(p vertexcover.Progress) {
		best := "-"
		if p.Best >= 0 {
			best = fmt.Sprint(p.Best)
		}
		prog.Update(fmt.Sprintf("best %s  lower bound %d  nodes %d  %s", best, p.LowerBound, p.Nodes, cli.Rate(p.Nodes, p.Elapsed)))
	}
	res, err := solveVC(ctx, pos, g, opts)
	opts.Devices = cli.EndSearch(e, sf.Verbose, prog, opening)
	if err != nil {
		return err
	}
	return printVC(e, sf, pos, g, opts, res, k, *threads)
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
	if err := GuardVC(g, res, k); err != nil {
		return res, fmt.Errorf("%s: %w", pos[0], err)
	}
	return res, nil
}

// printVC prints a vertex cover result: -o, then JSON or text on stdout,
// then --require-optimal's verdict.
func printVC(e *cli.Env, sf *cli.SolverFlags, pos []string, g *core.Graph, opts vertexcover.Options, res vertexcover.Result, k, threads int) error {
	v := cli.NewVerdict(res.Status, k >= 0, k, k >= 0 && res.Cover != nil)
	if sf.Out != "" && res.Cover != nil {
		if err := writePACE(sf.Out, g.N, res.Cover, paceComments(v)); err != nil {
			return err
		}
	}
	if sf.JSON {
		if err := json.NewEncoder(e.Stdout).Encode(vcObject(sf, pos, g, opts, res, v, threads)); err != nil {
			return err
		}
		return v.Require(sf.RequireOptimal)
	}
	status := cli.StatusText(v, "minimum", fmt.Sprintf("cover of size ≤ %d", k))
	size := "none"
	if res.Cover != nil {
		size = fmt.Sprint(len(res.Cover))
	}
	fmt.Fprintf(e.Stdout, "%s: %d vertices, %d edges  cover %s  %s  lower bound %d  kernel %d  nodes %d  %v  engine %s (%s)",
		pos[0], g.N, g.Edges(), size, status, res.LowerBound, res.Kernel, res.Nodes, res.Elapsed.Round(time.Millisecond), res.Engine, res.Why)
	if res.Device != "" {
		fmt.Fprintf(e.Stdout, "  device %s, %s, %s", res.Device, cli.Plural(res.Workers, "worker"), cli.Plural(res.Epochs, "epoch"))
	}
	if res.LSDevice != "" {
		fmt.Fprintf(e.Stdout, "  local search device %s", res.LSDevice)
	}
	if sf.Verify && res.Cover != nil {
		fmt.Fprintf(e.Stdout, "  cover verified")
	}
	fmt.Fprintln(e.Stdout)
	return v.Require(sf.RequireOptimal)
}

// vcObject is the JSON object of a vertex cover result: a single run
// prints it, a batch adds its place in the list.
func vcObject(sf *cli.SolverFlags, pos []string, g *core.Graph, opts vertexcover.Options, res vertexcover.Result, v cli.Verdict, threads int) any {
	base := sf.Base(g)
	type jsonResult struct {
		Files []string `json:"files"`
		N     int      `json:"vertices"`
		M     int      `json:"edges"`
		Base  int      `json:"base"`
		Size  *int     `json:"size,omitempty"` // absent: no cover (-k)
		cli.Verdict
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
	jr := jsonResult{Files: pos, N: g.N, M: g.Edges(), Base: base, Verdict: v,
		LowerBound: res.LowerBound, Kernel: res.Kernel, Nodes: res.Nodes, Engine: res.Engine, Why: res.Why, Threshold: res.DenseThreshold, Device: res.Device, Workers: res.Workers, Epochs: res.Epochs, Moved: res.Moved, LSDevice: res.LSDevice, Seconds: res.Elapsed.Seconds(), Verified: sf.Verify && res.Cover != nil}
	if jr.Threads = threads; jr.Threads == 0 {
		jr.Threads = runtime.GOMAXPROCS(0)
	}
	if res.Cover != nil {
		size := len(res.Cover)
		jr.Size, jr.Cover = &size, cli.Shifted(res.Cover, base)
	}
	jr.Backend = cli.BackendOf(opts.Devices, res.Device)
	return jr
}

func oneBased(c []int) []int { return cli.Shifted(c, 1) }

// paceComments are the 'c' lines of vc -o: the status, and that the
// cover is not proven minimum when it is not.
func paceComments(v cli.Verdict) []string {
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
	return cli.WriteAtomic(path, func(w io.Writer) error {
		for _, c := range comments {
			if _, err := fmt.Fprintf(w, "c %s\n", c); err != nil {
				return err
			}
		}
		return vertexcover.WriteSolution(w, n, cover)
	})
}
