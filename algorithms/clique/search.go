package clique

import "math/bits"

// frame is one node of a worker's current path.
type frame struct {
	// p is the node's candidate set less the vertices whose branches have
	// been handed out (explored here or given away): the next child's
	// candidates are p ∩ N(v).
	p []uint64
	// u and k list the branching vertices in colour order and their
	// colours; children are taken from the end, next being the index of
	// the next one (−1 once the node is finished).
	u, k []int32
	next int
	size int // |C| at this node
}

// worker runs the search on one goroutine.
type worker struct {
	p        *problem
	sh       *shared
	parallel bool
	tight    bool     // tighten the bound (Re-NUMBER, infra-chromatic triples)
	frames   []*frame // pointers: a frame stays put while deeper ones are added
	clique   []int32  // the current clique C, search numbering
	q, r     []uint64 // colouring scratch
	classes  [][]uint64
	frozen   []bool   // tighten: classes serving an infra-chromatic triple
	queued   []bool   // failedLiteral scratch
	queue    []int32  // failedLiteral scratch: (class, forced vertex) pairs
	s        []uint64 // failedLiteral scratch: candidates left
	nodes    int64    // this worker's nodes
	pending  int64    // nodes not yet added to the shared count
}

func (p *problem) newWorker(sh *shared, parallel bool) *worker {
	return &worker{p: p, sh: sh, parallel: parallel, tight: !p.opts.PlainColouring,
		q: make([]uint64, p.words), r: make([]uint64, p.words)}
}

// frame returns the frame of depth d, allocating it on first use.
func (w *worker) frame(d int) *frame {
	for len(w.frames) <= d {
		w.frames = append(w.frames, &frame{p: make([]uint64, w.p.words)})
	}
	return w.frames[d]
}

// class returns colour class k's bitset (1-based), cleared.
func (w *worker) class(k int) []uint64 {
	for len(w.classes) < k {
		w.classes = append(w.classes, make([]uint64, w.p.words))
	}
	c := w.classes[k-1]
	clear(c)
	return c
}

// count adds a node and reports whether the search must stop.
func (w *worker) count() bool {
	w.nodes++
	w.pending++
	if w.pending >= 1024 {
		w.flush()
	}
	return w.sh.stop.Load()
}

func (w *worker) flush() {
	total := w.sh.nodes.Add(w.pending)
	w.pending = 0
	if w.sh.limit > 0 && total >= w.sh.limit {
		w.sh.halt()
	}
}

// expand searches the node at depth d, whose candidate set is already in
// w.frame(d).p and whose clique is w.clique.
func (w *worker) expand(d int) {
	if w.count() {
		return
	}
	if w.parallel && w.sh.q.Hungry() {
		w.donate(d)
	}
	f := w.frame(d)
	f.size = len(w.clique)
	w.colour(f, int(w.sh.best.Load())-f.size+1)
	for f.next = len(f.u) - 1; f.next >= 0; {
		i := f.next
		if f.size+int(f.k[i]) <= int(w.sh.best.Load()) {
			break // every vertex left has a colour no larger
		}
		v := int(f.u[i])
		f.next--
		child := w.frame(d + 1)
		nonEmpty := and(child.p, f.p, w.p.row(v))
		// Out of p before descending, so that a sibling given away from
		// here meanwhile does not contain v.
		f.p[v>>6] &^= 1 << (uint(v) & 63)
		w.clique = append(w.clique, int32(v))
		if nonEmpty {
			w.expand(d + 1)
		} else if len(w.clique) > int(w.sh.best.Load()) {
			w.sh.offer(w.clique)
		}
		w.clique = w.clique[:len(w.clique)-1]
		if w.sh.stop.Load() {
			break
		}
	}
	f.next = -1
}

// donate gives away the next untried child of the shallowest node above
// depth d that still has one worth trying, in the order the search would
// take it. The child is named by its clique and candidate set.
func (w *worker) donate(d int) {
	best := int(w.sh.best.Load())
	for j := 0; j < d; j++ {
		f := w.frames[j]
		if f.next < 0 {
			continue
		}
		if f.size+int(f.k[f.next]) <= best {
			f.next = -1 // the rest is pruned anyway
			continue
		}
		v := int(f.u[f.next])
		f.next--
		t := task{clique: make([]int32, f.size+1), p: make([]uint64, w.p.words)}
		copy(t.clique, w.clique[:f.size])
		t.clique[f.size] = int32(v)
		nonEmpty := and(t.p, f.p, w.p.row(v))
		f.p[v>>6] &^= 1 << (uint(v) & 63)
		if nonEmpty {
			w.sh.q.Push(t)
		} else if len(t.clique) > best {
			w.sh.offer(t.clique)
		}
		return
	}
}

