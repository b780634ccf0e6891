package vertexcover

import "math/bits"

// Fewer cliques in the clique cover (small states, on the bitsets): the
// greedy cover of cliqueCover leaves singletons {x} that a few moves can
// empty, each raising the bound by one. A move keeps every clique a
// clique, so the bound stays valid whatever moves are made or missed.

// augDepth bounds the chain of two-vertex cliques an absorption passes
// through. The seen marks bound the work already; 16 against 4: 4–8%
// fewer nodes on vc-exact_043, _083, _091, no slower.
const augDepth = 16

// cliqueRow is clique q's member bitset.
func (b *bitAdj) cliqueRow(q int32) []uint64 {
	return b.cl[int(q)*b.w : int(q)*b.w+b.w]
}

// seesClique reports whether v is adjacent to every member of clique q
// (v not in q).
func (s *state) seesClique(v, q int32) bool {
	b := s.bits
	rv := b.row(v)
	for i, x := range b.cliqueRow(q) {
		if x&^rv[i] != 0 {
			return false
		}
	}
	return true
}

func (s *state) moveToClique(v, from, to int32) {
	c, b := &s.cc, s.bits
	b.cl[int(from)*b.w+int(v>>6)] &^= 1 << (uint(v) & 63)
	b.cl[int(to)*b.w+int(v>>6)] |= 1 << (uint(v) & 63)
	c.clique[v] = to
	c.size[from]--
	c.size[to]++
	c.sum[from] -= v
	c.sum[to] += v
}

// partner is the member of two-vertex clique q that is not y.
func (s *state) partner(q, y int32) int32 { return s.cc.sum[q] - y }

// seesCliqueOf reports whether v is adjacent to every member of u's
// clique q (v not in q, u adjacent to v): for two members one bit test,
// of u's partner. freeClique and bitMergePairs, which call it for nearly
// every neighbour they walk, have it written out (it is too large to be
// inlined).
func (s *state) seesCliqueOf(v, q, u int32) bool {
	switch s.cc.size[q] {
	case 1:
		return true
	case 2:
		return s.hasEdge(v, s.partner(q, u))
	}
	return s.seesClique(v, q)
}

// reached reports whether u's clique was reached by the current absorption.
// A clique is not tried twice in one (as in a matching's augmenting-path
// search), which bounds its work by the adjacency it reaches. The marks
// are the members of the cliques reached, as a bitset (cc.augSeen): no
// clique changes during a search until it succeeds, so they stay those
// cliques, and freeClique masks them out of a row at once instead of
// looking up each neighbour's clique and its mark.
func (s *state) reached(u int32) bool { return bitHas(s.cc.augSeen, u) }

// markReached marks clique q as reached by the current absorption.
func (s *state) markReached(q int32) {
	seen := s.cc.augSeen
	for i, x := range s.bits.cliqueRow(q) {
		seen[i] |= x
	}
}

// freeClique moves z out of its two-vertex clique q: into a clique it sees
// entirely, or into the clique {u, u'} of a neighbour u whose partner u'
// is moved out in turn (depth more times).
func (s *state) freeClique(q, z int32, depth int) bool {
	c := &s.cc
	// The first pass also keeps the neighbours in two-vertex cliques, in
	// adj order, for the second: a walk over those instead of the whole
	// list again (half of its entries dead, most of the rest not in such
	// a clique). No clique changes until a search succeeds, so they stay
	// what the second walk would find; the seen marks, which do change,
	// are read when it gets to them.
	from := len(c.pairNbs)
	// z's live neighbours from the bitsets (index order), not adj[z]:
	// about 3% faster on vc-exact_091, within 0.5% of the nodes.
	// The cliques reached already (q among them) are masked out: a
	// two-vertex one would be skipped by the second walk as well.
	rz, seen := s.bits.row(z), c.augSeen
	for i, wd := range s.bits.alive {
		wd &= rz[i] &^ seen[i]
		for wd != 0 {
			u := int32(i*64 + bits.TrailingZeros64(wd))
			wd &= wd - 1
			r := c.clique[u]
			if r < 0 {
				continue
			}
			if c.size[r] == 2 && depth > 0 {
				c.pairNbs = append(c.pairNbs, u)
			}
			// A singleton {u} is seen (u is a neighbour): no row test.
			// seesCliqueOf(z, r, u) written out
			switch sz := c.size[r]; {
			case sz == 2:
				if p := c.sum[r] - u; !bitHas(rz, p) {
					continue
				}
			case sz > 2:
				if !s.seesClique(z, r) {
					continue
				}
			}
			c.pairNbs = c.pairNbs[:from]
			s.moveToClique(z, q, r)
			return true
		}
	}
	// Entries from..to are this call's; deeper calls push and pop above.
	to := len(c.pairNbs)
	for i := from; i < to; i++ {
		u := c.pairNbs[i]
		if s.reached(u) {
			continue
		}
		r := c.clique[u]
		s.markReached(r)
		if s.freeClique(r, s.partner(r, u), depth-1) {
			c.pairNbs = c.pairNbs[:from]
			s.moveToClique(z, q, r)
			return true
		}
	}
	c.pairNbs = c.pairNbs[:from]
	return false
}

