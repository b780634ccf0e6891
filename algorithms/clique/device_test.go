package clique

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// gnp is a G(n, p) graph.
func gnp(t *testing.T, rng *rand.Rand, n int, p float64) *core.Graph {
	t.Helper()
	var edges [][2]int
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < p {
				edges = append(edges, [2]int{u, v})
			}
		}
	}
	return build(t, n, edges, "gnp")
}

// onDevice is o for the device engine on dev with few workers, so that
// donation and the ring are exercised on small trees too.
func onDevice(dev backend.Device, e Engine, o Options) Options {
	o.Engine, o.Devices = e, []backend.Device{dev}
	if o.Workers == 0 {
		o.Workers = 7
	}
	return o
}

// TestDeviceRandom compares ω of the gpu and hybrid engines with the CPU
// engine's on random graphs of several densities, on every device (the
// CPU backend runs the kernel's Go twin, PoCL the kernel itself); solve
// verifies every clique.
func TestDeviceRandom(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		rng := rand.New(rand.NewPCG(41, 42))
		for i, c := range []struct {
			n int
			p float64
		}{{1, 0}, {2, 1}, {12, 0.5}, {40, 0.1}, {70, 0.5}, {130, 0.3}, {90, 0.7}, {200, 0.15}, {64, 0.9}} {
			g := gnp(t, rng, c.n, c.p)
			want := solve(t, g, Options{Threads: 1, Engine: EngineCPU}).Size
			for _, e := range []Engine{EngineGPU, EngineHybrid} {
				for _, comp := range []bool{false, true} {
					if comp && c.n > 70 {
						continue
					}
					w := want
					if comp {
						w = solve(t, g, Options{Threads: 1, Complement: true}).Size
					}
					res := solve(t, g, onDevice(dev, e, Options{Complement: comp, Threads: 1}))
					if res.Size != w || !res.Proven || res.Engine != e {
						t.Fatalf("case %d G(%d,%.2f) complement %v, %s: size %d proven %v engine %s, want %d",
							i, c.n, c.p, comp, e, res.Size, res.Proven, res.Engine, w)
					}
				}
			}
		}
	})
}

// TestDeviceFixedIncumbent: with the incumbent frozen at ω, the device
// explores exactly the tree of the sequential CPU engine with plain
// colouring that starts from a maximum clique (its incumbent then never
// moves): the node counts must be equal, on every device and for any
// number of workers.
func TestDeviceFixedIncumbent(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	type instance struct {
		g          *core.Graph
		complement bool
		omega      int
		clique     []int
		cpuNode    int64
	}
	var cases []instance
	for _, c := range []struct {
		n int
		p float64
	}{{60, 0.5}, {150, 0.3}, {100, 0.6}, {80, 0.8}, {300, 0.1}, {200, 0.5}, {110, 0.85}} {
		cases = append(cases, instance{g: gnp(t, rng, c.n, c.p)})
	}
	// Two real instances (complemented) when the data is there: the
	// tightened CPU engine finds ω fast, the plain tree is larger.
	if dataDir(t) {
		for _, in := range readOptima(t) {
			if in.name == "cop_hat300-3" || in.name == "cop_hat500-2" {
				g, _ := readInstance(t, in)
				cases = append(cases, instance{g: g, complement: true})
			}
		}
	}
	kept := cases[:0]
	for _, c := range cases {
		best := solve(t, c.g, Options{Threads: 1, Complement: c.complement})
		cpu := solve(t, c.g, Options{Threads: 1, PlainColouring: true, Initial: best.Clique, Complement: c.complement})
		if cpu.Nodes == 0 {
			continue // the heuristic clique met the root bound: no tree
		}
		c.omega, c.clique, c.cpuNode = best.Size, best.Clique, cpu.Nodes
		kept = append(kept, c)
	}
	cases = kept
	if len(cases) < 3 {
		t.Fatalf("only %d instances with a tree", len(cases))
	}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		for i, c := range cases {
			for _, workers := range []int{1, 7} {
				res := solve(t, c.g, onDevice(dev, EngineGPU, Options{Goal: c.omega + 1, Workers: workers, Complement: c.complement}))
				if res.Nodes != c.cpuNode || !res.Proven {
					t.Fatalf("case %d (n %d, ω %d), %d workers: %d nodes proven %v, the CPU engine %d",
						i, c.g.N, c.omega, workers, res.Nodes, res.Proven, c.cpuNode)
				}
			}
			// At the goal ω a maximum clique is found.
			res := solve(t, c.g, onDevice(dev, EngineGPU, Options{Goal: c.omega, Complement: c.complement}))
			if res.Size != c.omega {
				t.Fatalf("case %d goal ω=%d: size %d", i, c.omega, res.Size)
			}
			t.Logf("case %d n %d ω %d: %d nodes on both", i, c.g.N, c.omega, c.cpuNode)
		}
	})
}

// dataDir reports whether the clique data is present (without skipping).
func dataDir(t *testing.T) bool {
	t.Helper()
	return dataset.Optional(t, "clique") != ""
}

