package vertexcover

// The reduction rules, as counted in state.fired.
const (
	ruleDeg0 = iota
	ruleDeg1
	ruleTriangle
	ruleFold
	ruleHighDegree
	ruleDomination
	ruleFunnel
	ruleUnconfined
	ruleLPTake
	ruleLPDrop
	numRules
)

// ruleNames names the rules for the measurements, in rule order.
var ruleNames = [numRules]string{"deg0", "deg1", "triangle", "fold", "highdeg", "domination", "funnel", "unconfined", "lp-take", "lp-drop"}

// reduce applies the reductions to a fixed point over the queued vertices:
// degree 0 (drop), degree 1 (take the neighbour), degree 2 (triangle: take
// both neighbours; otherwise fold), high degree (a vertex of degree above
// the remaining budget must be in any better cover) and domination
// (N[v] ⊆ N[u]: take u). budget returns how many more cover vertices a
// solution may use (incumbent − 1 − cover); reduce returns false when it
// drops below zero, i.e. the node cannot beat the incumbent.
func (s *state) reduce(budget func() int) bool {
	var nb [2]int32
	for polled := 0; len(s.queue) > 0; polled++ {
		if s.stop != nil && polled%stopEvery == stopEvery-1 && s.stop() {
			s.clearQueue()
			return false
		}
		v := s.queue[len(s.queue)-1]
		s.queue = s.queue[:len(s.queue)-1]
		s.inQ[v] = false
		if !s.alive[v] {
			continue
		}
		d := s.deg[v]
		if d == 0 {
			s.fired[ruleDeg0]++
			s.drop(v)
			continue
		}
		b := budget()
		if b < 0 {
			s.clearQueue()
			return false
		}
		if int(d) > b {
			s.fired[ruleHighDegree]++
			s.take(v)
			continue
		}
		switch d {
		case 1:
			s.fired[ruleDeg1]++
			for _, u := range s.adj[v] {
				if s.alive[u] {
					s.take(u)
					break
				}
			}
			continue
		case 2:
			s.firstLive(v, nb[:])
			if s.adjacent(nb[0], nb[1]) {
				s.fired[ruleTriangle]++
				s.take(nb[0])
				s.take(nb[1])
			} else {
				s.fired[ruleFold]++
				s.fold(v, nb[0], nb[1])
			}
			continue
		}
		if u := s.dominator(v); u >= 0 {
			s.fired[ruleDomination]++
			s.take(u)
		} else if d == 3 && s.funnelOn && s.tryFunnel(v) {
			s.fired[ruleFunnel]++
		} else if s.unconfinedOn && d <= maxUnconfinedDegree && s.unconfined(v) {
			s.fired[ruleUnconfined]++
			s.take(v)
		}
	}
	return budget() >= 0
}

