package vertexcover

import (
	"context"
	"testing"

	"github.com/arbor-gpu/arbor/core"
)

// TestPackingAgrees checks the packing constraints against brute force on
// small graphs and against the search without them on graphs whose trees
// are deep enough for constraints to nest, fire and be retired by folds.
func TestPackingAgrees(t *testing.T) {
	var nodes int64
	solve := func(g testGraph, off bool) int {
		res, err := Solve(context.Background(), g.g, Options{Threads: 1, LocalSearch: -1, noPacking: off})
		if err != nil || !res.Proven {
			t.Fatalf("%s: %v proven %v", g.name, err, res.Proven)
		}
		if err := Verify(g.g, res.Cover); err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		nodes += res.Nodes
		return len(res.Cover)
	}
	for seed := uint64(0); seed < 300; seed++ {
		n := 12 + int(seed%9)
		p := []float64{0.15, 0.25, 0.4}[seed%3]
		g := testGraph{gnp(t, n, p, 7000+seed), "small"}
		if got, want := solve(g, false), bruteMin(g.g); got != want {
			t.Fatalf("n=%d p=%v seed %d: cover %d, brute force %d", n, p, seed, got, want)
		}
	}
	for seed := uint64(0); seed < 40; seed++ {
		n := 70 + int(seed%4)*15
		p := []float64{0.05, 0.08}[seed%2]
		g := testGraph{gnp(t, n, p, 9000+seed), "medium"}
		if got, want := solve(g, false), solve(g, true); got != want {
			t.Fatalf("n=%d p=%v seed %d: cover %d with packing, %d without", n, p, seed, got, want)
		}
	}
	t.Logf("%d nodes", nodes)
}

type testGraph struct {
	g    *core.Graph
	name string
}
