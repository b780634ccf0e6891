package vertexcover

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/clique"
	"github.com/arbor-gpu/arbor/algorithms/vertexcover/kernel"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/search"
)

// The engines that say where the search runs (beside EngineAuto,
// EngineBranch and EngineClique, which choose among the CPU routes).
const (
	// EngineCPU is the CPU engine with its own route choice (as auto
	// would choose on the CPU).
	EngineCPU Engine = "cpu"
	// EngineGPU runs the root reductions on the host and the search of
	// the kernel on Options.Device (algorithms/vertexcover/kernel/vc.cl on the device
	// search-tree layer); on the CPU backend it runs the kernel's Go twin.
	EngineGPU Engine = "gpu"
	// EngineHybrid runs the device search and the CPU engine (on all cores
	// but one) side by side, exchanging the incumbent's size after every
	// epoch; the first to finish settles the answer.
	EngineHybrid Engine = "hybrid"
)

// Engines lists every engine, in the order the CLI's help names them.
var Engines = []Engine{EngineAuto, EngineCPU, EngineBranch, EngineClique, EngineGPU, EngineHybrid}

// ParseEngine reads an engine name ("" is EngineAuto).
func ParseEngine(s string) (Engine, error) {
	switch e := Engine(s); e {
	case "":
		return EngineAuto, nil
	case EngineAuto, EngineBranch, EngineClique, EngineCPU, EngineGPU, EngineHybrid:
		return e, nil
	}
	return "", fmt.Errorf("vertex cover: unknown engine %q (want auto, cpu, branch, clique, gpu or hybrid)", s)
}

// rootKernel is the graph after the root reductions: what the device
// searches, and how its covers are lifted back to the input graph.
type rootKernel struct {
	s     *state
	ops   []op    // the root ops, to resolve a kernel cover
	ids   []int32 // kernel vertex i is state vertex ids[i]
	off   []int32 // the kernel in CSR form
	adj   []int32
	base  int // cover vertices the root ops account for
	lb    int // lower bound on the input graph's cover
	empty bool
}

// reduceRoot applies the CPU engine's root reductions (degree 0–2 with
// folding, domination, high degree against ub, unconfined, the
// Nemhauser–Trotter LP) to g. ok is false when no cover below ub exists.
func reduceRoot(g *core.Graph, ub int) (rk *rootKernel, ok bool) {
	s := newState(g)
	lb, ok := s.rootReductions(func() int { return ub - 1 - s.cover })
	if !ok {
		return nil, false
	}
	rk = &rootKernel{s: s, ops: slices.Clone(s.ops), base: s.cover}
	if s.m == 0 {
		rk.empty, rk.lb = true, s.cover
		return rk, true
	}
	rk.lb = max(lb, s.cover+s.rootLowerBound())
	kg, ids := s.extract(nil)
	rk.ids = ids
	rk.off = make([]int32, kg.N+1)
	for v := 0; v < kg.N; v++ {
		// extract sorts each list; drop repeats (a fold can add an edge
		// that is already there), which the kernel's marks must not see.
		l := slices.Compact(slices.Clone(kg.Adj[kg.Offsets[v]:kg.Offsets[v+1]]))
		rk.adj = append(rk.adj, l...)
		rk.off[v+1] = int32(len(rk.adj))
	}
	return rk, true
}

// lift turns a cover of the kernel (kernel vertices) into a sorted cover
// of the input graph.
func (rk *rootKernel) lift(kcover []int) []int {
	in := make([]bool, rk.s.n)
	for _, v := range kcover {
		in[rk.ids[v]] = true
	}
	return rk.liftState(in)
}

// liftState resolves a cover of the live state vertices through the root ops.
func (rk *rootKernel) liftState(in []bool) []int {
	resolve(rk.ops, in)
	var out []int
	for v, c := range in {
		if c {
			out = append(out, v)
		}
	}
	if out == nil {
		out = []int{}
	}
	return out
}