// TestDeviceRealInstances solves the easy real instances (all of them
// with ARBOR_LONG=1, with a time limit) on every device, gpu and hybrid.
func TestDeviceRealInstances(t *testing.T) {
	insts := readOptima(t)
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		ran := 0
		for _, in := range insts {
			if !easyInstances[in.name] && !long() {
				continue
			}
			g, want := readInstance(t, in)
			for _, e := range []Engine{EngineGPU, EngineHybrid} {
				o := onDevice(dev, e, Options{Complement: true, Threads: 1, Workers: 0})
				if !easyInstances[in.name] {
					o.Timeout = 2 * time.Minute
				}
				res := solve(t, g, o)
				t.Logf("%s %s: ω %d proven %v nodes %d epochs %d %v", in.name, e, res.Size, res.Proven, res.Nodes, res.Epochs, res.Elapsed.Round(time.Millisecond))
				if res.Size > want || (res.Proven && res.Size != want) || (easyInstances[in.name] && !res.Proven) {
					t.Fatalf("%s %s: size %d proven %v, want %d", in.name, e, res.Size, res.Proven, want)
				}
			}
			ran++
		}
		if ran == 0 {
			t.Skip("no easy instance listed in optima.csv")
		}
	})
}

// TestDeviceEngineChoice: auto stays on the CPU without a CUDA GPU, and
// the device modes refuse what they cannot do.
func TestDeviceEngineChoice(t *testing.T) {
	g := gnp(t, rand.New(rand.NewPCG(1, 2)), 30, 0.5)
	res := solve(t, g, Options{})
	if res.Engine != EngineCPU || res.Why != "no device" {
		t.Fatalf("auto without a device: %s (%s)", res.Engine, res.Why)
	}
	for _, o := range []Options{{Engine: EngineGPU}, {Engine: EngineHybrid}, {Goal: 3}, {Engine: EngineCPU, Goal: 3}} {
		if _, err := Maximum(context.Background(), g, o); err == nil {
			t.Fatalf("%+v: no error", o)
		}
	}
}

// TestDeviceStops: a node limit, a timeout and a cancelled context stop the
// device engines with the best clique found, verified and unproven; the
// progress callback runs.
func TestDeviceStops(t *testing.T) {
	g := gnp(t, rand.New(rand.NewPCG(5, 6)), 200, 0.9)
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		for _, e := range []Engine{EngineGPU, EngineHybrid} {
			calls := 0
			o := onDevice(dev, e, Options{NodeLimit: 3000, Threads: 1, ProgressInterval: time.Nanosecond,
				Progress: func(Progress) { calls++ }})
			res := solve(t, g, o)
			if res.Proven || res.Size < 2 || calls == 0 {
				t.Fatalf("%s, node limit: size %d proven %v, %d progress calls", e, res.Size, res.Proven, calls)
			}
			res = solve(t, g, onDevice(dev, e, Options{Timeout: 50 * time.Millisecond, Threads: 1}))
			if res.Proven || res.Elapsed > 10*time.Second {
				t.Fatalf("%s, timeout: proven %v after %v", e, res.Proven, res.Elapsed)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			r, err := Maximum(ctx, g, onDevice(dev, e, Options{Threads: 1}))
			if err != nil || r.Proven || Verify(g, r.Clique, false) != nil {
				t.Fatalf("%s, cancelled: %+v, %v", e, r, err)
			}
		}
	})
}

// TestDeviceMany spreads one search over two devices (two CPU-backend
// devices, and the CPU backend beside PoCL when OpenCL is present): the
// root starts on one and the other gets subtrees only through the host.
// With the incumbent frozen the node count must equal the plain CPU
// engine's, and the minimum search must find ω.
func TestDeviceMany(t *testing.T) {
	pairs := [][2]string{{"cpu", "cpu"}}
	if backend.ProbeBackend("opencl").Available() {
		pairs = append(pairs, [2]string{"cpu", "opencl"})
	}
	rng := rand.New(rand.NewPCG(47, 48))
	g := gnp(t, rng, 200, 0.6)
	best := solve(t, g, Options{Threads: 1})
	plain := solve(t, g, Options{Threads: 1, PlainColouring: true, Initial: best.Clique})
	for _, names := range pairs {
		t.Run(names[0]+"+"+names[1], func(t *testing.T) {
			a, b := backendtest.Open(t, names[0]), backendtest.Open(t, names[1])
			o := onDevice(a, EngineGPU, Options{Goal: best.Size + 1, Workers: 3})
			o.Devices = append(o.Devices, b)
			res := solve(t, g, o)
			if res.Nodes != plain.Nodes || !res.Proven {
				t.Errorf("frozen at ω+1 over two devices: %d nodes, proven %v; the CPU engine %d", res.Nodes, res.Proven, plain.Nodes)
			}
			if !strings.Contains(res.Device, ", ") || res.Moved == 0 {
				t.Errorf("device %q, %d tasks moved: want two devices sharing the tree", res.Device, res.Moved)
			}
			o = onDevice(a, EngineGPU, Options{Workers: 3})
			o.Devices = append(o.Devices, b)
			if res := solve(t, g, o); res.Size != best.Size || !res.Proven {
				t.Errorf("minimum over two devices: ω %d proven %v, want %d", res.Size, res.Proven, best.Size)
			}
			t.Logf("%d nodes on %s", res.Nodes, res.Device)
		})
	}
}
