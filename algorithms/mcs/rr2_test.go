package mcs

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/arbor-gpu/arbor/core"
)

// solveRR2 runs PruneRR2 on threads threads with the mutation mut (0:
// none) and verifies the mapping.
func solveRR2(t *testing.T, g, h *core.Graph, opts Options, threads int, mut mutation) Result {
	t.Helper()
	opts.Prune, opts.Threads = PruneRR2, threads
	res := solveTweaked(t, g, h, opts, tweak{mut: mut})
	if err := Verify(g, h, res.Mapping, opts); err != nil {
		t.Fatalf("rr2 (mutation %d): %v", mut, err)
	}
	if !res.Proven || res.Size != len(res.Mapping) {
		t.Fatalf("rr2: proven %v, size %d, %d pairs", res.Proven, res.Size, len(res.Mapping))
	}
	return res
}

// rr2Cases runs check on random small pairs under every option set (and
// dead-end raising and block order), half of them with planted twins, and
// returns how many pairs check rejected. Sparse and dense graphs both come
// up (B2 needs sides of different densities inside a bidomain).
func rr2Cases(t *testing.T, perSet int, seed uint64, check func(g, h *core.Graph, opts Options, want int) bool) int {
	rng := rand.New(rand.NewPCG(seed, 44))
	sets := append(slices.Clone(optionSets), optionSets[0], optionSets[0])
	sets[len(sets)-2].name, sets[len(sets)-2].opts = "dead-end", Options{DeadEnd: 20}
	sets[len(sets)-1].name, sets[len(sets)-1].opts = "block-order", Options{BlockOrder: true}
	bad := 0
	for _, set := range sets {
		for i := 0; i < perSet; i++ {
			g, h := mixedPair(t, rng, i, set.maxN, set.directed, set.vl, set.el, set.loops)
			if !check(g, h, set.opts, bruteForce(g, h, set.opts)) {
				bad++
			}
		}
	}
	return bad
}

// mixedPair is random pair i of up to maxN vertices a graph: sparse to
// dense, planted twins in every other pair (twinGraph), the two graphs of
// different densities in every third.
func mixedPair(t *testing.T, rng *rand.Rand, i, maxN int, directed bool, vl, el int, loops float64) (g, h *core.Graph) {
	n0 := 1 + rng.IntN(maxN)
	n1 := 1 + rng.IntN(maxN)
	p0 := 0.05 + 0.9*rng.Float64()
	p1 := p0
	if i%3 == 0 {
		p1 = 0.05 + 0.9*rng.Float64()
	}
	gen := randomGraph
	if i%2 == 0 {
		gen = twinGraph
	}
	return gen(t, rng, n0, p0, directed, vl, el, loops), gen(t, rng, n1, p1, directed, vl, el, loops)
}

// TestRR2BruteForce checks PruneRR2 (RR with the edge-count bound B2 and
// learned branching) against brute force on random small pairs, on 1 and
// 2 threads, every mapping verified; and that B2 cuts nodes there.
// ARBOR_LONG=1 runs five times more.
func TestRR2BruteForce(t *testing.T) {
	perSet := 300
	if os.Getenv("ARBOR_LONG") == "1" {
		perSet *= 5
	}
	var rr, rr2 int64
	bad := rr2Cases(t, perSet, 1, func(g, h *core.Graph, opts Options, want int) bool {
		for _, threads := range []int{1, 2} {
			if res := solveRR2(t, g, h, opts, threads, 0); res.Size != want {
				t.Errorf("threads %d: size %d, brute force %d\ng=%v\nh=%v", threads, res.Size, want, g, h)
				return false
			} else if threads == 1 {
				rr2 += res.Nodes
				o := opts
				o.Prune, o.Threads = PruneRR, 1
				rr += solveChecked(t, g, h, o).Nodes
			}
		}
		return true
	})
	if bad > 0 {
		t.Fatalf("%d pairs wrong", bad)
	}
	t.Logf("rr %d nodes, rr2 %d", rr, rr2)
	if rr2 >= rr {
		t.Errorf("rr2 searched %d nodes, rr %d: B2 never cut", rr2, rr)
	}
}

