package vertexcover

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/startup"
	"github.com/arbor-gpu/arbor/internal/ticker"
)

// Options control Solve. The zero value finds a minimum cover on all cores.
type Options struct {
	// Parameterized asks for a cover of at most K vertices, or a proof
	// that none exists, instead of a minimum cover.
	Parameterized bool
	K             int
	// Below, when above 0 in minimum mode, is the size of a cover known
	// elsewhere: only smaller covers are looked for, and the minimum among
	// them is returned (Cover nil, Proven true when there is none). A
	// distributed search (package cluster) solves subproblems this way.
	Below int
	// Threads is the number of workers; ≤ 0 means GOMAXPROCS.
	Threads int
	// NodeLimit, when above 0, stops the search once it has searched
	// about this many nodes (branch and reduce to within 16 a worker, the
	// clique route to within its 1,024): the result is then unproven,
	// with Result.NodeLimited set. The CPU engines only; a cluster task's
	// budget (package cluster) uses it.
	NodeLimit int64
	// LocalSearch bounds the time spent improving the initial cover of the
	// root kernel; 0 means DefaultLocalSearch, negative disables it.
	LocalSearch time.Duration
	// Progress, if set, is called about every ProgressEvery (default
	// 200 ms) from another goroutine while the search runs.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// Mirrors makes the branch that takes v also take v's mirrors. Off by
	// default: on the PACE and Yamout sets it almost never finds a mirror
	// at a maximum-degree vertex and doubles the time per node.
	Mirrors bool
	// Seed varies the local search; the exact search is deterministic with
	// one thread.
	Seed uint64
	// Engine picks how kernel components are solved: EngineAuto (the
	// default, "" too) by density against DenseThreshold, EngineBranch
	// branch and reduce only, EngineClique the clique route on every
	// component it can hold. See dense.go.
	Engine Engine
	// MaxMemory is the most memory the clique route's bit matrices may
	// take (clique.MatrixBytes of a kernel): a kernel whose matrices pass
	// it is solved by branch and reduce, whatever the engine (0:
	// $ARBOR_MAX_MEMORY, else half the available memory). Complement's
	// n² is checked by CheckComplement.
	MaxMemory int64
	// Devices are where the gpu and hybrid engines search (device.go),
	// the first naming auto's reason; several: one device search spans
	// them all (search.RunMany), with one task pool and one incumbent.
	// Workers is their work-groups each (0: sized from the device).
	Devices []backend.Device
	Workers int
	// Opening, when Devices is empty, is the devices being opened in the
	// background (startup.OpenInBackground, or startup.OpenWhenAsked, which
	// auto starts once a kernel needs the device): the gpu and hybrid
	// engines wait for it; auto starts the CPU engine at once and lets the
	// device join a dense root kernel the CPU has not settled by the time
	// it is open (auto.go), so an instance the CPU settles first never
	// waits. Auto treats Devices the same way, as an opening already done.
	Opening *startup.Opening
	// Select, when Devices and Opening are empty, is the devices Solve
	// opens itself for an engine that may run on one (OpenDevices: the
	// command line's start-up policy, so that a program and arbor vc
	// behave alike); Result.Startup says what it decided. Nil: no device.
	Select *startup.Selection

	// LSMode, with Select and no LSDevice, is where the partition local
	// search may also run (LSMode.Device on Select's devices: the command
	// line's --ls-device); empty is LSAuto, its default.
	LSMode LSMode
	// LSDevice, when set, opens a device on which the partition local
	// search (partition.go) runs as many chains as the device holds,
	// beside the CPU's, where it applies: a clique partition's bound is
	// the target on a large kernel (BHOSLIB). It is called at most once,
	// and only after the CPU's local searches have had deviceLSDelay;
	// Solve closes the device. Result.LSDevice says what ran.
	LSDevice func() (backend.Device, error)

	// joinRule, when set, replaces autoJoinRule (tests make a CPU device
	// join).
	joinRule func([]backend.Device) (bool, string)
	// onEngine, when set, gets the top engine once Solve has made it (the
	// hybrid engine exchanges incumbents through it).
	onEngine func(*engine)
	// noPacking turns the packing constraints off (tests compare).
	noPacking bool
}

// DefaultLocalSearch is the default local search budget.
const DefaultLocalSearch = 300 * time.Millisecond

// Progress is a snapshot of a running search.
type Progress struct {
	Best       int // size of the best cover found; -1 when none yet
	LowerBound int // proven lower bound on the minimum cover
	Nodes      int64
	Elapsed    time.Duration
}

