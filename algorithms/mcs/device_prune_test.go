package mcs

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/core"
)

// pruneCases are small pairs for the device's pruned tree: plain random
// ones and ones with planted twins (twinGraph), so that every rule fires,
// unlabelled and with vertex labels (the device takes no arc directions
// or edge labels).
func pruneCases(t *testing.T, rng *rand.Rand, n, maxN int) [][2]*core.Graph {
	var out [][2]*core.Graph
	for i := 0; i < n; i++ {
		n0, n1 := 1+rng.IntN(maxN), 1+rng.IntN(maxN)
		p := 0.1 + 0.8*rng.Float64()
		gen := randomGraph
		if i%3 != 0 {
			gen = twinGraph
		}
		vl := 0
		if i%4 == 3 {
			vl = 2
		}
		out = append(out, [2]*core.Graph{gen(t, rng, n0, p, false, vl, 0, 0), gen(t, rng, n1, p, false, vl, 0, 0)})
	}
	return out
}

// runDeviceOff runs the device engine on dev with rules turned off (rrOff)
// and returns its result; the mapping is verified.
func runDeviceOff(t *testing.T, dev backend.Device, g, h *core.Graph, opts Options, off rrOff) Result {
	t.Helper()
	opts = deviceOpts(dev, opts)
	p, err := newProblem[uint8](g, h, opts)
	if err != nil {
		t.Fatal(err)
	}
	p.rrOff = off
	if opts.Prune == PruneRR {
		p.enablePrune()
	}
	res, err := runDevice(context.Background(), p, opts, nil, time.Now(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(g, h, res.Mapping, opts); err != nil || len(res.Mapping) != res.Size {
		t.Fatalf("size %d, mapping %v: %v", res.Size, res.Mapping, err)
	}
	return res
}

// TestDevicePruneBruteForce checks the device's pruned tree (the kernel's
// R1–R5, B1) on every device against brute force, on pairs with planted
// twins, on one worker and several (donation splits pruned nodes), and
// the same with each rule group turned off (the mutation test's other
// half: the answers stay right whatever is off).
func TestDevicePruneBruteForce(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		rng := rand.New(rand.NewPCG(44, 1))
		cases := pruneCases(t, rng, 36, 11)
		for i, c := range cases {
			o := Options{VertexLabels: c[0].VertexLabels != nil}
			want := bruteForce(c[0], c[1], o)
			for _, off := range []rrOff{0, offTwins0, offTwins1, offR3, offR5} {
				for _, workers := range []int{1, 5} {
					o.Workers = workers
					if res := runDeviceOff(t, dev, c[0], c[1], o, off); res.Size != want {
						t.Fatalf("case %d (n=%d,%d), off %b, %d workers: size %d, brute force %d", i, c[0].N, c[1].N, off, workers, res.Size, want)
					}
				}
			}
		}
	})
}

