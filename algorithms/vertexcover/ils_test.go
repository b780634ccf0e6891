package vertexcover

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// TestILSBrute: on random graphs of up to 16 vertices (half of them with
// a clique partition for the defect perturbations) every cover the ILS
// reports is a cover, none is below the brute-force optimum, and within
// a few thousand iterations it reaches it (with the optimum as target it
// stops there).
func TestILSBrute(t *testing.T) {
	missed := 0
	for seed := uint64(1); seed <= 120; seed++ {
		n := 6 + int(seed%11)
		g := gnp(t, n, []float64{0.15, 0.3, 0.5}[seed%3], seed)
		opt := bruteMin(g)
		var stop atomic.Bool
		reports := 0
		var part []int32
		k := 0
		if seed%2 == 0 {
			part, k = bestPartition(g)
		}
		best := ilsSearch(g, part, k, opt, time.Now().Add(200*time.Millisecond), &stop, seed, nil, nil, func(c []bool, size int) {
			reports++
			checkILSCover(t, g, c, size, opt)
		})
		size := 0
		for _, x := range best {
			if x {
				size++
			}
		}
		checkILSCover(t, g, best, size, opt)
		if size != opt {
			missed++
		}
	}
	if missed > 0 {
		t.Fatalf("the ILS missed the optimum on %d of 120 small graphs", missed)
	}
}

func checkILSCover(t *testing.T, g *core.Graph, c []bool, size, opt int) {
	t.Helper()
	if err := Verify(g, coverList(c)); err != nil {
		t.Fatal(err)
	}
	if len(coverList(c)) != size {
		t.Fatalf("reported size %d, cover has %d", size, len(coverList(c)))
	}
	if size < opt {
		t.Fatalf("cover of %d below the optimum %d", size, opt)
	}
}

func coverList(c []bool) []int {
	var out []int
	for v, x := range c {
		if x {
			out = append(out, v)
		}
	}
	return out
}

// TestILSInvariants runs many iterations on a sparse random graph and
// checks, after every local search, what the ILS keeps incrementally
// against a recount: each vertex's neighbours in S, the free list (every
// vertex outside S with none, and only those), and that no (1,2)-swap is
// left at a vertex the perturbation did not just force. Undoing an
// iteration restores S exactly (and the counts with it).
func TestILSInvariants(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		g := gnp(t, 400, 0.01, seed)
		s := newILS(g, seed)
		if seed != 1 {
			s.setPartition(bestPartition(g))
		}
		all := make([]bool, g.N)
		for v := range all {
			all[v] = true
		}
		s.jump(all)
		s.localSearch()
		for it := 0; it < 3000; it++ {
			saved := append([]bool(nil), s.inS...)
			s.log = s.log[:0]
			s.perturb()
			s.localSearch()
			checkILSState(t, s, true)
			if it%3 == 0 {
				s.undo()
				for v := range saved {
					if saved[v] != s.inS[v] {
						t.Fatalf("seed %d iteration %d: undo left vertex %d changed", seed, it, v)
					}
				}
				checkILSState(t, s, false)
			}
		}
	}
}

func checkILSState(t *testing.T, s *ils, settled bool) {
	t.Helper()
	g := s.g
	size := 0
	for v := 0; v < g.N; v++ {
		tight := int32(0)
		for _, u := range g.Neighbors(v) {
			if s.inS[u] {
				tight++
			}
		}
		if s.inS[v] {
			size++
			if tight != 0 {
				t.Fatalf("S is not independent at %d", v)
			}
		}
		if tight != s.tight[v] {
			t.Fatalf("tight[%d] = %d, recount %d", v, s.tight[v], tight)
		}
		free := !s.inS[v] && tight == 0
		if free != (s.free.has(int32(v))) {
			t.Fatalf("vertex %d: free %v, in the free list %v", v, free, s.free.has(int32(v)))
		}
		if free && settled {
			t.Fatalf("free vertex %d left after the local search", v)
		}
		if settled && s.inS[v] && !s.isForce[v] {
			nb := g.Neighbors(v)
			for i, a := range nb {
				for _, b := range nb[i+1:] {
					if s.tight[a] == 1 && s.tight[b] == 1 && !g.HasEdge(int(a), int(b)) {
						t.Fatalf("(1,2)-swap left at %d: %d and %d", v, a, b)
					}
				}
			}
		}
	}
	if size != s.size {
		t.Fatalf("size %d, recount %d", s.size, size)
	}
	if s.part != nil {
		in := make([]int32, len(s.inClique))
		for v, c := range s.part {
			if s.inS[v] {
				in[c]++
			}
		}
		defects := 0
		for c, x := range in {
			if x != s.inClique[c] {
				t.Fatalf("clique %d: %d in S kept, recount %d", c, s.inClique[c], x)
			}
			if x == 0 {
				defects++
				if !s.defects.has(int32(c)) {
					t.Fatalf("clique %d has no vertex in S but is not in the defect list", c)
				}
			}
		}
		if defects != len(s.defects.list) {
			t.Fatalf("%d defects listed, recount %d", len(s.defects.list), defects)
		}
	}
}

// TestILSTargetAndLatest: the search stops at its target, and goes on
// from a smaller cover that latest hands it.
func TestILSTargetAndLatest(t *testing.T) {
	g := gnp(t, 14, 0.3, 9)
	opt := bruteMin(g)
	var stop atomic.Bool
	start := time.Now()
	ilsSearch(g, nil, 0, opt, time.Now().Add(5*time.Second), &stop, 1, nil, nil, nil)
	if time.Since(start) > 2*time.Second {
		t.Fatalf("did not stop at the target %d", opt)
	}
	// A handed optimum cover becomes the result.
	var optCover []bool
	ilsSearch(g, nil, 0, opt, time.Now().Add(time.Second), &stop, 2, nil, nil, func(c []bool, size int) {
		if size == opt {
			optCover = append([]bool(nil), c...)
		}
	})
	got := ilsSearch(g, nil, 0, -1, time.Now().Add(100*time.Millisecond), &stop, 3, make([]bool, g.N), func(size int) []bool {
		if size > opt {
			return optCover
		}
		return nil
	}, nil)
	if n := len(coverList(got)); n != opt {
		t.Fatalf("with the optimum handed in, the result has %d (optimum %d)", n, opt)
	}
}
