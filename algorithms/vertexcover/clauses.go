package vertexcover

// Packing constraints as hard clauses of the MaxSAT bound (issue #42).
//
// upBound reasons over the clique cover as a MaxSAT instance on "v is in
// the independent set": each clique a soft clause (it gives at most one
// vertex), each edge a hard one. A packing constraint on the path
// (packing.go) says that every cover worth finding in this subtree leaves
// one of its members out: a hard clause "some member is in the
// independent set". applyPacking uses a constraint only once it has one
// member left; inside unit propagation a constraint with two or three
// left becomes a unit as soon as the propagation removes all but one,
// and a conflict when it removes all. Such a conflict's set holds the
// cliques behind the removals, not the constraint, which is never used
// up: it may take part in every set found. The bound is then a bound on
// the covers that satisfy the path's constraints, which are the only
// ones the subtree must find (the argument that lets applyPacking prune).
//
// A member in a clique that a found set used up is no longer reasoned
// about (it may be in the independent set or not): it leaves the
// available vertices without a removal on the trail, so its constraint
// never becomes a unit or a conflict for the rest of the call.

// maxClauseLeft: constraints with more members left are not handed to
// the bound (they rarely become units before a conflict is found
// elsewhere, and each costs its members' occurrence lists).
const maxClauseLeft = 3

// clauses holds the hard clauses of one upBound call.
type clauses struct {
	start []int32 // clause h's members in mem[start[h]:start[h+1]]
	mem   []int32
	of    []int32 // of[j]: the clause of mem[j]
	// per call
	rem  []int32 // members not removed by the propagation
	seen []bool  // trace: clause already walked
	// occurrences: head[v] the first index j into mem with mem[j] == v,
	// next[j] the following one, -1 at the end
	head, next []int32
}

// reset empties the clause list.
func (h *clauses) reset() {
	h.start = append(h.start[:0], 0)
	h.mem = h.mem[:0]
	h.of = h.of[:0]
}

// add appends the clause "one of members is in the independent set".
func (h *clauses) add(members []int32) {
	if len(h.start) == 0 {
		h.start = append(h.start, 0)
	}
	c := int32(len(h.start) - 1)
	for _, v := range members {
		h.mem = append(h.mem, v)
		h.of = append(h.of, c)
	}
	h.start = append(h.start, int32(len(h.mem)))
}

// count is the number of clauses.
func (h *clauses) count() int {
	if len(h.start) == 0 {
		return 0
	}
	return len(h.start) - 1
}

// prepare sets up the per-call state for a graph of n vertices; it
// returns false when there are no clauses.
func (h *clauses) prepare(n int) bool {
	nh := h.count()
	if nh == 0 {
		return false
	}
	if len(h.head) < n {
		h.head = make([]int32, n)
		for i := range h.head {
			h.head[i] = -1
		}
	}
	if cap(h.next) < len(h.mem) {
		h.next = make([]int32, len(h.mem), 2*len(h.mem))
	}
	h.next = h.next[:len(h.mem)]
	if cap(h.rem) < nh {
		h.rem = make([]int32, nh, 2*nh)
		h.seen = make([]bool, nh, 2*nh)
	}
	h.rem, h.seen = h.rem[:nh], h.seen[:nh]
	for c := 0; c < nh; c++ {
		h.rem[c] = h.start[c+1] - h.start[c]
		h.seen[c] = false
		for j := h.start[c]; j < h.start[c+1]; j++ {
			v := h.mem[j]
			h.next[j] = h.head[v]
			h.head[v] = j
		}
	}
	return true
}

// finish clears the occurrence lists prepare set.
func (h *clauses) finish() {
	for _, v := range h.mem {
		h.head[v] = -1
	}
}

// collectClauses hands upBound the path's packing constraints with two
// to maxClauseLeft members left. Called after reduceAll, when every
// constraint applyPacking did not retire has all its members live or
// taken.
func (w *worker) collectClauses() {
	s := w.s
	h := &s.cc.hard
	h.reset()
	if w.e.noPacking {
		return
	}
	for i, c := range w.pack {
		if i < len(w.packDone) && w.packDone[i] {
			continue
		}
		// Most constraints have many members left: the scan stops at
		// one more than maxClauseLeft (this call was 4.5% of the time
		// with full scans).
		left := w.packLeft[:0]
		for j := c.start; j < c.end && len(left) <= maxClauseLeft; j++ {
			if x := w.packMem[j]; s.alive[x] {
				left = append(left, x)
			}
		}
		w.packLeft = left[:0]
		if len(left) >= 2 && len(left) <= maxClauseLeft {
			h.add(left)
		}
	}
}
