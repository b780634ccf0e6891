package vertexcover

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMirrors(t *testing.T) {
	// N(0) = {1,2,3}, 1–2 adjacent. 4 sees 3 only: N(0)\N(4) = {1,2},
	// a clique: mirror. 5 sees 1 only: {2,3} is no clique. 6 sees 1 and
	// 3: {2}: mirror.
	g := fromEdges(t, 7, [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {3, 4}, {1, 5}, {1, 6}, {3, 6}})
	s := newState(g)
	m := s.mirrors(0, s.liveNeighbors(0, nil))
	slices.Sort(m)
	if !slices.Equal(m, []int32{4, 6}) {
		t.Fatalf("mirrors(0) = %v, want [4 6]", m)
	}
}

// TestBranchRulesKeepOptimum checks on random graphs that the mirror
// branching and the unconfined rule never lose the optimum.
func TestBranchRulesKeepOptimum(t *testing.T) {
	mirrorsSeen, unconfinedSeen := 0, 0
	for seed := uint64(0); seed < 150; seed++ {
		g := gnp(t, 13, 0.15+float64(seed%5)*0.07, seed+4000)
		opt := bruteMin(g)
		s := newState(g)
		optOf := func() int {
			kg, _ := s.extract(nil)
			return s.cover + bruteMin(kg)
		}
		for v := int32(0); v < int32(g.N); v++ {
			nv := s.liveNeighbors(v, nil)
			if len(nv) == 0 {
				continue
			}
			ms := s.mirrors(v, nv)
			mirrorsSeen += len(ms)
			s.take(v)
			for _, u := range ms {
				s.take(u)
			}
			a := optOf()
			s.undoTo(0)
			for _, u := range nv {
				s.take(u)
			}
			b := optOf()
			s.undoTo(0)
			if min(a, b) != opt {
				t.Fatalf("seed %d v=%d mirrors %v: branches give %d and %d, optimum %d", seed, v, ms, a, b, opt)
			}
			if s.unconfined(v) {
				unconfinedSeen++
				s.take(v)
				if got := optOf(); got != opt {
					t.Fatalf("seed %d: %d unconfined but taking it gives %d, optimum %d", seed, v, got, opt)
				}
				s.undoTo(0)
			}
		}
	}
	if mirrorsSeen == 0 || unconfinedSeen == 0 {
		t.Fatalf("mirrors %d, unconfined %d: the test exercised nothing", mirrorsSeen, unconfinedSeen)
	}
	t.Logf("%d mirrors, %d unconfined vertices checked", mirrorsSeen, unconfinedSeen)
}

func TestUnconfinedCases(t *testing.T) {
	star := fromEdges(t, 4, [][2]int{{0, 1}, {0, 2}, {0, 3}})
	s := newState(star)
	if !s.unconfined(0) {
		t.Error("star centre should be unconfined")
	}
	if s.unconfined(1) {
		t.Error("star leaf should be confined")
	}
}

// TestDeterministicOneThread: one thread gives the same cover and node
// count every time (the device engine is checked against this).
func TestDeterministicOneThread(t *testing.T) {
	g := gnp(t, 70, 0.12, 99)
	var first Result
	for i := 0; i < 3; i++ {
		res, err := Solve(t.Context(), g, Options{Threads: 1, LocalSearch: -1})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = res
			continue
		}
		if res.Nodes != first.Nodes || !slices.Equal(res.Cover, first.Cover) {
			t.Fatalf("run %d: %d nodes cover %v; first run %d nodes cover %v", i, res.Nodes, res.Cover, first.Nodes, first.Cover)
		}
	}
	if first.Nodes == 0 {
		t.Fatal("solved at the root: the test exercises no search")
	}
}

