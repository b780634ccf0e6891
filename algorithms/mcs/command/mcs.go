package mcscmd

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/startup"
)

// runMCS is 'arbor mcs': a maximum common induced subgraph of two or more
// graphs.
func runMCS(e *cli.Env) error {
	fs, sr := cli.NewSearchFlags(e)
	sf, threads, workers, goal := &sr.SolverFlags, sr.Threads, sr.Workers, sr.Goal
	var f mcsFlags
	var cf cli.ClusterFlags
	f.register(fs, &cf)
	var bf cli.BatchFlags
	bf.Register(fs, "mcs")
	pos, err := cli.Parse(fs, e.Args)
	if err != nil {
		return err
	}
	df := sr.Dev // as parsed
	if len(pos) < 2 && !bf.Active() {
		return cli.Usagef("mcs needs at least two graph files (got %s)", cli.Plural(len(pos), "argument"))
	}
	if *f.keep < 1 {
		return cli.Usagef("--keep must be ≥ 1")
	}
	if err := sr.Check(); err != nil {
		return err
	}
	if err := cli.CheckOutNotInput(sf.Out, append(pos, bf.List, bf.Against)...); err != nil {
		return err
	}
	opts, err := f.options(sr)
	if err != nil {
		return err
	}
	opts.MaxMemory = e.MaxMemory()
	engine := opts.Engine
	// The device opens while the graphs are read and the CPU engine starts
	// (only the two-graph search outside a cluster runs on one), as
	// mcs.Solve would open it (mcs.OpenDevices: its start-up policy).
	var opening *startup.Opening
	if len(pos) == 2 && cf.URL == "" {
		sel := opts
		sel.Select = sr.Selection()
		if opening = mcs.OpenDevices(sel); opening != nil {
			defer opening.Release()
		}
	}
	ro := core.ReadOptions{Directed: *f.directed, Format: *sr.Format}
	graphs := make([]*core.Graph, len(pos))
	for i, path := range pos {
		if graphs[i], err = e.ReadGraph(path, ro); err != nil {
			return err
		}
	}
	if err := mcs.CheckMemory(graphs, opts); err != nil {
		return err
	}
	if bf.Active() {
		if cf.URL != "" || *f.approx {
			return cli.Usagef("--batch and --against run two-graph searches in this process: leave out --cluster and --approximate")
		}
		return runMCSBatch(e, sr, &bf, pos, graphs, opts, ro)
	}
	if cf.URL != "" && (len(graphs) > 2 || *f.approx || *f.blockOrder || *f.deadEnd > 0 || *f.restarts || engine == mcs.EnginePortfolio) {
		return cli.Usagef("--cluster distributes the plain two-graph search; leave out more graphs, --approximate, the heuristics and the portfolio")
	}
	if len(graphs) > 2 || *f.approx {
		return runMCSMany(e, pos, graphs, opts, sf)
	}
	g0, g1 := graphs[0], graphs[1]
	if cf.URL != "" {
		if engine == mcs.EngineGPU || engine == mcs.EngineHybrid {
			if err := cf.OnDevices(string(engine), df); err != nil {
				return err
			}
		}
		if *f.bigFirst || *goal > 0 {
			return cli.Usagef("--big-first and --goal are not distributed; run them without --cluster")
		}
		opts.Workers = 0
		return runMCSCluster(e, cf, *workers, *threads, pos, g0, g1, opts, *sf)
	}
	return solveMCSHere(e, sf, pos, g0, g1, opts, opening, *goal)
}

// mcsFlags are arbor mcs's own flags (the search's, batch's and cluster's
// are shared with the other commands).
type mcsFlags struct {
	connected, directed, vlabels, elabels, bigFirst *bool
	heuristic, prune                                *string
	blockOrder                                      *bool
	deadEnd                                         *int64
	doubleRaise, restarts                           *bool
	seed                                            *uint64
	plainOrder, approx                              *bool
	keep                                            *int
}

