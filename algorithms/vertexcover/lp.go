package vertexcover

import "github.com/arbor-gpu/arbor/core"

// hopcroftKarp finds a maximum matching of the bipartite double cover of g:
// left copy u is joined to right copy v for every edge {u,v}. matchL[u] is
// the right vertex matched to left u (or -1), matchR likewise.
func hopcroftKarp(g *core.Graph) (matchL, matchR []int32, size int) {
	n := g.N
	matchL, matchR = make([]int32, n), make([]int32, n)
	for i := range matchL {
		matchL[i], matchR[i] = -1, -1
	}
	dist := make([]int32, n)
	queue := make([]int32, 0, n)
	it := make([]int, n) // next arc to try per left vertex, for the DFS
	stack := make([]int32, 0, 64)
	const inf = int32(1 << 30)
	// Cheap greedy start.
	for u := 0; u < n; u++ {
		for _, v := range g.Neighbors(u) {
			if matchR[v] < 0 {
				matchL[u], matchR[v] = v, int32(u)
				size++
				break
			}
		}
	}
	for {
		// BFS layers from the free left vertices.
		queue = queue[:0]
		for u := 0; u < n; u++ {
			if matchL[u] < 0 {
				dist[u] = 0
				queue = append(queue, int32(u))
			} else {
				dist[u] = inf
			}
		}
		found := false
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			for _, v := range g.Neighbors(int(u)) {
				w := matchR[v]
				if w < 0 {
					found = true
				} else if dist[w] == inf {
					dist[w] = dist[u] + 1
					queue = append(queue, w)
				}
			}
		}
		if !found {
			return matchL, matchR, size
		}
		for u := 0; u < n; u++ {
			it[u] = g.Offsets[u]
		}
		// Iterative DFS along the layers for vertex-disjoint shortest
		// augmenting paths.
		for r := 0; r < n; r++ {
			if matchL[r] >= 0 {
				continue
			}
			stack = append(stack[:0], int32(r))
			for len(stack) > 0 {
				u := stack[len(stack)-1]
				if it[u] == g.Offsets[u+1] {
					dist[u] = inf // dead end
					stack = stack[:len(stack)-1]
					continue
				}
				v := g.Adj[it[u]]
				w := matchR[v]
				if w < 0 {
					// Augment along the stack: each stacked u takes the
					// right vertex its iterator points at.
					for i := len(stack) - 1; i >= 0; i-- {
						x := stack[i]
						y := g.Adj[it[x]]
						matchL[x], matchR[y] = y, x
					}
					size++
					for _, x := range stack {
						dist[x] = inf // used: no more paths through it this phase
					}
					stack = stack[:0]
					break
				}
				if dist[w] == dist[u]+1 {
					stack = append(stack, w)
					continue
				}
				it[u]++
			}
		}
		// advance iterators that point at edges used for augmenting is
		// not needed: every vertex on a path was retired for the phase.
	}
}

// lpHalves solves the vertex cover LP relaxation of g through the double
// cover: a minimum vertex cover C of the bipartite graph (König, from the
// maximum matching) gives the half-integral optimum x_v = ([v_L ∈ C] +
// [v_R ∈ C])/2. It returns 2·x_v per vertex and the LP value times two
// (the matching size).
func lpHalves(g *core.Graph) (x []int8, twiceLP int) {
	matchL, matchR, size := hopcroftKarp(g)
	n := g.N
	// Z: vertices reachable from free left vertices by alternating paths.
	zl, zr := make([]bool, n), make([]bool, n)
	queue := make([]int32, 0, n)
	for u := 0; u < n; u++ {
		if matchL[u] < 0 {
			zl[u] = true
			queue = append(queue, int32(u))
		}
	}
	for h := 0; h < len(queue); h++ {
		u := queue[h]
		for _, v := range g.Neighbors(int(u)) {
			if zr[v] {
				continue
			}
			zr[v] = true
			if w := matchR[v]; w >= 0 && !zl[w] {
				zl[w] = true
				queue = append(queue, w)
			}
		}
	}
	x = make([]int8, n)
	for v := 0; v < n; v++ {
		if !zl[v] { // v_L ∈ L \ Z is in the cover
			x[v]++
		}
		if zr[v] { // v_R ∈ R ∩ Z is in the cover
			x[v]++
		}
	}
	return x, size
}

// ntReduce applies the Nemhauser–Trotter theorem to the live graph: some
// minimum cover contains every vertex with x_v = 1 and none with x_v = 0.
// It returns whether anything changed and the LP value times two of the
// graph before the reduction.
func (s *state) ntReduce() (changed bool, twiceLP int) {
	g, ids := s.extract(nil)
	if g.N == 0 {
		return false, 0
	}
	x, twiceLP := lpHalves(g)
	for i, xi := range x {
		switch xi {
		case 2:
			s.fired[ruleLPTake]++
			s.take(ids[i])
			changed = true
		case 0:
			s.fired[ruleLPDrop]++
			s.drop(ids[i])
			changed = true
		}
	}
	return changed, twiceLP
}