// Result is the outcome of Solve.
type Result struct {
	// Cover is the best cover found (0-based vertices, ascending); nil when
	// none was found (parameterized mode: none of size ≤ K).
	Cover []int
	// Proven: the cover is minimum (minimum mode), or in parameterized mode
	// either a cover of size ≤ K was found or none exists (Cover == nil):
	// the question asked was settled. Status says which.
	Proven bool
	// Status says what the result answers: optimal (the cover is proven
	// minimum: minimum mode and Proven, or in parameterized mode a cover
	// whose size meets the lower bound), feasible (a cover not proven
	// minimum: stopped early, or in parameterized mode a cover of ≤ K;
	// Cover is nil when a parameterized search stopped before finding
	// one), or infeasible (parameterized mode: proven that no cover of
	// ≤ K exists).
	Status core.Status
	// LowerBound is the root lower bound (the larger of the LP, clique
	// cover and matching bounds after the root reductions).
	LowerBound int
	// Kernel is the number of vertices left after the root reductions.
	Kernel int
	Nodes  int64
	// NodeLimited: Options.NodeLimit stopped the search.
	NodeLimited bool
	// Elapsed is the wall time of Solve.
	Elapsed time.Duration
	// Engine names what settled the answer: EngineBranch, EngineClique,
	// or "branch+clique" when branch and reduce split the kernel and
	// some components went to the clique route. Why says why, with the
	// kernel's size and density; DenseThreshold is the density from
	// which the auto engine takes the clique route.
	Engine         string
	Why            string
	DenseThreshold float64
	// Device, Workers and Epochs describe the device search (gpu and
	// hybrid engines): the device, its workers, and the kernel launches;
	// Moved the tasks moved between devices (Options.Devices).
	Device  string
	Workers int
	Epochs  int
	Moved   int64
	// LSDevice says what the device of Options.LSDevice did: the device,
	// its chains and steps and whether they closed the gap, or why it
	// was not used; empty when it was not needed.
	LSDevice string
	// Startup is what opening Options.Select's devices decided (zero when
	// Solve opened none, or the search ended before they were open).
	Startup startup.Report
}

// Size is the cover's size, or -1 when there is none.
func (r Result) Size() int {
	if r.Cover == nil {
		return -1
	}
	return len(r.Cover)
}

// Solve finds a minimum vertex cover of g, or with opts.K ≥ 0 a cover of
// size ≤ K. Cancelling ctx stops the search: the best cover found so far
// is returned, marked unproven. The graph must be undirected.
// Result.Status says what the result answers.
func Solve(ctx context.Context, g *core.Graph, opts Options) (Result, error) {
	opening := OpenDevices(opts)
	if opening != nil {
		defer opening.Release()
		opts.Opening = opening
	}
	if opts.Select != nil && opts.LSDevice == nil {
		mode := opts.LSMode
		if mode == "" {
			mode = LSAuto
		}
		opts.LSDevice = mode.Device(opts.Opening, opts.Select.Selection, nil)
	}
	opts.Select = nil
	res, err := solve(ctx, g, opts)
	if err == nil {
		res.Status = coverStatus(res, opts.Parameterized)
		if opening != nil {
			res.Startup = opening.Report()
		}
	}
	return res, err
}

