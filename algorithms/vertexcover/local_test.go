package vertexcover

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// TestNuMVCIncremental runs many exchange steps and checks the scores, the
// packed keys and the uncovered edges kept incrementally against a
// recomputation from scratch.
func TestNuMVCIncremental(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		g := gnp(t, 120, 0.3, seed)
		ls := newNuMVC(g)
		ls.forgetAt = int64(ls.m) * 3 // forget often
		in := make([]bool, g.N)
		ls.greedy(in)
		ls.jump(in)
		rand := xorshiftFrom(seed)
		for step := 0; step < 20000; step++ {
			if len(ls.unc) == 0 {
				ls.tick()
				ls.remove(ls.cList[ls.bestRemoval(-1, nil)])
				continue
			}
			ls.exchange(rand)
			if step%997 != 0 {
				continue
			}
			keys := append([]int64(nil), ls.key...)
			scores := append([]int64(nil), ls.score...)
			unc := len(ls.unc)
			ls.rescore()
			if len(ls.unc) != unc {
				t.Fatalf("seed %d step %d: %d uncovered edges kept, %d recomputed", seed, step, unc, len(ls.unc))
			}
			for p, v := range ls.cList {
				if keys[p] != ls.key[p] {
					t.Fatalf("seed %d step %d: key of %d is %x, recomputed %x", seed, step, v, keys[p], ls.key[p])
				}
				if ls.cPos[v] != int32(p) || !ls.inC[v] {
					t.Fatalf("seed %d step %d: position of %d wrong", seed, step, v)
				}
			}
			for v := range g.N {
				if !ls.inC[v] && scores[v] != ls.score[v] {
					t.Fatalf("seed %d step %d: score of %d is %d, recomputed %d", seed, step, v, scores[v], ls.score[v])
				}
			}
			var sum int64
			for e := range ls.m {
				if ls.w[ls.ea[e]] != ls.w[ls.eb[e]] {
					t.Fatalf("edge %d: weights %d and %d on its arcs", e, ls.w[ls.ea[e]], ls.w[ls.eb[e]])
				}
				sum += int64(ls.w[ls.ea[e]])
			}
			if sum != ls.totalW {
				t.Fatalf("seed %d step %d: total weight %d kept, %d summed", seed, step, ls.totalW, sum)
			}
		}
	}
}

// plantedRB builds a graph in the style of Xu's model RB (BHOSLIB): k
// disjoint cliques of q vertices with random edges between cliques, none
// between the planted vertices (one per clique), so that the minimum
// cover is k·q − k.
func plantedRB(t testing.TB, k, q int, p float64, seed uint64) *core.Graph {
	rand := xorshiftFrom(seed)
	planted := make([]int, k)
	for i := range planted {
		planted[i] = i*q + rand(q)
	}
	var edges [][2]int
	for u := 0; u < k*q; u++ {
		for v := u + 1; v < k*q; v++ {
			switch {
			case u/q == v/q:
				edges = append(edges, [2]int{u, v})
			case u == planted[u/q] && v == planted[v/q]:
			case float64(rand(1<<20)) < p*(1<<20):
				edges = append(edges, [2]int{u, v})
			}
		}
	}
	return fromEdges(t, k*q, edges)
}

// plantedParts is plantedRB with its clique partition (bestPartition),
// which must find the k planted cliques.
func plantedParts(t testing.TB, k, q int, p float64, seed uint64) (*core.Graph, []int32) {
	t.Helper()
	g := plantedRB(t, k, q, p, seed)
	part, got := bestPartition(g)
	if got != k {
		t.Fatalf("seed %d: partition into %d cliques, want the %d planted ones", seed, got, k)
	}
	return g, part
}

// joinedRB is g (plantedRB's k cliques of q) with cliques 0 and 1 joined
// completely, so that no transversal exists and a partition search runs
// to its cap, and its planted partition (the greedy one would merge 0
// and 1): the edge list, the graph and the clique of each vertex.
func joinedRB(t testing.TB, g *core.Graph, k, q int) ([][2]int, *core.Graph, []int32) {
	edges := graphEdges(g)
	for u := range q {
		for v := q; v < 2*q; v++ {
			edges = append(edges, [2]int{u, v})
		}
	}
	part := make([]int32, k*q)
	for v := range part {
		part[v] = int32(v / q)
	}
	return edges, fromEdges(t, k*q, edges), part
}

