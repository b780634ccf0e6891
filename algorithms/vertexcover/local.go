package vertexcover

import (
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
	n := g.N
	// Edge ids per arc and endpoints per edge.
	arcEdge := make([]int32, len(g.Adj))
	var eu, ev []int32
	for u := 0; u < n; u++ {
		for i := g.Offsets[u]; i < g.Offsets[u+1]; i++ {
			v := g.Adj[i]
			if int32(u) < v {
				arcEdge[i] = int32(len(eu))
				eu = append(eu, int32(u))
				ev = append(ev, v)
			}
		}
	}
	for u := 0; u < n; u++ {
		for i := g.Offsets[u]; i < g.Offsets[u+1]; i++ {
			v := g.Adj[i]
			if int32(u) > v {
				arcEdge[i] = arcEdge[g.ArcIndex(int(v), u)]
			}
		}
	}
	m := len(eu)
	inC := make([]bool, n)
	if m == 0 {
		return inC
	}
	// Greedy start: cover each edge by its higher-degree endpoint, then
	// drop vertices whose neighbours are all in the cover.
	if init != nil {
		copy(inC, init)
	}
	for e := 0; e < m; e++ {
		u, v := eu[e], ev[e]
		if inC[u] || inC[v] {
			continue
		}
		if g.Degree(int(u)) >= g.Degree(int(v)) {
			inC[u] = true
		} else {
			inC[v] = true
		}
	}
	for v := 0; v < n; v++ {
		if !inC[v] {
			continue
		}
		redundant := true
		for _, u := range g.Neighbors(v) {
			if !inC[u] {
				redundant = false
				break
			}
		}
		if redundant {
			inC[v] = false
		}
	}
	best := append([]bool(nil), inC...)
	size := 0
	for _, c := range inC {
		if c {
			size++
		}
	}
	bestSize := size
	if improved != nil {
		improved(best, size)
	}
	if size <= target {
		return best
	}

	w := make([]int32, m)
	for i := range w {
		w[i] = 1
	}
	dscore := make([]int64, n)
	conf := make([]bool, n)
	age := make([]int64, n)
	cList, cPos := make([]int32, 0, n), make([]int32, n)
	unc, uPos := make([]int32, 0, m), make([]int32, m)
	for v := range conf {
		conf[v] = true
	}
	addC := func(v int32) {
		inC[v] = true
		cPos[v] = int32(len(cList))
		cList = append(cList, v)
		dscore[v] = -dscore[v]
		for i := g.Offsets[v]; i < g.Offsets[v+1]; i++ {
			u, e := g.Adj[i], arcEdge[i]
			if inC[u] {
				dscore[u] += int64(w[e])
			} else {
				// e was uncovered: now covered by v alone.
				last := unc[len(unc)-1]
				unc[uPos[e]] = last
				uPos[last] = uPos[e]
				unc = unc[:len(unc)-1]
				dscore[u] -= int64(w[e])
			}
		}
	}
	removeC := func(v int32) {
		inC[v] = false
		last := cList[len(cList)-1]
		cList[cPos[v]] = last
		cPos[last] = cPos[v]
		cList = cList[:len(cList)-1]
		dscore[v] = -dscore[v]
		for i := g.Offsets[v]; i < g.Offsets[v+1]; i++ {
			u, e := g.Adj[i], arcEdge[i]
			if inC[u] {
				dscore[u] -= int64(w[e])
			} else {
				uPos[e] = int32(len(unc))
				unc = append(unc, e)
				dscore[u] += int64(w[e])
			}
		}
	}
	// jump makes the cover c (a cover of g) the current one and returns
	// its size; the weights stay.
	jump := func(c []bool) int {
		copy(inC, c)
		cList = cList[:0]
		unc = unc[:0]
		clear(dscore)
		for v := 0; v < n; v++ {
			if inC[v] {
				cPos[v] = int32(len(cList))
				cList = append(cList, int32(v))
			}
		}
		for e := 0; e < m; e++ {
			u, v := eu[e], ev[e]
			switch {
			case inC[u] && !inC[v]:
				dscore[u] -= int64(w[e])
			case inC[v] && !inC[u]:
				dscore[v] -= int64(w[e])
			case !inC[u] && !inC[v]:
				// not a cover: count the edge as uncovered
				uPos[e] = int32(len(unc))
				unc = append(unc, int32(e))
				dscore[u] += int64(w[e])
				dscore[v] += int64(w[e])
			}
		}
		return len(cList)
	}
	jump(inC) // the starting cover
	rand := xorshiftFrom(seed)
	var tabu int32 = -1
	lastPlateau := int64(0)
	burst := time.Now()
	totalW, forgetAt := int64(m), int64(m)*int64(max(n/2, 2))
	for step := int64(1); ; step++ {
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
					bestSize = jump(c)
					copy(best, inC)
				}
			}
		}
		if len(unc) == 0 {
			if len(cList) < bestSize {
				bestSize = len(cList)
				copy(best, inC)
				if improved != nil {
					improved(best, bestSize)
				}
				if bestSize <= target {
					break
				}
			} else if plateau != nil && len(cList) == bestSize && step-lastPlateau >= plateauEvery {
				lastPlateau = step
				plateau(inC)
			}
			// Remove the cover vertex of least loss and search on.
			v, bd := int32(-1), int64(-1<<62)
			for _, c := range cList {
				if dscore[c] > bd {
					v, bd = c, dscore[c]
				}
			}
			removeC(v)
			conf[v] = false
			for _, u := range g.Neighbors(int(v)) {
				conf[u] = true
			}
			continue
		}
		// The cover vertex of least loss, oldest on ties, never the one
		// just added; on large covers the best of a sample (BMS, Cai 2015).
		var u int32 = -1
		var ud int64
		if len(cList) <= bmsAbove {
			for _, c := range cList {
				if c != tabu && (u < 0 || dscore[c] > ud || (dscore[c] == ud && age[c] < age[u])) {
					u, ud = c, dscore[c]
				}
			}
		} else {
			for i := 0; i < bmsSamples; i++ {
				c := cList[rand(len(cList))]
				if c != tabu && (u < 0 || dscore[c] > ud || (dscore[c] == ud && age[c] < age[u])) {
					u, ud = c, dscore[c]
				}
			}
		}
		if u >= 0 {
			removeC(u)
			conf[u] = false
			age[u] = step
			for _, z := range g.Neighbors(int(u)) {
				conf[z] = true
			}
		}
		if len(unc) == 0 {
			continue
		}
		e := unc[rand(len(unc))]
		a, b := eu[e], ev[e]
		v := a
		switch {
		case !conf[a]:
			v = b
		case !conf[b]:
			v = a
		case dscore[b] > dscore[a] || (dscore[b] == dscore[a] && age[b] < age[a]):
			v = b
		}
		addC(v)
		age[v] = step
		tabu = v
		for _, z := range g.Neighbors(int(v)) {
			conf[z] = true
		}
		for _, e := range unc {
			w[e]++
			dscore[eu[e]]++
			dscore[ev[e]]++
		}
		totalW += int64(len(unc))
		if totalW > forgetAt {
			// Forget: scale every weight down and recompute the scores.
			totalW = 0
			clear(dscore)
			for e := range w {
				w[e] = max(1, w[e]*3/10)
				totalW += int64(w[e])
				a, b := eu[e], ev[e]
				switch {
				case inC[a] && !inC[b]:
					dscore[a] -= int64(w[e])
				case inC[b] && !inC[a]:
					dscore[b] -= int64(w[e])
				case !inC[a] && !inC[b]:
					dscore[a] += int64(w[e])
					dscore[b] += int64(w[e])
				}
			}
		}
	}
	return best
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
	rng := seed | 1
	return func(k int) int {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(k))
	}
}