// TestUnitPropagationBound: the clique cover bound raised by unit
// propagation never exceeds the optimum, and does raise it sometimes.
func TestUnitPropagationBound(t *testing.T) {
	raised := 0
	for seed := uint64(0); seed < 300; seed++ {
		g := gnp(t, 16, 0.15+float64(seed%6)*0.08, seed+7000)
		s := newState(g)
		s.degreeOrder()
		order := s.cc.order
		lb := s.cliqueCover(order)
		extra := s.upBound(1 << 20)
		s.clearCliques(order)
		if opt := bruteMin(g); lb+extra > opt {
			t.Fatalf("seed %d: clique cover %d + %d from propagation > optimum %d", seed, lb, extra, opt)
		}
		if extra > 0 {
			raised++
		}
		// The scratch state is clean for the next use.
		if again := s.cliqueCoverBound(order); again != lb {
			t.Fatalf("seed %d: bound %d then %d", seed, lb, again)
		}
	}
	if raised == 0 {
		t.Fatal("unit propagation never raised the bound: the test exercises nothing")
	}
	t.Logf("raised on %d of 300 graphs", raised)
}

// TestFunnelPreservesOptimum applies the funnel rule alone wherever it
// fits on random graphs: the optimum drops by exactly one, an optimal
// cover of the smaller graph resolves to an optimal cover of the input,
// and undo restores the graph.
func TestFunnelPreservesOptimum(t *testing.T) {
	funnels := 0
	for seed := uint64(0); seed < 400; seed++ {
		n := 8 + int(seed%10)
		g := gnp(t, n, 0.12+float64(seed%4)*0.06, seed+11000)
		want := bruteMin(g)
		s := newState(g)
		before := takeSnap(s)
		for v := int32(0); v < int32(n); v++ {
			if !s.alive[v] || s.deg[v] != 3 || !s.tryFunnel(v) {
				continue
			}
			funnels++
			checkDegrees(t, s)
			checkReduced(t, g, s, want, fmt.Sprintf("seed %d, after funnels", seed))
		}
		s.undoTo(0)
		sameSnap(t, "undo funnels", before, takeSnap(s))
	}
	if funnels < 50 {
		t.Fatalf("only %d funnels: the test exercises too little", funnels)
	}
	t.Logf("%d funnels", funnels)
}

// TestMergeSingles: the clique cover after bitMergeSingles is still a
// partition into cliques, its bound (and unit propagation on it) stays
// at or below the optimum, and it does lower the clique count sometimes.
func TestMergeSingles(t *testing.T) {
	merged := 0
	for seed := uint64(0); seed < 400; seed++ {
		n := 12 + int(seed%8)
		g := gnp(t, n, 0.1+float64(seed%5)*0.07, seed+12000)
		opt := bruteMin(g)
		s := newState(g)
		s.degreeOrder()
		order := s.cc.order
		lb := s.cliqueCover(order)
		gained := s.bitMergeSingles(order)
		merged += gained
		members := map[int32][]int32{}
		for _, v := range order {
			q := s.cc.clique[v]
			members[q] = append(members[q], v)
		}
		for q, m := range members {
			if int(s.cc.size[q]) != len(m) {
				t.Fatalf("seed %d: clique %d size %d, %d members", seed, q, s.cc.size[q], len(m))
			}
			if !s.isClique(m) {
				t.Fatalf("seed %d: clique %d = %v is not a clique", seed, q, m)
			}
		}
		if len(order)-len(members) != lb+gained {
			t.Fatalf("seed %d: %d vertices in %d cliques, bound %d+%d", seed, len(order), len(members), lb, gained)
		}
		extra := s.upBound(1 << 20)
		s.clearCliques(order)
		if lb+gained+extra > opt {
			t.Fatalf("seed %d: clique cover %d + %d merged + %d propagated > optimum %d", seed, lb, gained, extra, opt)
		}
	}
	if merged == 0 {
		t.Fatal("nothing merged: the test exercises nothing")
	}
	t.Logf("%d cliques merged", merged)
}

