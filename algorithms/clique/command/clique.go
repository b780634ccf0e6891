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

// runClique is 'arbor clique': a maximum clique of a graph, or of its
// complement (a maximum independent set of the graph).
func runClique(e *cli.Env) error {
	fs, sr := cli.NewSearchFlags(e)
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
		return runCliqueBatch(e, sr, &bf, pos, opts)
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
	prog, err := cli.StartSearch(e, opening)
	if err != nil {
		return err
	}
	opts.Opening = opening
	opts.Progress = func(p clique.Progress) {
		prog.Update(fmt.Sprintf("incumbent %d  bound %d  nodes %d  %s", p.Incumbent, p.UpperBound, p.Nodes, cli.Rate(p.Nodes, p.Elapsed)))
	}
	res, err := solveClique(e.Ctx, pos, g, opts)
	opts.Devices = cli.EndSearch(e, sf.Verbose, prog, opening)
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
	status = sf.Verified(status)
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
		UpperBound int `json:"upper_bound"`
		cli.SearchReport
		Moved    int64 `json:"moved_between_devices,omitempty"`
		Shared   int64 `json:"shared"`
		Verified bool  `json:"verified"`
		Clique   []int `json:"clique"`
	}
	return jsonResult{Files: pos, N: g.N, M: g.Edges(), Base: sf.Base(g), Complement: complement,
		Size: v.Size(res.Size), Verdict: v, UpperBound: res.UpperBound,
		SearchReport: cli.SearchReport{Nodes: res.Nodes, Seconds: res.Elapsed.Seconds(), Threads: res.Threads,
			Engine: string(res.Engine), Why: res.Why, Backend: cli.BackendOf(opts.Devices, res.Device), Device: res.Device, Epochs: res.Epochs},
		Moved:  res.Moved,
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
