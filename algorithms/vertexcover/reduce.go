package vertexcover

// reduce applies the reductions to a fixed point over the queued vertices:
// degree 0 (drop), degree 1 (take the neighbour), degree 2 (triangle: take
// both neighbours; otherwise fold), high degree (a vertex of degree above
// the remaining budget must be in any better cover) and domination
// (N[v] ⊆ N[u]: take u). budget returns how many more cover vertices a
// solution may use (incumbent − 1 − cover); reduce returns false when it
// drops below zero, i.e. the node cannot beat the incumbent.
func (s *state) reduce(budget func() int) bool {
	var nb [2]int32
	for len(s.queue) > 0 {
		v := s.queue[len(s.queue)-1]
		s.queue = s.queue[:len(s.queue)-1]
		s.inQ[v] = false
		if !s.alive[v] {
			continue
		}
		d := s.deg[v]
		if d == 0 {
			s.drop(v)
			continue
		}
		b := budget()
		if b < 0 {
			s.clearQueue()
			return false
		}
		if int(d) > b {
			s.take(v)
			continue
		}
		switch d {
		case 1:
			for _, u := range s.adj[v] {
				if s.alive[u] {
					s.take(u)
					break
				}
			}
			continue
		case 2:
			k := 0
			for _, u := range s.adj[v] {
				if s.alive[u] {
					nb[k] = u
					k++
					if k == 2 {
						break
					}
				}
			}
			if s.adjacent(nb[0], nb[1]) {
				s.take(nb[0])
				s.take(nb[1])
			} else {
				s.fold(v, nb[0], nb[1])
			}
			continue
		}
		if u := s.dominator(v); u >= 0 {
			s.take(u)
		}
	}
	return budget() >= 0
}

// maxDominationDegree bounds the degree of a vertex tested for being
// dominated: the test costs the sum of its neighbours' degrees, and on
// dense graphs high-degree vertices are rarely dominated.
const maxDominationDegree = 64

// dominator returns a live neighbour u of v with N[v] ⊆ N[u], or -1. Some
// minimum cover then contains u: a cover without u holds N(u) ⊇ N[v] \ {u},
// and swapping v for u keeps it a cover.
func (s *state) dominator(v int32) int32 {
	d := s.deg[v]
	if d > maxDominationDegree {
		return -1
	}
	s.stamp++
	st := s.stamp
	s.mark[v] = st
	for _, u := range s.adj[v] {
		if s.alive[u] {
			s.mark[u] = st
		}
	}
	for _, u := range s.adj[v] {
		if !s.alive[u] || s.deg[u] < d {
			continue
		}
		// N[v] ⊆ N[u] ⟺ u sees every vertex of N[v] but itself: d of
		// them (v and d−1 other neighbours).
		need, slack := d, s.deg[u]-d
		for _, w := range s.adj[u] {
			if !s.alive[w] {
				continue
			}
			if s.mark[w] == st {
				need--
				if need == 0 {
					break
				}
			} else if slack--; slack < 0 {
				break
			}
		}
		if need == 0 {
			return u
		}
	}
	return -1
}

// queueAll queues every live vertex (at the root, after a replay).
func (s *state) queueAll() {
	for v := 0; v < s.n; v++ {
		if s.alive[v] {
			s.push(int32(v))
		}
	}
}
