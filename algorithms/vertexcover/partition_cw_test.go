//go:build measure

package vertexcover

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// A research spike (test-only): the partition search of partition.go with
// its weights moved off the edges. Everything else is partitionSearchSteps'
// (greedy start, one sampled violated edge a step, the best allowed member
// of either endpoint's clique by weighted score plus degree bias,
// configuration checking, oldest on ties, a raise of every violated edge
// at the end of the step, forgetting by partRho when the mean edge weight
// reaches γ·n), in a plain scalar form: the weights are a table w indexed
// through each arc's wIdx, the scores are kept eagerly.
//
// The weight an arc c→v (c chosen, v any vertex, i = clique(c), j =
// clique(v)) carries in v's score:
//
//	cwEdge         w(edge cv): partitionSearchSteps' own (a check: the
//	               same steps, seed for seed)
//	cwPair         w(i, j): one weight per pair of cliques
//	cwCliqueVertex w(i, v): v's weight against clique i
//	cwVertexClique w(c, j): c's weight against clique j
//
// A raise of the violated edge (a, c) raises the weights of its two arcs
// (once where they share one), with every arc that carries them.
type cwMode int

const (
	cwEdge cwMode = iota
	cwPair
	cwCliqueVertex
	cwVertexClique
)

// cwGamma, when positive, replaces partGamma in the variants' forgetting
// threshold (the mean arc weight at which the weights are scaled).
var cwGamma = 0.0

// cwAudit, when set, is told of every inconsistency between the variant's
// incremental state and a recount, checked after every step.
var cwAudit func(step int64, problem string)

