package clique

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/clique/kernel"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/search"
)

// Engine says where the search runs.
type Engine string

const (
	// EngineAuto picks the CPU engine unless a device engine is measured
	// to win; see chooseEngine.
	EngineAuto Engine = "auto"
	// EngineCPU is the CPU engine: sequential with Threads 1, else parallel.
	EngineCPU Engine = "cpu"
	// EngineGPU runs the search on Options.Device (algorithms/clique/kernel/clique.cl on the
	// device search-tree layer, plain colouring bound); on the CPU backend
	// it runs the kernel's Go twin.
	EngineGPU Engine = "gpu"
	// EngineHybrid runs the device search and the CPU engine side by side:
	// they exchange incumbents after every epoch, each prunes with the best
	// either found, and the first to finish settles the answer.
	EngineHybrid Engine = "hybrid"
)

// DeviceMaxVertices bounds the graphs the device engines take (the
// kernel's limit, for callers that route work to them: vertexcover).
const DeviceMaxVertices = kernel.CliqueMaxVertices

// Engines lists every engine (`arbor bench` offers the device ones).
var Engines = []Engine{EngineAuto, EngineCPU, EngineGPU, EngineHybrid}

// ParseEngine reads an engine name ("" is auto).
func ParseEngine(s string) (Engine, error) {
	switch e := Engine(s); e {
	case "":
		return EngineAuto, nil
	case EngineAuto, EngineCPU, EngineGPU, EngineHybrid:
		return e, nil
	}
	return "", fmt.Errorf("unknown engine %q (want auto, cpu, gpu or hybrid)", s)
}

// chooseEngine resolves Options.Engine for a graph of n vertices and says why.
func chooseEngine(n int, opts Options) (Engine, string, error) {
	e := opts.Engine
	if e == "" {
		e = EngineAuto
	}
	switch e {
	case EngineCPU:
		if opts.Goal > 0 {
			return "", "", errors.New("clique: the fixed-incumbent mode (Goal) runs on the device engine only")
		}
		return e, "asked for", nil
	case EngineGPU, EngineHybrid:
		if e == EngineHybrid && opts.Goal > 0 {
			return "", "", errors.New("clique: a fixed goal compares trees; it takes the gpu engine, not hybrid")
		}
		if len(opts.Devices) == 0 {
			return "", "", fmt.Errorf("clique: the %s engine needs a device", e)
		}
		if n > kernel.CliqueMaxVertices {
			return "", "", fmt.Errorf("clique: the device engine takes at most %d vertices (this graph has %d); use --engine cpu",
				kernel.CliqueMaxVertices, n)
		}
		return e, "asked for", nil
	case EngineAuto:
		if opts.Goal > 0 {
			if len(opts.Devices) == 0 {
				return "", "", errors.New("clique: the fixed-incumbent mode (Goal) needs a device")
			}
			return EngineGPU, "a fixed goal: the device engine alone", nil
		}
		switch {
		case len(opts.Devices) == 0:
			return EngineCPU, "no device", nil
		case opts.Devices[0].Info().Type != backend.TypeGPU:
			return EngineCPU, fmt.Sprintf("%s is not a GPU", opts.Devices[0].Info()), nil
		case !device.WarpLevel(opts.Devices[0].Info()):
			// The colouring's speed is the ballot and shuffle (27.4 → 11.1 s
			// on frb30-15-1 when they replaced a shared-memory scan; the
			// work-group fallback measured 2.3× CUDA's time there).
			return EngineCPU, "the device engine is only considered with warp-level operations (CUDA, or OpenCL with a sub-group path)", nil
		case n > kernel.CliqueMaxVertices:
			return EngineCPU, fmt.Sprintf("%d vertices, more than the device engine takes (%d)", n, kernel.CliqueMaxVertices), nil
		}
		// Measured on the H100 against 16 CPU threads (docs/results/clique.md): the
		// hybrid wins wherever the CPU engine takes more than a few tens
		// of milliseconds (p_hat500-3 4.9 → 0.35 s, frb30-15-1 47.9 →
		// 10.2 s) and loses on the easy instances, which the CPU engine
		// settles before the device has started (2–25 ms against 8–46
		// ms). So auto gives the CPU engine a head start and runs the
		// hybrid only on what it has not settled by then.
		return EngineHybrid, fmt.Sprintf("GPU %s with the CPU engine beside it, for what the CPU engine alone has not settled in %v",
			opts.Devices[0].Info().Name, autoHeadStart), nil
	}
	return "", "", fmt.Errorf("clique: unknown engine %q", e)
}

// autoHeadStart is how long auto lets the CPU engine alone run before it
// starts the hybrid (see chooseEngine).
const autoHeadStart = 50 * time.Millisecond

