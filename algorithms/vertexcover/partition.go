package vertexcover

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// A clique partition of the kernel gives its lower bound n − k (k
// cliques: a clique of q vertices needs q − 1 of them in any cover). A
// cover of exactly that size leaves one vertex of every clique out, and
// those vertices are independent. When the incumbent is just above the
// bound (BHOSLIB: the planted cliques give the optimum at the root), the
// cover that closes the gap is therefore an assignment of one vertex to
// each clique with no edge between the chosen vertices: a binary CSP.
// partitionSearch looks for it by local search over such assignments,
// with NuMVC's ingredients carried over: weights on the violated edges,
// raised every step and forgotten now and then, and configuration
// checking (a vertex that left its clique's choice returns only after a
// neighbour changed). Every state already satisfies the cliques, so the
// space is far smaller than NuMVC's over all covers of that size.
// A step samples partSample violated edges and makes the best move
// (least weighted delta, oldest on ties) that re-chooses in the clique of
// one of their endpoints.

// bestPartition is the better (fewer cliques) of the greedy clique
// partitions of the bound (cliqueCover) in index order (generators such
// as BHOSLIB's number each planted clique consecutively) and in ascending
// degree order: the clique of each vertex and the count.
func bestPartition(g *core.Graph) ([]int32, int) {
	s := newState(g)
	idx := make([]int32, g.N)
	for v := range idx {
		idx[v] = int32(v)
	}
	take := func(order []int32) ([]int32, int) {
		s.cliqueCover(order)
		part, k := slices.Clone(s.cc.clique[:g.N]), s.cc.k
		s.clearCliques(order)
		return part, k
	}
	part, k := take(idx)
	s.degreeOrder()
	if p2, k2 := take(s.cc.order); k2 < k {
		part, k = p2, k2
	}
	return part, k
}

// partitionSearch looks for an independent set of g with one vertex in
// each of the k cliques of part, until stop is set or the deadline
// passes. It returns the cover (every vertex but the chosen ones, of size
// n − k) or nil.
func partitionSearch(g *core.Graph, part []int32, k int, seed uint64, stop *atomic.Bool, deadline time.Time, beta float64) []bool {
	return partitionSearchSteps(g, part, k, seed, stop, deadline, beta, nil)
}

// Weighting of the partition search: the weights are forgotten (scaled
// by partRho) when their mean reaches partGamma·n.
var (
	partGamma = 0.5
	partRho   = 0.3
	// partSample is the number of violated edges a step looks at: it
	// makes the move of least weighted delta among their endpoints'
	// cliques (2: 15 % more time per step for 19 % fewer steps to the
	// optimum on frb45/frb50, no clear gain in time; see docs/results/vertexcover.md).
	partSample = 1
	// partDegBeta biases the moves towards vertices of low degree: a
	// vertex's score counts β·(its degree − the least in its clique)
	// more, with β = partDegBeta × the mean edge weight so that the bias
	// keeps its size as the weights grow (BHOSLIB's solution vertices
	// have lower degree than their cliques' means). 0.02: 1.44× fewer
	// steps to the optimum over frb45/frb50 (docs/results/vertexcover.md, branch lsalg); it
	// costs where a solution is not low-degree (frb45-21-3: 11 → 9 of 16),
	// and 0.05 and more lose there badly.
	partDegBeta = 0.02
	// partChain makes a move whose new vertex conflicts with chosen ones
	// also re-choose, in the same step, the clique of one of them (the
	// most improving, if any improves): a two-move ejection chain. With
	// partChainAny false only when it conflicts with exactly one.
	partChain    = false
	partChainAny = false
	// partAudit, when set (tests only), is told of every inconsistency
	// between the search's incremental state (violated edges, lazy
	// weights, scores) and a recount, checked after every step.
	partAudit func(step int64, problem string)
)