func partitionSearchCW(g *core.Graph, part []int32, k int, seed uint64, stop *atomic.Bool, deadline time.Time, beta float64, steps *int64, mode cwMode) []bool {
	n := g.N
	// The renumbering of partitionSearchSteps: clique q is start[q] …
	// start[q+1]−1, lists ascending.
	start := make([]int32, k+1)
	for _, q := range part {
		start[q+1]++
	}
	for q := 0; q < k; q++ {
		start[q+1] += start[q]
	}
	orig, id := make([]int32, n), make([]int32, n)
	fill := slices.Clone(start[:k])
	for v, q := range part {
		orig[fill[q]], id[v] = int32(v), fill[q]
		fill[q]++
	}
	clique := make([]int32, n)
	for q := range k {
		for v := start[q]; v < start[q+1]; v++ {
			clique[v] = int32(q)
		}
	}
	off, adj := make([]int32, n+1), make([]int32, 0, len(g.Adj))
	for v, o := range orig {
		for _, u := range g.Neighbors(int(o)) {
			if part[u] != part[o] {
				adj = append(adj, id[u])
			}
		}
		off[v+1] = int32(len(adj))
		slices.Sort(adj[off[v]:])
	}
	arcEdge, eu, ev := numberEdges(off, adj)
	m := len(eu)
	// The arcs of each edge: ea (u→v) and eb (v→u), u < v.
	ea, eb := make([]int32, m), make([]int32, m)
	for v := range n {
		for i := off[v]; i < off[v+1]; i++ {
			if int32(v) == eu[arcEdge[i]] {
				ea[arcEdge[i]] = i
			} else {
				eb[arcEdge[i]] = i
			}
		}
	}
	// nb(v, q): v's neighbours in clique q, a run of its list.
	nbLo := make([]int32, n*(k+1))
	for v := range n {
		i := off[v]
		for q := range k + 1 {
			for i < off[v+1] && clique[adj[i]] < int32(q) {
				i++
			}
			nbLo[v*(k+1)+q] = i
		}
	}
	nb := func(v, q int32) []int32 {
		b := int(v) * (k + 1)
		return adj[nbLo[b+int(q)]:nbLo[b+int(q)+1]]
	}
	// The weight index of each arc, and how many arcs carry each weight.
	wIdx := make([]int32, len(adj))
	var nw int
	switch mode {
	case cwEdge:
		nw = m
	case cwPair:
		nw = k * k
	case cwCliqueVertex:
		nw = k * n
	case cwVertexClique:
		nw = n * k
	default:
		panic("unknown mode")
	}
	for c := range n {
		for i := off[c]; i < off[c+1]; i++ {
			v := adj[i]
			x := 0
			switch mode {
			case cwEdge:
				x = int(arcEdge[i])
			case cwPair:
				a, b := clique[c], clique[v]
				x = int(min(a, b))*k + int(max(a, b))
			case cwCliqueVertex:
				x = int(clique[c])*n + int(v)
			case cwVertexClique:
				x = c*k + int(clique[v])
			}
			wIdx[i] = int32(x)
		}
	}
	carriers := make([]int64, nw)
	for _, x := range wIdx {
		carriers[x]++
	}
	w := make([]int64, nw)
	for x := range w {
		w[x] = 1
	}
	sumW := int64(len(adj)) // Σ over arcs of their weights: 2·(mean edge weight)·m

	chosen := make([]bool, n)
	conf := make([]bool, n)
	score := make([]int64, n)
	age := make([]int64, n)
	pos := make([]int32, m)
	viol := make([]int32, 0, m)
	for v := range conf {
		conf[v] = true
	}
	step := int64(1)
	rand := xorshiftFrom(seed)
	choose := func(v int32) {
		chosen[v] = true
		for i := off[v]; i < off[v+1]; i++ {
			u := adj[i]
			score[u] += w[wIdx[i]]
			conf[u] = true
		}
		for i := off[v]; i < off[v+1]; i++ {
			if chosen[adj[i]] {
				e := arcEdge[i]
				pos[e] = int32(len(viol))
				viol = append(viol, e)
			}
		}
	}
	unchoose := func(v int32) {
		chosen[v] = false
		for i := off[v]; i < off[v+1]; i++ {
			u := adj[i]
			score[u] -= w[wIdx[i]]
			conf[u] = true
			if chosen[u] {
				e := arcEdge[i]
				last := viol[len(viol)-1]
				viol[pos[e]] = last
				pos[last] = pos[e]
				viol = viol[:len(viol)-1]
			}
		}
		conf[v] = false
	}
	// raise adds one to weight x, the weight of arc i (tail chosen).
	raise := func(i int32, tail int32) {
		x := wIdx[i]
		w[x]++
		sumW += carriers[x]
		head := adj[i]
		switch mode {
		case cwEdge:
			score[head]++
			score[tail]++ // the reverse arc carries the same weight
		case cwCliqueVertex:
			score[head]++ // only arcs into head from tail's clique, whose chosen is tail
		case cwPair:
			// Every arc between the two cliques: those out of their
			// chosen vertices (tail and head, the edge being violated).
			for _, u := range nb(tail, clique[head]) {
				score[u]++
			}
			for _, u := range nb(head, clique[tail]) {
				score[u]++
			}
		case cwVertexClique:
			for _, u := range nb(tail, clique[head]) {
				score[u]++
			}
		}
	}
	raiseViolated := func() {
		for _, e := range viol {
			a, b := ea[e], eb[e]
			raise(a, eu[e])
			if wIdx[a] != wIdx[b] {
				raise(b, ev[e])
			}
		}
	}
	recount := func() []int64 {
		s := make([]int64, n)
		for c := range n {
			if chosen[c] {
				for i := off[c]; i < off[c+1]; i++ {
					s[adj[i]] += w[wIdx[i]]
				}
			}
		}
		return s
	}
	audit := func(s int64) {
		bad := func(format string, args ...any) { cwAudit(s, fmt.Sprintf(format, args...)) }
		for q := range k {
			c := 0
			for v := start[q]; v < start[q+1]; v++ {
				if chosen[v] {
					c++
				}
			}
			if c != 1 {
				bad("clique %d has %d chosen", q, c)
			}
		}
		violated := 0
		for e := range m {
			if chosen[eu[e]] && chosen[ev[e]] {
				violated++
				if p := pos[e]; int(p) >= len(viol) || viol[p] != int32(e) {
					bad("violated edge %d not at its place", e)
				}
			}
		}
		if violated != len(viol) {
			bad("%d violated edges listed, %d violated", len(viol), violated)
		}
		var sw int64
		for x := range w {
			sw += carriers[x] * w[x]
		}
		if sw != sumW {
			bad("arc weight sum %d kept, %d summed", sumW, sw)
		}
		for v, want := range recount() {
			if score[v] != want {
				bad("vertex %d: score %d, recounted %d", v, score[v], want)
			}
		}
	}
	// Greedy start, as partitionSearchSteps.
	for _, q := range shuffledCliques(rand, k) {
		best := start[q]
		for v := start[q]; v < start[q+1]; v++ {
			if score[v] < score[best] {
				best = v
			}
		}
		choose(best)
	}
	ddeg := make([]int64, n)
	for q := range k {
		least := int32(math.MaxInt32)
		for v := start[q]; v < start[q+1]; v++ {
			least = min(least, off[v+1]-off[v])
		}
		for v := start[q]; v < start[q+1]; v++ {
			ddeg[v] = int64(off[v+1] - off[v] - least)
		}
	}
	var bias int64
	key := func(v int32) int64 { return score[v]<<10 + bias*ddeg[v] }
	bestIn := func(q int32) int32 {
		b, bk, ba := int32(-1), int64(0), int64(0)
		for v := start[q]; v < start[q+1]; v++ {
			if chosen[v] || !conf[v] {
				continue
			}
			if kv := key(v); b < 0 || kv < bk || (kv == bk && age[v] < ba) {
				b, bk, ba = v, kv, age[v]
			}
		}
		return b
	}
	gamma := partGamma
	if cwGamma > 0 && mode != cwEdge {
		gamma = cwGamma
	}
	// partitionSearchSteps forgets when Σ edge weights > forgetAt; the
	// arcs count each edge twice.
	forgetAt := 2 * min(int64(float64(m)*max(gamma*float64(n), 2)), 1<<30)
	rho := int64(partRho*10 + 0.5)
	stepCap := int64(math.MaxInt64)
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
		if beta != 0 {
			bias = int64(beta * 1024 * float64(sumW) / float64(2*m))
		}
		e := viol[rand(len(viol))]
		a, c := eu[e], ev[e]
		ba, bc := bestIn(clique[a]), bestIn(clique[c])
		from, to := a, ba
		switch {
		case ba < 0 && bc < 0:
			q := clique[a]
			to = start[q] + int32(rand(int(start[q+1]-start[q])))
			if to == a {
				continue
			}
		case ba < 0:
			from, to = c, bc
		case bc >= 0:
			da, dc := key(ba)-key(a), key(bc)-key(c)
			if dc < da || (dc == da && age[bc] < age[ba]) {
				from, to = c, bc
			}
		}
		unchoose(from)
		choose(to)
		age[from], age[to] = step, step
		raiseViolated()
		if sumW > forgetAt {
			sumW = 0
			for x := range w {
				w[x] = max(1, w[x]*rho/10)
				sumW += carriers[x] * w[x]
			}
			score = recount()
		}
		if cwAudit != nil {
			audit(step)
		}
	}
	cover := make([]bool, n)
	for v := range cover {
		cover[orig[v]] = !chosen[v]
	}
	return cover
}

