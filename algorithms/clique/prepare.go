package clique

import (
	"math/bits"

	"github.com/arbor-gpu/arbor/core"
)

// problem is the renumbered graph every worker searches.
type problem struct {
	n, words int
	// adj holds row v at adj[v*words:(v+1)*words]; vertex i is the i-th of
	// the search order, input vertex order[i].
	adj   []uint64
	order []int
	// ub is the root bound: the smaller of the degeneracy bound
	// (maxcore+1) and a greedy colouring's colour count.
	ub int
	// init is the heuristic clique (search numbering) the search starts
	// from.
	init []int32
	opts Options
}

func (p *problem) row(v int) []uint64 { return p.adj[v*p.words : (v+1)*p.words] }

// newProblem builds the bit matrix of g (or of its complement), orders the
// vertices and finds the first incumbent.
func newProblem(g *core.Graph, opts Options) *problem {
	n := g.N
	words := (n + 63) / 64
	in := make([]uint64, n*words)
	for u := 0; u < n; u++ {
		for _, v := range g.Neighbors(u) {
			if int(v) != u {
				// Either arc makes the pair adjacent.
				in[u*words+int(v)>>6] |= 1 << (uint(v) & 63)
				in[int(v)*words+u>>6] |= 1 << (uint(u) & 63)
			}
		}
	}
	if opts.Complement {
		for u := 0; u < n; u++ {
			row := in[u*words : (u+1)*words]
			for i := range row {
				row[i] = ^row[i]
			}
			if r := n & 63; r != 0 {
				row[words-1] &= 1<<uint(r) - 1
			}
			row[u>>6] &^= 1 << (uint(u) & 63)
		}
	}
	order, ub := peel(in, n, words)
	pos := make([]int, n)
	for i, v := range order {
		pos[v] = i
	}
	adj := make([]uint64, n*words)
	for i, v := range order {
		src := in[v*words : (v+1)*words]
		dst := adj[i*words : (i+1)*words]
		for wi, w := range src {
			for w != 0 {
				b := bits.TrailingZeros64(w)
				w &= w - 1
				u := pos[wi<<6|b]
				dst[u>>6] |= 1 << (uint(u) & 63)
			}
		}
	}
	p := &problem{n: n, words: words, adj: adj, order: order, ub: ub, opts: opts}
	p.ub = min(p.ub, p.colours())
	if opts.UpperBound > 0 {
		p.ub = min(p.ub, opts.UpperBound)
	}
	p.init = p.greedy()
	if len(opts.Initial) > len(p.init) {
		p.init = p.init[:0]
		for _, v := range opts.Initial {
			p.init = append(p.init, int32(pos[v]))
		}
	}
	return p
}

// colours is the number of colours of a greedy sequential colouring of the
// whole graph in search order: a bound on the clique number that, unlike
// the degeneracy bound, is tight on complements of sparse graphs (where a
// caller such as vertex cover wants the bound when the search is stopped).
func (p *problem) colours() int {
	q := make([]uint64, p.words)
	r := make([]uint64, p.words)
	for v := 0; v < p.n; v++ {
		q[v>>6] |= 1 << (uint(v) & 63)
	}
	k := 0
	for lo := 0; lo < p.words; lo = firstNonZero(q, lo) {
		k++
		copy(r[lo:], q[lo:])
		for wi := lo; wi < p.words; wi++ {
			for r[wi] != 0 {
				b := bits.TrailingZeros64(r[wi])
				r[wi] &^= 1 << uint(b)
				q[wi] &^= 1 << uint(b)
				row := p.row(wi<<6 | b)
				for j := wi; j < p.words; j++ {
					r[j] &^= row[j]
				}
			}
		}
	}
	return k
}

// peel returns a minimum-width (degeneracy) order, the vertex peeled last
// first, and the degeneracy bound max core + 1. It is the bucket algorithm
// of Batagelj and Zaversnik over the bit matrix: O(n²/64 + m).
func peel(adj []uint64, n, words int) ([]int, int) {
	if n == 0 {
		return nil, 0
	}
	deg := make([]int, n)
	for v := 0; v < n; v++ {
		for _, w := range adj[v*words : (v+1)*words] {
			deg[v] += bits.OnesCount64(w)
		}
	}
	vert, degeneracy := core.Peel(deg, func(v int, visit func(u int)) {
		for wi, w := range adj[v*words : (v+1)*words] {
			for w != 0 {
				b := bits.TrailingZeros64(w)
				w &= w - 1
				visit(wi<<6 | b)
			}
		}
	})
	order := make([]int, n)
	for i, v := range vert {
		order[n-1-i] = int(v)
	}
	return order, degeneracy + 1
}

// greedy returns a large clique found fast: the longest prefix of the
// order that is a clique (the core peeled last is often one), then, from
// each of the first vertices of the order, repeatedly adding the candidate
// with the most candidate neighbours. The work is capped (about 2^26
// word operations) so that huge sparse graphs do not pay n greedy runs.
func (p *problem) greedy() []int32 {
	var best []int32
	for v := 0; v < p.n; v++ {
		ok := true
		for _, u := range best {
			if !has(p.row(v), int(u)) {
				ok = false
				break
			}
		}
		if !ok {
			break
		}
		best = append(best, int32(v))
	}
	if len(best) >= p.ub {
		return best
	}
	cand := make([]uint64, p.words)
	var cur []int32
	budget := int64(1) << 26
	for s := 0; s < p.n && budget > 0 && len(best) < p.ub; s++ {
		copy(cand, p.row(s))
		cur = append(cur[:0], int32(s))
		for {
			pick, most := -1, -1
			for wi, w := range cand {
				for w != 0 {
					b := bits.TrailingZeros64(w)
					w &= w - 1
					v := wi<<6 | b
					c := andCount(cand, p.row(v))
					budget -= int64(p.words)
					if c > most {
						pick, most = v, c
					}
				}
			}
			if pick < 0 {
				break
			}
			cur = append(cur, int32(pick))
			and(cand, cand, p.row(pick))
		}
		if len(cur) > len(best) {
			best = append(best[:0:0], cur...)
		}
	}
	return best
}

func has(b []uint64, i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }

// and sets dst = a ∧ b and reports whether the result is non-empty.
func and(dst, a, b []uint64) bool {
	var any uint64
	for i := range dst {
		dst[i] = a[i] & b[i]
		any |= dst[i]
	}
	return any != 0
}

func andCount(a, b []uint64) int {
	c := 0
	for i := range a {
		c += bits.OnesCount64(a[i] & b[i])
	}
	return c
}
