package mcs

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/arbor-gpu/arbor/core"
)

// heuristicConfigs are the pair engine's optional heuristics, each of
// which must keep the optimum.
var heuristicConfigs = []struct {
	name string
	set  func(*Options)
}{
	{"h1 block order", func(o *Options) { o.BlockOrder = true }},
	{"h2 dead end +1", func(o *Options) { o.DeadEnd = 1 }},
	{"h2 dead end doubling", func(o *Options) { o.DeadEnd = 1; o.DoubleRaise = true }},
	{"h2 dead end, 3 threads", func(o *Options) { o.DeadEnd = 1; o.DoubleRaise = true; o.Threads = 3 }},
	{"h3 restarts", func(o *Options) { o.Restarts = true; o.Seed = 7 }},
	{"h1+h3", func(o *Options) { o.BlockOrder = true; o.Restarts = true }},
}

// TestHeuristicsExact checks every heuristic against the default engine's
// size on random pairs under every option set, big enough (up to 20
// vertices) that dead ends and restart budgets are actually hit.
func TestHeuristicsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	targets := 0
	for _, os := range optionSets {
		if os.opts.BigFirst {
			continue
		}
		t.Run(os.name, func(t *testing.T) {
			for c, rp := range os.randomPairs(t, rng, 6, 10, 10, 0.2, 0.6) {
				g, h := rp.g, rp.h
				o := os.opts
				o.Threads = 1
				want := solveChecked(t, g, h, o)
				for _, hc := range heuristicConfigs {
					ho := o
					hc.set(&ho)
					res := solveChecked(t, g, h, ho)
					if res.Size != want.Size {
						t.Fatalf("case %d (n=%d,%d) %s: size %d, default %d", c, g.N, h.N, hc.name, res.Size, want.Size)
					}
					targets += res.Targets
				}
			}
		})
	}
	if targets == 0 {
		t.Error("the dead-end heuristic never raised a target")
	}
}

// TestHeuristicsMIVIA checks the heuristics' sizes on a spread of easy
// MIVIA pairs (all of them with ARBOR_LONG=1).
func TestHeuristicsMIVIA(t *testing.T) {
	dir, pairs := readExpected(t)
	easy, _ := easyPairs(pairs, 0.02, 12)
	for _, p := range easy {
		g, h := readPair(t, dir, p)
		for _, hc := range heuristicConfigs {
			o := Options{Threads: 1}
			hc.set(&o)
			o.DeadEnd *= 1000 // a MIVIA dead end is longer
			if res := solveChecked(t, g, h, o); res.Size != p.Size {
				t.Errorf("%s/%s %s: size %d, want %d", p.G, p.H, hc.name, res.Size, p.Size)
			}
		}
	}
}

// TestPortfolio checks the portfolio against the sequential engine on
// random pairs (every option set) and MIVIA pairs: the same size, the
// mapping verified, proven. Threads 5 runs all five CPU configurations.
func TestPortfolio(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for _, os := range optionSets {
		if os.opts.BigFirst {
			continue
		}
		for c, rp := range os.randomPairs(t, rng, 3, 8, 10, 0.2, 0.6) {
			g, h := rp.g, rp.h
			o := os.opts
			o.Threads = 1
			want := solveChecked(t, g, h, o)
			for _, threads := range []int{2, 5} {
				o.Threads, o.Engine = threads, EnginePortfolio
				res := solveChecked(t, g, h, o)
				if res.Size != want.Size || res.Engine != EnginePortfolio {
					t.Fatalf("%s case %d threads %d: portfolio size %d (%s), sequential %d", os.name, c, threads, res.Size, res.Engine, want.Size)
				}
			}
		}
	}
	dir, pairs := readExpected(t)
	checked := 0
	for i := 0; i < len(pairs) && checked < 8; i += 97 {
		p := pairs[i]
		if !p.Proven || p.Seconds > 0.05 {
			continue
		}
		g, h := readPair(t, dir, p)
		res := solveChecked(t, g, h, Options{Engine: EnginePortfolio, Threads: 5})
		if res.Size != p.Size {
			t.Errorf("%s/%s: portfolio size %d, want %d (%s)", p.G, p.H, res.Size, p.Size, res.Why)
		}
		checked++
	}
	if _, err := Solve(context.Background(), pairsGraph(t), pairsGraph(t), Options{Engine: EnginePortfolio, Goal: 2}); err == nil {
		t.Error("portfolio with a fixed goal accepted")
	}
}

func pairsGraph(t *testing.T) *core.Graph {
	b := core.NewBuilder(3, false)
	b.AddEdge(0, 1)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}