// partitionSearchSteps is partitionSearch that also reports its step
// count in steps (if set; a positive *steps on entry caps the steps),
// for the measurements of ls_measure_test.go.
func partitionSearchSteps(g *core.Graph, part []int32, k int, seed uint64, stop *atomic.Bool, deadline time.Time, beta float64, steps *int64) []bool {
	l := newPartLayout(g, part, k)
	n, start, orig, clique, off, adj := l.n, l.start, l.orig, l.clique, l.off, l.adj
	arcEdge, eu, _ := numberEdges(off, adj)
	m := len(eu)
	// What the search keeps of an edge, in one record so that the few
	// edges a step touches cost a cache line each: its endpoints u < v,
	// its arcs a (u→v) and b (v→u), which both hold its weight so that
	// choose and unchoose read it in arc order, its place in viol while
	// violated, and since (below).
	type pedge struct {
		u, v, a, b, pos int32
		since           int64
	}
	edges := make([]pedge, m)
	for v := 0; v < n; v++ {
		for i := off[v]; i < off[v+1]; i++ {
			e := &edges[arcEdge[i]]
			if int32(v) == eu[arcEdge[i]] {
				e.u, e.a = int32(v), i
			} else {
				e.v, e.b = int32(v), i
			}
		}
	}
	// Each arc packs its head (low 32 bits) with the weight of its edge
	// (high 32 bits; a weight stays below forgetAt + m < 2^31), so that
	// the neighbour loops of choose and unchoose read one array in order.
	// The weight of each edge lives on both of its arcs (its a and b).
	arcs := make([]uint64, len(adj))
	for i, u := range adj {
		arcs[i] = uint64(uint32(u)) | 1<<32
	}
	// One word per vertex (pIn, pConf, pScore): the weight of v's edges
	// to chosen vertices stays below forgetAt + m, well inside 62 bits.
	vs := make([]int64, n)
	age := make([]int64, n)
	viol := make([]int32, 0, m)
	// Every step raises the weight of each violated edge by one. Rather
	// than touch those edges and their endpoints every step (random
	// accesses into the arcs, the largest array), the raises are counted
	// lazily: a violated edge e was last brought up to date at the start
	// of step e.since, so its weight is its arcs' + (step − e.since);
	// a chosen vertex's score is its word's + nv·step − sumSince, over
	// its nv violated edges. Only chosen vertices have violated edges,
	// and their scores are read only as the vertex leaving (the move's
	// delta), so the raises are applied when an edge stops being
	// violated and when the weights are forgotten. The same runs, step
	// for step.
	nv, sumSince := make([]int64, n), make([]int64, n)
	step := int64(1)
	chosenScore := func(v int32) int64 { return vs[v]&pScore + nv[v]*step - sumSince[v] }
	for v := range vs {
		vs[v] = pConf
	}
	rand := xorshiftFrom(seed)
	// The neighbour loops (addArcWeights) note the arcs to chosen
	// vertices and choose and unchoose handle them after.
	hits := make([]int32, l.maxDeg+1)
	choose := func(v int32) {
		vs[v] |= pIn
		lo, hi := off[v], off[v+1]
		nh := addArcWeights(arcs[lo:hi], vs, hits, 1)
		for _, j := range hits[:nh] {
			u := uint32(arcs[int(lo)+int(j)])
			e := arcEdge[int(lo)+int(j)]
			edges[e].pos = int32(len(viol))
			edges[e].since = step
			viol = append(viol, e)
			nv[u]++
			nv[v]++
			sumSince[u] += step
			sumSince[v] += step
		}
	}
	unchoose := func(v int32) {
		vs[v] = (vs[v] &^ pIn) + nv[v]*step - sumSince[v]
		nv[v], sumSince[v] = 0, 0
		lo, hi := off[v], off[v+1]
		nh := addArcWeights(arcs[lo:hi], vs, hits, -1)
		for _, j := range hits[:nh] {
			// The edge stops being violated: its raises go onto its
			// arcs, and u's score loses them with the rest.
			u := uint32(arcs[int(lo)+int(j)])
			e := &edges[arcEdge[int(lo)+int(j)]]
			late := step - e.since
			arcs[e.a] += uint64(late) << 32
			arcs[e.b] += uint64(late) << 32
			nv[u]--
			sumSince[u] -= e.since
			last := viol[len(viol)-1]
			viol[e.pos] = last
			edges[last].pos = e.pos
			viol = viol[:len(viol)-1]
		}
		vs[v] &^= pConf
	}
	// audit recounts the state at the end of step s (its raise done).
	audit := func(s int64) {
		bad := func(format string, args ...any) { partAudit(s, fmt.Sprintf(format, args...)) }
		for q := range k {
			c := 0
			for v := start[q]; v < start[q+1]; v++ {
				if vs[v] < 0 {
					c++
				}
			}
			if c != 1 {
				bad("clique %d has %d chosen", q, c)
			}
		}
		weight := make([]int64, m)
		violated := 0
		for i, e := range edges {
			weight[i] = int64(arcs[e.a] >> 32)
			if arcs[e.a]>>32 != arcs[e.b]>>32 {
				bad("edge %d: arc weights %d and %d", i, arcs[e.a]>>32, arcs[e.b]>>32)
			}
			if vs[e.u] < 0 && vs[e.v] < 0 {
				violated++
				weight[i] += s + 1 - e.since
				if p := e.pos; int(p) >= len(viol) || viol[p] != int32(i) {
					bad("violated edge %d not at its place %d", i, p)
				}
			}
		}
		if violated != len(viol) {
			bad("%d violated edges listed, %d violated", len(viol), violated)
		}
		for v := range n {
			var want int64
			for i := off[v]; i < off[v+1]; i++ {
				if vs[adj[i]] < 0 {
					want += weight[arcEdge[i]]
				}
			}
			got := vs[v] & pScore
			if vs[v] < 0 {
				got += nv[v]*(s+1) - sumSince[v]
			}
			if got != want {
				bad("vertex %d: score %d, recounted %d", v, got, want)
			}
		}
	}
	l.greedyStart(rand, vs, choose)
	// bestIn is the member of q, other than its current choice, that
	// configuration checking allows, with the least key, oldest on ties;
	// -1 when none is allowed. The moves compare keys: the score in
	// 1/1024ths plus bias·ddeg, ddeg a vertex's degree above the least in
	// its clique and bias (beta, partDegBeta in the solver) set every step.
	ddeg := l.ddeg
	var bias int64
	freeKey := func(v int32) int64 { return (vs[v]&pScore)<<10 + bias*ddeg[v] }
	chosenKey := func(v int32) int64 { return chosenScore(v)<<10 + bias*ddeg[v] }
	delta := func(from, to int32) int64 { return freeKey(to) - chosenKey(from) }
	keys := make([]int64, 0, n)
	bestIn := func(q int32) int32 { return l.bestIn(q, vs, age, bias, keys) }
	// auditBest checks bestIn against a plain scan in member order, for
	// every clique (partAudit only).
	auditBest := func(s int64) {
		for q := range int32(k) {
			want, wk := int32(-1), int64(0)
			for v := start[q]; v < start[q+1]; v++ {
				if vs[v] < 0 || vs[v]&pConf == 0 {
					continue
				}
				if kv := freeKey(v); want < 0 || kv < wk || (kv == wk && age[v] < age[want]) {
					want, wk = v, kv
				}
			}
			if got := bestIn(q); got != want {
				partAudit(s, fmt.Sprintf("clique %d: bestIn %d, a plain scan %d", q, got, want))
			}
		}
	}
	totalW, forgetAt := int64(m), partForgetAt(m, n, partGamma)
	rho := int32(partRho*10 + 0.5) // in tenths
	stepCap := stepCapOf(steps)
	if steps != nil {
		defer func() { *steps = step }()
	}
	for ; len(viol) > 0; step++ {
		if step&1023 == 0 && partStopped(stop, step, stepCap, deadline) {
			return nil
		}
		if beta != 0 {
			bias = partBias(beta, totalW, m)
		}
		e := viol[rand(len(viol))]
		a, c := edges[e].u, edges[e].v
		from, to, ok := l.pickMove(rand, a, c, bestIn(clique[a]), bestIn(clique[c]), age, delta)
		if !ok {
			continue
		}
		for range partSample - 1 {
			// More violated edges: the move of least delta over all.
			e := viol[rand(len(viol))]
			d := freeKey(to) - chosenKey(from)
			for _, x := range [2]int32{edges[e].u, edges[e].v} {
				if y := bestIn(clique[x]); y >= 0 {
					if dy := freeKey(y) - chosenKey(x); dy < d || (dy == d && age[y] < age[to]) {
						from, to, d = x, y, dy
					}
				}
			}
		}
		unchoose(from)
		n0 := len(viol)
		choose(to)
		age[from], age[to] = step, step
		if added := viol[n0:]; partChain && len(added) > 0 && (len(added) == 1 || partChainAny) {
			// The ejection chain: the best re-choice among the cliques
			// to now conflicts with, if it lowers the weighted conflicts.
			y, z, dz := int32(-1), int32(-1), int64(0)
			for _, f := range added {
				yy := edges[f].u ^ edges[f].v ^ to
				if zz := bestIn(clique[yy]); zz >= 0 {
					if d := freeKey(zz) - chosenKey(yy); d < dz {
						y, z, dz = yy, zz, d
					}
				}
			}
			if z >= 0 {
				unchoose(y)
				choose(z)
				age[y], age[z] = step, step
			}
		}
		totalW += int64(len(viol))
		if totalW > forgetAt {
			// Bring the violated edges up to date, this step's raise
			// included, then scale every weight and recount the scores.
			for _, i := range viol {
				e := &edges[i]
				late := step + 1 - e.since
				arcs[e.a] += uint64(late) << 32
				arcs[e.b] += uint64(late) << 32
				e.since = step + 1
			}
			for v := range nv {
				sumSince[v] = nv[v] * (step + 1)
			}
			totalW = 0
			for v := range vs {
				vs[v] &^= pScore
			}
			for _, e := range edges {
				x := max(1, int32(arcs[e.a]>>32)*rho/10)
				arcs[e.a] = uint64(uint32(arcs[e.a])) | uint64(x)<<32
				arcs[e.b] = uint64(uint32(arcs[e.b])) | uint64(x)<<32
				totalW += int64(x)
				if vs[e.u] < 0 {
					vs[e.v] += int64(x)
				}
				if vs[e.v] < 0 {
					vs[e.u] += int64(x)
				}
			}
		}
		if partAudit != nil {
			audit(step)
			auditBest(step)
		}
	}
	cover := make([]bool, n)
	for v := range cover {
		cover[orig[v]] = vs[v] >= 0
	}
	return cover
}

