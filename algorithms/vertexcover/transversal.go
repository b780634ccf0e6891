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
	t := newTransversal(g, part, k, seed, improved)
	t.begin(init)
	// A new best state's cover is built when the state is at that best
	// again at least n/8 steps after the last one was built (so that the
	// O(n) construction costs O(1) a step on the first descent).
	t.bestViol = t.violated
	pending, lastEmit := true, int64(0)
	for step := int64(1); ; step++ {
		if t.violated == 0 {
			return t.emit(true)
		}
		if pending && t.violated == t.bestViol && step-lastEmit >= int64(t.n/8) {
			t.emit(false)
			pending, lastEmit = false, step
		}
		if step&1023 == 0 && (stop.Load() || time.Now().After(deadline)) {
			return nil
		}
		if !t.step(step) {
			continue
		}
		if t.violated < t.bestViol {
			t.bestViol, pending = t.violated, true
		}
		if transAudit != nil {
			t.audit(step)
		}
	}
}

// transversal is the state of transversalSearch: the kernel's layout by
// cliques, the vertex chosen in each clique, the conflicts and the
// breakout weights.
type transversal struct {
	n, k                          int
	start, clique, off, adj, orig []int32
	rng                           uint64 // xorshiftFrom's state
	improved                      func(cover []bool, size int)
	chosen                        []int32 // the vertex of each clique
	conf                          []int32 // chosen neighbours (in other cliques)
	// The breakout weights: each edge's, and each vertex's weighted
	// conflicts (the weights of its edges to chosen vertices).
	arcEdge, weight []int32
	wconf           []int64
	totalW          int64
	tabu            []int64 // may be chosen again from this step
	// The cliques whose vertex has a chosen neighbour, and their places.
	bad, pos []int32
	violated int // violated edges
	bestViol int // the fewest violated edges so far
	reported int // the size of the last cover reported
	inI      []bool
	cands    []transMove
}

// transMove re-chooses a clique's vertex: from leaves, to comes in.
type transMove struct{ from, to int32 }

// newTransversal is the search's state with no vertex chosen yet.
func newTransversal(g *core.Graph, part []int32, k int, seed uint64, improved func(cover []bool, size int)) *transversal {
	l := newPartLayout(g, part, k)
	n := l.n
	t := &transversal{n: n, k: k, start: l.start, clique: l.clique, off: l.off, adj: l.adj, orig: l.orig,
		rng: xorshiftSeed(seed), improved: improved,
		chosen: make([]int32, k), conf: make([]int32, n), wconf: make([]int64, n), tabu: make([]int64, n),
		bad: make([]int32, 0, k), pos: make([]int32, k), reported: n + 1, inI: make([]bool, n),
		cands: make([]transMove, 0, 2*l.maxDeg+8)}
	var eu []int32
	t.arcEdge, eu, _ = numberEdges(t.off, t.adj)
	t.weight = make([]int32, len(eu))
	for e := range t.weight {
		t.weight[e] = 1
	}
	t.totalW = int64(len(eu))
	for q := range t.pos {
		t.pos[q] = -1
	}
	for q := range t.chosen {
		t.chosen[q] = -1
	}
	return t
}

// rand is a draw in [0, k), the sequence of xorshiftFrom(seed), as a
// method on the state so that the steps' draws are inlined.
func (t *transversal) rand(k int) int {
	t.rng ^= t.rng << 13
	t.rng ^= t.rng >> 7
	t.rng ^= t.rng << 17
	return int(t.rng % uint64(k))
}

// isChosen: v is its clique's vertex.
func (t *transversal) isChosen(v int32) bool { return t.chosen[t.clique[v]] == v }

// mark lists clique q in bad, or takes it off, as its vertex is in
// conflict or not.
func (t *transversal) mark(q int32) {
	pos := t.pos
	if c := t.conf[t.chosen[q]] > 0; c && pos[q] < 0 {
		pos[q] = int32(len(t.bad))
		t.bad = append(t.bad, q)
	} else if !c && pos[q] >= 0 {
		bad := t.bad
		last := bad[len(bad)-1]
		bad[pos[q]], pos[last] = last, pos[q]
		t.bad, pos[q] = bad[:len(bad)-1], -1
	}
}

