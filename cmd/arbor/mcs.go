package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/core"
)

// runMCS is 'arbor mcs': a maximum common induced subgraph of two graphs.
func runMCS(e *env) error {
	fs := newFlags(e, "mcs", "G H [--threads N] [--connected] [--directed] [--vertex-labels] [--edge-labels] [--big-first] [--heuristic min_max|min_product] [--engine auto|cpu|gpu] [--goal K] [--workers N] [--backend B] [--device D] [--timeout D] [--format F] [--json] [--verify] [--cluster URL|embedded [--cluster-token T] [--task-nodes B] [--tasks N] [--ack-wait D]]")
	threads := fs.Int("threads", 0, "worker threads: 1 runs the sequential engine (node counts equal the original McSplit's); 0 uses every core")
	connected := fs.Bool("connected", false, "find a maximum common connected induced subgraph")
	directed := fs.Bool("directed", false, "read the graphs as directed and respect arc directions")
	vlabels := fs.Bool("vertex-labels", false, "matched vertices must have equal labels")
	elabels := fs.Bool("edge-labels", false, "matched edges must have equal labels")
	bigFirst := fs.Bool("big-first", false, "McSplit↓: try size |G|, then |G|−1, … (good when the graphs are nearly isomorphic)")
	heuristic := fs.String("heuristic", "min_max", "branching heuristic: min_max or min_product")
	timeout := fs.Duration("timeout", 0, "stop after `D` (e.g. 30s) and report the best found, unproven")
	format := fs.String("format", "", "input format (default: detected); one of "+fmt.Sprint(core.Formats()))
	engineName := fs.String("engine", "auto", "where to search: cpu, gpu (the device search on --backend/--device; the CPU backend runs its Go twin) or auto (gpu on a GPU that supports the options, else cpu)")
	goal := fs.Int("goal", 0, "fixed-incumbent mode: prune as if a solution of K−1 vertices were known, never raising it (the same tree on every engine and device: node counts compare); reports a solution of ≥ K or none")
	workers := fs.Int("workers", 0, "device engine workers (work-groups); 0 sizes it from the device. With --cluster embedded: local worker processes (0: one per core)")
	var cf clusterFlags
	cf.register(fs)
	var df deviceFlags
	df.register(fs)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	verify := fs.Bool("verify", false, "check the mapping independently against the input graphs")
	pos, err := parse(fs, e.args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("mcs needs exactly two graph files (got %d arguments)", len(pos))
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
	g0, err := core.ReadGraph(pos[0], ro)
	if err != nil {
		return err
	}
	g1, err := core.ReadGraph(pos[1], ro)
	if err != nil {
		return err
	}
	opts := mcs.Options{
		Threads: *threads, Connected: *connected, Directed: *directed, VertexLabels: *vlabels,
		EdgeLabels: *elabels, BigFirst: *bigFirst, Heuristic: h, Timeout: *timeout,
		Engine: engine, Goal: *goal, Workers: *workers,
	}
	if cf.url != "" {
		if *engineName != "auto" && engine != mcs.EngineCPU {
			return usagef("--cluster runs the CPU engine on every worker; leave --engine out")
		}
		if *bigFirst || *goal > 0 {
			return usagef("--big-first and --goal are not distributed; run them without --cluster")
		}
		opts.Workers = 0
		return runMCSCluster(e, cf, *workers, *threads, [2]string{pos[0], pos[1]}, g0, g1, opts, *asJSON, *verify)
	}
	if engine != mcs.EngineCPU {
		dev, _, err := df.open(e, *asJSON)
		if err != nil {
			if engine == mcs.EngineGPU {
				return err
			}
			fmt.Fprintf(e.stderr, "arbor: no device (%v): the CPU engine runs\n", err)
		} else {
			defer dev.Close()
			opts.Device = dev
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
			Verified bool     `json:"verified"`
			Mapping  [][2]int `json:"mapping"`
		}
		m := res.Mapping
		if m == nil {
			m = [][2]int{}
		}
		return json.NewEncoder(e.stdout).Encode(jsonResult{G: pos[0], H: pos[1], NG: g0.N, NH: g1.N, Size: res.Size,
			Proven: res.Proven, Nodes: res.Nodes, Seconds: res.Elapsed.Seconds(), Threads: res.Threads, Verified: *verify, Mapping: m,
			Engine: string(res.Engine), Why: res.Why, Device: res.Device, Goal: *goal, Epochs: res.Epochs,
			TailSecs: res.Tail.Seconds(), Shared: res.Shared})
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

func deviceSuffix(d string) string {
	if d == "" {
		return ""
	}
	return " on " + d
}