// interCliqueCSR is g's edges between different cliques of part, in CSR
// form with ascending lists (g's lists ascend): the graph the partition
// search works on, here and on a device (devls.go).
func interCliqueCSR(g *core.Graph, part []int32) (off, adj []int32) {
	off = make([]int32, g.N+1)
	for v := 0; v < g.N; v++ {
		for _, u := range g.Neighbors(v) {
			if part[u] != part[v] {
				adj = append(adj, u)
			}
		}
		off[v+1] = int32(len(adj))
	}
	return off, adj
}

// The word of a vertex in the partition searches, so that a neighbour
// update is one load and one store: its score (the weight of its edges to
// chosen vertices) in pScore, pIn (the sign bit) when it is chosen, pConf
// when configuration checking allows it back.
const (
	pIn    = int64(-1 << 63)
	pConf  = int64(1 << 62)
	pScore = pConf - 1
)

// partLayout is what the partition searches (partition.go, and the
// measured alternative in pairsearch_test.go) build from a graph and its
// clique partition: the vertices renumbered clique by clique, so that the
// members of clique q are the ids start[q] …
// start[q+1]−1 and the member scans of a step read their words in order
// (orig maps back), and the graph between the cliques (edges inside one
// are implied) with ascending lists (where the cliques are runs of g's
// ids, as BHOSLIB's are, the lists keep g's order).
type partLayout struct {
	n, k     int
	start    []int32
	orig     []int32
	clique   []int32
	off, adj []int32
	// ddeg: each vertex's degree above the least in its clique (the
	// degree bias's); maxDeg the largest degree.
	ddeg   []int64
	maxDeg int32
}

