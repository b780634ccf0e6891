package mcs

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/mcs/kernel"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/search"
)

// Engine says where the search runs.
type Engine string

const (
	// EngineAuto picks the hybrid engine where it is measured to win (a
	// CUDA GPU, a supported problem) and the CPU engine otherwise.
	EngineAuto Engine = "auto"
	// EngineCPU is the CPU engine: sequential with Threads 1, else parallel.
	EngineCPU Engine = "cpu"
	// EngineGPU runs the search on Options.Device (algorithms/mcs/kernel/mcsplit.cl on
	// the device search-tree layer); on the CPU backend it runs the
	// kernel's Go twin.
	EngineGPU Engine = "gpu"
	// EngineHybrid runs the device search and, on all cores but one, the
	// CPU engine's McSplit↓ (goals from the root bound down) side by side:
	// they exchange incumbents after every epoch, so each prunes with the
	// best either found, and the first to finish settles the answer. The
	// two strategies fail on different pairs: ↓ finds the optimum at once
	// where the graphs are nearly isomorphic, which is where the device's
	// thousands of workers search longest with a weak incumbent.
	EngineHybrid Engine = "hybrid"
	// EnginePortfolio runs several configurations of the CPU engine side
	// by side (and the device engine, when there is a device that
	// supports the problem), sharing the incumbent's size; the first to
	// prove its answer stops the others (see solvePortfolio).
	EnginePortfolio Engine = "portfolio"
)

// Engines lists every engine (`arbor bench` offers them).
var Engines = []Engine{EngineAuto, EngineCPU, EngineGPU, EngineHybrid, EnginePortfolio}

// ParseEngine reads an engine name.
func ParseEngine(s string) (Engine, error) {
	switch e := Engine(s); e {
	case "":
		return EngineAuto, nil
	case EngineAuto, EngineCPU, EngineGPU, EngineHybrid, EnginePortfolio:
		return e, nil
	}
	return "", fmt.Errorf("unknown engine %q (want auto, cpu, gpu, hybrid or portfolio)", s)
}

// deviceUnsupported says why the device engine cannot solve a problem, or "".
func deviceUnsupported(n0, n1 int, opts Options) string {
	switch {
	case opts.Directed:
		return "directed graphs"
	case opts.EdgeLabels:
		return "edge labels"
	case opts.Connected:
		return "connected subgraphs"
	case opts.BigFirst:
		return "McSplit↓ (big-first)"
	case opts.DeadEnd > 0:
		return "dead-end target raising"
	case opts.Restarts:
		return "restarts"
	case n0 > kernel.MCSplitMaxVertices || n1 > kernel.MCSplitMaxVertices:
		return fmt.Sprintf("graphs over %d vertices (these have %d and %d)", kernel.MCSplitMaxVertices, n0, n1)
	}
	return ""
}

// chooseEngine resolves Options.Engine and says why.
func chooseEngine(g, h *core.Graph, opts Options) (Engine, string, error) {
	infos := make([]backend.Info, len(opts.Devices))
	for i, d := range opts.Devices {
		infos[i] = d.Info()
	}
	return chooseOn(infos, g, h, opts)
}

