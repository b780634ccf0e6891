package mcs

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/startup"
)

// Heuristic chooses the bidomain to branch on.
type Heuristic int

const (
	// MinMax picks the bidomain with the smallest max(|left|, |right|).
	MinMax Heuristic = iota
	// MinProduct picks the bidomain with the smallest |left|·|right|.
	MinProduct
)

func (h Heuristic) String() string {
	switch h {
	case MinMax:
		return "min_max"
	case MinProduct:
		return "min_product"
	}
	return fmt.Sprintf("Heuristic(%d)", int(h))
}

// ParseHeuristic reads "min_max" or "min_product".
func ParseHeuristic(s string) (Heuristic, error) {
	switch s {
	case "min_max", "":
		return MinMax, nil
	case "min_product":
		return MinProduct, nil
	}
	return 0, fmt.Errorf("unknown heuristic %q (want min_max or min_product)", s)
}

// Options says which problem to solve and how.
type Options struct {
	// Threads is the number of worker goroutines: 1 runs the sequential
	// engine, 0 (or less) uses every core (GOMAXPROCS). The hybrid runs
	// that many CPU threads beside the device (0: every core but one).
	Threads int
	// Connected asks for a connected common subgraph: once a vertex is
	// matched, only vertices adjacent to the matched ones may join. With
	// Directed, connected means weakly connected.
	Connected bool
	// Directed respects arc directions: u→v must map to w→x and a pair with
	// arcs both ways to a pair with arcs both ways. Otherwise an arc in
	// either direction makes two vertices adjacent.
	Directed bool
	// VertexLabels makes matched vertices carry equal labels (a graph
	// without labels counts as all zero).
	VertexLabels bool
	// EdgeLabels makes matched edges carry equal labels. Undirected, the
	// label of edge {u,v} is that of arc min→max, or of max→min if only that
	// arc is stored.
	EdgeLabels bool
	// BigFirst runs McSplit↓: try to find a common subgraph of size |G|,
	// then |G|−1, …, a fresh search per goal; node counts are summed.
	BigFirst bool
	// Heuristic chooses the bidomain to branch on (MinMax by default).
	Heuristic Heuristic
	// Timeout stops the search after this long (0: no limit); the best
	// found is returned, marked unproven.
	Timeout time.Duration
	// NodeLimit stops the search after about this many nodes (0: no limit);
	// for benchmarks. The result is then unproven.
	NodeLimit int64
	// Goal, when above 0, fixes the incumbent: the search prunes as if a
	// common subgraph of Goal−1 vertices were known and never raises that
	// bar, so it explores the same tree whatever the engine, device or
	// thread count (node counts compare across them). It returns the
	// largest solution found (of at least Goal vertices), or none.
	Goal int
	// Floor, when above 0, is a bar that rises: the search prunes as if a
	// common subgraph of Floor−1 vertices were known, then raises the bar
	// with every larger solution, as a plain search does. It answers "is
	// there one of ≥ Floor, and how large is the largest?" (optimal with
	// the maximum, or infeasible) in at most a plain search's nodes,
	// usually far fewer; Goal answers the same in a tree that does not
	// depend on who explores it, but never raises its bar, which can cost
	// far more when the maximum is well above it. Screening (arbor mcs
	// --against) uses Floor. Two graphs only; it excludes Goal.
	Floor int
	// MaxMemory is the most memory the adjacency matrices may take
	// (MatrixBytes): larger graphs are refused with a *core.MemoryError
	// before anything is allocated (0: $ARBOR_MAX_MEMORY, else half the
	// available memory; core.ReadOptions.CheckMemory).
	MaxMemory int64
	// Prune chooses the search tree: PruneRR (the zero value) cuts the
	// original McSplit's with RRSplit's reductions (prune.go, and the
	// device kernel; same sizes, fewer nodes), PruneNone is the original
	// tree node for node, PruneRR2 adds to PruneRR the edge-count bound
	// and learned branching on the CPU engines (bound.go, learn.go; the
	// device, hybrid and portfolio search PruneRR's tree for it).
	// Restarts search the original tree, the k-graph search runs R5
	// alone, the subtree (cluster) interface searches the tree asked for
	// (rr's on a device for rr2); Result.Prune says which rules a run
	// used and why any was off.
	Prune Pruning
	// Engine chooses where the search runs (EngineAuto by default).
	Engine Engine
	// Devices are the devices of EngineGPU and EngineHybrid (and of
	// EngineAuto's choice), the first deciding what auto picks; none
	// leaves the CPU engines. Several spread one search over all of them,
	// with one task pool and one incumbent (search.RunMany). Tasks move
	// between them, so they must all take the problem. The caller opens
	// and closes them (Place says which of those it opened to pass).
	Devices []backend.Device
	// Opening, when Devices is empty, is the devices still being opened in
	// the background (OpenDevices): auto starts the CPU engine at once and
	// lets the device join when it is open, so an instance the CPU settles
	// first never waits for it; the other engines wait for it.
	Opening *startup.Opening
	// Select, when Devices and Opening are empty, is the devices Solve
	// opens itself for an engine that may run on one (OpenDevices: the
	// command line's start-up policy, so that a program and arbor mcs
	// behave alike); Result.Startup says what it decided. Nil: no device.
	Select *startup.Selection
	// Workers is the device engine's number of workers (work-groups) per device;
	// 0 sizes it from the device.
	Workers int
	// BlockOrder (heuristic h1) orders each graph's vertices by connected
	// component, border first, then breadth-first (see blockOrder) instead
	// of by degree. Exact either way; node counts then differ from the
	// original McSplit's.
	BlockOrder bool
	// DeadEnd (heuristic h2), when above 0, gives up the plain search after
	// that many nodes without a better incumbent and instead raises the
	// target: searches that prune every node unable to reach a goal above
	// the incumbent (by one, or doubling the step with DoubleRaise), then
	// binary search between the largest size found and the smallest goal
	// proven out of reach. Exact: every goal search is complete.
	DeadEnd     int64
	DoubleRaise bool
	// Restarts (heuristic h3, sequential engine only) explores the root's
	// children in a random order (seeded by Seed) with a node budget per
	// child that doubles every round, recording the children finished, so
	// that the search stays complete: a child is skipped once finished.
	Restarts bool
	Seed     uint64
	// PlainOrder (SolveMany) searches the graphs in the given order instead
	// of GraphOrder's oscillating size rule.
	PlainOrder bool
	// Approximate (SolveMany) intersects the graphs one at a time instead
	// of searching them together: linear in the number of graphs, never
	// proven. Keep is how many maximum solutions each step hands on
	// (0 counts as 1).
	Approximate bool
	Keep        int
	// Progress, when set, is called about every ProgressInterval (default
	// 200 ms) from a separate goroutine while the search runs.
	Progress         func(Progress)
	ProgressInterval time.Duration
}