func newPartLayout(g *core.Graph, part []int32, k int) *partLayout {
	n := g.N
	l := &partLayout{n: n, k: k, start: make([]int32, k+1), orig: make([]int32, n), clique: make([]int32, n)}
	start := l.start
	for _, q := range part {
		start[q+1]++
	}
	for q := 0; q < k; q++ {
		start[q+1] += start[q]
	}
	id := make([]int32, n)
	fill := slices.Clone(start[:k])
	for v, q := range part {
		l.orig[fill[q]], id[v] = int32(v), fill[q]
		fill[q]++
	}
	for q := range k {
		for v := start[q]; v < start[q+1]; v++ {
			l.clique[v] = int32(q)
		}
	}
	l.off, l.adj = make([]int32, n+1), make([]int32, 0, len(g.Adj))
	for v, o := range l.orig {
		for _, u := range g.Neighbors(int(o)) {
			if part[u] != part[o] {
				l.adj = append(l.adj, id[u])
			}
		}
		l.off[v+1] = int32(len(l.adj))
		slices.Sort(l.adj[l.off[v]:])
		l.maxDeg = max(l.maxDeg, l.off[v+1]-l.off[v])
	}
	l.ddeg = make([]int64, n)
	for q := range k {
		least := int32(math.MaxInt32)
		for v := start[q]; v < start[q+1]; v++ {
			least = min(least, l.off[v+1]-l.off[v])
		}
		for v := start[q]; v < start[q+1]; v++ {
			l.ddeg[v] = int64(l.off[v+1] - l.off[v] - least)
		}
	}
	return l
}

