package vertexcover

import (
	"context"
	"math/rand/v2"
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

// TestCommonNeighborBits: the bitset commonNeighbor returns the vertex the
// list walk returns, after random takes and folds (reductions).
func TestCommonNeighborBits(t *testing.T) {
	found := 0
	for seed := uint64(0); seed < 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 17))
		n := 20 + int(seed%30)
		g := gnp(t, n, 0.15+float64(seed%4)*0.08, seed+21000)
		s := newState(g)
		if s.bits == nil {
			t.Fatal("no bitsets on a small state")
		}
		s.queueAll()
		s.reduce(noBudget)
		for step := 0; step < 6 && s.nAlive > 3; step++ {
			live := s.liveNeighbors(s.maxDegree(), nil)
			for range 20 {
				// left: 2–4 live vertices; members: left plus some dead
				// or live others.
				var left, members []int32
				for v := int32(0); v < int32(s.n); v++ {
					switch {
					case s.alive[v] && len(left) < 4 && r.IntN(3) == 0:
						left = append(left, v)
						members = append(members, v)
					case r.IntN(6) == 0:
						members = append(members, v)
					}
				}
				if r.IntN(2) == 0 && len(live) >= 2 {
					// neighbours of one vertex: a common neighbour exists
					left, members = append(left[:0], live[:2]...), append(members, live[:2]...)
				}
				if len(left) < 2 {
					continue
				}
				got := s.commonNeighbor(left, members)
				bits := s.bits
				s.bits = nil
				want := s.commonNeighbor(left, members)
				s.bits = bits
				if got != want {
					t.Fatalf("seed %d: left %v members %v: bitset %d, lists %d", seed, left, members, got, want)
				}
				if got >= 0 {
					found++
				}
			}
			s.take(s.maxDegree())
			s.reduce(noBudget)
		}
	}
	if found == 0 {
		t.Fatal("no common neighbour ever found: the test tests nothing")
	}
	t.Logf("%d common neighbours", found)
}