// TestInheritedCover: a clique cover saved at a node (prunePart) and
// inherited after random branching ops and the reductions (folds and
// funnels included) is still a partition of the live vertices into
// cliques, and its bound, merged and propagated, stays at or below the
// optimum of the graph then.
func TestInheritedCover(t *testing.T) {
	checked := 0
	bounded := 0
	for seed := uint64(0); seed < 1000; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		n := 26 + int(seed%6)
		g := gnp(t, n, 0.18+float64(seed%4)*0.04, seed+13000)
		s := newState(g)
		save := make([]int32, n+1)
		var inherit []int32
		s.queueAll()
		s.reduce(noBudget)
		for step := 0; step < 8 && s.m > 0; step++ {
			if s.prunePart(1<<40, inherit, save) {
				t.Fatalf("seed %d: pruned against an unreachable incumbent", seed)
			}
			inherit = slices.Clone(save)
			randomBranch(s, r)
			if s.m == 0 {
				break
			}
			s.degreeOrder()
			order := s.cc.order
			lb := s.inheritCover(order, inherit)
			members := map[int32][]int32{}
			for _, x := range order {
				members[s.cc.clique[x]] = append(members[s.cc.clique[x]], x)
			}
			for q, m := range members {
				if !s.isClique(m) {
					t.Fatalf("seed %d step %d: inherited clique %d = %v is not a clique", seed, step, q, m)
				}
			}
			lb += s.bitMergeSingles(order) + s.bitMergePairs(order)
			lb += s.upBound(1 << 20)
			s.clearCliques(order)
			checked++
			if s.nAlive > 20 {
				continue
			}
			kg, _ := s.extract(nil)
			if opt := bruteMin(kg); lb > opt {
				t.Fatalf("seed %d step %d: inherited bound %d above the optimum %d", seed, step, lb, opt)
			}
			bounded++
		}
	}
	if checked < 300 || bounded < 100 {
		t.Fatalf("only %d inherited covers checked, %d against the optimum", checked, bounded)
	}
	t.Logf("%d inherited covers checked, %d against the optimum", checked, bounded)
}

// TestForcedVertices: every vertex upBound forces (cc.forced) is in every
// cover of the live graph below the incumbent, checked by brute force
// (a cover without v holds N(v) and covers the graph less N[v]) on small
// states after random branching, with incumbents one and two above the
// optimum (so that covers below them exist).
func TestForcedVertices(t *testing.T) {
	checked := 0
	for seed := uint64(0); seed < 600; seed++ {
		r := rand.New(rand.NewPCG(seed, 9))
		n := 22 + int(seed%8)
		g := gnp(t, n, 0.12+float64(seed%5)*0.03, seed+17000)
		s := newState(g)
		save := make([]int32, n+1)
		s.queueAll()
		s.reduce(noBudget)
		for step := 0; step < 6 && s.m > 0; step++ {
			kg, _ := s.extract(nil)
			if kg.N <= 24 {
				opt := bruteMin(kg)
				for _, delta := range []int{1, 2} {
					best := int64(s.cover + opt + delta)
					if s.prunePart(best, nil, save) {
						t.Fatalf("seed %d step %d: pruned with a cover of %d below the incumbent %d", seed, step, s.cover+opt, best)
					}
					for _, v := range s.cc.forced {
						deg := len(s.liveNeighbors(v, nil))
						rest, _ := s.extract(func(u int32) bool { return u != v && !s.adjacent(u, v) })
						if without := deg + bruteMin(rest); s.cover+without < int(best) {
							t.Fatalf("seed %d step %d: %d forced, but a cover of %d < %d leaves it out", seed, step, v, s.cover+without, best)
						}
						checked++
					}
				}
			}
			randomBranch(s, r)
		}
	}
	if checked < 50 {
		t.Fatalf("only %d forced vertices checked", checked)
	}
	t.Logf("%d forced vertices checked", checked)
}
