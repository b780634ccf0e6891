package mcs

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/arbor-gpu/arbor/core"
)

// solveManyMutated is SolveMany's exact search with the mutation mut (0:
// none) on one thread; the tuples are not checked.
func solveManyMutated(t *testing.T, graphs []*core.Graph, opts Options, mut mutation) MultiResult {
	t.Helper()
	order := GraphOrder(graphs, opts.PlainOrder)
	sorted := make([]*core.Graph, len(graphs))
	for i, j := range order {
		sorted[i] = graphs[j]
	}
	if opts.Directed || opts.EdgeLabels {
		return runManyMutated[uint32](t, sorted, opts, mut, order)
	}
	return runManyMutated[uint8](t, sorted, opts, mut, order)
}

func runManyMutated[C cell](t *testing.T, sorted []*core.Graph, opts Options, mut mutation, order []int) MultiResult {
	p, err := newManyProblem[C](sorted, opts)
	if err != nil {
		t.Fatal(err)
	}
	p.mutate = mut
	res, _ := p.run(context.Background(), 1, 1, order)
	return res
}

// TestManyR5 checks R5 in the k-graph search on random triples and
// quadruples under every option set: sizes equal brute force (rr, 1 and 3
// threads, mappings verified), R5 cuts nodes (rr against none, one
// thread), the report lists R5 alone as run; and R5 one below the bound
// (the mutation) gives wrong sizes.
func TestManyR5(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	var rr, none int64
	wrong := 0
	for _, i := range manyOptionSets() {
		os := optionSets[i]
		for c := 0; c < 20; c++ {
			k := 3 + c%2
			graphs := make([]*core.Graph, k)
			for j := range graphs {
				graphs[j] = os.graph(t, rng, 2+rng.IntN(7), 0.2+0.6*rng.Float64())
			}
			want := bruteForceMany(graphs, os.opts)
			for _, threads := range []int{1, 3} {
				o := os.opts
				o.Threads = threads
				res := solveManyChecked(t, graphs, o)
				if res.Size != want {
					t.Fatalf("%s case %d threads %d: size %d, brute force %d", os.name, c, threads, res.Size, want)
				}
				if threads == 1 {
					rr += res.Nodes
					o.Prune = PruneNone
					none += solveManyChecked(t, graphs, o).Nodes
				}
			}
			if solveManyMutated(t, graphs, os.opts, mutManyR5Early).Size != want {
				wrong++
			}
		}
	}
	t.Logf("nodes: rr %d, none %d; the mutation wrong on %d", rr, none, wrong)
	if rr >= none {
		t.Errorf("R5 cut nothing: rr %d nodes, none %d", rr, none)
	}
	if wrong == 0 {
		t.Error("R5 one below the bound went unnoticed")
	}
	rep := manyPrune(PruneRR2)
	if !slices.Equal(rep.Rules, []string{RuleR5}) || len(rep.Off) != len(RR2Rules)-1 {
		t.Errorf("report %+v", rep)
	}
	for _, off := range rep.Off {
		if off.Why == "" {
			t.Errorf("%s off without a reason", off.Rule)
		}
	}
}
