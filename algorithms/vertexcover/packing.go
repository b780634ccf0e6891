package vertexcover

import "math/bits"

// Packing constraints (after Akiba and Iwata, TCS 2016): each says that
// a cover worth finding in this subtree leaves at least one of a set of
// vertices out. Branching on v adds them:
//
//   - "v in the cover": not all of N(v) is in the cover as well, or
//     dropping v gives a smaller cover, found in the sibling;
//   - "N(v) in the cover": for each u ∈ N(v), not all of N(u) \ N[v] is
//     in the cover, or swapping u for v gives a cover of the same size
//     that holds v and not all of N(v), found in the first child.
//
// Why it is safe with the reductions and nested constraints: a cover T
// that violates a constraint made at node X maps (by the ops since X) to
// a cover of X's graph that is either smaller and lies in X's second
// child, or of the same size and lies in X's first child; either way it
// lies in a subtree entirely left of the current one or is smaller, so
// following such covers from the root ends at a leaf the search reaches.
// A member that leaves the graph without being taken (dropped, or folded
// away) satisfies the constraint; one whose id a fold reuses as the merged
// vertex no longer means the same vertex, which retires the constraint.
// Dropping a constraint only widens the search, so split components
// start without them; donated tasks carry the path's constraints (without
// them 2 threads searched 13% more nodes than one on vc-exact_031).
//
// At a node a constraint with every member taken prunes it; with one
// member left, that member is out of the cover (its neighbours are taken);
// and a vertex adjacent to every member left must be in the cover (else
// they all are).
type packing struct {
	start, end int32 // members in worker.packMem[start:end]
}

// addPacking pushes the constraint "not all of members in the cover"; the
// caller truncates w.pack and w.packMem to undo it.
func (w *worker) addPacking(members []int32) {
	s := w.s
	start := int32(len(w.packMem))
	for _, x := range members {
		w.packMem = append(w.packMem, x)
		w.packVer = append(w.packVer, s.folds[x])
	}
	w.pack = append(w.pack, packing{start, int32(len(w.packMem))})
}

// applyPacking checks every constraint on the path: false when one is
// violated; changed when it took or excluded vertices (then the
// reductions run again).
func (w *worker) applyPacking() (ok, changed bool) {
	s := w.s
	w.pair, w.pairScore = -1, -1<<20
	for len(w.packDone) < len(w.pack) {
		w.packDone = append(w.packDone, false)
	}
	for i := len(w.pack) - 1; i >= 0; i-- {
		if w.packDone[i] {
			continue
		}
		c := w.pack[i]
		left := w.packLeft[:0]
		done := false
		for j := c.start; j < c.end; j++ {
			x := w.packMem[j]
			switch {
			case s.folds[x] != w.packVer[j]:
				done = true
			case s.alive[x]:
				left = append(left, x)
			case !s.inCover[x]:
				done = true
			}
			if done {
				break
			}
		}
		w.packLeft = left[:0]
		if done {
			// Retired for the whole subtree (dead vertices stay dead and
			// fold counts only grow below this node): on vc-exact_091
			// four in five of the constraints on the path were.
			w.packDone[i] = true
			w.doneTrail = append(w.doneTrail, int32(i))
			continue
		}
		switch len(left) {
		case 0:
			return false, false
		case 1:
			// The last member stays out of the cover: take its
			// neighbours (the reductions then drop it).
			x := left[0]
			for _, u := range s.adj[x] {
				if s.alive[u] {
					s.take(u)
				}
			}
			return true, true
		}
		if u := s.commonNeighbor(left, w.packMem[c.start:c.end]); u >= 0 {
			s.take(u)
			return true, true
		}
		if len(left) <= 3 {
			// A constraint with two or three members left: branching on
			// its member of largest degree fixes much in both children
			// (out of the cover: its neighbours are taken; in: the
			// constraint shrinks, or forces the last member out).
			a := left[0]
			for _, y := range left[1:] {
				if s.deg[y] > s.deg[a] {
					a = y
				}
			}
			if score := s.deg[a] - 1000*int32(len(left)); score > w.pairScore {
				w.pair, w.pairScore = a, score
			}
		}
	}
	return true, false
}