// chooseOn is chooseEngine given the devices' descriptions only: auto
// decides with it once the devices are chosen, before they are open.
func chooseOn(infos []backend.Info, g, h *core.Graph, opts Options) (Engine, string, error) {
	e := opts.Engine
	if e == "" {
		e = EngineAuto
	}
	switch e {
	case EngineCPU, EnginePortfolio:
		return e, "asked for", nil
	case EngineGPU, EngineHybrid:
		if e == EngineHybrid && opts.Goal > 0 {
			return "", "", errors.New("mcs: a fixed goal compares trees; it takes --engine gpu or cpu, not hybrid")
		}
		if len(infos) == 0 {
			return "", "", errors.New("mcs: the gpu engine needs a device")
		}
		if why := deviceUnsupported(g.N, h.N, opts); why != "" {
			return "", "", fmt.Errorf("mcs: the device engine does not support %s; use --engine cpu", why)
		}
		return e, "asked for", nil
	case EngineAuto:
		switch {
		case len(infos) == 0:
			return EngineCPU, "no device", nil
		case infos[0].Type != backend.TypeGPU:
			return EngineCPU, fmt.Sprintf("%s is not a GPU", infos[0]), nil
		case !device.WarpLevel(infos[0]):
			// Measured on the H100: the OpenCL build without warp-level
			// operations (work-group barriers where CUDA uses shuffles)
			// took 106 s over the 21 medium MIVIA pairs against 91 s for 16
			// CPU threads and 40 s on CUDA. With a sub-group path (ptx,
			// khr) it runs CUDA's code: docs/results/subgroups.md.
			return EngineCPU, "the device engine beats the CPU engine only with warp-level operations (CUDA, or OpenCL with a sub-group path)", nil
		}
		if why := deviceUnsupported(g.N, h.N, opts); why != "" {
			return EngineCPU, "the device engine does not support " + why, nil
		}
		if opts.Goal > 0 {
			return EngineGPU, fmt.Sprintf("GPU %s (a fixed goal: the device alone)", infos[0].Name), nil
		}
		// Measured on the H100 over 21 medium MIVIA pairs: hybrid 9.4 s in
		// sum, the device alone 40–51 s, 16 CPU threads over 90 s.
		return EngineHybrid, fmt.Sprintf("GPU %s with the CPU's McSplit↓ beside it", infos[0].Name), nil
	}
	return "", "", fmt.Errorf("mcs: unknown engine %q", e)
}

// solveDevice runs the search on opts.Devices. share, when set (the
// portfolio; not with hybrid), trades incumbent sizes after every epoch:
// it takes the device's and returns the best known anywhere. seed, when
// longer than what a short sequential run finds, is the starting
// incumbent (a mapping found before the device joined, in the graphs'
// numbering).
func solveDevice(ctx context.Context, g, h *core.Graph, opts Options, hybrid bool, start time.Time, share func(int) int, seed [][2]int) (Result, error) {
	p, err := newDeviceProblem(g, h, opts)
	if err != nil {
		return Result{}, err
	}
	var down *downSearch
	if hybrid {
		down = p.startDown(opts, 0)
	}
	return runDevice(ctx, p, opts, down, start, share, seed)
}

// downSearch is the hybrid's CPU half, McSplit↓ (searchDown) on its own
// goroutines: started before the device is open by auto, else with it.
type downSearch struct {
	sh   *shared
	done chan int64 // its node count, once it has returned
}

// startDown starts McSplit↓ with the incumbent bar (and opts.Floor) on
// opts.Threads threads (search.ThreadsBeside: 0 leaves the device a core).
func (p *problem[C]) startDown(opts Options, bar int) *downSearch {
	d := &downSearch{sh: newShared(0), done: make(chan int64, 1)}
	d.sh.best.Store(int32(max(bar, opts.Floor-1)))
	threads := search.ThreadsBeside(opts.Threads)
	go func() { d.done <- p.searchDown(d.sh, threads) }()
	return d
}

