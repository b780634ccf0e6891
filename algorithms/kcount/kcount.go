package kcount

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
)

// Engine says where the count runs.
type Engine string

const (
	// EngineAuto is the CPU engine: no measurement yet shows the device
	// engine (the porting guide's one-work-item kernel) winning.
	EngineAuto Engine = "auto"
	// EngineCPU is the bitset counter over the degeneracy order, on
	// Options.Threads threads.
	EngineCPU Engine = "cpu"
	// EngineGPU runs algorithms/kcount/kernel on Options.Devices (its Go
	// twin on the CPU backend).
	EngineGPU Engine = "gpu"
)

// Engines lists every engine.
var Engines = []Engine{EngineAuto, EngineCPU, EngineGPU}

// ParseEngine reads an engine name ("" is auto).
func ParseEngine(s string) (Engine, error) {
	switch e := Engine(s); e {
	case "":
		return EngineAuto, nil
	case EngineAuto, EngineCPU, EngineGPU:
		return e, nil
	}
	return "", fmt.Errorf("unknown engine %q (want auto, cpu or gpu)", s)
}

// Options says how to count. The zero value counts on every core without
// a time limit.
type Options struct {
	// Threads is the CPU engine's number of goroutines (≤ 0: GOMAXPROCS).
	Threads int
	// Timeout stops the count after this long (0: no limit); the count so
	// far is returned with Proven false (a lower bound).
	Timeout time.Duration
	// Engine says where to count (EngineAuto when empty).
	Engine Engine
	// Devices run the gpu engine; several share one search
	// (search.Open). The gpu engine needs at least one.
	Devices []backend.Device
	// Workers is the gpu engine's number of workers per device; 0 sizes
	// it from the device (search.Fit).
	Workers int
	// Progress, when set, is called about every ProgressInterval (default
	// 200 ms) from another goroutine while the count runs.
	Progress         func(Progress)
	ProgressInterval time.Duration
}

// Progress is a snapshot of a running count.
type Progress struct {
	// Count is the k-cliques counted so far (the CPU engine's; the gpu
	// engine reads its counts only at the end and reports 0).
	Count   uint64
	Nodes   int64 // search nodes so far
	Elapsed time.Duration
}

// Result is the answer of Count.
type Result struct {
	K int
	// Count is the number of k-cliques; with Proven false, the cliques
	// counted before the count stopped: a lower bound.
	Count  uint64
	Proven bool
	// Degeneracy is the graph's degeneracy d: no clique has more than
	// d + 1 vertices, and a start vertex has at most d later neighbours.
	Degeneracy int
	Nodes      int64 // search nodes (0 when k ≤ 2 or k > d + 1: no search)
	Elapsed    time.Duration
	Threads    int    // CPU threads, or device workers for gpu
	Engine     Engine // the engine that ran
	Why        string // why that engine
	Device     string // the devices, for gpu
	Epochs     int    // device launches
	Shared     int64  // tasks device workers gave away
}

// DeviceMaxVertices bounds the graphs the gpu engine takes: it holds the
// graph as one n×n bit matrix (128 MiB at this size) and pool tasks of
// n bits.
const DeviceMaxVertices = 1 << 15

// ErrOverflow says the count does not fit in 64 bits.
var ErrOverflow = errors.New("kcount: the count exceeds 2^64 − 1")

// Count counts the k-cliques of g. Arc directions are ignored (u and v are
// adjacent when either arc is present) and so are self-loops. k must be at
// least 1; k = 1 counts the vertices, k = 2 the edges, and a k above the
// degeneracy + 1 counts 0 without a search. Cancelling ctx (or reaching
// opts.Timeout) returns the count so far with Proven false and a nil error.
func Count(ctx context.Context, g *core.Graph, k int, opts Options) (Result, error) {
	start := time.Now()
	if g == nil {
		return Result{}, errors.New("kcount: nil graph")
	}
	if k < 1 {
		return Result{}, fmt.Errorf("kcount: k is %d; it must be at least 1", k)
	}
	engine, why, err := chooseEngine(g.N, opts)
	if err != nil {
		return Result{}, err
	}
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	d := orient(g)
	res := Result{K: k, Degeneracy: d.degeneracy, Engine: engine, Why: why, Proven: true}
	switch {
	case k == 1:
		res.Count = uint64(d.n)
	case k == 2:
		res.Count = uint64(d.edges)
	case k > d.degeneracy+1:
		// A clique of k vertices has a first vertex with k−1 later
		// neighbours: more than the degeneracy allows.
	case engine == EngineGPU:
		err = d.countDevice(ctx, k, opts, start, &res)
	default:
		threads := opts.Threads
		if threads <= 0 {
			threads = runtime.GOMAXPROCS(0)
		}
		err = d.countCPU(ctx, k, threads, opts, start, &res)
	}
	if engine == EngineGPU && (k <= 2 || k > d.degeneracy+1) {
		res.Why += "; no search needed (k ≤ 2 or k > degeneracy + 1): counted on the host"
	}
	res.Elapsed = time.Since(start)
	return res, err
}

// chooseEngine resolves opts.Engine and says why.
func chooseEngine(n int, opts Options) (Engine, string, error) {
	switch opts.Engine {
	case "", EngineAuto:
		return EngineCPU, "auto: the CPU engine (no measurement yet shows the device engine winning)", nil
	case EngineCPU:
		return EngineCPU, "asked for", nil
	case EngineGPU:
		if len(opts.Devices) == 0 {
			return "", "", errors.New("kcount: the gpu engine needs a device")
		}
		if n > DeviceMaxVertices {
			return "", "", fmt.Errorf("kcount: the gpu engine takes at most %d vertices (this graph has %d); use --engine cpu",
				DeviceMaxVertices, n)
		}
		return EngineGPU, "asked for", nil
	}
	return "", "", fmt.Errorf("kcount: unknown engine %q", opts.Engine)
}