// register defines the flags on fs, the cluster's among them (-h lists
// them in this order).
func (f *mcsFlags) register(fs *flag.FlagSet, cf *cli.ClusterFlags) {
	f.connected = fs.Bool("connected", false, "find a maximum common connected induced subgraph")
	f.directed = fs.Bool("directed", false, "read the graphs as directed and respect arc directions")
	f.vlabels = fs.Bool("vertex-labels", false, "matched vertices must have equal labels")
	f.elabels = fs.Bool("edge-labels", false, "matched edges must have equal labels")
	f.bigFirst = fs.Bool("big-first", false, "McSplit↓: try size |G|, then |G|−1, … (good when the graphs are nearly isomorphic)")
	f.heuristic = fs.String("heuristic", "min_max", "branching heuristic: min_max or min_product")
	f.prune = fs.String("prune", "rr", "search tree of every engine: rr (RRSplit's reductions: same sizes, fewer nodes; a rule an option or engine cannot use is switched off, and --json's prune says which ran; see docs/design/mcs.md), none (the original McSplit's: node counts equal its) or rr2 (rr with the edge-count bound and learned branching on the CPU engines: smaller proof trees on large pairs)")
	cf.Register(fs)
	f.blockOrder = fs.Bool("block-order", false, "heuristic h1: order vertices by component, border, then breadth-first instead of by degree (exact; node counts differ)")
	f.deadEnd = fs.Int64("dead-end", 0, "heuristic h2: after `N` nodes without a better incumbent, search for larger targets, then binary search back down (exact); 0: off")
	f.doubleRaise = fs.Bool("double-raise", false, "--dead-end: double the target's step at every dead end instead of adding one")
	f.restarts = fs.Bool("restarts", false, "heuristic h3 (runs on the sequential engine, whatever --threads says): the root's children in a random order, under node budgets that double, the finished ones recorded (exact)")
	f.seed = fs.Uint64("seed", 1, "--restarts: random seed")
	f.plainOrder = fs.Bool("plain-order", false, "three or more graphs: search them in the given order, not smallest, largest, second smallest, …")
	f.approx = fs.Bool("approximate", false, "intersect the graphs one at a time (MCS of G1 and G2, then of that and G3, …): fast, never proven")
	f.keep = fs.Int("keep", 1, "--approximate: how many maximum solutions each step hands on")
}

// options parses the flags' values (with the search flags sr) into the
// search's options; a bad value or a combination no engine runs is a usage
// error.
func (f *mcsFlags) options(sr *cli.SearchFlags) (mcs.Options, error) {
	h, err := mcs.ParseHeuristic(*f.heuristic)
	if err != nil {
		return mcs.Options{}, cli.Usagef("%v", err)
	}
	engine, err := mcs.ParseEngine(*sr.Engine)
	if err != nil {
		return mcs.Options{}, cli.Usagef("%v", err)
	}
	pruning, err := mcs.ParsePruning(*f.prune)
	if err != nil {
		return mcs.Options{}, cli.Usagef("%v", err)
	}
	if *f.deadEnd < 0 {
		return mcs.Options{}, cli.Usagef("--dead-end must be ≥ 0")
	}
	if err := mcsConflicts(mcs.Options{Engine: engine, Goal: *sr.Goal, BigFirst: *f.bigFirst, Restarts: *f.restarts,
		DeadEnd: *f.deadEnd, BlockOrder: *f.blockOrder, Directed: *f.directed, EdgeLabels: *f.elabels, Connected: *f.connected}); err != nil {
		return mcs.Options{}, err
	}
	return mcs.Options{
		Threads: *sr.Threads, Connected: *f.connected, Directed: *f.directed, VertexLabels: *f.vlabels,
		EdgeLabels: *f.elabels, BigFirst: *f.bigFirst, Heuristic: h, Prune: pruning, Timeout: *sr.Timeout,
		Engine: engine, Goal: *sr.Goal, Workers: *sr.Workers,
		PlainOrder: *f.plainOrder, Approximate: *f.approx, Keep: *f.keep,
		BlockOrder: *f.blockOrder, DeadEnd: *f.deadEnd, DoubleRaise: *f.doubleRaise, Restarts: *f.restarts, Seed: *f.seed,
	}, nil
}