// addArcWeights adds sign × each arc's weight (its high 32 bits) to the
// word of its head (its low 32 bits), setting the head's pConf (a
// neighbour changed, so configuration checking allows it), and lists in
// hits the indices of the arcs whose head is chosen, returning their
// count. The listing has no branch: there are a few such arcs among a
// hundred or more, at random places, so a branch would be mispredicted
// on most of them. A function of its own rather than a closure's loop so
// that the loop's values stay in registers: inside the closures the
// compiler spilled two of them and kept the hit count on the stack, a
// store and a reload on every arc (frb59-26-2 seed 1, this box, three
// alternating runs: 1.21–1.28 → 1.40–1.43 M steps/s, the same steps);
// go:noinline keeps it so.
//
//go:noinline
func addArcWeights(arcs []uint64, vs []int64, hits []int32, sign int64) int {
	hits = hits[:len(arcs)]
	nh := 0
	for j, a := range arcs {
		u := uint32(a)
		x := (vs[u] + sign*int64(a>>32)) | pConf
		vs[u] = x
		hits[nh] = int32(j)
		nh += int(uint64(x) >> 63)
	}
	return nh
}

// partForgetAt is the total edge weight at which the partition searches
// forget (scale) their weights: a mean edge weight of gamma·n (at least
// 2), capped so that scores stay well inside 31 bits.
func partForgetAt(m, n int, gamma float64) int64 {
	return min(int64(float64(m)*max(gamma*float64(n), 2)), 1<<30)
}

// partBias is the degree bias of a step: beta × the mean edge weight
// (edgeW over m edges), in the 1/1024ths of the score keys.
func partBias(beta float64, edgeW int64, m int) int64 {
	return int64(beta * 1024 * float64(edgeW) / float64(m))
}

// stepCapOf is the step cap asked for through steps (a positive *steps),
// else none.
func stepCapOf(steps *int64) int64 {
	if steps != nil && *steps > 0 {
		return *steps
	}
	return math.MaxInt64
}

// partStopped: stop is set, the step cap reached or the deadline passed
// (checked every 1024 steps).
func partStopped(stop *atomic.Bool, step, stepCap int64, deadline time.Time) bool {
	return stop.Load() || step >= stepCap || time.Now().After(deadline)
}