// colour colours f.p greedily, one colour class at a time (BBMC), and
// lists in f.u, f.k the vertices of colour kmin and above in colour order:
// the others can never be branched on since |C| + colour ≤ best. With
// tightening, vertices that would get a colour ≥ kmin are first tried
// against the classes below it (tighten).
func (w *worker) colour(f *frame, kmin int) {
	words := w.p.words
	q, r := w.q, w.r
	copy(q, f.p)
	f.u, f.k = f.u[:0], f.k[:0]
	lo := firstNonZero(q, 0)
	k := 0
	for lo < words && k+1 < kmin {
		k++
		var cls []uint64
		if w.tight {
			cls = w.class(k)
		}
		copy(r[lo:], q[lo:])
		for wi := lo; wi < words; wi++ {
			for r[wi] != 0 {
				b := bits.TrailingZeros64(r[wi])
				bit := uint64(1) << uint(b)
				r[wi] &^= bit
				q[wi] &^= bit
				if cls != nil {
					cls[wi] |= bit
				}
				row := w.p.row(wi<<6 | b)
				for j := wi; j < words; j++ {
					r[j] &^= row[j]
				}
			}
		}
		lo = firstNonZero(q, lo)
	}
	// Only small branching sets are worth tightening: see tightenMax.
	if w.tight && lo < words && k >= 2 && count(q[lo:]) <= tightenMax {
		w.tighten(q, lo, k)
		lo = firstNonZero(q, lo)
	}
	for lo < words {
		k++
		copy(r[lo:], q[lo:])
		for wi := lo; wi < words; wi++ {
			for r[wi] != 0 {
				b := bits.TrailingZeros64(r[wi])
				bit := uint64(1) << uint(b)
				r[wi] &^= bit
				q[wi] &^= bit
				v := wi<<6 | b
				f.u = append(f.u, int32(v))
				f.k = append(f.k, int32(k))
				row := w.p.row(v)
				for j := wi; j < words; j++ {
					r[j] &^= row[j]
				}
			}
		}
		lo = firstNonZero(q, lo)
	}
}

// tighten moves vertices out of q, the set that would be coloured at or
// above the pruning threshold and branched on, without raising the bound
// given by the n classes below the threshold. Each vertex v of q, in
// order, is tried these ways:
//
//   - Re-NUMBER (Tomita's MCS): into a class k1 where it has no neighbour,
//     or where it has exactly one neighbour x that can move to a later
//     class k2 holding no neighbour of x (later only, as in MCS: trying
//     every k2 found hardly more moves and cost 10% more time). Classes
//     stay independent sets.
//   - an infra-chromatic triple (San Segundo et al.'s BBMCX, the simplest
//     MaxSAT-style inference): if v has exactly one neighbour x in class i
//     and exactly one neighbour y in class j, x and y not adjacent, then a
//     clique takes at most two vertices of {v} ∪ Ci ∪ Cj, no more than of
//     Ci ∪ Cj alone, so v adds nothing to the bound. Such classes are then
//     frozen: each serves one triple and is never changed again, so the
//     triples' arguments add up. failedLiteral generalises the triple to
//     a chain of unit propagations.
//
// A vertex moved any of these ways leaves q and is never branched on.
func (w *worker) tighten(q []uint64, lo, n int) {
	words := w.p.words
	classes := w.classes[:n]
	if cap(w.frozen) < n {
		w.frozen = make([]bool, n)
	}
	frozen := w.frozen[:n]
	clear(frozen)
	for wi := lo; wi < words; wi++ {
		for m := q[wi]; m != 0; m &= m - 1 {
			b := bits.TrailingZeros64(m)
			if w.place(wi<<6|b, classes, frozen) {
				q[wi] &^= 1 << uint(b)
			}
		}
	}
}

