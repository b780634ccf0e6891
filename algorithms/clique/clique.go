package clique

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/startup"
)

// Options says how to search. The zero value finds a maximum clique of the
// graph itself on all cores, without limits.
type Options struct {
	// Threads is the number of worker goroutines: 1 runs the sequential
	// engine, 0 (or less) uses every core (GOMAXPROCS).
	Threads int
	// Timeout stops the search after this long (0: no limit); the best
	// clique found is returned, unproven.
	Timeout time.Duration
	// NodeLimit stops the search after about this many nodes (0: no
	// limit); for benchmarks. The result is then unproven.
	NodeLimit int64
	// MaxMemory is the most memory the engine's bit matrices may take
	// (MatrixBytes): a larger graph is refused with a *core.MemoryError
	// before anything is allocated (0: $ARBOR_MAX_MEMORY, else half the
	// available memory; core.ReadOptions.CheckMemory).
	MaxMemory int64
	// Complement solves on the complement graph: the answer is then a
	// maximum independent set of g (DIMACS clique benchmarks are often
	// distributed as the complement of the graph of interest).
	Complement bool
	// PlainColouring turns off the bound tightening (see the package
	// doc), leaving BBMC's greedy colouring bound; for measurement.
	PlainColouring bool
	// Initial is a clique already known (input vertex ids, of the
	// complement with Complement), e.g. a caller's heuristic answer: the
	// search then only looks for larger cliques and returns Initial when
	// there is none. It must be a clique; Maximum checks.
	Initial []int
	// UpperBound, when positive, is a bound on the clique number the
	// caller has proven (e.g. vertex cover's lower bound on the
	// complement): the search stops once the incumbent reaches it.
	UpperBound int
	// Progress, when set, is called about every ProgressInterval (default
	// 200 ms) from a separate goroutine while the search runs.
	Progress         func(Progress)
	ProgressInterval time.Duration

	// Engine says where to search (EngineAuto when empty): see
	// chooseEngine for what auto picks.
	Engine Engine
	// Devices run the gpu and hybrid engines (algorithms/clique/kernel/clique.cl
	// on the device search-tree layer), the first deciding what auto
	// picks; none leaves the CPU engine only. Several: one search spans
	// them all, with one task pool and one incumbent (search.RunMany).
	Devices []backend.Device
	// Opening, when Devices is empty, is the devices still being opened
	// in the background (startup.OpenInBackground): auto starts the CPU
	// engine at once and lets the hybrid take over once the device is
	// open (solveAuto), so an instance the CPU settles first never waits
	// for it; the other engines wait for it.
	Opening *startup.Opening
	// Select, when Devices and Opening are empty, is the devices Maximum
	// opens itself for an engine that may run on one (OpenDevices: the
	// command line's start-up policy, so that a program and arbor clique
	// behave alike); Result.Startup says what it decided. Nil: no device.
	Select *startup.Selection
	// Workers is the device engine's number of workers (work-groups) per
	// device; 0 sizes it from the device.
	Workers int
	// Goal, when positive, is the fixed-incumbent mode of the device
	// engine: it prunes as if a clique of Goal−1 vertices were known and
	// never raises that bar, so the tree (and the node count) is the same
	// on every device and worker count; it reports a clique of ≥ Goal
	// vertices if there is one (else the heuristic clique), and Proven
	// means the tree was searched to its end.
	Goal int
}

// Progress is a snapshot of a running search.
type Progress struct {
	Incumbent  int           // size of the largest clique found so far
	UpperBound int           // the root bound (see Result.UpperBound)
	Nodes      int64         // search nodes so far (updated every 1024 nodes per worker)
	Elapsed    time.Duration // since Maximum started
}

// Result is the answer of Maximum.
type Result struct {
	Size int
	// Clique holds the clique's vertices as input vertex ids (0-based),
	// sorted ascending.
	Clique []int
	// UpperBound is a proven bound on the clique number: Size when
	// Proven, else the smaller of the degeneracy bound (max core + 1)
	// and the number of colours of a greedy colouring of the whole graph.
	UpperBound int
	Nodes      int64 // search nodes, all workers together
	Elapsed    time.Duration
	Proven     bool // false when stopped by timeout, node limit or cancellation
	// Status says what the result answers (core.MaxStatus): optimal when
	// Proven and, with Options.Goal, Size ≥ Goal; infeasible when Proven
	// and Size < Goal (no clique reaches the goal); feasible when the
	// search stopped early.
	Status  core.Status
	Threads int   // workers that ran the search (device workers for gpu and hybrid)
	Shared  int64 // subtrees one worker gave to another

	Engine Engine // the engine that ran
	Why    string // why that engine
	Device string // the device, for gpu and hybrid
	Epochs int    // device launches
	Moved  int64  // tasks moved between devices (Options.Devices)
	// Startup is what opening Options.Select's devices decided (zero when
	// Maximum opened none, or the search ended before they were open).
	Startup startup.Report
}

// MaxVertices is the largest graph Maximum accepts: the engine keeps an
// n×n bit matrix (512 MiB at this size), two of them while renumbering.
const MaxVertices = 1 << 16

