package vertexcover

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/arbor-gpu/arbor/core"
)

// bruteMinClauses is the smallest cover of g that leaves, for every
// clause, at least one member out (n ≤ 20); g.N+1 when there is none.
func bruteMinClauses(g *core.Graph, clauses [][]int32) int {
	n := g.N
	adj := make([]uint32, n)
	for v := 0; v < n; v++ {
		for _, u := range g.Neighbors(v) {
			adj[v] |= 1 << uint(u)
		}
	}
	masks := make([]uint32, len(clauses))
	for i, c := range clauses {
		for _, v := range c {
			masks[i] |= 1 << uint(v)
		}
	}
	best := n + 1
next:
	for s := uint32(0); s < 1<<uint(n); s++ {
		c := bits.OnesCount32(s)
		if c >= best {
			continue
		}
		for _, m := range masks {
			if s&m == m {
				continue next
			}
		}
		for v := 0; v < n; v++ {
			if s&(1<<uint(v)) == 0 && adj[v]&^s != 0 {
				continue next
			}
		}
		best = c
	}
	return best
}

// TestClauseBound: with hard clauses ("one of these is in the
// independent set"), the clique cover bound raised by unit propagation
// never exceeds the smallest cover that satisfies them (brute force), a
// node with such a cover below the incumbent is never pruned, and every
// vertex the bound forces is in each such cover below the incumbent. The
// clauses do raise the bound on some graphs.
func TestClauseBound(t *testing.T) {
	raised, forced := 0, 0
	for seed := uint64(0); seed < 400; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		n := 10 + int(seed%7)
		g := gnp(t, n, 0.12+float64(seed%6)*0.06, seed+31000)
		var cls [][]int32
		for range 1 + r.IntN(5) {
			k := 2 + r.IntN(2)
			c := make([]int32, 0, k)
			for _, v := range r.Perm(n)[:k] {
				c = append(c, int32(v))
			}
			cls = append(cls, c)
		}
		s := newState(g)
		fill := func() {
			for _, c := range cls {
				s.cc.hard.add(c)
			}
		}
		s.degreeOrder()
		order := s.cc.order
		lb := s.cliqueCover(order)
		plain := s.upBound(1 << 20)
		s.clearCliques(order)
		s.cc.hardFill = fill
		s.degreeOrder()
		lb2 := s.cliqueCover(order)
		withH := s.upBound(1 << 20)
		s.clearCliques(order)
		opt := bruteMinClauses(g, cls)
		if lb2+withH > opt {
			t.Fatalf("seed %d: bound %d + %d with clauses %v > optimum %d under them", seed, lb2, withH, cls, opt)
		}
		if lb2+withH > lb+plain {
			raised++
		}
		if opt > n {
			continue
		}
		for _, delta := range []int{1, 2} {
			best := int64(opt + delta)
			if s.prunePart(best, nil, nil) {
				t.Fatalf("seed %d: pruned with a cover of %d under clauses %v below the incumbent %d", seed, opt, cls, best)
			}
			for _, v := range s.cc.forced {
				if out := bruteMinOut(g, cls, v); out < int(best) {
					t.Fatalf("seed %d: %d forced under clauses %v, but a cover of %d < %d leaves it out", seed, v, cls, out, best)
				}
				forced++
			}
		}
		s.cc.hardFill = nil
	}
	// 73 here; 61 without clause units, 23 without clause conflicts
	// (mutations)
	if raised < 66 || forced < 100 {
		t.Fatalf("clauses raised the bound on %d graphs, forced %d vertices: the test exercises too little", raised, forced)
	}
	t.Logf("raised on %d of 400 graphs, %d forced vertices checked", raised, forced)
}

// bruteMinOut is the smallest cover satisfying clauses that leaves v out.
func bruteMinOut(g *core.Graph, clauses [][]int32, v int32) int {
	// v out of the cover: a clause {v} is exactly that constraint.
	return bruteMinClauses(g, append(clauses[:len(clauses):len(clauses)], []int32{v}))
}