// place tries to move v out of the branching set; see tighten.
func (w *worker) place(v int, classes [][]uint64, frozen []bool) bool {
	row := w.p.row(v)
	// Classes holding exactly one neighbour of v, and that neighbour.
	var buf [16]int32
	single := buf[:0]
	for k1, c1 := range classes {
		if frozen[k1] {
			continue
		}
		x, conflicts := sharedBit(c1, row)
		switch conflicts {
		case 0:
			c1[v>>6] |= 1 << (uint(v) & 63)
			return true
		case 1:
			rx := w.p.row(x)
			for k2 := k1 + 1; k2 < len(classes); k2++ {
				c2 := classes[k2]
				if frozen[k2] || intersects(c2, rx) {
					continue
				}
				c1[x>>6] &^= 1 << (uint(x) & 63)
				c2[x>>6] |= 1 << (uint(x) & 63)
				c1[v>>6] |= 1 << (uint(v) & 63)
				return true
			}
			for j := 0; j < len(single); j += 2 {
				if y := int(single[j+1]); !has(rx, y) {
					frozen[k1], frozen[single[j]] = true, true
					return true
				}
			}
			single = append(single, int32(k1), int32(x))
		}
	}
	return len(single) > 0 && w.failedLiteral(row, single, classes, frozen)
}

// failedLiteral extends the triple test to unit propagation (the failed
// literal detection of Li and Quan's MaxSAT bounds): taking v forces x in
// each class where v has one neighbour x; each forced vertex shrinks the
// candidates of the other classes, which may become forced in turn. If a
// class loses its last candidate, no clique takes a vertex from each of
// {v} and the classes used, so v adds nothing to their bound: v leaves
// the branching set and those classes are frozen, as for a triple.
func (w *worker) failedLiteral(row []uint64, single []int32, classes [][]uint64, frozen []bool) bool {
	n := len(classes)
	if cap(w.queued) < n {
		w.queued = make([]bool, n)
	}
	queued := w.queued[:n]
	clear(queued)
	if w.s == nil {
		w.s = make([]uint64, w.p.words)
	}
	s := w.s
	copy(s, row)
	queue := append(w.queue[:0], single...) // pairs (class, its forced vertex)
	for j := 0; j < len(single); j += 2 {
		queued[single[j]] = true
	}
	defer func() { w.queue = queue[:0] }()
	conflict := func(processed int, k int) bool {
		for j := 0; j < processed; j += 2 {
			frozen[queue[j]] = true
		}
		frozen[k] = true
		return true
	}
	for i := 0; i < len(queue); i += 2 {
		k, x := int(queue[i]), int(queue[i+1])
		if !has(s, x) {
			return conflict(i, k) // x is not adjacent to an earlier forced vertex
		}
		and(s, s, w.p.row(x))
		for k2, c2 := range classes {
			if frozen[k2] || queued[k2] {
				continue
			}
			y, left := sharedBit(c2, s)
			switch left {
			case 0:
				return conflict(i+2, k2)
			case 1:
				queued[k2] = true
				queue = append(queue, int32(k2), int32(y))
			}
		}
	}
	return false
}

// sharedBit counts the bits sets a and b share, stopping past one: 0, 1
// (then x is that bit) or 2 (two or more).
func sharedBit(a, b []uint64) (x, count int) {
	x = -1
	for i, c := range a {
		if m := c & b[i]; m != 0 {
			count += bits.OnesCount64(m)
			if count > 1 {
				return x, 2
			}
			x = i<<6 | bits.TrailingZeros64(m)
		}
	}
	return x, count
}

func intersects(a, b []uint64) bool {
	for i := range a {
		if a[i]&b[i] != 0 {
			return true
		}
	}
	return false
}

// firstNonZero returns the index of the first non-zero word of b at or
// after from, or len(b).
func firstNonZero(b []uint64, from int) int {
	for from < len(b) && b[from] == 0 {
		from++
	}
	return from
}

// tightenMax is the largest branching set tighten is tried on. Each try
// scans every class below the threshold for each vertex, tens of times the
// cost of colouring it, and a large set rarely shrinks enough to matter.
// Measured on p_hat500-3 (one core) before failedLiteral: no limit 8.1 M
// nodes in 44 s, 16 8.4 M in 32 s, 8 10.8 M in 34 s, 4 14.5 M in 35 s;
// plain colouring 21.8 M in 36–41 s. With failedLiteral: 8 8.0 M in 36 s,
// 16 5.2 M in 34 s, 32 4.5 M in 34 s; on frb30-15-1 (two threads) 32 took
// 114 M nodes and 179 s against 226 M and 212 s without failedLiteral.
const tightenMax = 32

func count(b []uint64) int {
	c := 0
	for _, w := range b {
		c += bits.OnesCount64(w)
	}
	return c
}
