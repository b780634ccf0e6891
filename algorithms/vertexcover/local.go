package vertexcover

import (
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// localSearch improves a greedy cover of g with edge-weighted vertex
// exchanges in the style of NuMVC (Cai et al., JAIR 2013): remove a
// low-loss cover vertex, add an endpoint of a random uncovered edge chosen
// by gain under configuration checking, and raise the weights of edges left
// uncovered. It stops at the deadline, at target size, or when stop is set,
// and returns the smallest cover seen; improved (if set) hears of each new
// best cover as it is found (the slice is reused: copy it).
//
// While throttle is set it runs at a quarter duty cycle, sleeping three
// times as long as it worked, so it can go on beside the exact search
// cheaply.
func localSearch(g *core.Graph, target int, deadline time.Time, throttle *atomic.Bool, seed uint64, stop *atomic.Bool, init []bool, latest func(size int) []bool, plateau func(inC []bool), improved func(inC []bool, size int)) []bool {
	ls := newNuMVC(g)
	inC := make([]bool, g.N)
	if ls.m == 0 {
		return inC
	}
	if init != nil {
		copy(inC, init)
	}
	ls.greedy(inC)
	best := slices.Clone(inC)
	size := ls.jump(inC)
	bestSize := size
	if improved != nil {
		improved(best, size)
	}
	if size <= target {
		return best
	}
	rand := xorshiftFrom(seed)
	lastPlateau := int64(0)
	burst := time.Now()
	step := int64(1)
	defer func() { numvcSteps.Add(step) }()
	for ; ; step++ {
		if step&255 == 0 {
			now := time.Now()
			if now.After(deadline) || (stop != nil && stop.Load()) {
				break
			}
			if throttle != nil && throttle.Load() {
				if worked := now.Sub(burst); worked > 5*time.Millisecond {
					time.Sleep(3 * worked)
					burst = time.Now()
				}
			} else {
				burst = now
			}
			if latest != nil && step&4095 == 0 {
				if c := latest(bestSize); c != nil {
					bestSize = ls.jump(c)
					copy(best, ls.inC)
				}
			}
		}
		if len(ls.unc) == 0 {
			if len(ls.cList) < bestSize {
				bestSize = len(ls.cList)
				copy(best, ls.inC)
				if improved != nil {
					improved(best, bestSize)
				}
				if bestSize <= target {
					break
				}
			} else if plateau != nil && len(ls.cList) == bestSize && step-lastPlateau >= plateauEvery {
				lastPlateau = step
				plateau(ls.inC)
			}
			// Remove the cover vertex of least loss and search on.
			ls.tick()
			ls.remove(ls.cList[ls.bestRemoval(-1, nil)])
			continue
		}
		ls.exchange(rand)
	}
	return best
}

// numvcSteps counts the steps of every local search (for the
// measurements of ls_measure_test.go).
var numvcSteps atomic.Int64

// nuMVC is the state of one local search: the current candidate cover C,
// the edge weights, the scores and the configuration-checking flags.
//
// The removal step picks the cover vertex of highest score (least loss),
// oldest on ties, which is a scan over C on every step (NuMVC's own
// choice: a heap costs as much, since every exchange changes the scores of
// ~deg vertices of C). To make the scan one comparison per vertex over a
// contiguous array, the scores of cover vertices live packed with their
// age in key, indexed like cList: key = score·2³² + (2³²−1 − age). Scores
// outside C stay in score. The weights are kept low enough (forgetAt) that
// a score always fits in 31 bits, and the age clock is halved, order kept,
// before it reaches 2³².
type nuMVC struct {
	g       *core.Graph
	n, m    int
	arcEdge []int32 // edge id of each arc
	eu, ev  []int32 // endpoints of each edge
	ea, eb  []int32 // the edge's two arcs (from eu, from ev)
	// w is the weight of each edge, kept on both of its arcs so that the
	// add and remove loops read it in arc order.
	w []int32

	inC   []bool
	score []int64 // weight of v's uncovered edges (v outside C)
	key   []int64 // by position in cList: packed score and age (v in C)
	cList []int32
	cPos  []int32 // position in cList; -1 outside C
	unc   []int32 // uncovered edges
	uPos  []int32
	conf  []bool  // configuration changed since v left C
	age   []int64 // clock at v's last move
	clock int64
	tabu  int32 // the vertex just added, which the next removal spares

	totalW, forgetAt int64
}

const ageLimit = 1<<32 - 1

// numberEdges numbers the edges of a symmetric CSR graph whose neighbour
// lists ascend: edge e is the e-th arc u→v with u < v in arc order, with
// endpoints eu[e] < ev[e]; arcEdge maps every arc, both directions, to its
// edge.
func numberEdges[O int | int32](off []O, adj []int32) (arcEdge, eu, ev []int32) {
	n := len(off) - 1
	arcEdge = make([]int32, len(adj))
	for u := 0; u < n; u++ {
		for i := off[u]; i < off[u+1]; i++ {
			if v := adj[i]; int32(u) < v {
				arcEdge[i] = int32(len(eu))
				eu, ev = append(eu, int32(u)), append(ev, v)
			}
		}
	}
	for u := 0; u < n; u++ {
		for i := off[u]; i < off[u+1]; i++ {
			if v := adj[i]; int32(u) > v {
				j, _ := slices.BinarySearch(adj[off[v]:off[v+1]], int32(u))
				arcEdge[i] = arcEdge[int(off[v])+j]
			}
		}
	}
	return arcEdge, eu, ev
}

func newNuMVC(g *core.Graph) *nuMVC {
	n := g.N
	ls := &nuMVC{g: g, n: n, tabu: -1}
	ls.arcEdge, ls.eu, ls.ev = numberEdges(g.Offsets, g.Adj)
	m := len(ls.eu)
	ls.m = m
	ls.ea, ls.eb = make([]int32, m), make([]int32, m)
	for u := 0; u < n; u++ {
		for i := g.Offsets[u]; i < g.Offsets[u+1]; i++ {
			if e := ls.arcEdge[i]; int32(u) == ls.eu[e] {
				ls.ea[e] = int32(i)
			} else {
				ls.eb[e] = int32(i)
			}
		}
	}
	ls.w = make([]int32, len(g.Adj))
	for i := range ls.w {
		ls.w[i] = 1
	}
	ls.inC = make([]bool, n)
	ls.score = make([]int64, n)
	ls.key = make([]int64, 0, n)
	ls.cList, ls.cPos = make([]int32, 0, n), make([]int32, n)
	for v := range ls.cPos {
		ls.cPos[v] = -1
	}
	ls.unc, ls.uPos = make([]int32, 0, m), make([]int32, m)
	ls.conf = make([]bool, n)
	for v := range ls.conf {
		ls.conf[v] = true
	}
	ls.age = make([]int64, n)
	// NuMVC forgets when the mean weight reaches |V|/2; the cap keeps
	// every score (at most the total weight) inside 31 bits.
	ls.totalW = int64(m)
	ls.forgetAt = min(int64(m)*int64(max(n/2, 2)), 1<<31-1-2*int64(m))
	return ls
}

// greedy completes inC to a cover (each uncovered edge by its endpoint of
// higher degree) and drops the vertices all of whose neighbours are in it.
func (ls *nuMVC) greedy(inC []bool) {
	g := ls.g
	for e := 0; e < ls.m; e++ {
		u, v := ls.eu[e], ls.ev[e]
		if inC[u] || inC[v] {
			continue
		}
		if g.Degree(int(u)) >= g.Degree(int(v)) {
			inC[u] = true
		} else {
			inC[v] = true
		}
	}
	for v := 0; v < ls.n; v++ {
		if inC[v] && !slices.ContainsFunc(g.Neighbors(v), func(u int32) bool { return !inC[u] }) {
			inC[v] = false
		}
	}
}

func (ls *nuMVC) packed(v int32, score int64) int64 {
	return score<<32 | (ageLimit - ls.age[v])
}

// tick advances the age clock, halving every age when it runs out.
func (ls *nuMVC) tick() {
	ls.clock++
	if ls.clock < ageLimit {
		return
	}
	ls.clock /= 2
	for v := range ls.age {
		ls.age[v] /= 2
	}
	for p, v := range ls.cList {
		ls.key[p] = ls.packed(v, ls.key[p]>>32)
	}
}

func (ls *nuMVC) add(v int32) {
	g := ls.g
	ls.inC[v] = true
	ls.cPos[v] = int32(len(ls.cList))
	ls.cList = append(ls.cList, v)
	ls.key = append(ls.key, ls.packed(v, -ls.score[v]))
	lo, hi := g.Offsets[v], g.Offsets[v+1]
	for i, u := range g.Adj[lo:hi] {
		w := int64(ls.w[lo+i])
		if p := ls.cPos[u]; p >= 0 {
			ls.key[p] += w << 32
		} else {
			// The edge was uncovered: now covered by v alone.
			e := ls.arcEdge[lo+i]
			last := ls.unc[len(ls.unc)-1]
			ls.unc[ls.uPos[e]] = last
			ls.uPos[last] = ls.uPos[e]
			ls.unc = ls.unc[:len(ls.unc)-1]
			ls.score[u] -= w
		}
	}
	for _, z := range g.Neighbors(int(v)) {
		ls.conf[z] = true
	}
}

func (ls *nuMVC) remove(v int32) {
	g := ls.g
	p := ls.cPos[v]
	ls.score[v] = -(ls.key[p] >> 32)
	last := len(ls.cList) - 1
	ls.cList[p], ls.key[p] = ls.cList[last], ls.key[last]
	ls.cPos[ls.cList[p]] = p
	ls.cList, ls.key = ls.cList[:last], ls.key[:last]
	ls.cPos[v] = -1
	ls.inC[v] = false
	lo, hi := g.Offsets[v], g.Offsets[v+1]
	for i, u := range g.Adj[lo:hi] {
		w := int64(ls.w[lo+i])
		if p := ls.cPos[u]; p >= 0 {
			ls.key[p] -= w << 32
		} else {
			e := ls.arcEdge[lo+i]
			ls.uPos[e] = int32(len(ls.unc))
			ls.unc = append(ls.unc, e)
			ls.score[u] += w
		}
	}
	ls.conf[v] = false
	for _, z := range g.Neighbors(int(v)) {
		ls.conf[z] = true
	}
	ls.age[v] = ls.clock
}

// bestRemoval is the position in cList of the cover vertex of highest
// score, oldest on ties, other than spare (-1: none); with rand set, the
// best of a sample (BMS, Cai 2015). It is -1 when there is no candidate.
func (ls *nuMVC) bestRemoval(spare int32, rand func(int) int) int {
	keys := ls.key
	if spare >= 0 && ls.inC[spare] {
		p := ls.cPos[spare]
		saved := keys[p]
		keys[p] = math.MinInt64
		bp := ls.scan(rand)
		keys[p] = saved
		return bp
	}
	return ls.scan(rand)
}

func (ls *nuMVC) scan(rand func(int) int) int {
	keys := ls.key
	best, bp := int64(math.MinInt64), -1
	if rand == nil {
		// The maximum first, branch-free in four lanes, then its
		// position: twice as fast as tracking the position as we go.
		b0, b1, b2, b3 := best, best, best, best
		i := 0
		for ; i+4 <= len(keys); i += 4 {
			b0 = max(b0, keys[i])
			b1 = max(b1, keys[i+1])
			b2 = max(b2, keys[i+2])
			b3 = max(b3, keys[i+3])
		}
		for ; i < len(keys); i++ {
			b0 = max(b0, keys[i])
		}
		best = max(b0, b1, b2, b3)
		if best == math.MinInt64 {
			return -1
		}
		return slices.Index(keys, best)
	} else {
		for i := 0; i < bmsSamples; i++ {
			p := rand(len(keys))
			if k := keys[p]; k > best {
				best, bp = k, p
			}
		}
	}
	if best == math.MinInt64 {
		return -1
	}
	return bp
}

// exchange is one step of NuMVC's two-stage exchange: remove the best
// cover vertex other than the one just added, add the better endpoint of
// a random uncovered edge that configuration checking allows, and raise
// the weights of the edges still uncovered. It returns false when the
// removal left no uncovered edge (the caller then records the cover).
func (ls *nuMVC) exchange(rand func(int) int) bool {
	ls.tick()
	var sample func(int) int
	if len(ls.cList) > bmsAbove {
		sample = rand
	}
	if p := ls.bestRemoval(ls.tabu, sample); p >= 0 {
		ls.remove(ls.cList[p])
	}
	if len(ls.unc) == 0 {
		return false
	}
	e := ls.unc[rand(len(ls.unc))]
	a, b := ls.eu[e], ls.ev[e]
	v := a
	switch {
	case !ls.conf[a]:
		v = b
	case !ls.conf[b]:
		v = a
	case ls.score[b] > ls.score[a] || (ls.score[b] == ls.score[a] && ls.age[b] < ls.age[a]):
		v = b
	}
	ls.age[v] = ls.clock
	ls.add(v)
	ls.tabu = v
	for _, e := range ls.unc {
		ls.w[ls.ea[e]]++
		ls.w[ls.eb[e]]++
		ls.score[ls.eu[e]]++
		ls.score[ls.ev[e]]++
	}
	ls.totalW += int64(len(ls.unc))
	if ls.totalW > ls.forgetAt {
		ls.forget()
	}
	return true
}

// forget scales every weight down (NuMVC's ρ = 0.3, at least 1) and
// recomputes the scores.
func (ls *nuMVC) forget() {
	ls.totalW = 0
	for e := range ls.m {
		w := max(1, ls.w[ls.ea[e]]*3/10)
		ls.w[ls.ea[e]], ls.w[ls.eb[e]] = w, w
		ls.totalW += int64(w)
	}
	ls.rescore()
}

// rescore recomputes the uncovered edges, the scores and the keys from
// inC and the weights.
func (ls *nuMVC) rescore() {
	ls.unc = ls.unc[:0]
	clear(ls.score)
	loss := make([]int64, ls.n)
	for e := 0; e < ls.m; e++ {
		u, v := ls.eu[e], ls.ev[e]
		w := int64(ls.w[ls.ea[e]])
		switch {
		case ls.inC[u] && !ls.inC[v]:
			loss[u] += w
		case ls.inC[v] && !ls.inC[u]:
			loss[v] += w
		case !ls.inC[u] && !ls.inC[v]:
			ls.uPos[e] = int32(len(ls.unc))
			ls.unc = append(ls.unc, int32(e))
			ls.score[u] += w
			ls.score[v] += w
		}
	}
	for p, v := range ls.cList {
		ls.key[p] = ls.packed(v, -loss[v])
	}
}

// jump makes c the current candidate (a cover of g, or not) and returns
// its size; the weights stay.
func (ls *nuMVC) jump(c []bool) int {
	copy(ls.inC, c)
	ls.cList, ls.key = ls.cList[:0], ls.key[:0]
	for v := 0; v < ls.n; v++ {
		ls.cPos[v] = -1
		if ls.inC[v] {
			ls.cPos[v] = int32(len(ls.cList))
			ls.cList = append(ls.cList, int32(v))
			ls.key = append(ls.key, 0)
		}
	}
	ls.tabu = -1
	ls.rescore()
	return len(ls.cList)
}

// Local search tuning: NuMVC's forgetting threshold (mean weight above
// |V|/2) and the cover size above which the removal candidate is the best
// of a sample rather than of the whole cover.
const (
	bmsAbove   = 2000
	bmsSamples = 50
	// plateauEvery spaces out the covers of the best size handed to the
	// LNS (in steps).
	plateauEvery = 1 << 16
)

// xorshiftFrom returns a xorshift64 generator seeded by seed (made odd, so
// never zero): each call gives a number in [0, k). The local searches draw
// from it so that a seed fixes their whole run.
func xorshiftFrom(seed uint64) func(k int) int {
	rng := xorshiftSeed(seed)
	return func(k int) int {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(k))
	}
}

// xorshiftSeed is xorshiftFrom's state for seed: splitmix64 of the seed,
// so that nearby seeds give unrelated runs, made odd (never zero, which
// xorshift cannot leave).
func xorshiftSeed(seed uint64) uint64 {
	z := seed + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return (z ^ z>>31) | 1
}