func solve(ctx context.Context, g *core.Graph, opts Options) (Result, error) {
	start := time.Now()
	if g.Directed {
		return Result{}, fmt.Errorf("vertex cover: %s is directed", g.Name)
	}
	for v := 0; v < g.N; v++ {
		if slices.Contains(g.Neighbors(v), int32(v)) {
			return Result{}, fmt.Errorf("vertex cover: %s has a self-loop at vertex %d", g.Name, v+1)
		}
	}
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	ls := opts.LocalSearch
	if ls == 0 {
		ls = DefaultLocalSearch
	}
	if opts.NodeLimit < 0 {
		return Result{}, fmt.Errorf("vertex cover: negative node limit %d", opts.NodeLimit)
	}
	sh := &shared{start: start, limit: opts.NodeLimit}
	if opts.LSDevice != nil {
		sh.devLS = &deviceLS{open: opts.LSDevice, delay: deviceLSDelay}
	}
	if ctx.Done() != nil {
		stopWatch := context.AfterFunc(ctx, func() { sh.stop.Store(true) })
		defer stopWatch()
	}
	if opts.Parameterized && opts.K < 0 {
		return Result{}, fmt.Errorf("vertex cover: negative bound k=%d", opts.K)
	}
	if opts.Below < 0 {
		return Result{}, fmt.Errorf("vertex cover: negative bound Below=%d", opts.Below)
	}
	if _, err := ParseEngine(string(opts.Engine)); err != nil {
		return Result{}, err
	}
	var join *autoJoin
	switch opts.Engine {
	case EngineGPU, EngineHybrid:
		if opts.NodeLimit > 0 {
			return Result{}, fmt.Errorf("vertex cover: a node limit needs a CPU engine, not %s", opts.Engine)
		}
		if len(opts.Devices) == 0 && opts.Opening != nil {
			if err := opts.Opening.Settle(); err != nil {
				return Result{}, err
			}
			devs, err := opts.Opening.Wait()
			if err != nil {
				return Result{}, fmt.Errorf("vertex cover: %w", err)
			}
			opts.Devices = devs
		}
		return solveDevice(ctx, g, opts, start, opts.Engine == EngineHybrid)
	case EngineCPU:
		opts.Engine = EngineAuto
	case EngineAuto, "":
		opening := opts.Opening
		if opening != nil && len(opts.Devices) == 0 {
			if err := opening.Settle(); err != nil {
				return Result{}, err
			}
		}
		if len(opts.Devices) > 0 {
			opening = startup.Opened(opts.Devices)
		}
		// The device joins dense root kernels of a minimum cover search
		// (auto.go); a node limit keeps auto on the CPU, the engines that
		// count it, and the parameterized mode's first cover within k is
		// the CPU engine's to find.
		if opening != nil && opts.NodeLimit == 0 && !opts.Parameterized {
			rule := opts.joinRule
			if rule == nil {
				rule = autoJoinRule
			}
			join = newAutoJoin(ctx, opening, rule, opts.Workers, start)
			defer join.finish()
		}
	}
	ub := g.N + 1 // any cover beats it: all vertices do
	if opts.Parameterized && opts.K < g.N {
		ub = opts.K + 1
	}
	if !opts.Parameterized && opts.Below > 0 && opts.Below < ub {
		ub = opts.Below
	}
	route, err := newDenseRoute(opts.Engine, opts.MaxMemory)
	if err != nil {
		return Result{}, err
	}
	route.join = join
	e := newEngine(g, sh, nil, ub, threads, ls, opts.Seed)
	e.param = opts.Parameterized
	e.mirrors = opts.Mirrors
	e.noPacking = opts.noPacking
	e.route = route
	if opts.onEngine != nil {
		opts.onEngine(e)
	}
	if opts.Progress != nil {
		stop := ticker.Every(opts.ProgressEvery, func() { opts.Progress(e.progress()) })
		defer stop() // no call after Solve returns
	}
	cover, proven := e.run(true)
	if join != nil {
		join.finish() // the device search stops; its nodes are counted
	}
	res := Result{Proven: proven, NodeLimited: sh.limited.Load(), LowerBound: int(e.rootLB.Load()), Kernel: e.kernel, Nodes: sh.nodes.Load(), Elapsed: time.Since(start),
		Engine: route.engine(), Why: route.explain(), DenseThreshold: route.threshold, LSDevice: sh.devLS.get()}
	if join != nil {
		join.report(&res)
	}
	if cover != nil {
		res.Cover = make([]int, len(cover))
		for i, v := range cover {
			res.Cover[i] = int(v)
		}
		if err := Verify(g, res.Cover); err != nil {
			return res, fmt.Errorf("vertex cover: internal error, the cover found is wrong: %w", err)
		}
	}
	if opts.Parameterized && res.Cover != nil && len(res.Cover) > opts.K {
		return res, fmt.Errorf("vertex cover: internal error, cover of %d above k=%d", len(res.Cover), opts.K)
	}
	return res, nil
}

// coverStatus is Result.Status from what Solve found. A parameterized
// search stops at the first cover of ≤ K, which is minimum only when it
// meets the lower bound.
func coverStatus(r Result, parameterized bool) core.Status {
	switch {
	case r.Cover == nil && r.Proven:
		// Parameterized: none of ≤ K; with Options.Below: none below it.
		return core.StatusInfeasible
	case r.Cover == nil:
		return core.StatusFeasible
	case !parameterized && r.Proven, len(r.Cover) <= r.LowerBound:
		return core.StatusOptimal
	}
	return core.StatusFeasible
}

// Verify checks independently that cover is a vertex cover of g: vertices
// in range, no repeats, every edge with an endpoint in it.
func Verify(g *core.Graph, cover []int) error {
	in, err := core.Members(g.N, cover, "cover vertex")
	if err != nil {
		return err
	}
	for u := 0; u < g.N; u++ {
		for _, v := range g.Neighbors(u) {
			if !in[u] && !in[v] {
				return fmt.Errorf("edge {%d,%d} is not covered", u, v)
			}
		}
	}
	return nil
}

// WriteSolution writes cover in the PACE 2019 solution format: "s vc n k"
// then one vertex per line, 1-based.
func WriteSolution(w io.Writer, n int, cover []int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "s vc %d %d\n", n, len(cover))
	for _, v := range cover {
		fmt.Fprintf(bw, "%d\n", v+1)
	}
	return bw.Flush()
}