// Progress is a snapshot of a running search.
type Progress struct {
	Incumbent int           // size of the best common subgraph found so far
	Goal      int           // BigFirst: the size being tried now; else 0
	Nodes     int64         // search nodes so far (updated every 1024 nodes per worker)
	Elapsed   time.Duration // since Solve started
}

// Result is the answer of Solve.
type Result struct {
	Size int
	// Mapping holds pairs {g vertex, h vertex} in the input graphs' own
	// vertex ids, sorted by the g vertex.
	Mapping [][2]int
	Nodes   int64 // search nodes (sequential: equal to the original McSplit's)
	// Branched counts the CPU engines' nodes that passed the bound and
	// branched: RRSplit's node count (it counts no node its bounds cut),
	// for comparing with it. Pruned nodes (B1) count as not branched.
	Branched int64
	Elapsed  time.Duration
	Proven   bool // false when stopped by timeout, node limit or cancellation
	// Status says what the result answers (core.MaxStatus): optimal when
	// Proven and, with Options.Goal, Size ≥ Goal; infeasible when Proven
	// and Size < Goal (no common subgraph reaches the goal); feasible when
	// the search stopped early.
	Status  core.Status
	Threads int   // workers that ran the search
	Shared  int64 // subtrees one worker gave to another (parallel engine)
	// Engine is the engine that ran, and Why says why it was chosen.
	Engine Engine
	Why    string
	// Device names the device of the device engines.
	Device string
	// Device engine details: epochs (launches), the time from half of
	// the workers idle to the end, and the CPU threads of the hybrid.
	Epochs int
	Tail   time.Duration
	// Moved counts the tasks moved from one device to another when the
	// search spans several (Options.Devices).
	Moved int64
	// Targets counts the target searches of Options.DeadEnd's second phase.
	Targets int
	// Prune is the search tree the run explored: Options.Prune, the rules
	// that ran and those switched off for it.
	Prune PruneReport
	// Startup is what opening Options.Select's devices decided (zero when
	// Solve opened none, or the search ended before they were open).
	Startup startup.Report
}

// maxVertices bounds the graphs Solve accepts: McSplit keeps an n×n
// adjacency matrix per graph.
const (
	maxVertices    = 1 << 15
	maxMatrixBytes = 2 << 30
)

// Solve finds a maximum common induced subgraph of g and h. Cancelling ctx
// (or reaching opts.Timeout) returns the best found so far with Proven
// false and a nil error. Result.Status says what the result answers.
//
// Restarts run on the sequential engine: with Threads other than 1 (and
// not the portfolio, which runs them among its configurations) Solve
// runs that engine and says so in Result.Why.
func Solve(ctx context.Context, g, h *core.Graph, opts Options) (Result, error) {
	if g != nil && h != nil {
		// Before a device opens: a refused pair costs nothing.
		if err := CheckMemory([]*core.Graph{g, h}, opts); err != nil {
			return Result{}, fmt.Errorf("mcs: %w", err)
		}
	}
	note := ""
	if opts.Restarts && opts.Threads != 1 && opts.Engine != EnginePortfolio && opts.DeadEnd == 0 &&
		(opts.Engine == "" || opts.Engine == EngineAuto || opts.Engine == EngineCPU) {
		opts.Threads, opts.Engine = 1, EngineCPU
		note = "restarts run on the sequential engine (1 thread)"
	}
	opening := OpenDevices(opts)
	if opening != nil {
		defer opening.Release()
		opts.Opening = opening
	}
	opts.Select = nil
	res, err := solve(ctx, g, h, opts)
	if err != nil {
		return res, err
	}
	if opening != nil {
		res.Startup = opening.Report()
	}
	if note != "" {
		res.Why = note
	}
	res.Prune = pruneUsed(opts, res.Engine)
	res.Status = core.MaxStatus(res.Proven, res.Size, max(opts.Goal, opts.Floor))
	return res, nil
}