// solveMCSHere is one two-graph search in this process, on the opening
// device (when there is one) with a progress line, and its result printed.
func solveMCSHere(e *cli.Env, sf *cli.SolverFlags, pos []string, g0, g1 *core.Graph, opts mcs.Options, opening *startup.Opening, goal int) error {
	prog, err := cli.StartSearch(e, opening)
	if err != nil {
		return err
	}
	opts.Opening = opening
	opts.Progress = func(p mcs.Progress) {
		goal := ""
		if p.Goal > 0 {
			goal = fmt.Sprintf("goal %d  ", p.Goal)
		}
		prog.Update(fmt.Sprintf("%sincumbent %d  nodes %d  %s", goal, p.Incumbent, p.Nodes, cli.Rate(p.Nodes, p.Elapsed)))
	}
	res, err := solveMCS(e.Ctx, pos, g0, g1, opts)
	opts.Devices = cli.EndSearch(e, sf.Verbose, prog, opening)
	if err != nil {
		return err
	}
	return printMCS(e, sf, pos, g0, g1, opts, res, goal)
}

// solveMCS is one two-graph search and its guard: what a single run and
// every instance of a batch go through.
func solveMCS(ctx context.Context, pos []string, g0, g1 *core.Graph, opts mcs.Options) (mcs.Result, error) {
	res, err := mcs.Solve(ctx, g0, g1, opts)
	if err != nil {
		return res, err
	}
	if err := GuardMCS(g0, g1, res, opts); err != nil {
		return res, fmt.Errorf("%s, %s: %w", pos[0], pos[1], err)
	}
	return res, nil
}

// printMCS prints a two-graph result: -o, then JSON or text on stdout,
// then --require-optimal's verdict.
func printMCS(e *cli.Env, sf *cli.SolverFlags, pos []string, g0, g1 *core.Graph, opts mcs.Options, res mcs.Result, goal int) error {
	v := cli.NewVerdict(res.Status, goal > 0, goal, goal > 0 && res.Size >= goal)
	m, err := outPairs(sf, pos, v, g0, g1, res.Mapping, res.Size)
	if err != nil {
		return err
	}
	if sf.JSON {
		if err := json.NewEncoder(e.Stdout).Encode(mcsObject(sf, pos, g0, g1, opts, res, v, m)); err != nil {
			return err
		}
		return v.Require(sf.RequireOptimal)
	}
	status := sf.Verified(cli.StatusText(v, "maximum", fmt.Sprintf("common subgraph of ≥ %d vertices", goal)))
	w := e.Stdout
	fmt.Fprintf(w, "size %s  %s\n", cli.SizeText(v.Size(res.Size)), status)
	workersName := "threads"
	if res.Device != "" {
		workersName = "workers"
	}
	fmt.Fprintf(w, "nodes %d  time %v  %s %d  %s\n", res.Nodes, res.Elapsed.Round(time.Microsecond), workersName, res.Threads, cli.Rate(res.Nodes, res.Elapsed))
	fmt.Fprintf(w, "engine %s (%s)%s\n", res.Engine, res.Why, cli.JoinNonEmpty(" ", "", cli.DeviceSuffix(res.Device)))
	WriteMapping(w, m)
	return v.Require(sf.RequireOptimal)
}

// mcsObject is the JSON object of a two-graph result (m: the mapping in
// the printed numbering): a single run prints it, a batch adds its place
// in the list.
func mcsObject(sf *cli.SolverFlags, pos []string, g0, g1 *core.Graph, opts mcs.Options, res mcs.Result, v cli.Verdict, m [][2]int) any {
	type jsonResult struct {
		graphsJSON
		Size *int `json:"size,omitempty"` // absent: proven that no solution reaches the goal
		cli.Verdict
		cli.SearchReport
		TailSecs float64 `json:"tail_seconds,omitempty"`
		Shared   int64   `json:"shared"`
		Moved    int64   `json:"moved_between_devices,omitempty"`
		Targets  int     `json:"targets,omitempty"`
		answerJSON
	}
	return jsonResult{graphsJSON: pairJSON(sf, pos, g0, g1), Size: v.Size(res.Size),
		Verdict: v, Targets: res.Targets, answerJSON: newAnswerJSON(res.Prune, sf.Verify, m, pairColumns(m)),
		SearchReport: cli.SearchReport{Nodes: res.Nodes, Seconds: res.Elapsed.Seconds(), Threads: res.Threads,
			Engine: string(res.Engine), Why: res.Why, Backend: cli.BackendOf(opts.Devices, res.Device), Device: res.Device, Epochs: res.Epochs},
		TailSecs: res.Tail.Seconds(), Shared: res.Shared, Moved: res.Moved}
}

