package vertexcover

// ccScratch is the reusable memory of the clique cover bound.
type ccScratch struct {
	order   []int32
	count   []int32 // per degree, for the counting sort
	clique  []int32 // per vertex: its clique, -1 when unassigned
	size    []int32 // per clique
	hits    []int32 // per clique: assigned neighbours of the current vertex
	touched []int32
	mate    []int32
}

func (c *ccScratch) init(n int) {
	if len(c.clique) < n {
		c.clique = make([]int32, n)
		c.size = make([]int32, n)
		c.hits = make([]int32, n)
		c.mate = make([]int32, n)
		for i := range c.clique {
			c.clique[i] = -1
			c.mate[i] = -1
		}
	}
}

// lowerBound is a lower bound on the cover the live graph still needs: the
// larger of a greedy clique cover bound (a clique of size q needs q−1 cover
// vertices, so live − #cliques) and a greedy maximal matching.
func (s *state) lowerBound() int {
	s.degreeOrder()
	cc := s.cliqueCoverBound(s.cc.order)
	if mb := s.matchingBound(); mb > cc {
		return mb
	}
	return cc
}

// rootLowerBound also tries the vertices in index order: generators such as
// BHOSLIB's number each planted clique consecutively, which greedy in index
// order recovers exactly.
func (s *state) rootLowerBound() int {
	lb := s.lowerBound()
	idx := make([]int32, 0, s.nAlive)
	for v := 0; v < s.n; v++ {
		if s.alive[v] {
			idx = append(idx, int32(v))
		}
	}
	if b := s.cliqueCoverBound(idx); b > lb {
		lb = b
	}
	return lb
}

// degreeOrder fills cc.order with the live vertices by ascending degree
// (counting sort; ties by index).
func (s *state) degreeOrder() {
	c := &s.cc
	c.init(s.n)
	maxd := 0
	for v := 0; v < s.n; v++ {
		if s.alive[v] && int(s.deg[v]) > maxd {
			maxd = int(s.deg[v])
		}
	}
	if cap(c.count) < maxd+2 {
		c.count = make([]int32, maxd+2)
	}
	cnt := c.count[:maxd+2]
	clear(cnt)
	for v := 0; v < s.n; v++ {
		if s.alive[v] {
			cnt[s.deg[v]+1]++
		}
	}
	for d := 1; d < len(cnt); d++ {
		cnt[d] += cnt[d-1]
	}
	if cap(c.order) < s.nAlive {
		c.order = make([]int32, s.nAlive)
	}
	c.order = c.order[:s.nAlive]
	for v := 0; v < s.n; v++ {
		if s.alive[v] {
			c.order[cnt[s.deg[v]]] = int32(v)
			cnt[s.deg[v]]++
		}
	}
}

// cliqueCoverBound partitions the live vertices greedily into cliques, in
// the given order, each vertex joining the largest clique all of whose
// members it sees, and returns live − #cliques.
func (s *state) cliqueCoverBound(order []int32) int {
	c := &s.cc
	c.init(s.n)
	cliques := int32(0)
	for _, v := range order {
		c.touched = c.touched[:0]
		for _, u := range s.adj[v] {
			if !s.alive[u] {
				continue
			}
			if q := c.clique[u]; q >= 0 {
				if c.hits[q] == 0 {
					c.touched = append(c.touched, q)
				}
				c.hits[q]++
			}
		}
		best, bs := int32(-1), int32(0)
		for _, q := range c.touched {
			if c.hits[q] == c.size[q] && c.size[q] > bs {
				best, bs = q, c.size[q]
			}
			c.hits[q] = 0
		}
		if best < 0 {
			best = cliques
			c.size[best] = 0
			cliques++
		}
		c.clique[v] = best
		c.size[best]++
	}
	for _, v := range order {
		c.clique[v] = -1
	}
	return len(order) - int(cliques)
}

// matchingBound is the size of a greedy maximal matching, low degrees
// first (every matched edge needs its own cover vertex). It expects
// cc.order to hold the degree order.
func (s *state) matchingBound() int {
	c := &s.cc
	size := 0
	for _, v := range c.order {
		if c.mate[v] >= 0 {
			continue
		}
		best, bd := int32(-1), int32(1<<30)
		for _, u := range s.adj[v] {
			if s.alive[u] && c.mate[u] < 0 && s.deg[u] < bd {
				best, bd = u, s.deg[u]
			}
		}
		if best >= 0 {
			c.mate[v], c.mate[best] = best, v
			size++
		}
	}
	for _, v := range c.order {
		c.mate[v] = -1
	}
	return size
}
