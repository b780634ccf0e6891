package mcs

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/startup"
	"github.com/arbor-gpu/arbor/device/startup/startuptest"
)

// TestAutoDoesNotWait: with the device still opening (and never done), auto
// answers every instance on the CPU engine, proven and equal to brute
// force, and says why.
func TestAutoDoesNotWait(t *testing.T) {
	opening := startuptest.Stuck(t)
	rng := rand.New(rand.NewPCG(35, 1))
	for i := 0; i < 20; i++ {
		g := randomGraph(t, rng, 1+rng.IntN(10), rng.Float64(), false, 0, 0, 0)
		h := randomGraph(t, rng, 1+rng.IntN(10), rng.Float64(), false, 0, 0, 0)
		res := solveChecked(t, g, h, Options{Opening: opening})
		if want := bruteForce(g, h, Options{}); res.Size != want {
			t.Fatalf("case %d: size %d, brute force %d", i, res.Size, want)
		}
		if res.Engine != EngineCPU || !strings.Contains(res.Why, "before the device was chosen") {
			t.Fatalf("case %d: engine %s (%s), want the CPU engine before the device", i, res.Engine, res.Why)
		}
	}
	if opening.Done() {
		t.Fatal("the opening finished although its gate is shut")
	}
}

// TestAutoJoin: when the device opens during the search, the CPU engine
// stops and the device engine takes over from its incumbent; the answer is
// the CPU engine's size, verified, on every device (the rule is forced to
// pick the device, whatever its type).
func TestAutoJoin(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		rng := rand.New(rand.NewPCG(35, 2))
		joined := 0
		for i := 0; i < 4; i++ {
			n := 18 + rng.IntN(5)
			g := randomGraph(t, rng, n, 0.3+0.4*rng.Float64(), false, 0, 0, 0)
			h := randomGraph(t, rng, n, 0.3+0.4*rng.Float64(), false, 0, 0, 0)
			want := solveChecked(t, g, h, Options{Engine: EngineCPU})
			opts := Options{Workers: 5, Opening: startuptest.After(time.Duration(rng.IntN(3))*time.Millisecond, dev)}
			force := func(infos []backend.Info, g, h *core.Graph, o Options) (Engine, string, error) {
				if len(infos) != 1 || infos[0].String() != dev.Info().String() {
					t.Fatalf("the rule ran with %v, not the device chosen", infos)
				}
				return EngineHybrid, "forced", nil
			}
			res, err := solveAuto(context.Background(), g, h, opts, time.Now(), force)
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(g, h, res.Mapping, Options{}); err != nil || !res.Proven || res.Size != want.Size {
				t.Fatalf("case %d: size %d proven %v (%v), CPU engine %d", i, res.Size, res.Proven, err, want.Size)
			}
			if res.Engine == EngineHybrid {
				joined++
			}
		}
		if joined == 0 {
			t.Fatal("the device never joined: every instance settled before the opening ended")
		}
	})
}

// TestPairsOf: a result's mapping turned back into the search's pairs
// names the same vertices.
func TestPairsOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 3))
	g := randomGraph(t, rng, 15, 0.4, false, 0, 0, 0)
	h := randomGraph(t, rng, 17, 0.4, false, 0, 0, 0)
	res := solveChecked(t, g, h, Options{Threads: 1})
	p, err := newProblem[uint8](g, h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var back [][2]int
	for _, pr := range p.pairsOf(res.Mapping) {
		back = append(back, [2]int{p.order0[pr.v], p.order1[pr.w]})
	}
	slices.SortFunc(back, func(a, b [2]int) int { return a[0] - b[0] })
	if !slices.Equal(back, res.Mapping) {
		t.Fatalf("round trip %v, want %v", back, res.Mapping)
	}
}