// reviveTo clears the retired marks set since the trail had n entries:
// the constraints they name may be popped and their slots reused.
func (w *worker) reviveTo(n int) {
	for _, i := range w.doneTrail[n:] {
		w.packDone[i] = false
	}
	w.doneTrail = w.doneTrail[:n]
}

// commonNeighbor returns a live vertex outside members adjacent to every
// vertex of left, or -1.
func (s *state) commonNeighbor(left, members []int32) int32 {
	if b := s.bits; b != nil {
		// The candidates are ∩ N(y) over left, live, outside members:
		// a few word operations, and on most calls empty (then it stops
		// as soon as the intersection is, and the walk's x is not
		// needed). When not, the first of them in adj[x] order is the one
		// the walk below finds.
		res := b.tmp
		copy(res, b.alive)
		for _, y := range left {
			ry := b.row(y)
			var any uint64
			for i := range res {
				res[i] &= ry[i]
				any |= res[i]
			}
			if any == 0 {
				return -1
			}
		}
		var any uint64
		for _, y := range members {
			res[y>>6] &^= 1 << (uint(y) & 63)
		}
		for _, x := range res {
			any |= x
		}
		if any == 0 {
			return -1
		}
		x := s.minDegree(left)
		for _, u := range s.adj[x] {
			if bitHas(res, u) {
				return u
			}
		}
		return -1
	}
	x := s.minDegree(left)
	s.stamp++
	st := s.stamp
	for _, y := range members {
		s.mark[y] = st
	}
next:
	for _, u := range s.adj[x] {
		if !s.alive[u] || s.mark[u] == st || int(s.deg[u]) < len(left) {
			continue
		}
		for _, y := range left {
			if y != x && !s.hasEdge(u, y) {
				continue next
			}
		}
		return u
	}
	return -1
}

// minDegree is the first vertex of smallest degree in vs.
func (s *state) minDegree(vs []int32) int32 {
	x := vs[0]
	for _, y := range vs[1:] {
		if s.deg[y] < s.deg[x] {
			x = y
		}
	}
	return x
}

// hasEdge reports whether live vertices a and b are adjacent.
func (s *state) hasEdge(a, b int32) bool {
	if s.bits != nil {
		return s.bits.rows[int(a)*s.bits.w+int(b>>6)]&(1<<(uint(b)&63)) != 0
	}
	return s.adjacent(a, b)
}

// branchVertex is a maximum-degree vertex with the fewest edges among its
// neighbours (Akiba and Iwata's tie-break), smallest index on ties.
func (s *state) branchVertex() int32 {
	bd := int32(-1)
	for v := 0; v < s.n; v++ {
		if s.alive[v] && s.deg[v] > bd {
			bd = s.deg[v]
		}
	}
	best, be := int32(-1), 1<<30
	for v := 0; v < s.n; v++ {
		if !s.alive[v] || s.deg[v] != bd {
			continue
		}
		e := s.neighborEdges(int32(v), be)
		if e < be {
			best, be = int32(v), e
		}
	}
	return best
}

// neighborEdges counts the edges among v's live neighbours, twice, giving
// up once it reaches limit.
func (s *state) neighborEdges(v int32, limit int) int {
	e := 0
	if s.bits != nil {
		b := s.bits
		rv := b.row(v)
		for _, u := range s.adj[v] {
			if !s.alive[u] {
				continue
			}
			ru := b.row(u)
			for i := range rv {
				e += bits.OnesCount64(rv[i] & ru[i] & b.alive[i])
			}
			if e >= limit {
				return e
			}
		}
		return e
	}
	s.stamp++
	st := s.stamp
	for _, u := range s.adj[v] {
		if s.alive[u] {
			s.mark[u] = st
		}
	}
	for _, u := range s.adj[v] {
		if !s.alive[u] {
			continue
		}
		for _, x := range s.adj[u] {
			if s.alive[x] && s.mark[x] == st {
				e++
			}
		}
		if e >= limit {
			return e
		}
	}
	return e
}
