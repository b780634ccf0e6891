package vertexcover

// greedyDive builds a cover of the live graph by the reduction-interleaved
// minimum-degree greedy (as in ReduMIS/KaMIS initial solutions): put a
// live vertex of least degree in the independent set (its neighbours in
// the cover), reduce to a fixed point, repeat. On large sparse kernels it
// is often optimal or within a few of it, far closer than a plain greedy.
// It returns a cover of the graph live at the call (in[v] for those
// vertices, state ids) and its size; the state is restored on return.
func (s *state) greedyDive() (in []bool, size int) {
	mark, base := len(s.ops), s.cover
	noBudget := func() int { return s.n }
	h := degHeap{}
	for v := 0; v < s.n; v++ {
		if s.alive[v] {
			h.push(s.deg[v], int32(v))
		}
	}
	s.clearQueue()
	s.logTouched = true
	defer func() { s.logTouched = false; s.touched = s.touched[:0] }()
	for s.m > 0 {
		d, v := h.pop()
		if v < 0 {
			break // cannot happen while edges remain; safety
		}
		if !s.alive[v] {
			continue
		}
		if s.deg[v] != d {
			h.push(s.deg[v], v)
			continue
		}
		if d == 0 {
			continue
		}
		for _, u := range s.adj[v] {
			if s.alive[u] {
				s.take(u)
			}
		}
		s.reduce(noBudget)
		// Re-key every vertex whose degree may have changed.
		for _, x := range s.touched {
			if s.alive[x] {
				h.push(s.deg[x], x)
			}
		}
		s.touched = s.touched[:0]
	}
	s.clearQueue()
	in = make([]bool, s.n)
	resolve(s.ops[mark:], in)
	size = s.cover - base
	s.undoTo(mark)
	return in, size
}

// degHeap is a binary min-heap of (degree, vertex), smallest vertex first on
// ties; entries go stale and are re-checked when popped.
type degHeap struct{ a []uint64 }

func (h *degHeap) push(d, v int32) {
	x := uint64(d)<<32 | uint64(uint32(v))
	h.a = append(h.a, x)
	i := len(h.a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h.a[p] <= x {
			break
		}
		h.a[i] = h.a[p]
		i = p
	}
	h.a[i] = x
}

func (h *degHeap) pop() (int32, int32) {
	if len(h.a) == 0 {
		return 0, -1
	}
	top := h.a[0]
	last := h.a[len(h.a)-1]
	h.a = h.a[:len(h.a)-1]
	n := len(h.a)
	i := 0
	for n > 0 {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.a[c+1] < h.a[c] {
			c++
		}
		if last <= h.a[c] {
			break
		}
		h.a[i] = h.a[c]
		i = c
	}
	if n > 0 {
		h.a[i] = last
	}
	return int32(top >> 32), int32(uint32(top))
}
