package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
)

// runMCS is 'arbor mcs': a maximum common induced subgraph of two or more
// graphs.
func runMCS(e *env) error {
	fs := newFlags(e, "mcs", "G1 G2 [G3 …] [--plain-order] [--approximate [--keep K]] [--threads N] [--connected] [--directed] [--vertex-labels] [--edge-labels] [--big-first] [--heuristic min_max|min_product] [--block-order] [--dead-end N [--double-raise]] [--restarts [--seed S]] [--engine auto|cpu|gpu|hybrid|portfolio] [--goal K] [--workers N] [--backend B] [--device D] [--timeout D] [--format F] [--json] [--verify] [--cluster URL|embedded [--cluster-token T] [--task-nodes B] [--tasks N] [--ack-wait D] [--fresh]]")
	threads := fs.Int("threads", 0, "worker threads: 1 runs the sequential engine (node counts equal the original McSplit's); 0 uses every core")
	connected := fs.Bool("connected", false, "find a maximum common connected induced subgraph")
	directed := fs.Bool("directed", false, "read the graphs as directed and respect arc directions")
	vlabels := fs.Bool("vertex-labels", false, "matched vertices must have equal labels")
	elabels := fs.Bool("edge-labels", false, "matched edges must have equal labels")
	bigFirst := fs.Bool("big-first", false, "McSplit↓: try size |G|, then |G|−1, … (good when the graphs are nearly isomorphic)")
	heuristic := fs.String("heuristic", "min_max", "branching heuristic: min_max or min_product")
	timeout := fs.Duration("timeout", 0, "stop after `D` (e.g. 30s) and report the best found, unproven")
	format := fs.String("format", "", "input format (default: detected); one of "+fmt.Sprint(core.Formats()))
	engineName := fs.String("engine", "auto", "where to search: cpu, gpu (the device search on --backend/--device; the CPU backend runs its Go twin), hybrid, portfolio (several CPU configurations and the device at once, sharing the incumbent; the first proof wins) or auto (gpu on a GPU that supports the options, else cpu)")
	goal := fs.Int("goal", 0, "fixed-incumbent mode: prune as if a solution of K−1 vertices were known, never raising it (the same tree on every engine and device: node counts compare); reports a solution of ≥ K or none")
	workers := fs.Int("workers", 0, "device engine workers (work-groups); 0 sizes it from the device. With --cluster embedded: local worker processes (0: one per core)")
	var cf clusterFlags
	cf.register(fs)
	var df deviceFlags
	df.registerMany(fs)
	blockOrder := fs.Bool("block-order", false, "heuristic h1: order vertices by component, border, then breadth-first instead of by degree (exact; node counts differ)")
	deadEnd := fs.Int64("dead-end", 0, "heuristic h2: after `N` nodes without a better incumbent, search for larger targets, then binary search back down (exact); 0: off")
	doubleRaise := fs.Bool("double-raise", false, "--dead-end: double the target's step at every dead end instead of adding one")
	restarts := fs.Bool("restarts", false, "heuristic h3 (--threads 1): the root's children in a random order, under node budgets that double, the finished ones recorded (exact)")
	seed := fs.Uint64("seed", 1, "--restarts: random seed")
	plainOrder := fs.Bool("plain-order", false, "three or more graphs: search them in the given order, not smallest, largest, second smallest, …")
	approx := fs.Bool("approximate", false, "intersect the graphs one at a time (MCS of G1 and G2, then of that and G3, …): fast, never proven")
	keep := fs.Int("keep", 1, "--approximate: how many maximum solutions each step hands on")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	verify := fs.Bool("verify", false, "check the mapping independently against the input graphs")
	pos, err := parse(fs, e.args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("mcs needs at least two graph files (got %d arguments)", len(pos))
	}
	if *keep < 1 {
		return usagef("--keep must be ≥ 1")
	}
	if *threads < 0 {
		return usagef("--threads must be ≥ 0")
	}
	h, err := mcs.ParseHeuristic(*heuristic)
	if err != nil {
		return usagef("%v", err)
	}
	engine, err := mcs.ParseEngine(*engineName)
	if err != nil {
		return usagef("%v", err)
	}
	if *goal < 0 || *workers < 0 {
		return usagef("--goal and --workers must be ≥ 0")
	}
	ro := core.ReadOptions{Directed: *directed, Format: *format}
	graphs := make([]*core.Graph, len(pos))
	for i, path := range pos {
		if graphs[i], err = e.readGraph(path, ro); err != nil {
			return err
		}
	}
	opts := mcs.Options{
		Threads: *threads, Connected: *connected, Directed: *directed, VertexLabels: *vlabels,
		EdgeLabels: *elabels, BigFirst: *bigFirst, Heuristic: h, Timeout: *timeout,
		Engine: engine, Goal: *goal, Workers: *workers,
		PlainOrder: *plainOrder, Approximate: *approx, Keep: *keep,
		BlockOrder: *blockOrder, DeadEnd: *deadEnd, DoubleRaise: *doubleRaise, Restarts: *restarts, Seed: *seed,
	}
	if *deadEnd < 0 {
		return usagef("--dead-end must be ≥ 0")
	}
	if cf.url != "" && (len(graphs) > 2 || *approx || *blockOrder || *deadEnd > 0 || *restarts || engine == mcs.EnginePortfolio) {
		return usagef("--cluster distributes the plain two-graph search; leave out more graphs, --approximate, the heuristics and the portfolio")
	}
	if len(graphs) > 2 || *approx {
		return runMCSMany(e, pos, graphs, opts, *asJSON, *verify)
	}
	g0, g1 := graphs[0], graphs[1]
	if cf.url != "" {
		if engine == mcs.EngineGPU || engine == mcs.EngineHybrid {
			if err := cf.onDevices(string(engine), df); err != nil {
				return err
			}
		}
		if *bigFirst || *goal > 0 {
			return usagef("--big-first and --goal are not distributed; run them without --cluster")
		}
		opts.Workers = 0
		return runMCSCluster(e, cf, *workers, *threads, [2]string{pos[0], pos[1]}, g0, g1, opts, *asJSON, *verify)
	}
	if engine != mcs.EngineCPU {
		devs, err := df.openMany(e, *asJSON)
		if err != nil {
			if engine == mcs.EngineGPU {
				return err
			}
			what := "the CPU engine runs"
			if engine == mcs.EnginePortfolio {
				what = "the portfolio runs on the CPU only"
			}
			fmt.Fprintf(e.stderr, "arbor: no device (%v): %s\n", err, what)
		} else {
			for _, d := range devs {
				defer d.Close()
			}
			opts.Device, opts.Devices = devs[0], devs[1:]
			// A CPU device runs the kernel's Go twin on the cores the
			// portfolio's CPU searches use: only when named with --backend.
			if engine == mcs.EnginePortfolio && devs[0].Info().Type != backend.TypeGPU && df.backend == "" {
				opts.Device, opts.Devices = nil, nil
				if !*asJSON {
					fmt.Fprintf(e.stderr, "arbor: the portfolio leaves %s out: not a GPU (name its backend with --backend to include it)\n", devs[0].Info())
				}
			}
		}
	}
	prog := newProgress(e)
	opts.Progress = func(p mcs.Progress) {
		goal := ""
		if p.Goal > 0 {
			goal = fmt.Sprintf("goal %d  ", p.Goal)
		}
		prog.Update(fmt.Sprintf("%sincumbent %d  nodes %d  %s", goal, p.Incumbent, p.Nodes, rate(p.Nodes, p.Elapsed)))
	}
	res, err := mcs.Solve(e.ctx, g0, g1, opts)
	prog.Done()
	if err != nil {
		return err
	}
	if *verify {
		if err := mcs.Verify(g0, g1, res.Mapping, opts); err != nil {
			return fmt.Errorf("%s, %s: verification failed: %w", pos[0], pos[1], err)
		}
	}
	if *asJSON {
		type jsonResult struct {
			G        string   `json:"g"`
			H        string   `json:"h"`
			NG       int      `json:"n_g"`
			NH       int      `json:"n_h"`
			Size     int      `json:"size"`
			Proven   bool     `json:"proven"`
			Nodes    int64    `json:"nodes"`
			Seconds  float64  `json:"seconds"`
			Threads  int      `json:"threads"`
			Engine   string   `json:"engine"`
			Why      string   `json:"why"`
			Device   string   `json:"device,omitempty"`
			Goal     int      `json:"goal,omitempty"`
			Epochs   int      `json:"epochs,omitempty"`
			TailSecs float64  `json:"tail_seconds,omitempty"`
			Shared   int64    `json:"shared"`
			Moved    int64    `json:"moved_between_devices,omitempty"`
			Targets  int      `json:"targets,omitempty"`
			Verified bool     `json:"verified"`
			Mapping  [][2]int `json:"mapping"`
			// The shape of the multi-graph output, for readers of both.
			Files   []string `json:"files"`
			Columns [][]int  `json:"columns"`
		}
		m := res.Mapping
		if m == nil {
			m = [][2]int{}
		}
		cols := [][]int{make([]int, len(m)), make([]int, len(m))}
		for i, pr := range m {
			cols[0][i], cols[1][i] = pr[0], pr[1]
		}
		return json.NewEncoder(e.stdout).Encode(jsonResult{G: pos[0], H: pos[1], NG: g0.N, NH: g1.N, Size: res.Size,
			Files: pos, Columns: cols, Targets: res.Targets,
			Proven: res.Proven, Nodes: res.Nodes, Seconds: res.Elapsed.Seconds(), Threads: res.Threads, Verified: *verify, Mapping: m,
			Engine: string(res.Engine), Why: res.Why, Device: res.Device, Goal: *goal, Epochs: res.Epochs,
			TailSecs: res.Tail.Seconds(), Shared: res.Shared, Moved: res.Moved})
	}
	status := "proven maximum"
	if !res.Proven {
		status = "unproven (stopped early)"
	}
	if *verify {
		status += ", verified"
	}
	w := e.stdout
	fmt.Fprintf(w, "size %d  %s\n", res.Size, status)
	workersName := "threads"
	if res.Device != "" {
		workersName = "workers"
	}
	fmt.Fprintf(w, "nodes %d  time %v  %s %d  %s\n", res.Nodes, res.Elapsed.Round(time.Microsecond), workersName, res.Threads, rate(res.Nodes, res.Elapsed))
	fmt.Fprintf(w, "engine %s (%s)%s\n", res.Engine, res.Why, joinNonEmpty(" ", "", deviceSuffix(res.Device)))
	writeMapping(w, res.Mapping)
	return nil
}