// solveDevice is Solve for the gpu and hybrid engines. The host runs the
// root reductions and a reduction-interleaved greedy; the device searches
// the kernel for covers smaller than the best known (minimum mode: its
// incumbent word prunes every worker, and finishing proves it), or with
// the budget k fixed (parameterized mode: the first cover within it ends
// the search). The answer is lifted to g and verified.
func solveDevice(ctx context.Context, g *core.Graph, opts Options, start time.Time, hybrid bool) (Result, error) {
	if len(opts.Devices) == 0 {
		return Result{}, fmt.Errorf("vertex cover: the %s engine needs a device", opts.Engine)
	}
	info := opts.Devices[0].Info()
	res := Result{Engine: string(opts.Engine), Device: info.String()}
	ub := g.N + 1
	if opts.Parameterized && opts.K < g.N {
		ub = opts.K + 1
	}
	if !opts.Parameterized && opts.Below > 0 && opts.Below < ub {
		ub = opts.Below
	}
	finish := func(cover []int, proven bool, why string) (Result, error) {
		res.Proven, res.Why, res.Elapsed = proven, why, time.Since(start)
		if cover != nil {
			if err := Verify(g, cover); err != nil {
				return res, fmt.Errorf("vertex cover: internal error, the %s engine's cover is wrong: %w", opts.Engine, err)
			}
			if len(cover) >= ub {
				cover = nil // not below the bound asked for
			}
		}
		res.Cover = cover
		return res, nil
	}
	rk, ok := reduceRoot(g, ub)
	if !ok {
		return finish(nil, true, "the root reductions prove no cover below the bound")
	}
	res.LowerBound = rk.lb
	if rk.empty {
		return finish(rk.liftState(make([]bool, rk.s.n)), true, "the root reductions settled it")
	}
	n := len(rk.off) - 1
	res.Kernel = n
	if rk.lb >= ub {
		return finish(nil, true, "the root lower bound proves no cover below the bound")
	}
	// The greedy's cover: the first incumbent (minimum mode), an answer
	// already in parameterized mode when it is within k.
	diveIn, diveSize := rk.s.greedyDive()
	best := rk.liftState(slices.Clone(diveIn))
	if len(best) != rk.base+diveSize {
		return res, fmt.Errorf("vertex cover: internal error, greedy cover of %d lifted to %d (base %d)", diveSize, len(best), rk.base)
	}
	if len(best) < ub && (opts.Parameterized || len(best) <= rk.lb) {
		return finish(best, true, fmt.Sprintf("kernel of %d vertices: the host's greedy cover meets the bound", n))
	}
	// A dense kernel goes to the clique engine's device search, as the CPU
	// engine sends it to its clique route (dense.go): on the H100 the
	// clique device engine settles such kernels' complements far sooner
	// than vc_epoch (cop_hat500-3 in docs/results/vertexcover.md, issue
	// #16, "On the H100").
	// Parameterized searches stay on vc_epoch, whose k = opt − 1 trees
	// compare across backends.
	dr := &denseRoute{threshold: DenseThreshold, maxMemory: opts.MaxMemory}
	if use, why := dr.useClique(n, len(rk.adj)/2); use && !opts.Parameterized && n <= clique.DeviceMaxVertices {
		return solveDenseOnDevice(ctx, g, ub, rk, diveIn, best, opts, hybrid, why, &res, finish)
	}
	if n > kernel.VCMaxVertices {
		return res, fmt.Errorf("vertex cover: a kernel of %d vertices is more than the device engine takes (%d); use --engine cpu", n, kernel.VCMaxVertices)
	}
	// The device searches for kernel covers of at most allowed vertices:
	// its incumbent word is n − (a kernel cover size known), so that the
	// budget is n − 1 − word (vc.cl).
	kub := min(len(best), ub) - rk.base // a kernel cover of this size is known or not wanted
	ds, err := search.Open(opts.Devices, func(d backend.Device, q backend.Queue) (*kernel.VC, int, error) {
		shape := kernel.VCShape{N: n, MaxCover: max(kub-1, 0)}
		if d.Info().Type == backend.TypeCPU {
			shape.Lanes = 1
		}
		shape = search.FitShape(d.Info(), shape, opts.Workers)
		k, err := kernel.NewVC(d, q, shape, rk.off, rk.adj)
		return k, shape.Workers, err
	})
	if err != nil {
		return res, fmt.Errorf("vertex cover: %w", err)
	}
	defer ds.Close()
	res.Workers = ds.Workers()
	res.Device = ds.Device()
	toFull := func(word int) int { return rk.base + n - word } // the incumbent word as a cover size of g

	dopt := search.Options{Pool: [][]uint64{ds.Kernels[0].RootTask(rk.off)}}
	if dl, ok := ctx.Deadline(); ok {
		dopt.Deadline = dl
	}
	var cpu *cpuSide
	if hybrid {
		cpu = startCPU(ctx, g, opts, ub, EngineAuto)
		defer cpu.stop()
	}
	if opts.Progress != nil {
		dopt.ProgressInterval = opts.ProgressEvery
		dopt.Progress = func(s search.Status) {
			p := Progress{Best: -1, LowerBound: rk.lb, Nodes: s.Nodes, Elapsed: time.Since(start)}
			if b := toFull(s.Incumbent); b < ub {
				p.Best = b
			}
			if cpu != nil {
				p.Nodes += cpu.nodes()
				if b := cpu.best(); b < ub && (p.Best < 0 || b < p.Best) {
					p.Best = b
				}
			}
			opts.Progress(p)
		}
	}
	settledBy := "the device"
	dopt.Between = func(word int) (int, bool) {
		if opts.Parameterized && toFull(word) <= opts.K {
			return word, true // a cover within k: done
		}
		if cpu == nil {
			return word, false
		}
		if cpu.finished() {
			if cpu.res.Proven {
				settledBy = "the CPU engine"
				return word, true
			}
			return word, false
		}
		// One incumbent: each side prunes with the better of the two.
		cpu.lower(toFull(word))
		return max(word, n-(cpu.best()-rk.base)), false
	}
	// The incumbent word is n − kub (a kernel cover of kub is known or not
	// wanted); the goal kub − 1 bounds the covers searched for, not frozen.
	st, proven, err := ds.Run(ctx, n-kub, int32(kub-1), false, dopt)
	res.Nodes, res.Epochs, res.Moved = st.Nodes, st.Epochs, st.Moved
	if err != nil {
		return res, fmt.Errorf("vertex cover: %w", err)
	}
	covers, err := search.Collect(ds, "the cover", (*kernel.VC).Best)
	if err != nil {
		return res, fmt.Errorf("vertex cover: %w", err)
	}
	for _, kc := range covers {
		if kc != nil {
			if c := rk.lift(kc); len(c) < len(best) {
				best = c
			}
		}
	}
	why := fmt.Sprintf("kernel of %d vertices (%d edges) on %s, %d workers", n, len(rk.adj)/2, res.Device, res.Workers)
	if cpu != nil {
		cpu.stop()
		res.Nodes += cpu.res.Nodes
		if cpu.err != nil && !errors.Is(cpu.err, context.Canceled) {
			return res, cpu.err
		}
		if c := cpu.res.Cover; c != nil && len(c) < len(best) {
			best = c
		}
		proven = proven || cpu.res.Proven
		why += "; the CPU engine beside it; settled by " + settledBy
	}
	if opts.Parameterized && len(best) <= opts.K {
		proven = true
	}
	return finish(best, proven, why)
}