// runDevice runs the device search on opts.Devices, with the hybrid's CPU
// half down when set (it stops it and adds its nodes and solution); see
// solveDevice.
func runDevice(ctx context.Context, p *problem[uint8], opts Options, down *downSearch, start time.Time, share func(int) int, seed [][2]int) (Result, error) {
	hybrid := down != nil
	ds, err := search.Open(opts.Devices, func(dev backend.Device, q backend.Queue) (*kernel.MCSplit, int, error) {
		shape := deviceShape(p, dev.Info(), opts)
		words := shape.Words()
		k, err := kernel.NewMCSplit(dev, q, shape, bitRows(p.adj0, p.n0, words), bitRows(p.adj1, p.n1, words), p.deviceTwins(words))
		return k, shape.Workers, err
	})
	if err != nil {
		return Result{}, fmt.Errorf("mcs: %w", err)
	}
	defer ds.Close()

	// A fast incumbent from a short sequential run, unless the incumbent
	// is fixed.
	var inc []pair
	var hostNodes int64
	if opts.Goal <= 0 {
		sh := newShared(20000)
		hostNodes = p.runGoal(sh, 1, 1)
		inc = sh.inc
		if len(seed) > len(inc) {
			inc = p.pairsOf(seed)
		}
	}
	incSize := len(inc)
	goal := int32(1)
	if opts.Goal > 0 {
		incSize, goal = 0, int32(opts.Goal)
	}
	// The bar the search starts from: the incumbent, or a floor above it.
	bar := max(incSize, opts.Floor-1)
	var cpu *shared
	var cpuDone chan int64
	if hybrid {
		cpu, cpuDone = down.sh, down.done
		cpu.raise(int32(bar))
	}
	dopt := search.Options{NodeLimit: opts.NodeLimit, Pool: [][]uint64{rootTask(p, deviceShape(p, opts.Devices[0].Info(), opts))}}
	if opts.Timeout > 0 {
		dopt.Deadline = start.Add(opts.Timeout)
	}
	if opts.Progress != nil {
		dopt.ProgressInterval = opts.ProgressInterval
		dopt.Progress = func(s search.Status) {
			n, b := hostNodes+s.Nodes, max(s.Incumbent, incSize)
			if cpu != nil {
				n += cpu.nodes.Load()
				b = max(b, int(cpu.best.Load()))
			}
			opts.Progress(Progress{Incumbent: b, Nodes: n, Elapsed: time.Since(start)})
		}
	}
	var cpuNodes int64
	cpuFinished := false
	if hybrid {
		dopt.Between = func(devInc int) (int, bool) {
			select {
			case cpuNodes = <-cpuDone:
				cpuFinished = true
				return 0, !cpu.stop.Load()
			default:
			}
			for {
				b := cpu.best.Load()
				if int32(devInc) <= b || cpu.best.CompareAndSwap(b, int32(devInc)) {
					break
				}
			}
			return int(cpu.best.Load()), false
		}
	}
	if share != nil && !hybrid {
		dopt.Between = func(devInc int) (int, bool) { return share(devInc), false }
	}
	// With a fixed goal the incumbent word starts at goal−1, so that only
	// solutions of the goal's size or more are published, as on the CPU.
	st, proven, err := ds.Run(ctx, max(bar, int(goal)-1), goal, opts.Goal > 0, dopt)
	if hybrid {
		if !cpuFinished {
			cpu.halt()
			cpuNodes = <-cpuDone
		}
		hostNodes += cpuNodes
		if len(cpu.inc) > len(inc) {
			inc = cpu.inc
		}
	}
	if err != nil {
		return Result{}, fmt.Errorf("mcs: %w", err)
	}
	bests, err := search.Collect(ds, "the result", (*kernel.MCSplit).Best)
	if err != nil {
		return Result{}, fmt.Errorf("mcs: %w", err)
	}
	for _, best := range bests {
		if len(best) > len(inc) {
			inc = make([]pair, 0, len(best))
			for _, b := range best {
				inc = append(inc, pair{int32(b[0]), int32(b[1])})
			}
		}
	}
	if len(inc) < opts.Floor {
		inc = nil // below the floor: not an answer (the CPU engine records none)
	}
	res := Result{Nodes: hostNodes + st.Nodes, Proven: proven, Threads: ds.Workers(), Shared: st.Donated, Moved: st.Moved,
		Device: ds.Device(), Epochs: st.Epochs, Tail: st.Tail}
	res.Size = len(inc)
	for _, pr := range inc {
		res.Mapping = append(res.Mapping, [2]int{p.order0[pr.v], p.order1[pr.w]})
	}
	sort.Slice(res.Mapping, func(i, j int) bool { return res.Mapping[i][0] < res.Mapping[j][0] })
	return res, nil
}

// pairsOf is a mapping in the graphs' numbering as p's pairs.
func (p *problem[C]) pairsOf(m [][2]int) []pair {
	pos0, pos1 := inverse(p.order0), inverse(p.order1)
	out := make([]pair, len(m))
	for i, vw := range m {
		out[i] = pair{pos0[vw[0]], pos1[vw[1]]}
	}
	return out
}