// set makes v its clique's vertex (the clique's previous one unset).
func (t *transversal) set(v int32) {
	chosen, clique, conf, wconf, weight, arcEdge, off, adj := t.chosen, t.clique, t.conf, t.wconf, t.weight, t.arcEdge, t.off, t.adj
	q := clique[v]
	if u := chosen[q]; u >= 0 {
		t.violated -= int(conf[u])
		hi := off[u+1]
		if transMutant && hi > off[u] {
			hi--
		}
		for i := off[u]; i < hi; i++ {
			x := adj[i]
			wconf[x] -= int64(weight[arcEdge[i]])
			conf[x]--
			if conf[x] == 0 && chosen[clique[x]] == x {
				t.mark(clique[x])
			}
		}
	}
	chosen[q] = v
	t.violated += int(conf[v])
	for i := off[v]; i < off[v+1]; i++ {
		x := adj[i]
		wconf[x] += int64(weight[arcEdge[i]])
		conf[x]++
		if conf[x] == 1 && chosen[clique[x]] == x {
			t.mark(clique[x])
		}
	}
	t.mark(q)
}

// begin is the start: the cliques in random order, each its member with
// the fewest chosen neighbours (the first of them), or, with init (a
// cover of g), its last member outside init where it has one (the cover's
// complement is independent, so only the cliques it leaves empty start in
// conflict).
func (t *transversal) begin(init []bool) {
	start, conf := t.start, t.conf
	for _, q := range shuffledCliques(t.rand, t.k) {
		best := start[q]
		for v := start[q] + 1; v < start[q+1]; v++ {
			if conf[v] < conf[best] {
				best = v
			}
		}
		if init != nil {
			for v := start[q]; v < start[q+1]; v++ {
				if !init[t.orig[v]] {
					best = v
				}
			}
		}
		t.set(best)
	}
}