// cpuSide is the CPU engine running beside the device (hybrid).
type cpuSide struct {
	cancel context.CancelFunc
	done   chan struct{}
	eng    chan *engine // the top engine, once Solve made it
	e      *engine
	res    Result
	err    error
}

func startCPU(ctx context.Context, g *core.Graph, opts Options, ub int, eng Engine) *cpuSide {
	c := &cpuSide{done: make(chan struct{}), eng: make(chan *engine, 1)}
	cctx, cancel := context.WithCancel(ctx)
	c.cancel = cancel
	o := opts
	o.Engine, o.Devices, o.Opening, o.Progress = eng, nil, nil, nil
	o.Threads = search.ThreadsBeside(0)
	o.onEngine = func(e *engine) { c.eng <- e }
	go func() {
		defer close(c.done)
		c.res, c.err = Solve(cctx, g, o)
	}()
	return c
}

// top waits (briefly: Solve makes it at once) for the CPU engine's top engine.
func (c *cpuSide) top() *engine {
	if c.e == nil {
		select {
		case c.e = <-c.eng:
		case <-c.done:
		}
	}
	return c.e
}

func (c *cpuSide) finished() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// best is the size below which the CPU engine looks for covers: its best
// cover's size, or the bound it started with.
func (c *cpuSide) best() int {
	if e := c.top(); e != nil {
		return int(e.best.Load())
	}
	return 1 << 30
}