// deviceShape sizes the search for one device: its workers and a ring of a
// few tasks per worker. The task layout depends on the graph only, so
// tasks move between devices of different sizes.
func (p *problem) deviceShape(info backend.Info) kernel.CliqueShape {
	// Every clique fits in a colouring's colour count of frames (a node at
	// level L has a clique of L+1 below it).
	shape := kernel.CliqueShape{N: p.n, MaxDepth: min(p.colours(), p.n) + 1, Workers: p.opts.Workers}
	if info.Type == backend.TypeCPU {
		shape.Lanes = 1
	}
	return search.FitShape(info, shape, shape.Workers)
}

// solveDevice runs the search on opts.Devices, with the CPU engine beside it
// when hybrid. The device explores the plain-colouring tree (no bound
// tightening) whatever opts.PlainColouring says; the CPU engine of the
// hybrid keeps its own setting.
func (p *problem) solveDevice(ctx context.Context, hybrid bool, start time.Time) (Result, error) {
	opts := p.opts
	info := opts.Devices[0].Info()
	frozen := opts.Goal > 0
	res := Result{UpperBound: p.ub, Device: info.String()}
	if p.n == 0 || (!frozen && len(p.init) >= p.ub) {
		// The heuristic clique meets the root bound: nothing to search.
		out := p.run(ctx, 1, start)
		out.Device = res.Device
		return out, nil
	}
	var shape kernel.CliqueShape
	ds, err := search.Open(opts.Devices, func(d backend.Device, q backend.Queue) (*kernel.Clique, int, error) {
		shape = p.deviceShape(d.Info())
		k, err := kernel.NewClique(d, q, shape, p.adj)
		return k, shape.Workers, err
	})
	if err != nil {
		return res, fmt.Errorf("clique: %w", err)
	}
	defer ds.Close()
	res.Device = ds.Device()

	inc := p.init
	goal := int32(0)
	word := len(inc)
	if frozen {
		// The incumbent word starts at goal−1, so that only cliques of the
		// goal's size or more are published; pruning never moves from it.
		goal, word = int32(opts.Goal), opts.Goal-1
	}

	var cpu *shared
	cpuDone := make(chan int64, 1)
	if hybrid {
		cpu = newShared(0)
		cpu.offer(inc)
		threads := search.ThreadsBeside(opts.Threads)
		root := task{p: make([]uint64, p.words)}
		for v := 0; v < p.n; v++ {
			root.p[v>>6] |= 1 << (uint(v) & 63)
		}
		go func() { cpuDone <- p.search(cpu, threads, root) }()
	}
	dopt := search.Options{NodeLimit: opts.NodeLimit, Pool: [][]uint64{shape.RootTask()}}
	if opts.Timeout > 0 {
		dopt.Deadline = start.Add(opts.Timeout)
	}
	if opts.Progress != nil {
		dopt.ProgressInterval = opts.ProgressInterval
		dopt.Progress = func(s search.Status) {
			n, b := s.Nodes, max(s.Incumbent, len(inc))
			if cpu != nil {
				n += cpu.nodes.Load()
				b = max(b, int(cpu.best.Load()))
			}
			opts.Progress(Progress{Incumbent: b, UpperBound: p.ub, Nodes: n, Elapsed: time.Since(start)})
		}
	}
	var cpuNodes int64
	cpuFinished := false
	if !frozen {
		dopt.Between = func(devInc int) (int, bool) {
			if !hybrid {
				// A clique of the root bound's size ends the search.
				return devInc, devInc >= p.ub
			}
			select {
			case cpuNodes = <-cpuDone:
				cpuFinished = true
				// A CPU search that ran to its end settles it; one that was
				// stopped (its node limit) does not.
				return 0, !cpu.stop.Load()
			default:
			}
			for {
				b := cpu.best.Load()
				if int32(devInc) <= b || cpu.best.CompareAndSwap(b, int32(devInc)) {
					break
				}
			}
			b := int(cpu.best.Load())
			return b, b >= p.ub
		}
	}
	st, proven, err := ds.Run(ctx, word, goal, frozen, dopt)
	if hybrid {
		if !cpuFinished {
			cpu.halt()
			cpuNodes = <-cpuDone
		}
		if len(cpu.inc) > len(inc) {
			inc = cpu.inc
		}
	}
	if err != nil {
		return res, fmt.Errorf("clique: %w", err)
	}
	bests, err := search.Collect(ds, "the result", (*kernel.Clique).Best)
	if err != nil {
		return res, fmt.Errorf("clique: %w", err)
	}
	for _, best := range bests {
		if len(best) > len(inc) {
			inc = make([]int32, len(best))
			for j, v := range best {
				inc[j] = int32(v)
			}
		}
	}
	res.Size, res.Nodes, res.Proven = len(inc), st.Nodes+cpuNodes, proven
	res.Threads, res.Shared, res.Epochs, res.Moved = ds.Workers(), st.Donated, st.Epochs, st.Moved
	res.Clique = make([]int, len(inc))
	for i, v := range inc {
		res.Clique[i] = p.order[v]
	}
	slices.Sort(res.Clique)
	if res.Proven && !frozen {
		res.UpperBound = res.Size
	}
	return res, nil
}