// absorb empties the singleton clique {x}: x joins a clique it sees
// entirely (one formed after x was placed), or takes y from a two-vertex
// clique {y, z} whose z is moved out (freeClique). With cliques of two
// this is an augmenting path of the matching they form.
func (s *state) absorb(x int32, depth int) bool {
	c := &s.cc
	qx := c.clique[x]
	for _, y := range s.adj[x] {
		qy := c.clique[y]
		if qy < 0 || qy == qx || c.size[qy] == 0 {
			continue
		}
		if s.seesCliqueOf(x, qy, y) {
			s.moveToClique(x, qx, qy)
			return true
		}
	}
	clear(c.augSeen)
	s.markReached(qx)
	for _, y := range s.adj[x] {
		qy := c.clique[y]
		if qy < 0 || c.size[qy] != 2 || s.reached(y) {
			continue
		}
		s.markReached(qy)
		if s.freeClique(qy, s.partner(qy, y), depth) {
			s.moveToClique(x, qx, qy)
			return true
		}
	}
	return false
}

// bitMergeSingles absorbs the singleton cliques of the cover cliqueCover
// left where it can, and returns how many it emptied; the empty cliques
// keep their index (size 0). The singletons are taken in descending
// degree (order backwards), not ascending: the absorptions compete for
// the same two-vertex cliques, and which cover results is what the
// children inherit and unit propagation works on. Measured, 1 thread, no
// local search: vc-exact_091 97.8 k → 93.8 k nodes, _043 23.9 k → 22.4 k,
// _031 21.7 k → 20.7 k, _083 58.2 k → 57.3 k (ascending pairs as well
// was mixed: _091 95.2 k, _043 24.2 k).
func (s *state) bitMergeSingles(order []int32) int {
	c := &s.cc
	if len(c.augSeen) != s.bits.w {
		c.augSeen = make([]uint64, s.bits.w)
	}
	gained := 0
	for i := len(order) - 1; i >= 0; i-- {
		if x := order[i]; c.size[c.clique[x]] == 1 && s.absorb(x, augDepth) {
			gained++
		}
	}
	return gained
}

// bitMergePairs dissolves two-vertex cliques {x, z}: x joins a clique of
// two or more members it sees entirely, and the singleton {z} left is
// absorbed. It returns how many cliques it emptied.
//
// Singleton cliques {y} are not joined: bitMergeSingles has just tried to
// absorb y, and its search could take x from {x, z} and move z on, which
// is what joining {y} and absorbing z searches again. On vc-exact_091
// (1 thread, no local search) 51 k of the 135 k absorptions here were
// such, 6% of them succeeding (21% of the others); skipping them, and
// looking on for a larger clique x sees instead, left 117,365 → 117,292
// nodes and cut 35% of the absorptions.
func (s *state) bitMergePairs(order []int32) int {
	c := &s.cc
	gained := 0
next:
	for _, x := range order {
		qx := c.clique[x]
		if c.size[qx] != 2 {
			continue
		}
		// x's live neighbours from the bitsets, not adj[x] (half of
		// whose entries are dead here): nearly every x finds no clique to
		// join, so the whole row is read. 2–3% faster on vc-exact_091 and
		// _083 (1 thread, no local search); the order changes which
		// clique x joins first, within 0.1% of the nodes.
		rx := s.bits.row(x)
		for i, wd := range s.bits.alive {
			wd &= rx[i]
			for wd != 0 {
				y := int32(i*64 + bits.TrailingZeros64(wd))
				wd &= wd - 1
				r := c.clique[y]
				if r < 0 || r == qx {
					continue
				}
				// seesCliqueOf(x, r, y) written out, singletons skipped
				switch sz := c.size[r]; {
				case sz <= 1:
					continue
				case sz == 2:
					if p := c.sum[r] - y; !bitHas(rx, p) {
						continue
					}
				default:
					if !s.seesClique(x, r) {
						continue
					}
				}
				z := s.partner(qx, x)
				s.moveToClique(x, qx, r)
				if s.absorb(z, augDepth) {
					gained++
				} else {
					s.moveToClique(x, r, qx)
				}
				continue next
			}
		}
	}
	return gained
}