var cwModes = map[string]cwMode{"cwedge": cwEdge, "cw": cwPair, "cwcv": cwCliqueVertex, "cwvc": cwVertexClique}

// TestPartitionCW: the variants' incremental scores, violated edges and
// weight sums equal a recount after every step (through forgettings), on
// planted instances and on ones without a solution; they find the planted
// solutions; and cwEdge makes partitionSearchSteps' steps, seed for seed.
func TestPartitionCW(t *testing.T) {
	defer func(g float64) { cwAudit, cwGamma = nil, g }(cwGamma)
	problems := 0
	cwAudit = func(step int64, problem string) {
		if problems++; problems <= 5 {
			t.Errorf("step %d: %s", step, problem)
		}
	}
	for name, mode := range cwModes {
		for seed := uint64(1); seed <= 4; seed++ {
			const k, q = 12, 6
			g, part := plantedParts(t, k, q, 0.4, seed)
			var stop atomic.Bool
			cwGamma = 0.02 // forget often
			c := partitionSearchCW(g, part, k, seed, &stop, time.Now().Add(time.Minute), partDegBeta, nil, mode)
			if c == nil {
				t.Fatalf("%s seed %d: no cover", name, seed)
			}
			var list []int
			for v, in := range c {
				if in {
					list = append(list, v)
				}
			}
			if err := Verify(g, list); err != nil || len(list) != g.N-k {
				t.Fatalf("%s seed %d: cover of %d (%v), want %d", name, seed, len(list), err, g.N-k)
			}
			// No solution (cliques 0 and 1 joined completely): runs to
			// its cap, audited throughout.
			_, h, hp := joinedRB(t, g, k, q)
			steps := int64(3000)
			if c := partitionSearchCW(h, hp, k, seed, &stop, time.Now().Add(time.Minute), partDegBeta, &steps, mode); c != nil || steps < 3000 {
				t.Fatalf("%s seed %d: stopped after %d steps", name, seed, steps)
			}
		}
	}
	// cwEdge is partitionSearchSteps' weighting: the same runs.
	cwAudit = nil
	defer func(g float64) { partGamma = g }(partGamma)
	partGamma = 0.05 // through forgettings
	for seed := uint64(1); seed <= 6; seed++ {
		g := plantedRB(t, 24, 10, 0.55, seed)
		part, k := bestPartition(g)
		var stop atomic.Bool
		for _, beta := range []float64{0, partDegBeta} {
			s1, s2 := int64(200000), int64(200000)
			c1 := partitionSearchSteps(g, part, k, seed, &stop, time.Now().Add(time.Minute), beta, &s1)
			c2 := partitionSearchCW(g, part, k, seed, &stop, time.Now().Add(time.Minute), beta, &s2, cwEdge)
			if s1 != s2 || (c1 == nil) != (c2 == nil) {
				t.Fatalf("seed %d β %g: partitionSearchSteps %d steps (%v), cwEdge %d (%v)", seed, beta, s1, c1 != nil, s2, c2 != nil)
			}
			t.Logf("seed %d β %g: %d steps both", seed, beta, s1)
		}
	}
	// And on a BHOSLIB instance, where the runs are long (tens of
	// thousands of steps, forgettings at γ = 0.05).
	g := optionalGraph(t, "vc/bhoslib/frb35-17-1.mis")
	if g == nil {
		return
	}
	part, k := bestPartition(g)
	for seed := uint64(1); seed <= 2; seed++ {
		var stop atomic.Bool
		s1, s2 := int64(300000), int64(300000)
		c1 := partitionSearchSteps(g, part, k, seed, &stop, time.Now().Add(time.Minute), partDegBeta, &s1)
		c2 := partitionSearchCW(g, part, k, seed, &stop, time.Now().Add(time.Minute), partDegBeta, &s2, cwEdge)
		if s1 != s2 || (c1 == nil) != (c2 == nil) {
			t.Fatalf("frb35-17-1 seed %d: partitionSearchSteps %d steps (%v), cwEdge %d (%v)", seed, s1, c1 != nil, s2, c2 != nil)
		}
		t.Logf("frb35-17-1 seed %d: %d steps both", seed, s1)
	}
}