func (c *cpuSide) nodes() int64 {
	if e := c.top(); e != nil {
		return e.sh.nodes.Load()
	}
	return 0
}

// lower makes the CPU engine look only for covers smaller than size (a
// cover of that size is held by the device).
func (c *cpuSide) lower(size int) {
	e := c.top()
	if e == nil {
		return
	}
	for {
		b := e.best.Load()
		if int64(size) >= b || e.best.CompareAndSwap(b, int64(size)) {
			return
		}
	}
}

func (c *cpuSide) stop() {
	c.cancel()
	<-c.done
}

// solveDenseOnDevice solves the root kernel rk as n − ω of its complement
// with the clique engine on the device, starting from the greedy's
// independent set (the kernel vertices diveIn leaves out) and capped by
// the root lower bound. The hybrid runs the whole CPU engine beside it
// (startCPU: its own clique route raced against branch and reduce, whose
// local search and bounds settle kernels such as frb30-15-* at once, where
// the clique search alone takes seconds); the first to prove its answer
// settles it and stops the other.
func solveDenseOnDevice(ctx context.Context, g *core.Graph, ub int, rk *rootKernel, diveIn []bool, best []int, opts Options, hybrid bool, why string,
	res *Result, finish func([]int, bool, string) (Result, error)) (Result, error) {
	n := len(rk.off) - 1
	kg := &core.Graph{N: n, Offsets: make([]int, n+1), Adj: rk.adj}
	for v := 0; v <= n; v++ {
		kg.Offsets[v] = int(rk.off[v])
	}
	var initial []int
	for i, v := range rk.ids {
		if !diveIn[v] {
			initial = append(initial, i)
		}
	}
	co := clique.Options{Complement: true, Initial: initial, Devices: opts.Devices, Workers: opts.Workers,
		Engine: clique.EngineGPU, MaxMemory: opts.MaxMemory}
	if klb := rk.lb - rk.base; klb > 0 {
		co.UpperBound = n - klb // the kernel needs klb cover vertices: ω ≤ n − klb
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		r   clique.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := clique.Maximum(cctx, kg, co)
		done <- outcome{r, err}
	}()
	var cpu *cpuSide
	var cpuDone <-chan struct{}
	if hybrid {
		// The CPU side runs branch and reduce only: the device runs the
		// clique route, and a CPU clique route racing beside it doubled
		// the busy goroutines, which starved the device's host loop
		// (measured on the H200, cop_hat500-3: 80 epochs over 9.6 s,
		// against 11 in 1.0 s with half the CPU threads).
		cpu = startCPU(cctx, g, opts, ub, EngineBranch)
		defer cpu.stop()
		cpuDone = cpu.done
	}
	var o outcome
	settledBy := "the device"
	select {
	case o = <-done:
	case <-cpuDone:
		if cpu.err == nil && cpu.res.Proven {
			settledBy = "the CPU engine"
			cancel()
		}
		o = <-done
	}
	if o.err != nil && !(settledBy != "the device" && errors.Is(o.err, context.Canceled)) {
		return *res, fmt.Errorf("vertex cover: the clique route on the device: %w", o.err)
	}
	cr := o.r
	res.Nodes, res.Epochs, res.Workers, res.Device, res.Moved = cr.Nodes, cr.Epochs, cr.Threads, cr.Device, cr.Moved
	proven := cr.Proven && settledBy == "the device"
	if cr.Clique != nil {
		in := make([]bool, n)
		for _, v := range cr.Clique {
			in[v] = true
		}
		var kc []int
		for v := 0; v < n; v++ {
			if !in[v] {
				kc = append(kc, v)
			}
		}
		if c := rk.lift(kc); len(c) < len(best) {
			best = c
		}
	}
	why = fmt.Sprintf("%s, by the clique engine's gpu search on %s", why, cr.Device)
	if cpu != nil {
		cpu.stop()
		res.Nodes += cpu.res.Nodes
		if cpu.err != nil && !errors.Is(cpu.err, context.Canceled) {
			return *res, cpu.err
		}
		if c := cpu.res.Cover; c != nil && len(c) < len(best) {
			best = c
		}
		proven = proven || cpu.res.Proven
		why += "; the CPU engine beside it; settled by " + settledBy
	}
	return finish(best, proven, why)
}
