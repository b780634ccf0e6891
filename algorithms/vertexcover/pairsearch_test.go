//go:build measure

package vertexcover

import (
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// pairSearch is the partition search (partition.go) with its weights on
// the pairs of cliques instead of on the edges: a violated edge raises
// the weight of its two cliques' pair, which every edge between them then
// carries. Everything else is partitionSearchSteps': the greedy start, one
// sampled violated edge a step, the best allowed member of either
// endpoint's clique (score plus degree bias, configuration checking,
// oldest on ties), a raise at the end of each step, and forgetting (×0.3)
// when the mean edge weight reaches partGamma·n.
//
// Why: on BHOSLIB it reaches the optimum in fewer steps on most
// instances (16 seeds each, mean steps, docs/results/vertexcover.md "weights on pairs of
// cliques"): frb50-23-5 4.99 M → 0.57 M, frb50-23-4 0.72 → 0.18 M,
// frb50-23-1 4.18 → 1.83 M, frb45-21-1 1.03 → 0.60 M with the degree
// bias, and every one of them without it; it loses on frb45-21-3 with the
// bias (9 → 5 hits of 16), where the bias already loses. A pair's weight
// stands for all the ways its two cliques can conflict, so the search
// learns which cliques fight rather than which vertices.
//
// The solver does not run it: on the largest instances, where the
// 16-core bar is, it loses to edge weights (the GPU machine's Xeon, 16
// seeds of 30 s and 60 s on frb56-25-1, frb59-26-1, -2, -4: 4 hits in
// 5,172 core-seconds against 11 in 4,956; search.go), so it lives in the
// tests as the measured alternative (-ls pair,
// scripts/gpu/ls-pair.sh) for the instances where it takes several times
// fewer steps.
//
// It returns the cover (every vertex but the chosen ones) or nil, and
// reports its step count in steps as partitionSearchSteps does. Its
// tables take k² and n·(k+1) words: a few MB on BHOSLIB (frb100-40: 0.2
// and 1.6 MB), but gigabytes on a kernel of many small cliques.
func pairSearch(g *core.Graph, part []int32, k int, seed uint64, stop *atomic.Bool, deadline time.Time, beta float64, steps *int64) []bool {
	l := newPartLayout(g, part, k)
	n, clique, off, adj := l.n, l.clique, l.off, l.adj
	m := len(adj) / 2
	// seg[v·(k+1)+q]: the first of v's arcs into clique q or after, so
	// that v's neighbours in q are adj[seg[…q] : seg[…q+1]] (the lists
	// ascend and the cliques are runs of ids).
	seg := make([]int32, n*(k+1))
	for v := range n {
		i := off[v]
		for q := range k + 1 {
			for i < off[v+1] && clique[adj[i]] < int32(q) {
				i++
			}
			seg[v*(k+1)+q] = i
		}
	}
	// Each arc packs its head (low 32 bits) with the head's clique, so
	// that the neighbour loops read the pair's weight without a second,
	// dependent load.
	arcs := make([]uint64, len(adj))
	for i, u := range adj {
		arcs[i] = uint64(uint32(u)) | uint64(clique[u])<<32
	}
	nb := func(v, q int32) []int32 {
		b := int(v)*(k+1) + int(q)
		return adj[seg[b]:seg[b+1]]
	}
	// w[i·k+j] = w[j·k+i]: the weight of the pair, read by rows in the
	// neighbour loops; carriers[i·k+j]: its arcs (both directions), so
	// that sumW is the total weight of all arcs.
	w := make([]int64, k*k)
	carriers := make([]int64, k*k)
	for x := range w {
		w[x] = 1
	}
	for v := range n {
		for _, u := range adj[off[v]:off[v+1]] {
			carriers[int(min(clique[v], clique[u]))*k+int(max(clique[v], clique[u]))]++
		}
	}
	sumW := int64(len(adj))
	// The violated edges, as (u, v) with u < v; at most one for a pair of
	// cliques (one chosen vertex each), whose place in viol is
	// pos[pair]. Every step raises each violated pair, but lazily: its
	// raises since the start of step since are still to add, to its
	// weight and to the scores of the vertices its edges reach from the
	// pair's chosen vertices (flush). Only the scores of the two cliques
	// a step looks at, and the row of the clique it re-chooses in, are
	// read, so their pairs are flushed first; violCarriers is the arcs of
	// the violated pairs, what a step's raise adds to sumW.
	type vedge struct {
		u, v  int32
		since int64
	}
	viol := make([]vedge, 0, k*(k-1)/2)
	pos := make([]int32, k*k)
	pairOf := func(a, b int32) int { return int(min(clique[a], clique[b]))*k + int(max(clique[a], clique[b])) }
	vs := make([]int64, n)
	for v := range vs {
		vs[v] = pConf
	}
	age := make([]int64, n)
	chosen := make([]int32, k)
	hits := make([]int32, l.maxDeg+1)
	step := int64(1)
	var violCarriers int64
	flush := func(i int, cur int64) {
		e := &viol[i]
		late := cur - e.since
		if late == 0 {
			return
		}
		qu, qv := clique[e.u], clique[e.v]
		w[int(qu)*k+int(qv)] += late
		w[int(qv)*k+int(qu)] += late
		for _, u := range nb(e.u, qv) {
			vs[u] += late
		}
		for _, u := range nb(e.v, qu) {
			vs[u] += late
		}
		e.since = cur
	}
	flushClique := func(q int32, cur int64) {
		for i, e := range viol {
			if clique[e.u] == q || clique[e.v] == q {
				flush(i, cur)
			}
		}
	}
	flushAll := func(cur int64) {
		for i := range viol {
			flush(i, cur)
		}
	}
	rand := xorshiftFrom(seed)
	choose := func(v int32) {
		vs[v] |= pIn
		chosen[clique[v]] = v
		row := w[int(clique[v])*k : int(clique[v]+1)*k]
		lo, hi := off[v], off[v+1]
		nh := 0
		for j, a := range arcs[lo:hi] {
			u := uint32(a)
			x := (vs[u] + row[a>>32]) | pConf
			vs[u] = x
			hits[nh] = int32(j)
			nh += int(uint64(x) >> 63)
		}
		for _, j := range hits[:nh] {
			u := adj[int(lo)+int(j)]
			p := pairOf(v, u)
			pos[p] = int32(len(viol))
			viol = append(viol, vedge{min(u, v), max(u, v), step})
			violCarriers += carriers[p]
		}
	}
	unchoose := func(v int32) {
		flushClique(clique[v], step)
		vs[v] &^= pIn
		row := w[int(clique[v])*k : int(clique[v]+1)*k]
		lo, hi := off[v], off[v+1]
		nh := 0
		for j, a := range arcs[lo:hi] {
			u := uint32(a)
			x := (vs[u] - row[a>>32]) | pConf
			vs[u] = x
			hits[nh] = int32(j)
			nh += int(uint64(x) >> 63)
		}
		for _, j := range hits[:nh] {
			q := pairOf(v, adj[int(lo)+int(j)])
			violCarriers -= carriers[q]
			p := pos[q]
			last := viol[len(viol)-1]
			viol[p] = last
			pos[pairOf(last.u, last.v)] = p
			viol = viol[:len(viol)-1]
		}
		vs[v] &^= pConf
	}
	l.greedyStart(rand, vs, choose)
	var bias int64
	key := func(v int32) int64 { return (vs[v]&pScore)<<10 + bias*l.ddeg[v] }
	delta := func(from, to int32) int64 { return key(to) - key(from) }
	keys := make([]int64, 0, n)
	gamma := partGamma
	if pairGamma > 0 {
		gamma = pairGamma
	}
	forgetAt := 2 * partForgetAt(m, n, gamma) // in arc weight
	rho := int64(partRho*10 + 0.5)            // in tenths
	stepCap := stepCapOf(steps)
	if steps != nil {
		defer func() { *steps = step }()
	}
	for ; len(viol) > 0; step++ {
		if step&1023 == 0 && partStopped(stop, step, stepCap, deadline) {
			return nil
		}
		if beta != 0 {
			bias = partBias(beta, sumW/2, m) // sumW counts each edge twice
		}
		e := viol[rand(len(viol))]
		a, c := e.u, e.v
		flushClique(clique[a], step)
		flushClique(clique[c], step)
		ba, bc := l.bestIn(clique[a], vs, age, bias, keys), l.bestIn(clique[c], vs, age, bias, keys)
		from, to, ok := l.pickMove(rand, a, c, ba, bc, age, delta)
		if !ok {
			// A step without a move raises nothing.
			for i := range viol {
				viol[i].since++
			}
			continue
		}
		unchoose(from)
		choose(to)
		age[from], age[to] = step, step
		sumW += violCarriers // this step's raise (pending in viol)
		if sumW > forgetAt {
			flushAll(step + 1)
			sumW = 0
			for i := range k {
				for j := i; j < k; j++ {
					x := max(1, w[i*k+j]*rho/10)
					w[i*k+j], w[j*k+i] = x, x
					sumW += carriers[i*k+j] * x
				}
			}
			for v := range vs {
				vs[v] &^= pScore
			}
			for _, c := range chosen {
				row := w[int(clique[c])*k : int(clique[c]+1)*k]
				for _, u := range adj[off[c]:off[c+1]] {
					vs[u] += row[clique[u]]
				}
			}
		}
		if pairAudit != nil {
			flushAll(step + 1) // the state a raise every step would have
			pairAudit(step, l, vs, w, chosen, len(viol))
		}
	}
	cover := make([]bool, n)
	for v := range cover {
		cover[l.orig[v]] = vs[v] >= 0
	}
	return cover
}

var (
	// pairGamma, when above 0, replaces partGamma in pairSearch's
	// forgetting (measurements).
	pairGamma = 0.0
	// pairAudit, when set (tests only), gets pairSearch's state after
	// every step: the layout, the vertex words, the pair weights, the
	// chosen vertex of each clique and the violated edges listed.
	pairAudit func(step int64, l *partLayout, vs, w []int64, chosen []int32, violated int)
)