// stopEvery is how many queued vertices reduce takes between polls of
// state.stop: a poll is an atomic load, a vertex a few hundred
// nanoseconds to microseconds of work.
const stopEvery = 1024

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
	if s.bits != nil {
		return s.bitDominator(v)
	}
	// A dominator sees all of N(v) but itself, so it is w, the
	// lowest-degree neighbour, or a neighbour of w: mark N(w) and test only
	// those candidates (on sparse graphs usually none).
	w := int32(-1)
	for _, u := range s.adj[v] {
		if s.alive[u] && (w < 0 || s.deg[u] < s.deg[w]) {
			w = u
		}
	}
	s.stamp2++
	cand := s.stamp2
	s.mark2[w] = cand
	for _, u := range s.adj[w] {
		if s.alive[u] {
			s.mark2[u] = cand
		}
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
		if !s.alive[u] || s.mark2[u] != cand || s.deg[u] < d {
			continue
		}
		// N[v] ⊆ N[u] ⟺ u sees every vertex of N[v] but itself: d of
		// them (v and d−1 other neighbours).
		need, slack := d, s.deg[u]-d
		for _, x := range s.adj[u] {
			if !s.alive[x] {
				continue
			}
			if s.mark[x] == st {
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

// maxConfinedSet bounds the set S grown by the unconfined test, and
// maxUnconfinedDegree the degree of a vertex tested: the test reads the
// neighbourhoods of N(S), which on dense graphs costs more than it saves.
const (
	maxConfinedSet      = 12
	maxUnconfinedDegree = 32
)

// unconfined reports whether v is unconfined (Xiao and Nagamochi): grow an
// independent set S = {v}; while some u ∈ N(S) has exactly one neighbour
// in S, take the one with fewest neighbours outside N[S]; none outside
// means v is unconfined, and some minimum cover contains v; exactly one,
// w, joins S; more ends the test (confined). It generalises domination.
func (s *state) unconfined(v int32) bool {
	// seen marks S, mark2 marks N[S].
	s.stampS++
	inS := s.stampS
	s.stamp2++
	inN := s.stamp2
	S := append(s.queueScratch[:0], v)
	s.seen[v] = inS
	s.mark2[v] = inN
	for _, x := range s.adj[v] {
		if s.alive[x] {
			s.mark2[x] = inN
		}
	}
	defer func() { s.queueScratch = S[:0] }()
	for len(S) <= maxConfinedSet {
		bestExt, bestW := int32(1<<30), int32(-1)
		for _, y := range S {
			for _, u := range s.adj[y] {
				if !s.alive[u] || s.seen[u] == inS {
					continue
				}
				// |N(u) ∩ S| and N(u) \ N[S].
				inSet, ext, w := 0, int32(0), int32(-1)
				for _, z := range s.adj[u] {
					if !s.alive[z] {
						continue
					}
					if s.seen[z] == inS {
						inSet++
					} else if s.mark2[z] != inN {
						ext++
						w = z
						if ext >= bestExt {
							break
						}
					}
				}
				if inSet == 1 && ext < bestExt {
					bestExt, bestW = ext, w
					if ext == 0 {
						return true
					}
				}
			}
		}
		if bestExt != 1 {
			return false
		}
		S = append(S, bestW)
		s.seen[bestW] = inS
		s.mark2[bestW] = inN
		for _, x := range s.adj[bestW] {
			if s.alive[x] {
				s.mark2[x] = inN
			}
		}
	}
	return false
}

// firstLive fills out with v's first len(out) live neighbours (v has
// that many: its degree says so).
func (s *state) firstLive(v int32, out []int32) {
	k := 0
	for _, u := range s.adj[v] {
		if s.alive[u] {
			out[k] = u
			k++
			if k == len(out) {
				return
			}
		}
	}
}

// tryFunnel applies the funnel rule (state.funnel) to degree-3 v when
// exactly one pair of its neighbours is adjacent, and reports whether it
// did. With two or three such pairs v is dominated, which reduce tests
// first; with none N(v) minus any one neighbour is no clique.
func (s *state) tryFunnel(v int32) bool {
	var nb [3]int32
	s.firstLive(v, nb[:])
	e01, e02, e12 := s.hasEdge(nb[0], nb[1]), s.hasEdge(nb[0], nb[2]), s.hasEdge(nb[1], nb[2])
	switch {
	case e01 && !e02 && !e12:
		s.funnel(v, nb[0], nb[1], nb[2])
	case e02 && !e01 && !e12:
		s.funnel(v, nb[0], nb[2], nb[1])
	case e12 && !e01 && !e02:
		s.funnel(v, nb[1], nb[2], nb[0])
	default:
		return false
	}
	return true
}

// maxRootFunnelKernel bounds the kernels on which rootBound tries the
// funnel rule: the trial costs a second root bound, which on the largest
// PACE kernels (_161: 69 k vertices) takes most of a second, and there
// it lowered the bound.
const maxRootFunnelKernel = 16384

// rootBound returns a lower bound on the cover of the input graph: the
// cover so far plus the kernel's rootLowerBound, or, when higher, the
// same bound after the funnel rule (which the tree applies only to
// states of at most maxBitsetVertices) and the tree's reductions it
// unlocks.
// The funnels are undone either way, so the search and the local
// searches see the kernel they saw before. Funnels remove vertices but
// add edges: on the triangle-and-edge PACE kernels they break the cliques
// the bound counts (_131: 1,920 → 1,899), while on _153 the freed
// neighbourhoods become dominated and the bound rises from 17,938 to
// 17,990 (optimum 17,993). Keeping the funneled kernel left the local
// searches' covers worse (_153: 17,995 against 17,993 in 60 s; _089 and
// _183 in docs/results/vertexcover.md). budget is reduce's; false when
// it is exceeded (no cover within it).
func (s *state) rootBound(budget func() int) (int, bool) {
	lb := s.cover + s.rootLowerBound()
	if s.funnelOn || s.m == 0 || s.nAlive > maxRootFunnelKernel {
		return lb, true
	}
	// Without the unconfined rule: on _085 and _153 it left the same
	// kernel and took 0.15–0.3 s of the trial's 0.16–0.31 s.
	mark, fired := len(s.ops), s.fired
	s.funnelOn = true
	s.queueAll()
	ok := s.reduce(budget)
	s.funnelOn = false
	if ok && s.fired[ruleFunnel] > fired[ruleFunnel] {
		lb = max(lb, s.cover+s.rootLowerBound())
	}
	s.undoTo(mark)
	s.fired = fired
	return lb, ok
}

// takeRest lifts the cover made of every live vertex through the ops
// applied so far: a cover of the input graph when there is no time for
// more.
func (s *state) takeRest() []bool {
	in := make([]bool, s.n)
	copy(in, s.alive)
	resolve(s.ops, in)
	return in
}
