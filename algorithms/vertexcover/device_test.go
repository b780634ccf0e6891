package vertexcover

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/cpu"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// deviceOpts are the device engine's options for a test: few workers, so
// that donation and the ring are exercised even on small trees.
func deviceOpts(dev backend.Device, engine Engine, o Options) Options {
	o.Engine, o.Devices = engine, []backend.Device{dev}
	if o.Workers == 0 {
		o.Workers = 5
	}
	return o
}

// cpuOptimum is the CPU engine's proven minimum.
func cpuOptimum(t *testing.T, g *core.Graph) int {
	t.Helper()
	res, err := Solve(context.Background(), g, Options{Threads: 1, LocalSearch: -1})
	if err != nil || !res.Proven {
		t.Fatalf("CPU engine: %v, proven %v", err, res.Proven)
	}
	return len(res.Cover)
}

func solveDev(t *testing.T, g *core.Graph, o Options) Result {
	t.Helper()
	res, err := Solve(context.Background(), g, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Cover != nil {
		if err := Verify(g, res.Cover); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

// deviceGraphs are random graphs whose kernels the device searches for a
// while: dense enough that the root reductions leave a kernel.
func deviceGraphs(t *testing.T) []*core.Graph {
	var gs []*core.Graph
	for i, c := range []struct {
		n int
		p float64
	}{{12, 0.5}, {40, 0.15}, {60, 0.3}, {45, 0.5}, {80, 0.2}, {70, 0.4}, {90, 0.1}} {
		gs = append(gs, gnp(t, c.n, c.p, uint64(100+i)))
	}
	return gs
}

// TestDeviceMinimum: the gpu engine's minimum equals the CPU engine's on
// every device (the CPU backend runs the kernel's Go twin; PoCL the
// OpenCL build), and every cover is verified.
func TestDeviceMinimum(t *testing.T) {
	gs := deviceGraphs(t)
	opts := make([]int, len(gs))
	for i, g := range gs {
		opts[i] = cpuOptimum(t, g)
	}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		for i, g := range gs {
			for _, engine := range []Engine{EngineGPU, EngineHybrid} {
				res := solveDev(t, g, deviceOpts(dev, engine, Options{}))
				t.Logf("graph %d (n=%d m=%d) %s: cover %d, kernel %d, %d nodes, %d epochs", i, g.N, g.Edges(), engine, len(res.Cover), res.Kernel, res.Nodes, res.Epochs)
				if !res.Proven || len(res.Cover) != opts[i] || res.Engine != string(engine) {
					t.Errorf("graph %d (n=%d m=%d) %s: cover %d proven %v engine %s; CPU engine %d (%s)",
						i, g.N, g.Edges(), engine, len(res.Cover), res.Proven, res.Engine, opts[i], res.Why)
				}
			}
		}
	})
}

// TestDeviceParameterized: with k = optimum − 1 there is no cover, the
// whole tree is explored, and its node count is the same on every device
// and for any number of workers; with k = optimum a cover within k is
// found. The CPU backend's twin is the reference.
func TestDeviceParameterized(t *testing.T) {
	gs := deviceGraphs(t)
	type want struct {
		opt   int
		nodes int64
	}
	wants := make([]want, len(gs))
	ref := cpu.New(0)
	for i, g := range gs {
		opt := cpuOptimum(t, g)
		res := solveDev(t, g, deviceOpts(ref, EngineGPU, Options{Parameterized: true, K: opt - 1, Workers: 1}))
		if !res.Proven || res.Cover != nil {
			t.Fatalf("graph %d: k = %d below the optimum: cover %v proven %v", i, opt-1, res.Cover, res.Proven)
		}
		wants[i] = want{opt, res.Nodes}
		t.Logf("graph %d: n=%d m=%d optimum %d, kernel %d, %d device nodes at k = opt−1", i, g.N, g.Edges(), opt, res.Kernel, res.Nodes)
	}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		for i, g := range gs {
			w := wants[i]
			for _, workers := range []int{1, 6} {
				res := solveDev(t, g, deviceOpts(dev, EngineGPU, Options{Parameterized: true, K: w.opt - 1, Workers: workers}))
				if !res.Proven || res.Cover != nil || res.Nodes != w.nodes {
					t.Errorf("graph %d k=%d, %d workers: cover %v proven %v nodes %d; twin with one worker: none, %d nodes",
						i, w.opt-1, workers, res.Cover, res.Proven, res.Nodes, w.nodes)
				}
			}
			res := solveDev(t, g, deviceOpts(dev, EngineGPU, Options{Parameterized: true, K: w.opt}))
			if !res.Proven || res.Cover == nil || len(res.Cover) > w.opt {
				t.Errorf("graph %d k=%d: cover %v proven %v", i, w.opt, res.Cover, res.Proven)
			}
		}
	})
}

