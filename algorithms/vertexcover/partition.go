package vertexcover

import (
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
func partitionSearch(g *core.Graph, part []int32, k int, seed uint64, stop *atomic.Bool, deadline time.Time) []bool {
	return partitionSearchSteps(g, part, k, seed, stop, deadline, nil)
}

// Weighting of the partition search: the weights are forgotten (scaled
// by partRho) when their mean reaches partGamma·n.
var (
	partGamma = 0.5
	partRho   = 0.3
	// partSample is the number of violated edges a step looks at: it
	// makes the move of least weighted delta among their endpoints'
	// cliques (2: 15 % more time per step for 19 % fewer steps to the
	// optimum on frb45/frb50, no clear gain in time; see NOTES).
	partSample = 1
)

// partitionSearchSteps is partitionSearch that also reports its step
// count in steps (if set; a positive *steps on entry caps the steps),
// for the measurements of ls_measure_test.go.
func partitionSearchSteps(g *core.Graph, part []int32, k int, seed uint64, stop *atomic.Bool, deadline time.Time, steps *int64) []bool {
	n := g.N
	// Cliques as lists, and the arcs between different cliques with
	// their edge ids.
	start := make([]int32, k+1)
	for _, q := range part {
		start[q+1]++
	}
	for q := 0; q < k; q++ {
		start[q+1] += start[q]
	}
	members := make([]int32, n)
	fill := slices.Clone(start[:k])
	for v, q := range part {
		members[fill[q]] = int32(v)
		fill[q]++
	}
	// The graph between the parts (edges inside a part are implied).
	off, adj := interCliqueCSR(g, part)
	arcEdge, eu, ev := numberEdges(off, adj)
	m := len(eu)
	// The weight of each edge lives on both of its arcs (ea, eb), so that
	// choose and unchoose read it in arc order.
	ea, eb := make([]int32, m), make([]int32, m)
	for v := 0; v < n; v++ {
		for i := off[v]; i < off[v+1]; i++ {
			if e := arcEdge[i]; int32(v) == eu[e] {
				ea[e] = i
			} else {
				eb[e] = i
			}
		}
	}
	w := make([]int32, len(adj))
	for i := range w {
		w[i] = 1
	}
	// One record per vertex, so that the neighbour loops of choose and
	// unchoose touch one place (and bounds-check once) per arc: score is
	// the weight of v's edges to chosen vertices (the total weight stays
	// below forgetAt + m, well inside 31 bits), in whether v is chosen,
	// conf its configuration-checking flag.
	type pvert struct {
		score    int32
		in, conf bool
	}
	vs := make([]pvert, n)
	age := make([]int64, n)
	viol, vPos := make([]int32, 0, m), make([]int32, m)
	for v := range vs {
		vs[v].conf = true
	}
	rand := xorshiftFrom(seed)
	choose := func(v int32) {
		vs[v].in = true
		lo, hi := off[v], off[v+1]
		ws := w[lo:hi]
		for j, u := range adj[lo:hi] {
			x := &vs[u]
			x.score += ws[j]
			x.conf = true
			if x.in {
				e := arcEdge[int(lo)+j]
				vPos[e] = int32(len(viol))
				viol = append(viol, e)
			}
		}
	}
	unchoose := func(v int32) {
		vs[v].in = false
		lo, hi := off[v], off[v+1]
		ws := w[lo:hi]
		for j, u := range adj[lo:hi] {
			x := &vs[u]
			x.score -= ws[j]
			x.conf = true
			if x.in {
				e := arcEdge[int(lo)+j]
				last := viol[len(viol)-1]
				viol[vPos[e]] = last
				vPos[last] = vPos[e]
				viol = viol[:len(viol)-1]
			}
		}
		vs[v].conf = false
	}
	// Greedy start: each clique, in random order, takes its member with
	// the fewest edges to those already chosen.
	qs := make([]int32, k)
	for q := range qs {
		qs[q] = int32(q)
	}
	for i := k - 1; i > 0; i-- {
		j := rand(i + 1)
		qs[i], qs[j] = qs[j], qs[i]
	}
	for _, q := range qs {
		best := members[start[q]]
		for _, v := range members[start[q]:start[q+1]] {
			if vs[v].score < vs[best].score {
				best = v
			}
		}
		choose(best)
	}
	// bestIn is the member of q, other than its current choice, that
	// configuration checking allows, with the fewest weighted conflicts,
	// oldest on ties; -1 when none is allowed.
	bestIn := func(q int32) int32 {
		b := int32(-1)
		for _, v := range members[start[q]:start[q+1]] {
			x := vs[v]
			if x.in || !x.conf {
				continue
			}
			if b < 0 || x.score < vs[b].score || (x.score == vs[b].score && age[v] < age[b]) {
				b = v
			}
		}
		return b
	}
	totalW, forgetAt := int64(m), min(int64(float64(m)*max(partGamma*float64(n), 2)), 1<<30)
	rho := int32(partRho*10 + 0.5) // in tenths
	step, stepCap := int64(1), int64(math.MaxInt64)
	if steps != nil {
		if *steps > 0 {
			stepCap = *steps
		}
		defer func() { *steps = step }()
	}
	for ; len(viol) > 0; step++ {
		if step&1023 == 0 && (stop.Load() || step >= stepCap || time.Now().After(deadline)) {
			return nil
		}
		e := viol[rand(len(viol))]
		a, c := eu[e], ev[e]
		ba, bc := bestIn(part[a]), bestIn(part[c])
		from, to := a, ba
		switch {
		case ba < 0 && bc < 0:
			// Nothing allowed on either side: a random member of a's
			// clique, so the search cannot stall.
			q := part[a]
			to = members[int(start[q])+rand(int(start[q+1]-start[q]))]
			if to == a {
				continue
			}
		case ba < 0:
			from, to = c, bc
		case bc >= 0:
			da, dc := vs[ba].score-vs[a].score, vs[bc].score-vs[c].score
			if dc < da || (dc == da && age[bc] < age[ba]) {
				from, to = c, bc
			}
		}
		for range partSample - 1 {
			// More violated edges: the move of least delta over all.
			e := viol[rand(len(viol))]
			d := vs[to].score - vs[from].score
			for _, x := range [2]int32{eu[e], ev[e]} {
				if y := bestIn(part[x]); y >= 0 {
					if dy := vs[y].score - vs[x].score; dy < d || (dy == d && age[y] < age[to]) {
						from, to, d = x, y, dy
					}
				}
			}
		}
		unchoose(from)
		choose(to)
		age[from], age[to] = step, step
		for _, e := range viol {
			w[ea[e]]++
			w[eb[e]]++
			vs[eu[e]].score++
			vs[ev[e]].score++
		}
		totalW += int64(len(viol))
		if totalW > forgetAt {
			totalW = 0
			for v := range vs {
				vs[v].score = 0
			}
			for e := range m {
				x := max(1, w[ea[e]]*rho/10)
				w[ea[e]], w[eb[e]] = x, x
				totalW += int64(x)
				if vs[eu[e]].in {
					vs[ev[e]].score += x
				}
				if vs[ev[e]].in {
					vs[eu[e]].score += x
				}
			}
		}
	}
	cover := make([]bool, n)
	for v := range cover {
		cover[v] = !vs[v].in
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