// pickMove decides a step's move for the violated edge (a, c), given the
// best allowed member of each one's clique (ba, bc; -1 none) and delta,
// the change of weighted conflicts (in keys) of a move: the side of the
// lesser delta, the older new member on ties, a's on equal ages; a's side
// if only it has a member allowed, c's if only c's; and with none, a
// random member of a's clique, so that the search cannot stall (ok false
// when that is a itself: the step does nothing).
func (l *partLayout) pickMove(rand func(int) int, a, c, ba, bc int32, age []int64, delta func(from, to int32) int64) (from, to int32, ok bool) {
	switch {
	case ba < 0 && bc < 0:
		q := l.clique[a]
		to = l.start[q] + int32(rand(int(l.start[q+1]-l.start[q])))
		return a, to, to != a
	case ba < 0:
		return c, bc, true
	case bc >= 0:
		if da, dc := delta(a, ba), delta(c, bc); dc < da || (dc == da && age[bc] < age[ba]) {
			return c, bc, true
		}
	}
	return a, ba, true
}

// greedyStart chooses in each clique, in random order, its member with
// the fewest weighted edges to those already chosen (the score in vs).
func (l *partLayout) greedyStart(rand func(int) int, vs []int64, choose func(int32)) {
	for _, q := range shuffledCliques(rand, l.k) {
		best := l.start[q]
		for v := l.start[q]; v < l.start[q+1]; v++ {
			if vs[v]&pScore < vs[best]&pScore {
				best = v
			}
		}
		choose(best)
	}
}

// bestIn is the member of clique q that is not chosen and that
// configuration checking allows, with the least key (score·1024 +
// bias·ddeg), the oldest on ties and then the first; -1 when there is
// none. It finds the least key without a branch on the data (which member
// wins is unpredictable: a branchy scan mispredicts on most steps), a
// member not allowed getting 2^62 more (keys stay below 2^42 +
// bias·ddeg), then the oldest of that key; keys is scratch of n words.
func (l *partLayout) bestIn(q int32, vs, age []int64, bias int64, keys []int64) int32 {
	lo, hi := l.start[q], l.start[q+1]
	ks := keys[:hi-lo]
	bk := memberKeys(vs[lo:hi], l.ddeg[lo:hi], ks, bias)
	if bk >= 1<<62 {
		return -1
	}
	return lo + int32(oldestOf(ks, age[lo:hi], bk))
}

// memberKeys writes the keys of a clique's members (their words and
// ddeg) into ks and returns the least. memberKeys and oldestOf are
// functions of their own, not inlined, so that their loops keep every
// value in a register: inlined into bestIn, the compiler spilled four and
// reloaded them every member (frb59-26-2 seed 1, this box, three
// alternating runs: a further 1.40–1.43 → 1.43–1.51 M steps/s, the same
// steps).
//
//go:noinline
func memberKeys(words, ddeg, ks []int64, bias int64) int64 {
	ddeg, ks = ddeg[:len(words)], ks[:len(words)]
	bk := int64(math.MaxInt64)
	for i, x := range words {
		// Allowed: x>>62 is 1 (pConf set, pIn clear); t^1 is then 0,
		// else 1..3, and (t^1+3)>>2 is 1 exactly then.
		t := uint64(x)>>62 ^ 1
		k := (x&pScore)<<10 + bias*ddeg[i] + int64((t+3)>>2)<<62
		ks[i] = k
		bk = min(bk, k)
	}
	return bk
}

// oldestOf is the index of the oldest (least age) of the keys equal to
// bk, the first on ties; one of them must be. Without a branch on the
// data, as memberKeys: a member of another key counts as infinitely
// young.
//
//go:noinline
func oldestOf(ks, ages []int64, bk int64) int {
	ages = ages[:len(ks)]
	b, ba := 0, int64(math.MaxInt64)
	for i, k := range ks {
		a := ages[i]
		if k != bk {
			a = math.MaxInt64
		}
		if a < ba {
			b, ba = i, a
		}
	}
	return b
}

// shuffledCliques is the cliques 0 … k−1 in a random order (Fisher–Yates):
// the order in which the partition searches' greedy starts choose.
func shuffledCliques(rand func(int) int, k int) []int32 {
	qs := make([]int32, k)
	for q := range qs {
		qs[q] = int32(q)
	}
	for i := k - 1; i > 0; i-- {
		j := rand(i + 1)
		qs[i], qs[j] = qs[j], qs[i]
	}
	return qs
}