// TestDeviceEngineNames: engine names parse, auto stays on the CPU engine
// and says why, and gpu without a device is an error.
func TestDeviceEngineNames(t *testing.T) {
	g := gnp(t, 20, 0.3, 5)
	if _, err := Solve(context.Background(), g, Options{Engine: "warp"}); err == nil {
		t.Fatal("unknown engine accepted")
	}
	if _, err := Solve(context.Background(), g, Options{Engine: EngineGPU}); err == nil {
		t.Fatal("gpu engine without a device accepted")
	}
	res := solveDev(t, g, Options{Engine: EngineAuto, Devices: []backend.Device{cpu.New(0)}})
	if res.Engine == string(EngineGPU) || res.Engine == string(EngineHybrid) || res.Why == "" {
		t.Fatalf("auto with a CPU device: engine %s (%s)", res.Engine, res.Why)
	}
	res = solveDev(t, g, Options{Engine: EngineCPU})
	if !res.Proven || res.Device != "" {
		t.Fatalf("cpu engine: proven %v device %q", res.Proven, res.Device)
	}
}

// TestDeviceTimeout: a search stopped by its deadline returns the best
// cover found, verified and marked unproven.
func TestDeviceTimeout(t *testing.T) {
	g := gnp(t, 400, 0.3, 9)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, err := Solve(ctx, g, deviceOpts(cpu.New(0), EngineGPU, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Proven || res.Cover == nil {
		t.Fatalf("proven %v, cover %d after 300 ms on G(400, 0.3)", res.Proven, len(res.Cover))
	}
	if err := Verify(g, res.Cover); err != nil {
		t.Fatal(err)
	}
}

// deviceInstance solves a data instance with the gpu engine and checks
// the known optimum and the cover.
func deviceInstance(t *testing.T, dev backend.Device, in instance, engine Engine, timeout time.Duration) {
	t.Helper()
	o := deviceOpts(dev, engine, Options{})
	o.Workers = 0
	g, res := solveData(t, in, o, timeout)
	t.Logf("%s %s: n=%d cover %d (optimum %d) proven %v, kernel %d, %d nodes, %d epochs, %v (%s)", filepath.Base(in.path), engine,
		g.N, len(res.Cover), in.opt, res.Proven, res.Kernel, res.Nodes, res.Epochs, res.Elapsed.Round(time.Millisecond), res.Why)
	if !res.Proven || len(res.Cover) != in.opt {
		t.Fatalf("%s: cover %d proven %v; the optimum is %d", filepath.Base(in.path), len(res.Cover), res.Proven, in.opt)
	}
}

// TestDeviceData runs the device engine on the instance sets on
// every device. By default a sample whose kernels the gpu engine settles
// in seconds on two cores (the PACE instances need the CPU engine's
// bounds beyond that), and frb30-15-1 with the hybrid engine (the CPU
// side proves it at the root); ARBOR_LONG=1 runs the hybrid engine on all
// the Yamout graphs, the PACE instances with ≤ 450 vertices and
// frb30-15-*.
func TestDeviceData(t *testing.T) {
	base := dataset.Require(t, "vc")
	var ins []instance
	ins = append(ins, readOptima(t, filepath.Join(base, "yamout2022"), "optima.csv", "file", "min_vc", "", nil)...)
	ins = append(ins, readOptima(t, filepath.Join(base, "pace2019"), "optima.csv", "instance", "min_vc", ".gr", func(r dataset.Row) bool {
		n, _ := strconv.Atoi(r.Fields["n"])
		return n <= 450
	})...)
	for i := 1; i <= 5; i++ {
		ins = append(ins, instance{filepath.Join(base, "bhoslib", "frb30-15-"+strconv.Itoa(i)+".mis"), 420})
	}
	type run struct {
		in     instance
		engine Engine
	}
	var runs []run
	if long() {
		for _, in := range ins {
			if b := filepath.Base(in.path); b != "cop_hat500-3.txt" && b != "lastfm-asia.txt" {
				runs = append(runs, run{in, EngineHybrid})
			}
		}
	} else {
		for _, in := range sample(ins, "Power-Grid.txt", "cop_hat300_1.txt", "cop_hat300-2.txt", "formated_maayan-figeys.txt", "vc-exact_005.gr") {
			runs = append(runs, run{in, EngineGPU})
		}
		for _, in := range sample(ins, "frb30-15-1.mis") {
			runs = append(runs, run{in, EngineHybrid})
		}
	}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		for _, r := range runs {
			t.Run(filepath.Base(r.in.path)+"/"+string(r.engine), func(t *testing.T) { deviceInstance(t, dev, r.in, r.engine, 10*time.Minute) })
		}
	})
}

