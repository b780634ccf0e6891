package cliquecmd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/clique"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
)

// cliqueSynopsis is arbor clique's usage line.
const cliqueSynopsis = "GRAPH [--threads N] [--timeout D] [--complement] [--format F] [--json] [--verify] [--require-optimal] [--zero-based] [-o FILE] [-v] [--plain-colouring] [--engine auto|cpu|gpu|hybrid] [--goal K] [--workers N] [--backend B] [--device D] | --batch LIST [--device-slots D] …"

// runClique is 'arbor clique': a maximum clique of a graph, or of its
// complement (a maximum independent set of the graph).
func runClique(e *cli.Env) error {
	fs := cli.NewFlags(e, "clique", cliqueSynopsis)
	var sr cli.SearchFlags
	sr.Register(fs, cli.SearchHelp{What: "clique",
		Out:     "write the clique to `FILE` (atomically): '#' lines saying the status, then one vertex per line",
		Threads: "worker threads: 1 runs the sequential engine; 0 uses every core",
		Timeout: "stop after `D` (e.g. 30s) and report the best clique found, unproven",
		Engine:  "where to search: cpu, gpu (the device search on --backend/--device, plain colouring bound; the CPU backend runs its Go twin), hybrid (the device and the CPU engine side by side, sharing the incumbent) or auto (the CPU engine at once while the device opens; on a GPU with warp-level operations the hybrid takes over what the CPU engine has not settled once the device is open and a 50 ms head start has passed)",
		Engines: string(clique.EngineAuto),
		Workers: "device engine workers (work-groups); 0 sizes it from the device",
		Goal:    "fixed-incumbent mode (gpu engine): prune as if a clique of K−1 vertices were known, never raising it (the same tree on every device: node counts compare); reports a clique of ≥ K if there is one",
	})
	sf, goal := &sr.SolverFlags, sr.Goal
	complement := fs.Bool("complement", false, "solve the complement graph (a maximum independent set of GRAPH)")
	plain := fs.Bool("plain-colouring", false, "use BBMC's colouring bound alone, without the Re-NUMBER and infra-chromatic tightening (for comparison)")
	var bf cli.BatchFlags
	bf.Register(fs, "clique")
	pos, err := cli.Parse(fs, e.Args)
	if err != nil {
		return err
	}
	if len(pos) != 1 && !bf.Active() {
		return cli.Usagef("clique needs exactly one graph file (got %s)", cli.Plural(len(pos), "argument"))
	}
	if err := sr.Check(); err != nil {
		return err
	}
	if err := cli.CheckOutNotInput(sf.Out, append(pos, bf.List)...); err != nil {
		return err
	}
	engine, err := clique.ParseEngine(*sr.Engine)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	if *goal > 0 && engine != clique.EngineGPU {
		return cli.Usagef("--goal takes --engine gpu")
	}
	opts := clique.Options{Threads: *sr.Threads, Timeout: *sr.Timeout, Complement: *complement, PlainColouring: *plain,
		Engine: engine, Goal: *goal, Workers: *sr.Workers, MaxMemory: e.MaxMemory()}
	if bf.Active() {
		return runCliqueBatch(e, &sr, &bf, pos, opts)
	}
	// The device opens while the graph is read and the CPU engine starts,
	// as clique.Maximum would open it (clique.OpenDevices: its start-up
	// policy).
	sel := opts
	sel.Select = sr.Selection()
	opening := clique.OpenDevices(sel)
	if opening != nil {
		defer opening.Release()
	}
	g, err := e.ReadGraph(pos[0], core.ReadOptions{Format: *sr.Format})
	if err != nil {
		return err
	}
	if err := checkCliqueMatrix(e, pos[0], g); err != nil {
		return err
	}
	// A note such as "vertex 0 has no edges" matters here: with
	// --complement such a vertex joins every clique.
	for _, n := range g.Notes {
		fmt.Fprintf(e.Stderr, "arbor clique: %s: note: %s\n", pos[0], n)
	}
	if opening != nil {
		if err := opening.Settle(); err != nil {
			return err
		}
		opts.Opening = opening
	}
	prog := cli.NewProgress(e)
	opts.Progress = func(p clique.Progress) {
		prog.Update(fmt.Sprintf("incumbent %d  bound %d  nodes %d  %s", p.Incumbent, p.UpperBound, p.Nodes, cli.Rate(p.Nodes, p.Elapsed)))
	}
	res, err := solveClique(e.Ctx, pos, g, opts)
	prog.Done()
	if opening != nil {
		cli.Say(e, sf.Verbose, opening.Report())
		opts.Devices = opening.Devices()
	}
	if err != nil {
		return err
	}
	return printClique(e, sf, pos, g, opts, res, *goal, *complement)
}

// solveClique is one clique search and its guard: what a single run and
// every instance of a batch go through.
func solveClique(ctx context.Context, pos []string, g *core.Graph, opts clique.Options) (clique.Result, error) {
	res, err := clique.Maximum(ctx, g, opts)
	if err != nil {
		return res, fmt.Errorf("%s: %w", pos[0], err)
	}
	if err := GuardClique(g, res, opts); err != nil {
		return res, fmt.Errorf("%s: %w", pos[0], err)
	}
	return res, nil
}