func deviceSuffix(d string) string {
	if d == "" {
		return ""
	}
	return " on " + d
}

// runMCSMany is 'arbor mcs' on three or more graphs, or --approximate.
func runMCSMany(e *env, pos []string, graphs []*core.Graph, opts mcs.Options, asJSON, verify bool) error {
	if opts.Engine == mcs.EngineGPU || opts.Engine == mcs.EngineHybrid {
		return usagef("more than two graphs (or --approximate) run on the CPU only: --engine %s is not supported", opts.Engine)
	}
	if opts.BigFirst || opts.Goal > 0 {
		return usagef("more than two graphs (or --approximate): --big-first and --goal are not supported")
	}
	prog := newProgress(e)
	opts.Progress = func(p mcs.Progress) {
		prog.Update(fmt.Sprintf("incumbent %d  nodes %d  %s", p.Incumbent, p.Nodes, rate(p.Nodes, p.Elapsed)))
	}
	res, err := mcs.SolveMany(e.ctx, graphs, opts)
	prog.Done()
	if err != nil {
		return err
	}
	if verify {
		if err := mcs.VerifyMany(graphs, res.Tuples, opts); err != nil {
			return fmt.Errorf("%s: verification failed: %w", strings.Join(pos, ", "), err)
		}
	}
	if asJSON {
		// g, h, n_g, n_h and mapping describe the first two graphs, as for
		// a pair; files, n and columns (one per graph) describe them all.
		type jsonResult struct {
			G           string   `json:"g"`
			H           string   `json:"h"`
			NG          int      `json:"n_g"`
			NH          int      `json:"n_h"`
			Files       []string `json:"files"`
			N           []int    `json:"n"`
			Size        int      `json:"size"`
			Proven      bool     `json:"proven"`
			Approximate bool     `json:"approximate"`
			Keep        int      `json:"keep,omitempty"`
			Order       []int    `json:"order"`
			Nodes       int64    `json:"nodes"`
			Seconds     float64  `json:"seconds"`
			Threads     int      `json:"threads"`
			Shared      int64    `json:"shared"`
			Engine      string   `json:"engine"`
			Verified    bool     `json:"verified"`
			Mapping     [][2]int `json:"mapping"`
			Columns     [][]int  `json:"columns"`
		}
		ns := make([]int, len(graphs))
		cols := make([][]int, len(graphs))
		for j, g := range graphs {
			ns[j] = g.N
			cols[j] = res.Column(j)
		}
		keep := 0
		if opts.Approximate {
			keep = opts.Keep
		}
		return json.NewEncoder(e.stdout).Encode(jsonResult{G: pos[0], H: pos[1], NG: graphs[0].N, NH: graphs[1].N,
			Files: pos, N: ns, Size: res.Size, Proven: res.Proven, Approximate: res.Approximate, Keep: keep,
			Order: res.Order, Nodes: res.Nodes, Seconds: res.Elapsed.Seconds(), Threads: res.Threads, Shared: res.Shared,
			Engine: string(mcs.EngineCPU), Verified: verify, Mapping: res.Pairs(0, 1), Columns: cols})
	}
	status := "proven maximum"
	switch {
	case res.Approximate:
		status = "approximate (a common subgraph, not proven maximum)"
	case !res.Proven:
		status = "unproven (stopped early)"
	}
	if verify {
		status += ", verified"
	}
	w := e.stdout
	fmt.Fprintf(w, "size %d  %s  (%d graphs, searched in order %v)\n", res.Size, status, len(graphs), plusOne(res.Order))
	fmt.Fprintf(w, "nodes %d  time %v  threads %d  %s\n", res.Nodes, res.Elapsed.Round(time.Microsecond), res.Threads, rate(res.Nodes, res.Elapsed))
	var sb strings.Builder
	for i, row := range res.Tuples {
		if i > 0 {
			sb.WriteByte(' ')
		}
		for j, v := range row {
			if j > 0 {
				sb.WriteString("→")
			}
			fmt.Fprint(&sb, v)
		}
	}
	fmt.Fprintf(w, "mapping %s\n", sb.String())
	return nil
}

// plusOne numbers graphs from 1, as the command line lists them.
func plusOne(order []int) []int {
	out := make([]int, len(order))
	for i, j := range order {
		out[i] = j + 1
	}
	return out
}

// writeMapping prints a mapping's line: "mapping v→w v→w …".
func writeMapping(w io.Writer, mapping [][2]int) {
	var sb strings.Builder
	for i, p := range mapping {
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "%d→%d", p[0], p[1])
	}
	fmt.Fprintf(w, "mapping %s\n", sb.String())
}