// TestDeviceDataNodes: on real graphs with k = optimum − 1 every device
// explores the tree of the CPU backend's twin, node for node.
func TestDeviceDataNodes(t *testing.T) {
	dir := dataset.Require(t, "vc/yamout2022")
	all := readOptima(t, dir, "optima.csv", "file", "min_vc", "", nil)
	names := []string{"cop_hat300_1.txt", "cop_hat300-2.txt"}
	if long() {
		names = append(names, "cop_hat500-1.txt")
	}
	for _, in := range sample(all, names...) {
		g, err := core.ReadGraph(in.path, core.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o := Options{Parameterized: true, K: in.opt - 1}
		ref := solveDev(t, g, deviceOpts(cpu.New(0), EngineGPU, o))
		if !ref.Proven || ref.Cover != nil || ref.Nodes == 0 {
			t.Fatalf("%s k=%d on the twin: cover %v proven %v, %d nodes", filepath.Base(in.path), o.K, ref.Cover, ref.Proven, ref.Nodes)
		}
		t.Logf("%s k=%d: %d nodes on the twin", filepath.Base(in.path), o.K, ref.Nodes)
		backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
			res := solveDev(t, g, deviceOpts(dev, EngineGPU, o))
			if !res.Proven || res.Cover != nil || res.Nodes != ref.Nodes {
				t.Errorf("%s k=%d: cover %v proven %v, %d nodes; the twin %d", filepath.Base(in.path), o.K, res.Cover, res.Proven, res.Nodes, ref.Nodes)
			}
		})
	}
}

// TestDeviceMany spreads one parameterized search (k = opt − 1, a tree
// that does not depend on who explores it) over two devices: two CPU-
// backend devices, and the CPU backend beside PoCL when OpenCL is present.
// The root starts on one; the other gets subtrees only through the host.
// The node count must equal one device's.
func TestDeviceMany(t *testing.T) {
	pairs := [][2]string{{"cpu", "cpu"}}
	if backend.ProbeBackend("opencl").Available() {
		pairs = append(pairs, [2]string{"cpu", "opencl"})
	}
	g := gnp(t, 110, 0.3, 107)
	opt := cpuOptimum(t, g)
	one := solveDev(t, g, deviceOpts(cpu.New(0), EngineGPU, Options{Parameterized: true, K: opt - 1, Workers: 1}))
	for _, names := range pairs {
		t.Run(names[0]+"+"+names[1], func(t *testing.T) {
			a, b := backendtest.Open(t, names[0]), backendtest.Open(t, names[1])
			o := deviceOpts(a, EngineGPU, Options{Parameterized: true, K: opt - 1, Workers: 3})
			o.Devices = append(o.Devices, b)
			res := solveDev(t, g, o)
			if res.Nodes != one.Nodes || !res.Proven || res.Cover != nil {
				t.Errorf("k = %d over two devices: %d nodes, proven %v, cover %v; one device %d nodes", opt-1, res.Nodes, res.Proven, res.Cover, one.Nodes)
			}
			if res.Moved == 0 {
				t.Errorf("no task moved between %s", res.Device)
			}
			o = deviceOpts(a, EngineGPU, Options{Workers: 3})
			o.Devices = append(o.Devices, b)
			if res := solveDev(t, g, o); len(res.Cover) != opt || !res.Proven {
				t.Errorf("minimum over two devices: %d proven %v, optimum %d", len(res.Cover), res.Proven, opt)
			}
			t.Logf("%d nodes, %d tasks moved, on %s", res.Nodes, res.Moved, res.Device)
		})
	}
}
