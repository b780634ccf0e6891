package clique

import "math/bits"

// frame is one node of a worker's current path.
type frame struct {
	// p is the node's candidate set; a vertex leaves it once its branch
	// has been handed out (explored here or given away), so p is always
	// the candidate set of the next child's siblings still to come.
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
	recolour bool
	frames   []*frame // pointers: a frame stays put while deeper ones are added
	clique   []int32  // the current clique C, search numbering
	q, r     []uint64 // colouring scratch
	classes  [][]uint64
	nodes    int64 // this worker's nodes
	pending  int64 // nodes not yet added to the shared count
}

func (p *problem) newWorker(sh *shared, parallel bool) *worker {
	return &worker{p: p, sh: sh, parallel: parallel, recolour: p.opts.Recolour,
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
	if w.parallel && w.sh.hungry.Load() > 0 {
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
			w.sh.push(t)
		} else if len(t.clique) > best {
			w.sh.offer(t.clique)
		}
		return
	}
}

// colour colours f.p greedily, one colour class at a time (BBMC), and
// lists in f.u, f.k the vertices of colour kmin and above in colour order:
// the others can never be branched on since |C| + colour ≤ best. With
// recolouring, vertices that would get a colour ≥ kmin are first tried in
// the classes below it (renumber).
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
		if w.recolour {
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
	if w.recolour && lo < words && k >= 2 {
		w.renumber(q, lo, k)
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

// renumber is MCS's Re-NUMBER over bitset classes: each vertex v left in q
// (it would open a colour class at or above the pruning threshold) goes
// into a class k1 among the first n it has no neighbour in, or else into
// one where it has exactly one neighbour x, provided x can move to a later
// class k2 < n in which it has no neighbour (later only, as in MCS: trying
// every k2 found hardly more moves and cost 10% more time). A vertex placed this way leaves q
// and is never branched on. Every class stays independent, so the colour
// bound stays valid.
func (w *worker) renumber(q []uint64, lo, n int) {
	words := w.p.words
	classes := w.classes[:n]
	for wi := lo; wi < words; wi++ {
		for m := q[wi]; m != 0; m &= m - 1 {
			b := bits.TrailingZeros64(m)
			v := wi<<6 | b
			row := w.p.row(v)
			if w.place(v, row, classes) {
				q[wi] &^= 1 << uint(b)
			}
		}
	}
}

// place tries to put v (neighbours row) into one of classes; see renumber.
func (w *worker) place(v int, row []uint64, classes [][]uint64) bool {
	for k1, c1 := range classes {
		x, conflicts := -1, 0
		for i, c := range c1 {
			if m := c & row[i]; m != 0 {
				conflicts += bits.OnesCount64(m)
				if conflicts > 1 {
					break
				}
				x = i<<6 | bits.TrailingZeros64(m)
			}
		}
		switch conflicts {
		case 0:
			c1[v>>6] |= 1 << (uint(v) & 63)
			return true
		case 1:
			rx := w.p.row(x)
			for _, c2 := range classes[k1+1:] {
				if intersects(c2, rx) {
					continue
				}
				c1[x>>6] &^= 1 << (uint(x) & 63)
				c2[x>>6] |= 1 << (uint(x) & 63)
				c1[v>>6] |= 1 << (uint(v) & 63)
				return true
			}
		}
	}
	return false
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