// graphsJSON is the opening fields of every mcs JSON object: the files,
// the graphs' orders and the numbering each is printed in.
type graphsJSON struct {
	Files []string `json:"files"`
	N     []int    `json:"vertices"`
	Base  []int    `json:"base"`
}

// pairJSON is graphsJSON for the pair g, h.
func pairJSON(sf *cli.SolverFlags, files []string, g, h *core.Graph) graphsJSON {
	return graphsJSON{Files: files, N: []int{g.N, h.N}, Base: []int{sf.Base(g), sf.Base(h)}}
}

// pairColumns is a two-graph mapping as the JSON's columns: each graph's
// vertices in the mapping's order.
func pairColumns(m [][2]int) [][]int {
	cols := [][]int{make([]int, len(m)), make([]int, len(m))}
	for i, pr := range m {
		cols[0][i], cols[1][i] = pr[0], pr[1]
	}
	return cols
}

// answerJSON is the closing fields of every mcs JSON object: the search
// tree's rules, whether --verify checked the answer, and the answer as
// pairs of the first two graphs and as one column per graph.
type answerJSON struct {
	Prune    pruneJSON `json:"prune"`
	Verified bool      `json:"verified"`
	Mapping  [][2]int  `json:"mapping"`
	Columns  [][]int   `json:"columns"`
}

func newAnswerJSON(prune mcs.PruneReport, verified bool, m [][2]int, cols [][]int) answerJSON {
	return answerJSON{Prune: newPruneJSON(prune), Verified: verified, Mapping: m, Columns: cols}
}

// pruneJSON is the "prune" object of mcs's JSON: the search tree asked
// for, the rules that ran, and those switched off for the run and why.
type pruneJSON struct {
	Mode  string        `json:"mode"`
	Rules []string      `json:"rules"`
	Off   []ruleOffJSON `json:"off"`
}

type ruleOffJSON struct {
	Rule string `json:"rule"`
	Why  string `json:"why"`
}

func newPruneJSON(r mcs.PruneReport) pruneJSON {
	j := pruneJSON{Mode: r.Mode.String(), Rules: append([]string{}, r.Rules...), Off: []ruleOffJSON{}}
	for _, o := range r.Off {
		j.Off = append(j.Off, ruleOffJSON{o.Rule, o.Why})
	}
	return j
}

// writeMCSFile writes mcs -o: comment lines with the status and the
// files, then one row per matched vertex (its number in each graph).
func writeMCSFile(path string, files []string, v cli.Verdict, size int, rows [][]int) error {
	return cli.WriteAtomic(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		fmt.Fprintf(bw, "# arbor mcs: size %d, status %s", size, v.Status)
		if !v.Proven {
			bw.WriteString(" (not proven)")
		}
		if v.GoalMet != nil {
			fmt.Fprintf(bw, ", goal %d met %v", *v.Goal, *v.GoalMet)
		}
		fmt.Fprintf(bw, "\n# files:")
		for _, f := range files {
			fmt.Fprintf(bw, " %s", f)
		}
		bw.WriteString("\n")
		for _, r := range rows {
			for j, x := range r {
				if j > 0 {
					bw.WriteByte(' ')
				}
				bw.WriteString(strconv.Itoa(x))
			}
			bw.WriteByte('\n')
		}
		return bw.Flush()
	})
}