// emit hands on (to improved, when it is better than the last) the cover
// of the current state with one endpoint of each violated edge dropped
// from the independent set; final (no conflict left): the cover is
// returned even if no better than the last reported.
func (t *transversal) emit(final bool) []bool {
	inI, chosen, start, off, adj := t.inI, t.chosen, t.start, t.off, t.adj
	for q := range chosen {
		inI[chosen[q]] = true
	}
	drops := 0
	for _, q := range t.bad {
		u := chosen[q]
		for _, x := range adj[off[u]:off[u+1]] {
			if inI[x] {
				inI[u] = false
				drops++
				break
			}
		}
	}
	// A dropped clique takes back a member with no neighbour left in the
	// set, if it has one.
	for _, q := range t.bad {
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
	size := t.n - t.k + drops
	var cover []bool
	if better := size < t.reported; better || final {
		cover = make([]bool, t.n)
		for v := range cover {
			cover[t.orig[v]] = !inI[v]
		}
		if better && t.improved != nil {
			t.reported = size
			t.improved(cover, size)
		}
	}
	for _, q := range t.bad {
		for y := start[q]; y < start[q+1]; y++ {
			inI[y] = false
		}
	}
	for q := range chosen {
		inI[chosen[q]] = false
	}
	return cover
}

// calm is a member y ≠ x of x's clique with no chosen neighbour; -1 if
// none: the repair of x's clique.
func (t *transversal) calm(x int32) int32 {
	q := t.clique[x]
	for y := t.start[q]; y < t.start[q+1]; y++ {
		if y != x && t.conf[y] == 0 {
			return y
		}
	}
	return -1
}

// audit recounts the state after step s.
func (t *transversal) audit(s int64) {
	bad1 := func(format string, args ...any) { transAudit(s, fmt.Sprintf(format, args...)) }
	twice := 0
	for v := range int32(t.n) {
		var c int32
		var wc int64
		for i := t.off[v]; i < t.off[v+1]; i++ {
			if t.isChosen(t.adj[i]) {
				c++
				wc += int64(t.weight[t.arcEdge[i]])
			}
		}
		if c != t.conf[v] || wc != t.wconf[v] {
			bad1("vertex %d: conflicts %d (weighted %d), recounted %d (%d)", v, t.conf[v], t.wconf[v], c, wc)
		}
		if t.isChosen(v) {
			twice += int(c)
			if q := t.clique[v]; (c > 0) != (t.pos[q] >= 0) || (t.pos[q] >= 0 && t.bad[t.pos[q]] != q) {
				bad1("clique %d: %d conflicts, listed at %d", q, c, t.pos[q])
			}
		}
	}
	if twice != 2*t.violated {
		bad1("%d violated edges counted, %d recounted", t.violated, twice/2)
	}
}

// violatedEdge is a violated edge at random: a clique in conflict, then
// one of its vertex's chosen neighbours (reservoir sampling); the edge's
// number.
func (t *transversal) violatedEdge() (u, w, ew int32) {
	off, adj, arcEdge, chosen, clique := t.off, t.adj, t.arcEdge, t.chosen, t.clique
	u, w = chosen[t.bad[t.rand(len(t.bad))]], -1
	seen := 0
	for i := off[u]; i < off[u+1]; i++ {
		if x := adj[i]; chosen[clique[x]] == x {
			seen++
			if t.rand(seen) == 0 {
				w, ew = x, arcEdge[i]
			}
		}
	}
	return u, w, ew
}

// bestMove lists the moves in u's and w's cliques (t.cands) and picks
// the best of them by weighted conflicts (the oldest on ties; tabu ones
// only if they beat the best state: the aspiration): its index (-1 if
// none) and delta. The search's hottest code: its helpers are closures on
// locals, which the compiler inlines.
func (t *transversal) bestMove(step int64, u, w int32) (int, int64) {
	start, clique, off, adj, chosen := t.start, t.clique, t.off, t.adj, t.chosen
	conf, wconf, tabu, weight, arcEdge := t.conf, t.wconf, t.tabu, t.weight, t.arcEdge
	// adjacent: u and v are adjacent across cliques (sorted lists).
	adjacent := func(u, v int32) bool {
		_, ok := slices.BinarySearch(adj[off[u]:off[u+1]], v)
		return ok
	}
	// freeMember: x's clique has a member y ≠ x that would have no chosen
	// neighbour once from is replaced by to in its clique.
	freeMember := func(x, from, to int32) bool {
		q := clique[x]
		for y := start[q]; y < start[q+1]; y++ {
			if y == x {
				continue
			}
			c := conf[y]
			if c == 1 && adjacent(y, from) {
				c = 0
			}
			if c == 0 && !adjacent(y, to) {
				return true
			}
		}
		return false
	}
	// repaired is the weighted conflicts of to once chosen in place of
	// from, counting only the chosen neighbours whose cliques cannot
	// repair (re-choose a member left free): the compound move's cost, as
	// WalkSAT's break counts only clauses left with no true literal.
	repaired := func(from, to int32) int64 {
		var c int64
		for i := off[to]; i < off[to+1]; i++ {
			if x := adj[i]; chosen[clique[x]] == x && !freeMember(x, from, to) {
				c += int64(weight[arcEdge[i]])
			}
		}
		return c
	}
	cands := t.cands[:0]
	bestD, bi := int64(1<<62), -1
	for _, from := range [2]int32{u, w} {
		q := clique[from]
		for v := start[q]; v < start[q+1]; v++ {
			if v == from {
				continue
			}
			if tabu[v] > step && t.violated+int(conf[v]-conf[from]) >= t.bestViol {
				continue
			}
			cands = append(cands, transMove{from, v})
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
	t.cands = cands
	return bi, bestD
}

// breakout: a local minimum of the weighted conflicts on edge ew (u–w)
// raises its weight, so that a conflict that stays costs more until a
// move removes it; the weights are scaled down when their mean reaches
// transForget.
func (t *transversal) breakout(u, w, ew int32) {
	t.weight[ew]++
	t.wconf[u]++
	t.wconf[w]++
	t.totalW++
	if t.totalW <= transForget*int64(len(t.weight)) {
		return
	}
	t.totalW = 0
	for e := range t.weight {
		t.weight[e] = max(1, t.weight[e]/2)
		t.totalW += int64(t.weight[e])
	}
	for v := range t.n {
		t.wconf[v] = 0
		for i := t.off[v]; i < t.off[v+1]; i++ {
			if t.isChosen(t.adj[i]) {
				t.wconf[v] += int64(t.weight[t.arcEdge[i]])
			}
		}
	}
}

// step is one step of the search on a violated edge: false if it made
// no move (none allowed, or a breakout without noise).
func (t *transversal) step(step int64) bool {
	u, w, ew := t.violatedEdge()
	bi, bestD := t.bestMove(step, u, w)
	if bestD >= 0 && transWeights {
		t.breakout(u, w, ew)
	}
	if bi < 0 {
		return false
	}
	m := t.cands[bi]
	if bestD >= 0 {
		if float64(t.rand(1<<20)) < transNoise*(1<<20) {
			m = t.cands[t.rand(len(t.cands))]
		} else if transWeights {
			return false
		}
	}
	t.set(m.to)
	t.tabu[m.from] = step + transTabu + int64(t.rand(8))
	t.tabu[m.to] = step
	if transRepair {
		// The repairs: each clique the move put in conflict re-chooses a
		// member with no conflict, if it has one.
		v := m.to
		for _, x := range t.adj[t.off[v]:t.off[v+1]] {
			if t.isChosen(x) {
				if y := t.calm(x); y >= 0 {
					t.set(y)
					t.tabu[x] = step + transTabu + int64(t.rand(8))
					t.tabu[y] = step
				}
			}
		}
	}
	return true
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