func TestPartitionSearchPlanted(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		k, q := 10+int(seed), 6
		g, part := plantedParts(t, k, q, 0.35, seed)
		var stop atomic.Bool
		cover := partitionSearch(g, part, k, seed, &stop, time.Now().Add(time.Minute), partDegBeta)
		if cover == nil {
			t.Fatalf("seed %d: no cover of %d found", seed, g.N-k)
		}
		var list []int
		for v, c := range cover {
			if c {
				list = append(list, v)
			}
		}
		if err := Verify(g, list); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(list) != g.N-k {
			t.Fatalf("seed %d: cover of %d, want %d", seed, len(list), g.N-k)
		}
	}
}

// TestPartitionSearchAudit recounts the partition search's incremental
// state (violated edges, lazily raised weights, scores) after every step,
// through forgettings, on planted instances whose cliques are runs of ids
// and on ones renumbered at random (so that the search's renumbering
// reorders the lists).
func TestPartitionSearchAudit(t *testing.T) {
	defer func(g float64) { partAudit, partGamma = nil, g }(partGamma)
	partGamma = 0.02 // forget every few dozen steps
	problems := 0
	partAudit = func(step int64, problem string) {
		if problems++; problems <= 5 {
			t.Errorf("step %d: %s", step, problem)
		}
	}
	for seed := uint64(1); seed <= 4; seed++ {
		const k, q = 12, 6
		// No solution, so the search runs to its cap.
		edges, _, _ := joinedRB(t, plantedRB(t, k, q, 0.45, seed), k, q)
		// The planted cliques (the greedy partition would merge 0 and 1).
		perm := make([]int, k*q)
		for i := range perm {
			perm[i] = i
		}
		if seed%2 == 0 {
			// Relabelled at random: the cliques are no longer runs of
			// ids, and the search's renumbering reorders the lists.
			rand := xorshiftFrom(seed)
			for i := len(perm) - 1; i > 0; i-- {
				j := rand(i + 1)
				perm[i], perm[j] = perm[j], perm[i]
			}
			for i := range edges {
				edges[i] = [2]int{perm[edges[i][0]], perm[edges[i][1]]}
			}
		}
		g := fromEdges(t, k*q, edges)
		part := make([]int32, k*q)
		for v, p := range perm {
			part[p] = int32(v / q)
		}
		var stop atomic.Bool
		steps := int64(3000)
		if c := partitionSearchSteps(g, part, k, seed, &stop, time.Now().Add(time.Minute), partDegBeta, &steps); c != nil || steps < 3000 {
			t.Fatalf("seed %d: stopped after %d steps (cover %v) on an instance without a solution", seed, steps, c != nil)
		}
	}
}

// graphEdges lists g's edges once each.
func graphEdges(g *core.Graph) [][2]int {
	var edges [][2]int
	for u := 0; u < g.N; u++ {
		for _, v := range g.Neighbors(u) {
			if int(v) > u {
				edges = append(edges, [2]int{u, int(v)})
			}
		}
	}
	return edges
}

// TestPartitionSearchStops: on a graph with no one-per-clique independent
// set (two adjacent singleton cliques), the search returns nil once
// stopped instead of running on.
func TestPartitionSearchStops(t *testing.T) {
	g := fromEdges(t, 2, [][2]int{{0, 1}})
	part := []int32{0, 1}
	var stop atomic.Bool
	time.AfterFunc(50*time.Millisecond, func() { stop.Store(true) })
	if c := partitionSearch(g, part, 2, 1, &stop, time.Now().Add(time.Minute), 0); c != nil {
		t.Fatalf("found %v on a graph without one", c)
	}
}

// TestSolvePlanted: the engine proves model-RB-style instances whose root
// clique cover bound is the optimum.
func TestSolvePlanted(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		g := plantedRB(t, 16, 8, 0.3, seed)
		res, err := Solve(context.Background(), g, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Proven || len(res.Cover) != g.N-16 {
			t.Fatalf("seed %d: cover %d proven %v, want %d proven", seed, len(res.Cover), res.Proven, g.N-16)
		}
	}
}
