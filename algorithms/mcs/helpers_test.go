package mcs

import (
	"math/rand/v2"
	"testing"

	"github.com/arbor-gpu/arbor/core"
)

// randomGraph makes a G(n,p) graph; directed graphs get each arc with
// probability p. Vertex labels in [0,vl) and edge labels in [0,el) when
// those are positive; a self-loop on a vertex with probability loops.
func randomGraph(t testing.TB, rng *rand.Rand, n int, p float64, directed bool, vl, el int, loops float64) *core.Graph {
	t.Helper()
	b := core.NewBuilder(n, directed)
	b.HasEdgeLabels = el > 0
	b.AllowSelfLoops = loops > 0
	for u := 0; u < n; u++ {
		if rng.Float64() < loops {
			b.Add(core.Edge{U: int32(u), V: int32(u), Weight: 1})
		}
		start := u + 1
		if directed {
			start = 0
		}
		for v := start; v < n; v++ {
			if v == u || rng.Float64() >= p {
				continue
			}
			e := core.Edge{U: int32(u), V: int32(v), Weight: 1}
			if el > 0 {
				e.Label = int32(rng.IntN(el))
			}
			b.Add(e)
		}
	}
	if vl > 0 {
		b.VertexLabels = make([]int32, n)
		for i := range b.VertexLabels {
			b.VertexLabels[i] = int32(rng.IntN(vl))
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// bruteForce returns the size of a maximum common induced subgraph by
// trying every partial injection, vertex by vertex of g, with a simple
// bound. It checks compatibility through Verify's relation, so it shares
// no code with the search.
func bruteForce(g, h *core.Graph, opts Options) int {
	best := 0
	var mapping [][2]int
	usedH := make([]bool, h.N)
	var rec func(u int)
	rec = func(u int) {
		if len(mapping)+(g.N-u) <= best {
			return
		}
		if u == g.N {
			if opts.Connected && Verify(g, h, mapping, opts) != nil {
				return
			}
			best = len(mapping)
			return
		}
		for x := 0; x < h.N; x++ {
			if usedH[x] {
				continue
			}
			mapping = append(mapping, [2]int{u, x})
			if compatible(g, h, mapping, opts) {
				usedH[x] = true
				rec(u + 1)
				usedH[x] = false
			}
			mapping = mapping[:len(mapping)-1]
		}
		rec(u + 1)
	}
	rec(0)
	return best
}

// compatible checks the last pair of mapping against the others.
func compatible(g, h *core.Graph, mapping [][2]int, opts Options) bool {
	k := len(mapping) - 1
	u, x := mapping[k][0], mapping[k][1]
	if opts.VertexLabels && vlabel(g, u) != vlabel(h, x) {
		return false
	}
	if g.HasEdge(u, u) != h.HasEdge(x, x) {
		return false
	}
	for _, m := range mapping[:k] {
		if relation(g, m[0], u, opts) != relation(h, m[1], x, opts) {
			return false
		}
	}
	return true
}

// refBidomain and refSearch follow the original program's structure
// literally: a fresh bidomain list per call, a linear search for the
// smallest left vertex, w found by "next smallest above the last", and
// real recursion for the unmatched branch. They share only the prepared
// matrices with the engine, so node counts compare the engine's shortcuts
// (cached splits, cached minima, the loop for the tail call) with it.
type refBidomain struct {
	l, r, ll, rl int
	adj          bool
}

type refSearch[C cell] struct {
	p           *problem[C]
	left, right []int
	inc, cur    []pair
	nodes       int64
}

func (s *refSearch[C]) run() (int, int64) {
	for _, x := range s.p.left {
		s.left = append(s.left, int(x))
	}
	for _, x := range s.p.right {
		s.right = append(s.right, int(x))
	}
	var doms []refBidomain
	for _, d := range s.p.doms {
		doms = append(doms, refBidomain{int(d.l), int(d.r), int(d.ll), int(d.rl), false})
	}
	if s.p.opts.BigFirst {
		l0, r0 := append([]int(nil), s.left...), append([]int(nil), s.right...)
		for goal := s.p.n0; goal >= 1; goal-- {
			copy(s.left, l0)
			copy(s.right, r0)
			s.solve(append([]refBidomain(nil), doms...), goal)
			if len(s.inc) == goal {
				break
			}
		}
	} else {
		s.solve(doms, 1)
	}
	return len(s.inc), s.nodes
}

func (s *refSearch[C]) minLeft(d refBidomain) int {
	m := 1 << 30
	for _, x := range s.left[d.l : d.l+d.ll] {
		m = min(m, x)
	}
	return m
}

func (s *refSearch[C]) solve(doms []refBidomain, goal int) {
	s.nodes++
	if len(s.cur) > len(s.inc) {
		s.inc = append(s.inc[:0], s.cur...)
	}
	bound := len(s.cur)
	for _, d := range doms {
		bound += min(d.ll, d.rl)
	}
	if bound <= len(s.inc) || bound < goal {
		return
	}
	if s.p.opts.BigFirst && len(s.inc) == goal {
		return
	}
	best, bestSize, bestTie := -1, 1<<30, 1<<30
	for i, d := range doms {
		if s.p.opts.Connected && len(s.cur) > 0 && !d.adj {
			continue
		}
		size := max(d.ll, d.rl)
		if s.p.opts.Heuristic == MinProduct {
			size = d.ll * d.rl
		}
		if size < bestSize {
			best, bestSize, bestTie = i, size, s.minLeft(d)
		} else if size == bestSize {
			if tie := s.minLeft(d); tie < bestTie {
				best, bestTie = i, tie
			}
		}
	}
	if best < 0 {
		return
	}
	bd := &doms[best]
	v := s.minLeft(*bd)
	for i := bd.l; ; i++ {
		if s.left[i] == v {
			s.left[i], s.left[bd.l+bd.ll-1] = s.left[bd.l+bd.ll-1], s.left[i]
			break
		}
	}
	bd.ll--
	bd.rl--
	w := -1
	for range bd.rl + 1 {
		idx, smallest := -1, 1<<30
		for i := bd.r; i <= bd.r+bd.rl; i++ {
			if x := s.right[i]; x > w && x < smallest {
				idx, smallest = i, x
			}
		}
		w = smallest
		s.right[idx], s.right[bd.r+bd.rl] = s.right[bd.r+bd.rl], w
		next := s.filter(doms, v, w)
		s.cur = append(s.cur, pair{int32(v), int32(w)})
		s.solve(next, goal)
		s.cur = s.cur[:len(s.cur)-1]
	}
	bd.rl++
	if bd.ll == 0 {
		doms[best] = doms[len(doms)-1]
		doms = doms[:len(doms)-1]
	}
	s.solve(doms, goal)
}

func (s *refSearch[C]) filter(doms []refBidomain, v, w int) []refBidomain {
	p := s.p
	rowV := p.adj0[v*p.n0 : (v+1)*p.n0]
	rowW := p.adj1[w*p.n1 : (w+1)*p.n1]
	var out []refBidomain
	for _, d := range doms {
		// Group each side by matrix value, then pair equal groups.
		groupL := map[C][]int{}
		for _, x := range s.left[d.l : d.l+d.ll] {
			groupL[rowV[x]] = append(groupL[rowV[x]], x)
		}
		groupR := map[C][]int{}
		for _, x := range s.right[d.r : d.r+d.rl] {
			groupR[rowW[x]] = append(groupR[rowW[x]], x)
		}
		// Rewrite the ranges group by group, in key order.
		keys := make([]C, 0, len(groupL))
		for k := range groupL {
			keys = append(keys, k)
		}
		for i := 1; i < len(keys); i++ {
			for j := i; j > 0 && keys[j-1] > keys[j]; j-- {
				keys[j-1], keys[j] = keys[j], keys[j-1]
			}
		}
		li, ri := d.l, d.r
		for _, k := range keys {
			copy(s.left[li:], groupL[k])
			rs, ok := groupR[k]
			if ok {
				copy(s.right[ri:], rs)
				out = append(out, refBidomain{li, ri, len(groupL[k]), len(rs), k != 0 || d.adj})
				ri += len(rs)
				delete(groupR, k)
			}
			li += len(groupL[k])
		}
		for _, rs := range groupR {
			copy(s.right[ri:], rs)
			ri += len(rs)
		}
	}
	return out
}
