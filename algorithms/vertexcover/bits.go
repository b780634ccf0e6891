package vertexcover

import "math/bits"

// maxBitsetVertices is the largest state that also keeps its adjacency as
// bitsets (words per vertex = ⌈n/64⌉, so at most 8 words per test). The
// PACE 2019 kernels this is for have 195–200 vertices: 4 words.
const maxBitsetVertices = 512

// bitAdj is the adjacency of a small state as one bitset per vertex,
// maintained beside the lists: bit u of row v is set when u is in adj[v]
// (dead or alive), and alive is the bitset of live vertices. It turns the
// subset tests of domination and of the clique cover, and the
// connectivity test, into a few word operations per vertex instead of a
// walk over adjacency lists full of dead entries.
type bitAdj struct {
	w     int      // words per row
	rows  []uint64 // n rows of w words
	alive []uint64
	// scratch rows
	tmp, seen []uint64
	cl        []uint64 // clique cover: one row per clique
}

// bitHas reports whether bit v of set is set.
func bitHas(set []uint64, v int32) bool { return set[v>>6]&(1<<(uint(v)&63)) != 0 }

func newBitAdj(n int) *bitAdj {
	w := (n + 63) / 64
	return &bitAdj{w: w, rows: make([]uint64, n*w), alive: make([]uint64, w), tmp: make([]uint64, w), seen: make([]uint64, w)}
}

func (b *bitAdj) row(v int32) []uint64 {
	o := int(v) * b.w
	return b.rows[o : o+b.w : o+b.w]
}

func (b *bitAdj) set(v, u int32)   { b.rows[int(v)*b.w+int(u>>6)] |= 1 << (uint(u) & 63) }
func (b *bitAdj) unset(v, u int32) { b.rows[int(v)*b.w+int(u>>6)] &^= 1 << (uint(u) & 63) }

func (b *bitAdj) setAlive(v int32, on bool) {
	if on {
		b.alive[v>>6] |= 1 << (uint(v) & 63)
	} else {
		b.alive[v>>6] &^= 1 << (uint(v) & 63)
	}
}

// bitDominator is state.dominator on bitsets: the first live neighbour u
// of v in adj[v] order with N[v] ⊆ N[u] (which implies deg(u) ≥ deg(v)).
// Those u are exactly ∩_{x ∈ N[v]} N[x] minus v, so the rows of v's
// neighbours are intersected first, stopping as soon as the intersection
// holds v alone: on sparse graphs after one or two rows, without reading
// a list. Only when a dominator exists is adj[v] walked, to return the
// same one the list version finds.
func (s *state) bitDominator(v int32) int32 {
	b := s.bits
	nv, res := b.tmp, b.seen
	rv := b.row(v)
	for i := range nv {
		nv[i] = rv[i] & b.alive[i]
		res[i] = nv[i]
	}
	// res starts as N(v) and keeps the u ∈ N[x] for every x ∈ N(v); v
	// itself is adjacent to all of them, so it need not be tested.
	for i, x := range nv {
		for x != 0 {
			t := bits.TrailingZeros64(x)
			x &= x - 1
			ru := b.row(int32(i*64 + t))
			var left uint64
			for j := range res {
				m := ru[j]
				if j == i {
					m |= 1 << uint(t) // u ∈ N[u]
				}
				res[j] &= m
				left |= res[j]
			}
			if left == 0 {
				return -1
			}
		}
	}
	for _, u := range s.adj[v] {
		if s.alive[u] && bitHas(res, u) {
			return u
		}
	}
	return -1
}

// bitConnected reports whether the live graph (nAlive ≥ 1 vertices) is
// connected: a search that expands each reached vertex by one masked
// row OR per word.
func (s *state) bitConnected(first int32, queue []int32) (bool, []int32) {
	b := s.bits
	seen := b.seen
	clear(seen)
	seen[first>>6] |= 1 << (uint(first) & 63)
	queue = append(queue[:0], first)
	for h := 0; h < len(queue); h++ {
		r := b.row(queue[h])
		for i, x := range r {
			x &= b.alive[i] &^ seen[i]
			if x == 0 {
				continue
			}
			seen[i] |= x
			for x != 0 {
				t := bits.TrailingZeros64(x)
				x &= x - 1
				queue = append(queue, int32(i*64+t))
			}
		}
	}
	return len(queue) == s.nAlive, queue
}

// bitCliqueCover is cliqueCover with each clique's members kept as a
// bitset: v may join clique q when q's row minus v's row is empty, one
// test per clique instead of counting hits over all of v's list entries.
// Cliques are tried in the order their first member appears in adj[v],
// and the first of the largest wins, as in the list version (a clique met
// again is tested again, harmlessly: it cannot win twice).
func (s *state) bitCliqueCover(order []int32) int {
	c, b := &s.cc, s.bits
	if len(b.cl) < s.n*b.w {
		b.cl = make([]uint64, s.n*b.w)
	}
	w := b.w
	cliques := int32(0)
	for _, v := range order {
		rv := b.row(v)
		best, bs := int32(-1), int32(0)
		// Dead vertices have no clique (clearCliques resets every vertex
		// this assigns, all live): no alive test needed.
		for _, u := range s.adj[v] {
			q := c.clique[u]
			if q < 0 || c.size[q] <= bs {
				continue
			}
			cq := b.cl[int(q)*w : int(q)*w+w]
			full := true
			for i, x := range cq {
				if x&^rv[i] != 0 {
					full = false
					break
				}
			}
			if full {
				best, bs = q, c.size[q]
			}
		}
		if best < 0 {
			best = cliques
			c.size[best] = 0
			c.sum[best] = 0
			clear(b.cl[int(best)*w : int(best)*w+w])
			cliques++
		}
		c.clique[v] = best
		c.size[best]++
		c.sum[best] += v
		b.cl[int(best)*w+int(v>>6)] |= 1 << (uint(v) & 63)
	}
	c.k = int(cliques)
	return len(order) - int(cliques)
}

// bitDegreeOrder is degreeOrder reading the live vertices from the alive
// bitset (index order, so the same ties) in two passes instead of three
// over all n entries: the count array is kept at n+2 entries and cleared
// up to the largest degree seen.
func (s *state) bitDegreeOrder() {
	c, b := &s.cc, s.bits
	if cap(c.count) < s.n+2 {
		c.count = make([]int32, s.n+2)
	}
	cnt := c.count[:s.n+2]
	maxd := int32(0)
	for i, x := range b.alive {
		for x != 0 {
			v := i*64 + bits.TrailingZeros64(x)
			x &= x - 1
			d := s.deg[v]
			cnt[d+1]++
			maxd = max(maxd, d)
		}
	}
	for d := int32(1); d <= maxd+1; d++ {
		cnt[d] += cnt[d-1]
	}
	if cap(c.order) < s.nAlive {
		c.order = make([]int32, s.nAlive)
	}
	c.order = c.order[:s.nAlive]
	for i, x := range b.alive {
		for x != 0 {
			v := i*64 + bits.TrailingZeros64(x)
			x &= x - 1
			c.order[cnt[s.deg[v]]] = int32(v)
			cnt[s.deg[v]]++
		}
	}
	clear(cnt[:maxd+2])
}
