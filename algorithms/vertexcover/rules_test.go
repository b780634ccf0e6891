package vertexcover

import (
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