// inverse is the inverse of a permutation.
func inverse(order []int) []int32 {
	inv := make([]int32, len(order))
	for i, v := range order {
		inv[v] = int32(i)
	}
	return inv
}

// deviceShape sizes the search for one device: its workers, and a ring
// that holds a few tasks per worker. The task layout depends on the graphs
// only, so that tasks move between devices of different sizes.
func deviceShape(p *problem[uint8], info backend.Info, opts Options) kernel.MCSplitShape {
	shape := kernel.MCSplitShape{N0: p.n0, N1: p.n1, MinProduct: opts.Heuristic == MinProduct}
	if p.prune {
		shape.Rules = kernel.MCSplitR3 | kernel.MCSplitR5
		if p.rrOff&offR3 != 0 {
			shape.Rules &^= kernel.MCSplitR3
		}
		if p.rrOff&offR5 != 0 {
			shape.Rules &^= kernel.MCSplitR5
		}
	}
	if info.Type == backend.TypeCPU {
		shape.Lanes = 1
	}
	return search.FitShape(info, shape, opts.Workers)
}

// newDeviceProblem prepares g and h for the device engines, with the
// pruned tree's twin classes unless opts asks for the original tree.
func newDeviceProblem(g, h *core.Graph, opts Options) (*problem[uint8], error) {
	p, err := newProblem[uint8](g, h, opts)
	if err == nil && opts.Prune != PruneNone { // rr2: rr's tree on the device
		p.enablePrune()
	}
	return p, err
}

// deviceTwins are the pruned search's twin classes as the kernel takes
// them (kernel.MCSplitTwins): per vertex of g its class, per vertex of h
// its twins below it, as bitsets of words words; none when p is not
// pruned or a side has no twins.
func (p *problem[C]) deviceTwins(words int) kernel.MCSplitTwins {
	var t kernel.MCSplitTwins
	if !p.prune {
		return t
	}
	rows := func(cls []int32, n int, below bool) []uint64 {
		out := make([]uint64, n*words)
		for u := 0; u < n; u++ {
			if cls[u] < 0 {
				continue
			}
			for v := 0; v < n; v++ {
				if cls[v] == cls[u] && (!below || v < u) {
					out[u*words+v/64] |= 1 << (v % 64)
				}
			}
		}
		return out
	}
	if p.twins.n0 > 0 {
		t.G = rows(p.twins.cls0, p.n0, false)
	}
	if p.twins.n1 > 0 {
		t.H = rows(p.twins.cls1, p.n1, true)
	}
	return t
}

// bitRows turns an n×n 0/1 matrix into rows of words-word bitsets.
func bitRows(adj []uint8, n, words int) []uint64 {
	out := make([]uint64, n*words)
	for u := 0; u < n; u++ {
		for v, a := range adj[u*n : u*n+n] {
			if a != 0 {
				out[u*words+v/64] |= 1 << (v % 64)
			}
		}
	}
	return out
}

// rootTask is the root of the search as a task: the initial bidomains, no
// pair matched, not yet counted.
func rootTask(p *problem[uint8], s kernel.MCSplitShape) []uint64 {
	w := p.newWorker(newShared(0), 1, true)
	doms, _ := w.follow(nil) // the empty path always leads to the root
	return nodeTask(w, doms, s)
}

// searchDown is McSplit↓ on the CPU engine for the hybrid: searches with
// goals from the root bound down, each a full search with sh's incumbent,
// until one finds a solution of its goal (or sh's incumbent, raised by the
// device, reaches it). Finishing proves the incumbent optimal.
func (p *problem[C]) searchDown(sh *shared, threads int) int64 {
	down := *p
	down.opts.BigFirst = true
	bound := 0
	for _, d := range p.doms {
		bound += int(min(d.ll, d.rl))
	}
	var nodes int64
	for goal := bound; goal >= 1; goal-- {
		sh.goal.Store(int32(goal))
		if int(sh.best.Load()) >= goal {
			break
		}
		nodes += down.runGoal(sh, threads, goal)
		if int(sh.best.Load()) >= goal || sh.stop.Load() {
			break
		}
	}
	return nodes
}