// MatrixBytes is the memory of the engine's bit matrices for a graph of n
// vertices (two n×n bit matrices while renumbering), to check against a
// memory limit before Maximum builds them (CheckMemory).
func MatrixBytes(n int) float64 {
	return 2 * float64(n) * float64((n+63)/64) * 8
}

// CheckMemory refuses the bit matrices of a graph of n vertices when they
// pass maxMemory (Options.MaxMemory) with a *core.MemoryError, as Maximum
// does before it builds them: a command checks a graph it has just read
// with it, to name the file.
func CheckMemory(n int, maxMemory int64) error {
	return core.ReadOptions{MaxMemory: maxMemory}.CheckMemory(fmt.Sprintf("the clique engine's bit matrices (%d vertices)", n), MatrixBytes(n))
}

// Maximum finds a maximum clique of g (of its complement with
// opts.Complement). Arc directions are ignored: u and v are adjacent when
// either arc is present; self-loops are ignored. Cancelling ctx (or
// reaching opts.Timeout or opts.NodeLimit) returns the best clique found
// so far with Proven false and a nil error.
func Maximum(ctx context.Context, g *core.Graph, opts Options) (Result, error) {
	start := time.Now()
	if g != nil {
		// Before a device opens: a refused graph costs nothing.
		if err := CheckMemory(g.N, opts.MaxMemory); err != nil {
			return Result{}, fmt.Errorf("clique: %s: %w", g.Name, err)
		}
	}
	opening := OpenDevices(opts)
	if opening != nil {
		defer opening.Release()
		opts.Opening = opening
	}
	opts.Select = nil
	res, err := maximum(ctx, g, opts, start)
	if opening != nil {
		res.Startup = opening.Report()
	}
	return res, err
}

func maximum(ctx context.Context, g *core.Graph, opts Options, start time.Time) (Result, error) {
	if g == nil {
		return Result{}, errors.New("clique: nil graph")
	}
	if g.N > MaxVertices {
		return Result{}, fmt.Errorf("clique: %s has %d vertices; the dense bitset engine handles at most %d (it keeps an n×n bit matrix)",
			g.Name, g.N, MaxVertices)
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
	if len(opts.Initial) > 0 {
		if err := Verify(g, opts.Initial, opts.Complement); err != nil {
			return Result{}, fmt.Errorf("clique: the initial clique of %s is not a clique: %w", g.Name, err)
		}
	}
	if len(opts.Devices) == 0 && opts.Opening != nil {
		if err := opts.Opening.Settle(); err != nil {
			return Result{}, err
		}
	}
	auto := (opts.Engine == "" || opts.Engine == EngineAuto) && opts.Goal == 0
	if len(opts.Devices) == 0 && opts.Opening != nil && !auto {
		// Every engine but auto's needs the device before it starts.
		devs, err := opts.Opening.Wait()
		if err != nil {
			return Result{}, fmt.Errorf("clique: %w", err)
		}
		opts.Devices, opts.Opening = devs, nil
	}
	var res Result
	var err error
	if auto && (len(opts.Devices) > 0 || opts.Opening != nil) {
		// auto with a device, open or opening: the CPU engine starts at
		// once and the hybrid takes over what it has not settled.
		opening := opts.Opening
		if len(opts.Devices) > 0 {
			opening = startup.Opened(opts.Devices)
		}
		opts.Opening = nil
		if res, err = solveAuto(ctx, newProblem(g, opts), opening, threads, start, autoHeadStart, chooseEngine); err != nil {
			return Result{}, err
		}
	} else {
		engine, why, err := chooseEngine(g.N, opts)
		if err != nil {
			return Result{}, err
		}
		p := newProblem(g, opts)
		if engine == EngineCPU {
			res = p.run(ctx, threads, start)
		} else if res, err = p.solveDevice(ctx, engine == EngineHybrid, start); err != nil {
			return Result{}, err
		}
		res.Engine, res.Why = engine, why
	}
	res.Elapsed = time.Since(start)
	res.Status = core.MaxStatus(res.Proven, res.Size, opts.Goal)
	if err := Verify(g, res.Clique, opts.Complement); err != nil {
		return res, fmt.Errorf("clique: internal error, the clique found is wrong: %w", err)
	}
	return res, nil
}

// Verify checks independently that clique is a clique of g (of its
// complement when complement is set): vertex ids in range, none listed
// twice, every pair adjacent (for the complement: no pair adjacent). An arc
// in either direction makes two vertices adjacent, as in Maximum.
func Verify(g *core.Graph, clique []int, complement bool) error {
	if g == nil {
		return errors.New("nil graph")
	}
	if _, err := core.Members(g.N, clique, "vertex"); err != nil {
		return err
	}
	adjacent := func(u, v int) bool {
		_, uv := slices.BinarySearch(g.Neighbors(u), int32(v)) // rows are sorted
		_, vu := slices.BinarySearch(g.Neighbors(v), int32(u))
		return uv || vu
	}
	for i, u := range clique {
		for _, v := range clique[i+1:] {
			if a := adjacent(u, v); a == complement {
				if complement {
					return fmt.Errorf("vertices %d and %d are adjacent in the graph, so not in its complement", u, v)
				}
				return fmt.Errorf("vertices %d and %d are not adjacent", u, v)
			}
		}
	}
	return nil
}