func solve(ctx context.Context, g, h *core.Graph, opts Options) (Result, error) {
	start := time.Now()
	if g == nil || h == nil {
		return Result{}, errors.New("mcs: nil graph")
	}
	if g.N > maxVertices || h.N > maxVertices {
		return Result{}, fmt.Errorf("mcs: graphs of %d and %d vertices: McSplit handles at most %d", g.N, h.N, maxVertices)
	}
	cell := 1
	if opts.Directed || opts.EdgeLabels {
		cell = 4
	}
	if need := (g.N*g.N + h.N*h.N) * cell; need > maxMatrixBytes {
		return Result{}, fmt.Errorf("mcs: graphs of %d and %d vertices need %d MiB of adjacency matrices; the limit is %d MiB",
			g.N, h.N, need>>20, maxMatrixBytes>>20)
	}
	switch opts.Prune {
	case PruneNone, PruneRR, PruneRR2:
	default:
		return Result{}, fmt.Errorf("mcs: unknown pruning %v", opts.Prune)
	}
	if opts.Heuristic != MinMax && opts.Heuristic != MinProduct {
		return Result{}, fmt.Errorf("mcs: unknown heuristic %v", opts.Heuristic)
	}
	if opts.Floor < 0 || (opts.Floor > 0 && opts.Goal > 0) {
		return Result{}, fmt.Errorf("mcs: floor %d: want ≥ 0, and not with a fixed goal", opts.Floor)
	}
	if opts.Goal > 0 && opts.BigFirst {
		return Result{}, errors.New("mcs: a fixed goal (Goal) and BigFirst exclude each other")
	}
	if (opts.DeadEnd > 0 || opts.Restarts) && (opts.Goal > 0 || opts.BigFirst) {
		return Result{}, errors.New("mcs: dead-end raising and restarts exclude a fixed goal and BigFirst")
	}
	if opts.DeadEnd < 0 {
		return Result{}, fmt.Errorf("mcs: dead-end %d: want ≥ 0", opts.DeadEnd)
	}
	if opts.Restarts && (opts.Threads != 1 || opts.DeadEnd > 0) && opts.Engine != EnginePortfolio {
		return Result{}, errors.New("mcs: restarts run on the sequential engine (Threads 1), without dead-end raising")
	}
	if len(opts.Devices) == 0 && opts.Opening != nil {
		if err := opts.Opening.Settle(); err != nil {
			return Result{}, err
		}
		if (opts.Engine == "" || opts.Engine == EngineAuto) && g.N > 0 && h.N > 0 {
			return solveAuto(ctx, g, h, opts, start, chooseOn)
		}
		devs, err := opts.Opening.Wait()
		if err != nil {
			return Result{}, fmt.Errorf("mcs: %w", err)
		}
		opts.Devices, opts.Opening = devs, nil
	}
	engine, why, err := chooseEngine(g, h, opts)
	if err != nil {
		return Result{}, err
	}
	if g.N == 0 || h.N == 0 {
		// The device kernels take graphs of 1 vertex or more; an empty
		// graph is answered (size 0, proven) by the CPU engine at once.
		engine, why = EngineCPU, "a graph has no vertices: nothing to search"
	}
	if engine == EnginePortfolio {
		res, err := solvePortfolio(ctx, g, h, opts, start)
		if err != nil {
			return Result{}, err
		}
		res.Engine = engine
		res.Elapsed = time.Since(start)
		return res, nil
	}
	if engine == EngineGPU || engine == EngineHybrid {
		res, err := solveDevice(ctx, g, h, opts, engine == EngineHybrid, start, nil, nil)
		if err != nil {
			return Result{}, err
		}
		res.Engine, res.Why = engine, why
		res.Elapsed = time.Since(start)
		return res, nil
	}
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	var res Result
	prune := opts.Prune != PruneNone && !opts.Restarts
	if opts.Directed || opts.EdgeLabels {
		var p *problem[uint32]
		if p, err = newProblem[uint32](g, h, opts); err == nil {
			res = p.runPruned(ctx, threads, start, prune)
		}
	} else {
		var p *problem[uint8]
		if p, err = newProblem[uint8](g, h, opts); err == nil {
			res = p.runPruned(ctx, threads, start, prune)
		}
	}
	if err != nil {
		return Result{}, err
	}
	res.Engine, res.Why = EngineCPU, why
	res.Elapsed = time.Since(start)
	return res, nil
}

// joinWhy appends a note to an engine choice's reason.
func joinWhy(why, note string) string {
	if why == "" {
		return note
	}
	return why + "; " + note
}