// TestRR2Mutations breaks safety conditions of PruneRR2 in turn: B2 one
// too low, candidates of a v with twins reordered. Each must give a wrong
// size on some random pair. (Two more conditions, B2 skipping the
// bidomain B1 lowered and the learned v being the smallest of its twin
// class, are kept for their arguments in docs/design/mcs.md: breaking
// them changed no size on 4,200 random pairs.)
func TestRR2Mutations(t *testing.T) {
	for _, m := range []struct {
		name string
		mut  mutation
	}{
		{"B2 tight", mutB2Tight}, {"twin candidates reordered", mutOrderTwins},
	} {
		t.Run(m.name, func(t *testing.T) {
			bad := rr2Cases(t, 300, 2, func(g, h *core.Graph, opts Options, want int) bool {
				return solveRR2Loose(t, g, h, opts, m.mut) == want
			})
			t.Logf("%s: %d wrong pairs", m.name, bad)
			if bad == 0 {
				t.Errorf("mutation %q went unnoticed", m.name)
			}
		})
	}
}

// solveRR2Loose is solveRR2 on one thread that returns the size even when
// the mapping is wrong (a mutation may break it).
func solveRR2Loose(t *testing.T, g, h *core.Graph, opts Options, mut mutation) int {
	opts.Prune, opts.Threads = PruneRR2, 1
	return solveTweaked(t, g, h, opts, tweak{mut: mut}).Size
}

// TestParsePruningRR2 checks that every pruning reads back from its name
// and that Solve refuses a value outside them.
func TestParsePruningRR2(t *testing.T) {
	for _, p := range []Pruning{PruneNone, PruneRR, PruneRR2} {
		if q, err := ParsePruning(p.String()); err != nil || q != p {
			t.Errorf("%v: read back %v, %v", p, q, err)
		}
	}
	if _, err := ParsePruning("rr3"); err == nil {
		t.Error("rr3 accepted")
	}
	g := core.NewBuilder(1, false)
	one, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Solve(context.Background(), one, one, Options{Prune: Pruning(99)}); err == nil {
		t.Error("Solve accepted pruning 99")
	}
}

// TestRR2Report checks Result.Prune for rr2: B2 and learned run on the
// CPU engine, are off (with a reason) where rr's tree is searched
// instead, and every rule is off where no pruned tree runs.
func TestRR2Report(t *testing.T) {
	cpu := pruneUsed(Options{Prune: PruneRR2}, EngineCPU)
	if !slices.Equal(cpu.Rules, RR2Rules) || len(cpu.Off) != 0 {
		t.Errorf("cpu: %+v", cpu)
	}
	dev := pruneUsed(Options{Prune: PruneRR2}, EngineHybrid)
	if !slices.Equal(dev.Rules, RRRules) || len(dev.Off) != 2 || dev.Off[0].Rule != RuleB2 || dev.Off[1].Rule != RuleLearned || dev.Off[0].Why == "" {
		t.Errorf("hybrid: %+v", dev)
	}
	if sub := SubtreePrune(Options{Prune: PruneRR2}); !slices.Equal(sub.Rules, RRRules) || len(sub.Off) != 2 {
		t.Errorf("subtree, rr2: %+v", sub)
	}
	if sub := SubtreePrune(Options{}); !slices.Equal(sub.Rules, RRRules) || len(sub.Off) != 0 {
		t.Errorf("subtree, rr: %+v", sub)
	}
	if sub := SubtreePrune(Options{Prune: PruneNone}); len(sub.Rules)+len(sub.Off) != 0 {
		t.Errorf("subtree, none: %+v", sub)
	}
	if rr := pruneUsed(Options{}, EngineCPU); !slices.Equal(rr.Rules, RRRules) {
		t.Errorf("rr: %+v", rr)
	}
}