// printClique prints a clique result: -o, then JSON or text on stdout,
// then --require-optimal's verdict.
func printClique(e *cli.Env, sf *cli.SolverFlags, pos []string, g *core.Graph, opts clique.Options, res clique.Result, goal int, complement bool) error {
	v := cli.NewVerdict(res.Status, goal > 0, goal, goal > 0 && res.Size >= goal)
	// Vertices are printed in the file's own numbering.
	shown := cli.Shifted(res.Clique, sf.Base(g))
	if sf.Out != "" {
		if err := writeVertexFile(sf.Out, "clique", pos[0], v, shown); err != nil {
			return err
		}
	}
	if sf.JSON {
		if err := json.NewEncoder(e.Stdout).Encode(cliqueObject(sf, pos, g, opts, res, v, shown, complement)); err != nil {
			return err
		}
		return v.Require(sf.RequireOptimal)
	}
	status := cli.StatusText(v, "maximum", fmt.Sprintf("clique of ≥ %d vertices", goal))
	if !res.Proven {
		status += fmt.Sprintf("; bound %d", res.UpperBound)
	}
	if sf.Verify {
		status += ", verified"
	}
	what := "clique"
	if complement {
		what = "clique of the complement"
	}
	w := e.Stdout
	fmt.Fprintf(w, "%s: %d vertices, %d edges  %s %s  %s\n", pos[0], g.N, g.Edges(), what, cli.SizeText(v.Size(res.Size)), status)
	workersName := "threads"
	if res.Device != "" {
		workersName = "workers"
	}
	fmt.Fprintf(w, "nodes %d  time %v  %s %d  %s\n", res.Nodes, res.Elapsed.Round(time.Microsecond), workersName, res.Threads, cli.Rate(res.Nodes, res.Elapsed))
	fmt.Fprintf(w, "engine %s (%s)%s\n", res.Engine, res.Why, cli.DeviceSuffix(res.Device))
	var sb strings.Builder
	for i, x := range shown {
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprint(&sb, x)
	}
	fmt.Fprintf(w, "vertices %s\n", sb.String())
	return v.Require(sf.RequireOptimal)
}

// cliqueObject is the JSON object of a clique result (shown: the clique
// in the printed numbering): a single run prints it, a batch adds its
// place in the list.
func cliqueObject(sf *cli.SolverFlags, pos []string, g *core.Graph, opts clique.Options, res clique.Result, v cli.Verdict, shown []int, complement bool) any {
	type jsonResult struct {
		Files      []string `json:"files"`
		N          int      `json:"vertices"`
		M          int      `json:"edges"`
		Base       int      `json:"base"`
		Complement bool     `json:"complement"`
		Size       *int     `json:"size,omitempty"` // absent: proven that no clique reaches the goal
		cli.Verdict
		UpperBound int     `json:"upper_bound"`
		Nodes      int64   `json:"nodes"`
		Seconds    float64 `json:"seconds"`
		Threads    int     `json:"threads"`
		Engine     string  `json:"engine"`
		Why        string  `json:"why"`
		Backend    string  `json:"backend,omitempty"`
		Device     string  `json:"device,omitempty"`
		Epochs     int     `json:"epochs,omitempty"`
		Moved      int64   `json:"moved_between_devices,omitempty"`
		Shared     int64   `json:"shared"`
		Verified   bool    `json:"verified"`
		Clique     []int   `json:"clique"`
	}
	backendName := cli.BackendOf(opts.Devices, res.Device)
	return jsonResult{Files: pos, N: g.N, M: g.Edges(), Base: sf.Base(g), Complement: complement,
		Size: v.Size(res.Size), Verdict: v, UpperBound: res.UpperBound, Nodes: res.Nodes, Seconds: res.Elapsed.Seconds(),
		Threads: res.Threads, Engine: string(res.Engine), Why: res.Why, Backend: backendName, Device: res.Device, Epochs: res.Epochs, Moved: res.Moved,
		Shared: res.Shared, Verified: sf.Verify, Clique: shown}
}

// writeVertexFile writes clique -o: '#' lines with the status, then one
// vertex per line.
func writeVertexFile(path, cmd, file string, v cli.Verdict, vertices []int) error {
	return cli.WriteAtomic(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		fmt.Fprintf(bw, "# arbor %s: size %d, status %s", cmd, len(vertices), v.Status)
		if !v.Proven {
			bw.WriteString(" (not proven)")
		}
		if v.GoalMet != nil {
			fmt.Fprintf(bw, ", goal %d met %v", *v.Goal, *v.GoalMet)
		}
		fmt.Fprintf(bw, "\n# file: %s\n", file)
		for _, x := range vertices {
			fmt.Fprintf(bw, "%d\n", x)
		}
		return bw.Flush()
	})
}