// runMCSMany is 'arbor mcs' on three or more graphs, or --approximate.
func runMCSMany(e *cli.Env, pos []string, graphs []*core.Graph, opts mcs.Options, sf *cli.SolverFlags) error {
	if opts.Engine == mcs.EngineGPU || opts.Engine == mcs.EngineHybrid {
		return cli.Usagef("more than two graphs (or --approximate) run on the CPU only: --engine %s is not supported", opts.Engine)
	}
	if opts.BigFirst || opts.Goal > 0 {
		return cli.Usagef("more than two graphs (or --approximate): --big-first and --goal are not supported")
	}
	prog := cli.NewProgress(e)
	opts.Progress = func(p mcs.Progress) {
		prog.Update(fmt.Sprintf("incumbent %d  nodes %d  %s", p.Incumbent, p.Nodes, cli.Rate(p.Nodes, p.Elapsed)))
	}
	res, err := mcs.SolveMany(e.Ctx, graphs, opts)
	prog.Done()
	if err != nil {
		return err
	}
	if err := GuardMCSMany(graphs, res, opts); err != nil {
		return fmt.Errorf("%s: %w", strings.Join(pos, ", "), err)
	}
	v := cli.NewVerdict(res.Status, false, 0, false)
	ns := make([]int, len(graphs))
	bases := make([]int, len(graphs))
	cols := make([][]int, len(graphs))
	for j, g := range graphs {
		ns[j], bases[j] = g.N, sf.Base(g)
		cols[j] = cli.Shifted(res.Column(j), bases[j])
	}
	rows := make([][]int, len(res.Tuples))
	for i, t := range res.Tuples {
		rows[i] = make([]int, len(t))
		for j, x := range t {
			rows[i][j] = x + bases[j]
		}
	}
	if sf.Out != "" {
		if err := writeMCSFile(sf.Out, pos, v, res.Size, rows); err != nil {
			return err
		}
	}
	if sf.JSON {
		if err := writeMCSManyJSON(e, pos, ns, bases, cols, opts, res, v, sf.Verify); err != nil {
			return err
		}
		return v.Require(sf.RequireOptimal)
	}
	printMCSManyText(e, sf, len(graphs), res, v, rows)
	return v.Require(sf.RequireOptimal)
}

// writeMCSManyJSON prints a multi-graph result as --json: mapping
// describes the first two graphs, as for a pair; columns (one per graph)
// describe them all.
func writeMCSManyJSON(e *cli.Env, pos []string, ns, bases []int, cols [][]int, opts mcs.Options, res mcs.MultiResult, v cli.Verdict, verified bool) error {
	type jsonResult struct {
		graphsJSON
		Size int `json:"size"`
		cli.Verdict
		Approximate bool    `json:"approximate"`
		Keep        int     `json:"keep,omitempty"`
		Order       []int   `json:"order"`
		Nodes       int64   `json:"nodes"`
		Seconds     float64 `json:"seconds"`
		Threads     int     `json:"threads"`
		Shared      int64   `json:"shared"`
		Engine      string  `json:"engine"`
		Why         string  `json:"why"`
		answerJSON
	}
	keep := 0
	why := "more than two graphs: the multi-graph search"
	if opts.Approximate {
		keep = opts.Keep
		why = "--approximate: the graphs intersected one at a time"
	}
	return json.NewEncoder(e.Stdout).Encode(jsonResult{graphsJSON: graphsJSON{Files: pos, N: ns, Base: bases}, Size: res.Size, Verdict: v,
		Approximate: res.Approximate, Keep: keep,
		Order: res.Order, Nodes: res.Nodes, Seconds: res.Elapsed.Seconds(), Threads: res.Threads, Shared: res.Shared,
		Engine: string(mcs.EngineCPU), Why: why,
		answerJSON: newAnswerJSON(res.Prune, verified, cli.ShiftedPairs(res.Pairs(0, 1), bases[0], bases[1]), cols)})
}

