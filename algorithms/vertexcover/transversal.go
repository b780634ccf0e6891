package vertexcover

import (
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// transversalSearch is the partition search of sparse kernels. When a
// clique partition of the kernel (k cliques) gives a bound n − k equal to
// the root bound, a cover of that size is one vertex left out of each
// clique, no two of them adjacent: a binary CSP whose variables are the
// cliques and whose constraints are the edges between them. The PACE
// "triangle" family is exactly that: triangles whose vertices each have
// one edge to a pair of adjacent hubs, the textbook encoding of 3-SAT
// into vertex cover (a triangle per clause, a hub edge per variable); its
// optimum is the satisfying assignment of a planted formula, and the
// partition of the bound is the triangles and the hub edges.
//
// partitionSearch (partition.go) was built for BHOSLIB's dense planted
// cliques: edge weights that grow every step and configuration checking.
// On these formulas it found nothing in seconds (vc-exact_187: 240
// variables, 1,245 clauses), where a WalkSAT-style search is the standard
// tool: take a violated constraint at random and re-choose in one of its
// two cliques, the move of least delta (violated edges made − broken)
// when it improves, a random one with probability transNoise otherwise
// (WalkSAT's noise: what leaves the local minima), a tabu tenure keeping
// a vertex that just left from coming straight back. Every state is a
// transversal, so the moves touch only the few cliques next to a conflict
// — far more focused than a generic cover search, where most vertices of
// the kernel are candidates.
//
// It also gives covers above the bound: dropping one endpoint of every
// violated edge leaves an independent set, whose complement is a cover
// of n − k + drops vertices, so the search is an upper-bound search
// where the partition is not tight as well.

// transNoise is the probability of a random move at a step without an
// improving one; transTabu the least tabu tenure (plus a random 0–7).
var (
	transNoise = 0.1
	transTabu  = int64(7)
	// transWeights turns the breakout weights on; transForget is the
	// mean edge weight at which they are halved.
	transWeights = true
	transForget  = int64(8)
	// transRepair makes the moves compound: a move's cost counts only the
	// conflicts its cliques cannot repair, and the repairs are made.
	transRepair = true
	// transMaxGap: the transversal search runs in the solver where the
	// partition's bound is within max(2, k/transMaxGap) of the root bound
	// (k cliques): it must drop that many vertices from a transversal to
	// reach the bound, and it looks for covers with few drops.
	transMaxGap = 100
	// transAudit, when set (tests only), is told of every inconsistency
	// between the search's incremental state (conflict counts, weighted
	// conflicts, the cliques in conflict, the violated count) and a
	// recount, checked after every step.
	transAudit func(step int64, problem string)
	// transMutant breaks the move for TestTransversalMutation (never set
	// otherwise): the vertex that leaves its clique does not take its
	// last neighbour's conflict with it.
	transMutant bool
)

// transversalSearch looks for one vertex in each of the k cliques of
// part, independent in g, until stop is set, the deadline passes or it is
// found; it reports (improved) the covers of g it passes that are better
// than the previous, each verified by construction (complement of an
// independent set). It returns the cover of size n − k, or nil.
//
// init, if set, is a cover of g to start from: each clique takes a member
// outside it where it has one (the cover's complement is independent, so
// only the cliques it leaves empty start in conflict).
func transversalSearch(g *core.Graph, part []int32, k int, seed uint64, stop *atomic.Bool, deadline time.Time, init []bool, improved func(cover []bool, size int)) []bool {
	l := newPartLayout(g, part, k)
	n, start, clique, off, adj := l.n, l.start, l.clique, l.off, l.adj
	rand := xorshiftFrom(seed)
	chosen := make([]int32, k) // the vertex of each clique
	conf := make([]int32, n)   // chosen neighbours (in other cliques)
	// The breakout weights: each edge's, and each vertex's weighted
	// conflicts (the weights of its edges to chosen vertices).
	arcEdge, eu, _ := numberEdges(off, adj)
	weight := make([]int32, len(eu))
	for e := range weight {
		weight[e] = 1
	}
	wconf := make([]int64, n)
	totalW := int64(len(eu))
	tabu := make([]int64, n) // may be chosen again from this step
	// The cliques whose vertex has a chosen neighbour, and their places.
	bad := make([]int32, 0, k)
	pos := make([]int32, k)
	for q := range pos {
		pos[q] = -1
	}
	isChosen := func(v int32) bool { return chosen[clique[v]] == v }
	mark := func(q int32) {
		if c := conf[chosen[q]] > 0; c && pos[q] < 0 {
			pos[q] = int32(len(bad))
			bad = append(bad, q)
		} else if !c && pos[q] >= 0 {
			last := bad[len(bad)-1]
			bad[pos[q]], pos[last] = last, pos[q]
			bad, pos[q] = bad[:len(bad)-1], -1
		}
	}
	violated := 0 // violated edges
	// set makes v its clique's vertex (the clique's previous one unset).
	set := func(v int32) {
		q := clique[v]
		if u := chosen[q]; u >= 0 {
			violated -= int(conf[u])
			hi := off[u+1]
			if transMutant && hi > off[u] {
				hi--
			}
			for i := off[u]; i < hi; i++ {
				x := adj[i]
				wconf[x] -= int64(weight[arcEdge[i]])
				conf[x]--
				if conf[x] == 0 && isChosen(x) {
					mark(clique[x])
				}
			}
		}
		chosen[q] = v
		violated += int(conf[v])
		for i := off[v]; i < off[v+1]; i++ {
			x := adj[i]
			wconf[x] += int64(weight[arcEdge[i]])
			conf[x]++
			if conf[x] == 1 && isChosen(x) {
				mark(clique[x])
			}
		}
		mark(q)
	}
	for q := range chosen {
		chosen[q] = -1
	}
	// The start: the cliques in random order, each its member with the
	// fewest chosen neighbours (the first of them).
	for _, q := range shuffledCliques(rand, k) {
		best := start[q]
		for v := start[q] + 1; v < start[q+1]; v++ {
			if conf[v] < conf[best] {
				best = v
			}
		}
		if init != nil {
			for v := start[q]; v < start[q+1]; v++ {
				if !init[l.orig[v]] {
					best = v
				}
			}
		}
		set(best)
	}
	// emit hands on (to improved, when it is better than the last) the
	// cover of the current state with one endpoint of each violated edge
	// dropped from the independent set; final (no conflict left): the
	// cover is returned even if no better than the last reported.
	reported := n + 1
	inI := make([]bool, n)
	emit := func(final bool) []bool {
		for q := range chosen {
			inI[chosen[q]] = true
		}
		drops := 0
		for _, q := range bad {
			u := chosen[q]
			for _, x := range adj[off[u]:off[u+1]] {
				if inI[x] {
					inI[u] = false
					drops++
					break
				}
			}
		}
		// A dropped clique takes back a member with no neighbour left in
		// the set, if it has one.
		for _, q := range bad {
			if inI[chosen[q]] {
				continue
			}
			for y := start[q]; y < start[q+1]; y++ {
				free := true
				for _, x := range adj[off[y]:off[y+1]] {
					if inI[x] {
						free = false
						break
					}
				}
				if free {
					inI[y] = true
					drops--
					break
				}
			}
		}
		size := n - k + drops
		var cover []bool
		if better := size < reported; better || final {
			cover = make([]bool, n)
			for v := range cover {
				cover[l.orig[v]] = !inI[v]
			}
			if better && improved != nil {
				reported = size
				improved(cover, size)
			}
		}
		for _, q := range bad {
			for y := start[q]; y < start[q+1]; y++ {
				inI[y] = false
			}
		}
		for q := range chosen {
			inI[chosen[q]] = false
		}
		return cover
	}
	// adjacent: u and v are adjacent across cliques (sorted lists).
	adjacent := func(u, v int32) bool {
		_, ok := slices.BinarySearch(adj[off[u]:off[u+1]], v)
		return ok
	}
	// freeMember is a member y ≠ x of x's clique that would have no
	// chosen neighbour once from (if ≥ 0) is replaced by to in its
	// clique; -1 if none.
	freeMember := func(x, from, to int32) int32 {
		q := clique[x]
		for y := start[q]; y < start[q+1]; y++ {
			if y == x {
				continue
			}
			c := conf[y]
			if from >= 0 && c == 1 && adjacent(y, from) {
				c = 0
			}
			if c == 0 && (to < 0 || !adjacent(y, to)) {
				return y
			}
		}
		return -1
	}
	// repaired is the weighted conflicts of to once chosen in place of
	// from, counting only the chosen neighbours whose cliques cannot
	// repair (re-choose a member left free): the compound move's cost, as
	// WalkSAT's break counts only clauses left with no true literal.
	repaired := func(from, to int32) int64 {
		var c int64
		for i := off[to]; i < off[to+1]; i++ {
			if x := adj[i]; isChosen(x) && freeMember(x, from, to) < 0 {
				c += int64(weight[arcEdge[i]])
			}
		}
		return c
	}
	// audit recounts the state after step s.
	audit := func(s int64) {
		bad1 := func(format string, args ...any) { transAudit(s, fmt.Sprintf(format, args...)) }
		twice := 0
		for v := range int32(n) {
			var c int32
			var wc int64
			for i := off[v]; i < off[v+1]; i++ {
				if isChosen(adj[i]) {
					c++
					wc += int64(weight[arcEdge[i]])
				}
			}
			if c != conf[v] || wc != wconf[v] {
				bad1("vertex %d: conflicts %d (weighted %d), recounted %d (%d)", v, conf[v], wconf[v], c, wc)
			}
			if isChosen(v) {
				twice += int(c)
				if q := clique[v]; (c > 0) != (pos[q] >= 0) || (pos[q] >= 0 && bad[pos[q]] != q) {
					bad1("clique %d: %d conflicts, listed at %d", q, c, pos[q])
				}
			}
		}
		if twice != 2*violated {
			bad1("%d violated edges counted, %d recounted", violated, twice/2)
		}
	}
	// A new best state's cover is built when the state is at that best
	// again at least n/8 steps after the last one was built (so that the
	// O(n) construction costs O(1) a step on the first descent).
	bestViol, pending, lastEmit := violated, true, int64(0)
	type move struct{ from, to int32 }
	cands := make([]move, 0, 2*l.maxDeg+8)
	for step := int64(1); ; step++ {
		if violated == 0 {
			return emit(true)
		}
		if pending && violated == bestViol && step-lastEmit >= int64(n/8) {
			emit(false)
			pending, lastEmit = false, step
		}
		if step&1023 == 0 && (stop.Load() || time.Now().After(deadline)) {
			return nil
		}
		// A violated edge at random: a clique in conflict, then one of
		// its vertex's chosen neighbours (reservoir sampling).
		u := chosen[bad[rand(len(bad))]]
		var w int32 = -1
		var ew int32
		seen := 0
		for i := off[u]; i < off[u+1]; i++ {
			if x := adj[i]; isChosen(x) {
				seen++
				if rand(seen) == 0 {
					w, ew = x, arcEdge[i]
				}
			}
		}
		// The moves in the two cliques, and the best of them by weighted
		// conflicts (the oldest on ties; tabu ones only if they beat the
		// best state: the aspiration).
		cands = cands[:0]
		bestD, bi := int64(1<<62), -1
		for _, from := range [2]int32{u, w} {
			q := clique[from]
			for v := start[q]; v < start[q+1]; v++ {
				if v == from {
					continue
				}
				if tabu[v] > step && violated+int(conf[v]-conf[from]) >= bestViol {
					continue
				}
				cands = append(cands, move{from, v})
				d := wconf[v] - wconf[from]
				if !transWeights {
					d = int64(conf[v] - conf[from])
				} else if transRepair {
					d = repaired(from, v) - wconf[from]
				}
				if d < bestD || (d == bestD && tabu[v] < tabu[cands[bi].to]) {
					bestD, bi = d, len(cands)-1
				}
			}
		}
		if bestD >= 0 && transWeights {
			// A local minimum of the weighted conflicts on this edge: the
			// breakout raises its weight, so that a conflict that stays
			// costs more until a move removes it; the weights are scaled
			// down when their mean reaches transForget.
			weight[ew]++
			wconf[u]++
			wconf[w]++
			totalW++
			if totalW > transForget*int64(len(eu)) {
				totalW = 0
				for e := range weight {
					weight[e] = max(1, weight[e]/2)
					totalW += int64(weight[e])
				}
				for v := range n {
					wconf[v] = 0
					for i := off[v]; i < off[v+1]; i++ {
						if isChosen(adj[i]) {
							wconf[v] += int64(weight[arcEdge[i]])
						}
					}
				}
			}
		}
		if bi < 0 {
			continue
		}
		m := cands[bi]
		if bestD >= 0 {
			if float64(rand(1<<20)) < transNoise*(1<<20) {
				m = cands[rand(len(cands))]
			} else if transWeights {
				continue
			}
		}
		set(m.to)
		tabu[m.from] = step + transTabu + int64(rand(8))
		tabu[m.to] = step
		if transRepair {
			// The repairs: each clique the move put in conflict re-chooses
			// a member with no conflict, if it has one.
			v := m.to
			for _, x := range adj[off[v]:off[v+1]] {
				if isChosen(x) {
					if y := freeMember(x, -1, -1); y >= 0 {
						set(y)
						tabu[x] = step + transTabu + int64(rand(8))
						tabu[y] = step
					}
				}
			}
		}
		if violated < bestViol {
			bestViol, pending = violated, true
		}
		if transAudit != nil {
			audit(step)
		}
	}
}

// sparseGraph: g's mean degree is at most lnsMaxDegree, where the search
// takes a clique partition of the whole graph as a bound (bestPartition,
// two greedy passes, costs little next to the root reductions there).
func sparseGraph(g *core.Graph) bool {
	return len(g.Adj) <= lnsMaxDegree*g.N
}

// sparsePartition is the better of bestPartition and largeCliquesFirst:
// the partition of the transversal search and of the top engine's bound
// on sparse graphs. bestPartition alone stays where it was measured (the
// ILS's defects; the choice of BHOSLIB's partition search, which a
// partition made tight would send sparse kernels of under 1,000 vertices
// to, unmeasured).
func sparsePartition(g *core.Graph) ([]int32, int) {
	part, k := bestPartition(g)
	if p2, k2 := largeCliquesFirst(g); k2 < k {
		part, k = p2, k2
	}
	return part, k
}

// largeCliquesFirst is a clique partition of g that takes cliques of
// three or more first (grown from each vertex, lowest degrees first,
// among the vertices still free), then pairs the rest (a greedy matching,
// lowest degrees first), then singletons: the clique of each vertex and
// the count. The sequential greedy of the bound (cliqueCover) lets a
// vertex of degree 2 open a clique that the triangle of its neighbour then
// joins as a pair, splitting the triangle: on the PACE triangle family
// (3-SAT encodings, whose partition into triangles and hub edges is
// tight) that left vc-exact_177's partition 16 below the optimum.
func largeCliquesFirst(g *core.Graph) ([]int32, int) {
	n := g.N
	order := make([]int32, n)
	for v := range order {
		order[v] = int32(v)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return g.Degree(int(a)) - g.Degree(int(b)) })
	part := make([]int32, n)
	for v := range part {
		part[v] = -1
	}
	cnt := make([]int32, n) // members of the growing clique adjacent to x
	var members, cand []int32
	k := int32(0)
	for _, v := range order {
		if part[v] >= 0 {
			continue
		}
		members = append(members[:0], v)
		for _, x := range g.Neighbors(int(v)) {
			cnt[x]++
		}
		// The free neighbours of v, lowest degrees first.
		cand = cand[:0]
		for _, u := range g.Neighbors(int(v)) {
			if part[u] < 0 {
				cand = append(cand, u)
			}
		}
		slices.SortStableFunc(cand, func(a, b int32) int { return g.Degree(int(a)) - g.Degree(int(b)) })
		for _, u := range cand {
			if cnt[u] == int32(len(members)) {
				members = append(members, u)
				for _, x := range g.Neighbors(int(u)) {
					cnt[x]++
				}
			}
		}
		for _, c := range members {
			for _, x := range g.Neighbors(int(c)) {
				cnt[x] = 0
			}
		}
		if len(members) >= 3 {
			for _, c := range members {
				part[c] = k
			}
			k++
		}
	}
	for _, v := range order {
		if part[v] >= 0 {
			continue
		}
		best, bd := int32(-1), 1<<30
		for _, u := range g.Neighbors(int(v)) {
			if part[u] < 0 && g.Degree(int(u)) < bd {
				best, bd = u, g.Degree(int(u))
			}
		}
		part[v] = k
		if best >= 0 {
			part[best] = k
		}
		k++
	}
	return part, int(k)
}