// TestFloor: a floor answers "is there one of ≥ Floor" with the maximum
// (optimal) or a proof that none reaches it (infeasible, no mapping), on
// the CPU engines and on every device's gpu and hybrid engines, in no
// more nodes than the plain search on the sequential engine.
func TestFloor(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 4))
	type pairCase struct {
		g, h *core.Graph
		want int
	}
	var cases []pairCase
	for i := 0; i < 10; i++ {
		g := randomGraph(t, rng, 2+rng.IntN(9), rng.Float64(), false, 0, 0, 0)
		h := randomGraph(t, rng, 2+rng.IntN(9), rng.Float64(), false, 0, 0, 0)
		cases = append(cases, pairCase{g, h, bruteForce(g, h, Options{})})
	}
	check := func(t *testing.T, name string, base Options) {
		for i, c := range cases {
			for _, floor := range []int{1, c.want - 1, c.want, c.want + 1} {
				if floor < 1 {
					continue
				}
				o := base
				o.Floor = floor
				res, err := Solve(context.Background(), c.g, c.h, o)
				if err != nil {
					t.Fatal(err)
				}
				if err := Verify(c.g, c.h, res.Mapping, o); err != nil || res.Size != len(res.Mapping) {
					t.Fatalf("%s case %d floor %d: %v (size %d, %d pairs)", name, i, floor, err, res.Size, len(res.Mapping))
				}
				want, status := c.want, core.StatusOptimal
				if floor > c.want {
					want, status = 0, core.StatusInfeasible
				}
				if res.Size != want || res.Status != status {
					t.Fatalf("%s case %d (maximum %d) floor %d: size %d %s, want %d %s", name, i, c.want, floor, res.Size, res.Status, want, status)
				}
				if base.Engine == EngineCPU && base.Threads == 1 {
					plain := solveChecked(t, c.g, c.h, Options{Engine: EngineCPU, Threads: 1})
					if res.Nodes > plain.Nodes {
						t.Fatalf("case %d floor %d: %d nodes, more than the plain search's %d", i, floor, res.Nodes, plain.Nodes)
					}
				}
			}
		}
	}
	check(t, "sequential", Options{Engine: EngineCPU, Threads: 1})
	check(t, "parallel", Options{Engine: EngineCPU, Threads: 3})
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		check(t, "gpu", deviceOpts(dev, Options{}))
		o := deviceOpts(dev, Options{Threads: 2})
		o.Engine = EngineHybrid
		check(t, "hybrid", o)
	})
}

// TestAutoDownAlone: the devices are chosen (the rule gives them the
// hybrid) but never open: the CPU threads, moved to McSplit↓, settle every
// instance alone, proven and equal to brute force, with and without a
// floor.
func TestAutoDownAlone(t *testing.T) {
	gate := make(chan struct{})
	defer close(gate)
	info := backend.Info{Backend: "cuda", Name: "test GPU", Type: backend.TypeGPU}
	force := func(infos []backend.Info, g, h *core.Graph, o Options) (Engine, string, error) {
		return EngineHybrid, "forced", nil
	}
	rng := rand.New(rand.NewPCG(35, 5))
	for i := 0; i < 12; i++ {
		g := randomGraph(t, rng, 8+rng.IntN(8), rng.Float64(), false, 0, 0, 0)
		h := randomGraph(t, rng, 8+rng.IntN(8), rng.Float64(), false, 0, 0, 0)
		want := solveChecked(t, g, h, Options{Engine: EngineCPU, Threads: 1}).Size
		for _, floor := range []int{0, want, want + 1} {
			opening := startup.OpenWhenAsked(func() ([]backend.Device, func(), error) {
				<-gate
				return nil, nil, nil
			}).WithChoice(func() ([]backend.Info, error) { return []backend.Info{info}, nil })
			opening.Start()
			<-opening.Chosen()
			res, err := solveAuto(context.Background(), g, h, Options{Floor: floor, Threads: 2, Opening: opening}, time.Now(), force)
			if err != nil {
				t.Fatal(err)
			}
			wantSize := want
			if floor > want {
				wantSize = 0
			}
			if err := Verify(g, h, res.Mapping, Options{}); err != nil || !res.Proven || res.Size != wantSize || len(res.Mapping) != res.Size {
				t.Fatalf("case %d floor %d: size %d (%d pairs) proven %v (%v), want %d; %s", i, floor, res.Size, len(res.Mapping), res.Proven, err, wantSize, res.Why)
			}
			if opening.Done() {
				t.Fatal("the opening ended although its gate is shut")
			}
		}
	}
}