// printMCSManyText prints a multi-graph result as text: the size and
// status, the search's counts, then the mapping's rows.
func printMCSManyText(e *cli.Env, sf *cli.SolverFlags, nGraphs int, res mcs.MultiResult, v cli.Verdict, rows [][]int) {
	status := cli.StatusText(v, "maximum", "")
	if res.Approximate {
		status = "approximate (a common subgraph, not proven maximum)"
	}
	status = sf.Verified(status)
	w := e.Stdout
	fmt.Fprintf(w, "size %d  %s  (%d graphs, searched in order %v)\n", res.Size, status, nGraphs, plusOne(res.Order))
	fmt.Fprintf(w, "nodes %d  time %v  threads %d  %s\n", res.Nodes, res.Elapsed.Round(time.Microsecond), res.Threads, cli.Rate(res.Nodes, res.Elapsed))
	var sb strings.Builder
	for i, row := range rows {
		if i > 0 {
			sb.WriteByte(' ')
		}
		for j, x := range row {
			if j > 0 {
				sb.WriteString("→")
			}
			fmt.Fprint(&sb, x)
		}
	}
	fmt.Fprintf(w, "mapping %s\n", sb.String())
}

// plusOne numbers graphs from 1, as the command line lists them.
func plusOne(order []int) []int {
	out := make([]int, len(order))
	for i, j := range order {
		out[i] = j + 1
	}
	return out
}

// outPairs shifts a two-graph mapping into the printed numbering and,
// with -o, writes it (writeMCSFile): the local and the cluster runs alike.
func outPairs(sf *cli.SolverFlags, files []string, v cli.Verdict, g, h *core.Graph, mapping [][2]int, size int) ([][2]int, error) {
	m := cli.ShiftedPairs(mapping, sf.Base(g), sf.Base(h))
	if sf.Out == "" {
		return m, nil
	}
	rows := make([][]int, len(m))
	for i, p := range m {
		rows[i] = []int{p[0], p[1]}
	}
	return m, writeMCSFile(sf.Out, files, v, size, rows)
}

// mcsConflicts refuses, at parse time, the combinations of mcs's flags
// that cannot run together (the package refuses them too, later and in
// its own terms): one sentence naming the flags.
func mcsConflicts(o mcs.Options) error {
	named := func(on bool, name string) string {
		if on {
			return name
		}
		return ""
	}
	heuristics := cli.JoinNonEmpty(", ", named(o.DeadEnd > 0, "--dead-end"), named(o.Restarts, "--restarts"))
	switch {
	case o.Goal > 0 && o.BigFirst:
		return cli.Usagef("--goal and --big-first cannot be combined: --goal fixes the bar that --big-first lowers step by step")
	case o.Goal > 0 && heuristics != "":
		return cli.Usagef("--goal and %s cannot be combined: a fixed goal searches one fixed tree", heuristics)
	case o.BigFirst && heuristics != "":
		return cli.Usagef("--big-first and %s cannot be combined: each sets its own targets", heuristics)
	case o.Restarts && o.DeadEnd > 0:
		return cli.Usagef("--restarts and --dead-end cannot be combined: restarts run the sequential search without dead-end raising")
	case o.Goal > 0 && o.Engine == mcs.EngineHybrid:
		return cli.Usagef("--goal and --engine hybrid cannot be combined: a fixed goal compares search trees; use --engine gpu or cpu")
	case o.Engine == mcs.EnginePortfolio && (o.Goal > 0 || o.BigFirst || o.BlockOrder || heuristics != ""):
		return cli.Usagef("--engine portfolio picks its own configurations: leave out --goal, --big-first, --block-order, --dead-end and --restarts")
	}
	if o.Engine == mcs.EngineGPU || o.Engine == mcs.EngineHybrid {
		for _, f := range []struct {
			on   bool
			name string
		}{{o.Directed, "--directed"}, {o.EdgeLabels, "--edge-labels"}, {o.Connected, "--connected"},
			{o.BigFirst, "--big-first"}, {o.DeadEnd > 0, "--dead-end"}, {o.Restarts, "--restarts"}} {
			if f.on {
				return cli.Usagef("--engine %s and %s cannot be combined: the device engine does not support %s; use --engine cpu or auto", o.Engine, f.name, f.name)
			}
		}
	}
	return nil
}
