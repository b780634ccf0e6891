package kernels

import (
	"math/rand/v2"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/cpu"
)

// TestVCChecks runs the vertex cover conformance checks on the CPU twin,
// checks the twin's answers against brute force (no cover below the
// optimum, one at it), then requires every other device (PoCL here) to
// give the twin's node counts and sizes exactly.
func TestVCChecks(t *testing.T) {
	checks := vcChecks()
	ref := cpu.New(0)
	want := make([][]Output, len(checks))
	for i, c := range checks {
		out, err := c.Run(ref)
		if err != nil {
			t.Fatalf("%s: CPU twin: %v", c.Case, err)
		}
		if out[1].Values[0] != -1 {
			t.Fatalf("%s: the twin found a cover of %d below the optimum", c.Case, out[1].Values[0])
		}
		if out[0].Values[0] < 2 {
			t.Fatalf("%s: %d nodes: the check explores no tree", c.Case, out[0].Values[0])
		}
		want[i] = out
	}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		for i, c := range checks {
			got, err := c.Run(dev)
			if err != nil {
				t.Fatalf("%s: %v", c.Case, err)
			}
			if err := Compare(got, want[i]); err != nil {
				t.Errorf("%s: %v", c.Case, err)
			}
		}
	})
}

// TestVCTwinOptimum: with the budget at the optimum the twin finds a cover
// of exactly that size (brute force says which), whatever the worker
// count; below it, none, and the node count does not depend on the
// number of workers.
func TestVCTwinOptimum(t *testing.T) {
	dev := cpu.New(0)
	rng := rand.New(rand.NewPCG(41, 42))
	for i := 0; i < 30; i++ {
		n := 2 + rng.IntN(22)
		off, adj := randomCSR(rng, n, rng.Float64()*0.6)
		opt := vcBruteMin(n, off, adj)
		var nodes int64 = -1
		for _, workers := range []int{1, 3, 6} {
			nd, found, err := vcRun(dev, n, off, adj, int32(opt-1), workers, 0)
			if err != nil {
				t.Fatal(err)
			}
			if found != -1 {
				t.Fatalf("case %d (n=%d): a cover of %d below the optimum %d", i, n, found, opt)
			}
			if nodes >= 0 && nd != nodes {
				t.Fatalf("case %d (n=%d): %d nodes with %d workers, %d before", i, n, nd, workers, nodes)
			}
			nodes = nd
			if _, found, err = vcRun(dev, n, off, adj, int32(opt), workers, 0); err != nil || found != opt {
				t.Fatalf("case %d (n=%d): cover of %d at budget %d (optimum), %v", i, n, found, opt, err)
			}
		}
	}
}

// TestVCLanes runs the kernel with several lanes per worker on every
// OpenCL device (PoCL here): the path CUDA takes with a warp per worker,
// the group reductions and barriers included. The rounds of reductions
// are decided on snapshots, so the tree, and the node count, must equal
// the twin's. Four lanes only: PoCL compiles a kernel for each work-group
// size at its first launch, and with barriers inside loops that took 6 s
// for 8 lanes and did not finish in minutes for 32 (CUDA's 32 lanes run
// on the GPU script's conformance checks instead).
func TestVCLanes(t *testing.T) {
	ref := cpu.New(0)
	rng := rand.New(rand.NewPCG(43, 44))
	type tc struct {
		n        int
		off, adj []int32
		opt      int
		nodes    int64
	}
	var cases []tc
	for i := 0; i < 4; i++ {
		n := 20 + 6*i
		off, adj := randomCSR(rng, n, 0.2-0.03*float64(i))
		c := tc{n: n, off: off, adj: adj, opt: vcBruteMin(n, off, adj)}
		var err error
		if c.nodes, _, err = vcRun(ref, n, off, adj, int32(c.opt-1), 3, 0); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	backendtest.ForBackend(t, "opencl", func(t *testing.T, dev backend.Device) {
		for _, lanes := range []int{4} {
			for i, c := range cases {
				nodes, found, err := vcRun(dev, c.n, c.off, c.adj, int32(c.opt-1), 3, lanes)
				if err != nil {
					t.Fatalf("%d lanes: %v", lanes, err)
				}
				if nodes != c.nodes || found != -1 {
					t.Errorf("case %d, %d lanes: %d nodes, cover %d; twin %d nodes, none", i, lanes, nodes, found, c.nodes)
				}
				if _, found, err = vcRun(dev, c.n, c.off, c.adj, int32(c.opt), 3, lanes); err != nil || found != c.opt {
					t.Errorf("case %d, %d lanes: cover of %d at the optimum %d, %v", i, lanes, found, c.opt, err)
				}
			}
		}
	})
}
