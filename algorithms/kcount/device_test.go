package kcount

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/backend/backendtest"
)

// onDevice is the gpu engine on dev with this many workers.
func onDevice(dev backend.Device, workers int) Options {
	return Options{Engine: EngineGPU, Devices: []backend.Device{dev}, Workers: workers}
}

// TestDeviceBruteForce: the gpu engine (the kernel's Go twin on the CPU
// backend, the kernel itself on PoCL) equals the subset enumeration for
// every k on the small graphs, with 1 and 5 workers and the same node
// count for both, on every device.
func TestDeviceBruteForce(t *testing.T) {
	graphs := smallGraphs(t)
	type key struct{ g, k int }
	nodes := map[key]int64{}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		for gi, g := range graphs {
			counts := bruteCounts(g)
			for k := 1; k <= g.N+1; k++ {
				for _, workers := range []int{1, 5} {
					r := count(t, g, k, onDevice(dev, workers))
					if w := want(counts, k); r.Count != w {
						t.Fatalf("graph %d (n %d), k %d, %d workers: %d k-cliques, brute force %d", gi, g.N, k, workers, r.Count, w)
					}
					if n, ok := nodes[key{gi, k}]; ok && n != r.Nodes {
						t.Fatalf("graph %d, k %d, %d workers: %d nodes, another run %d", gi, k, workers, r.Nodes, n)
					}
					nodes[key{gi, k}] = r.Nodes
				}
			}
		}
	})
}

// TestDeviceRandom: the gpu engine equals the CPU engine on larger random
// graphs (several words per bit row), with the same node count on every
// device and worker count.
func TestDeviceRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	cases := []struct {
		n int
		p float64
		k int
	}{{70, 0.5, 5}, {150, 0.3, 4}, {130, 0.6, 6}}
	nodes := make([]int64, len(cases))
	for i, c := range cases {
		g := gnp(t, rng, c.n, c.p, i == 1)
		cpu := count(t, g, c.k, Options{Engine: EngineCPU})
		backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
			for _, workers := range []int{3, 8} {
				r := count(t, g, c.k, onDevice(dev, workers))
				if r.Count != cpu.Count {
					t.Fatalf("G(%d, %.1f), k %d, %d workers: %d k-cliques, the CPU engine %d", c.n, c.p, c.k, workers, r.Count, cpu.Count)
				}
				if nodes[i] != 0 && r.Nodes != nodes[i] {
					t.Fatalf("G(%d, %.1f), k %d, %d workers: %d nodes, another run %d", c.n, c.p, c.k, workers, r.Nodes, nodes[i])
				}
				nodes[i] = r.Nodes
			}
		})
	}
}

// TestDeviceStop: a timeout and a cancelled context stop the gpu engine
// with a partial count, unproven, no larger than the whole count.
func TestDeviceStop(t *testing.T) {
	g := gnp(t, rand.New(rand.NewPCG(7, 8)), 160, 0.6, false)
	const k = 9
	full := count(t, g, k, Options{Engine: EngineCPU})
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		t0 := time.Now()
		o := onDevice(dev, 4)
		o.Timeout = 30 * time.Millisecond
		r, err := Count(context.Background(), g, k, o)
		if err != nil || r.Proven || r.Count > full.Count {
			t.Fatalf("timeout: %d counted (whole %d), proven %v, %v", r.Count, full.Count, r.Proven, err)
		}
		if el := time.Since(t0); el > 5*time.Second {
			t.Fatalf("a 30 ms timeout returned after %v", el)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if r, err := Count(ctx, g, k, onDevice(dev, 4)); err != nil || r.Proven {
			t.Fatalf("cancelled: proven %v, %v", r.Proven, err)
		}
	})
}