// TestDevicePruneGoal: with a fixed goal the pruned tree is the same on
// every engine, so the device (its Go twin, PoCL, CUDA: whatever
// backendtest finds) counts exactly the sequential CPU engine's nodes in
// both prune modes, at the optimum and one above, on 1 and 5 workers. It
// is also the mutation test: turning off each rule group the kernel has
// (R1/R2/B1, R4, R3) changes the count on some pair, with the count still
// equal to the CPU engine's with the same rule off.
func TestDevicePruneGoal(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 2))
	cases := pruneCases(t, rng, 14, 22)
	offs := []rrOff{0, offTwins0, offTwins1, offR3}
	type want struct {
		size  int
		nodes int64
	}
	// wants[case][goal][mode: none, then rr with each off]
	wants := make([][2][]want, len(cases))
	for i, c := range cases {
		o := Options{VertexLabels: c[0].VertexLabels != nil, Threads: 1}
		opt := solveChecked(t, c[0], c[1], o).Size
		for j, goal := range []int{opt, opt + 1} {
			o.Goal = goal
			o.Prune = PruneNone
			none := solveChecked(t, c[0], c[1], o)
			wants[i][j] = append(wants[i][j], want{none.Size, none.Nodes})
			for _, off := range offs {
				p, err := newProblem[uint8](c[0], c[1], Options{VertexLabels: o.VertexLabels, Goal: goal})
				if err != nil {
					t.Fatal(err)
				}
				p.rrOff = off
				res := p.runPruned(context.Background(), 1, time.Now(), true)
				wants[i][j] = append(wants[i][j], want{res.Size, res.Nodes})
			}
		}
	}
	changed := map[rrOff]bool{}
	for i := range cases {
		for j := range 2 {
			for k, off := range offs[1:] {
				if wants[i][j][k+2].nodes != wants[i][j][1].nodes {
					changed[off] = true
				}
			}
		}
	}
	for _, off := range offs[1:] {
		if !changed[off] {
			t.Errorf("turning off %b changed no node count: the rule never fired on these pairs", off)
		}
	}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		for i, c := range cases {
			o := Options{VertexLabels: c[0].VertexLabels != nil}
			for j := range 2 {
				o.Goal = wants[i][0][0].size + j
				for _, workers := range []int{1, 5} {
					o.Workers = workers
					o.Prune = PruneNone
					for k := -1; k < len(offs); k++ {
						off := rrOff(0)
						if k >= 0 {
							o.Prune, off = PruneRR, offs[k]
						}
						res := runDeviceOff(t, dev, c[0], c[1], o, off)
						if w := wants[i][j][k+1]; res.Size != w.size || res.Nodes != w.nodes || !res.Proven {
							t.Errorf("case %d goal %d %v off %b, %d workers: size %d nodes %d; CPU engine size %d nodes %d",
								i, o.Goal, o.Prune, off, workers, res.Size, res.Nodes, w.size, w.nodes)
						}
					}
				}
			}
		}
	})
}

// TestDevicePruneR5 is R5's mutation test on the device: it fires only
// with an incumbent that rises, so not with a fixed goal; one worker
// makes the run deterministic. Turning it off must change the node count
// on some pair and never the size.
func TestDevicePruneR5(t *testing.T) {
	backendtest.ForBackend(t, "cpu", func(t *testing.T, dev backend.Device) {
		rng := rand.New(rand.NewPCG(44, 3))
		fired := false
		for i, c := range pruneCases(t, rng, 20, 20) {
			o := Options{VertexLabels: c[0].VertexLabels != nil, Workers: 1}
			on := runDeviceOff(t, dev, c[0], c[1], o, 0)
			off := runDeviceOff(t, dev, c[0], c[1], o, offR5)
			if on.Size != off.Size {
				t.Fatalf("case %d: size %d with R5, %d without", i, on.Size, off.Size)
			}
			fired = fired || on.Nodes != off.Nodes
		}
		if !fired {
			t.Error("R5 changed no node count")
		}
	})
}

// TestParallelPruneGoal: with a goal, the pruned tree is the same on any
// number of CPU workers: a worker gives siblings away, and R3 (a child
// that ends its node) must be decided before any is, or the siblings the
// sequential search cuts are searched elsewhere (r3Ahead). Pairs with
// planted twins, at the optimum and one above, several runs each, since
// what is given away depends on timing.
func TestParallelPruneGoal(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 3))
	cases := pruneCases(t, rng, 12, 30)
	for i, c := range cases {
		o := Options{VertexLabels: c[0].VertexLabels != nil, Threads: 1}
		opt := solveChecked(t, c[0], c[1], o).Size
		for _, goal := range []int{opt, opt + 1} {
			o.Goal, o.Threads = goal, 1
			seq := solveChecked(t, c[0], c[1], o)
			for run := 0; run < 3; run++ {
				o.Threads = 4
				par := solveChecked(t, c[0], c[1], o)
				if par.Nodes != seq.Nodes || par.Size != seq.Size {
					t.Fatalf("case %d goal %d run %d: 4 workers %d nodes size %d, one %d nodes size %d", i, goal, run, par.Nodes, par.Size, seq.Nodes, seq.Size)
				}
			}
		}
	}
}
