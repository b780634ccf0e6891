package core

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
)

// Random graph generators for tests and benchmarks. Each is deterministic
// for its seed (math/rand/v2 PCG streams) whatever GOMAXPROCS is, and
// builds the CSR arrays directly: the edges are generated twice (once to
// count degrees, once to place arcs) instead of being stored, so memory is
// the graph itself.

// GNP returns an Erdős–Rényi G(n,p) graph: undirected, each of the n(n-1)/2
// possible edges present independently with probability p. It runs in
// O(n + m) by drawing the gap to the next present edge (geometric skips).
func GNP(n int, p float64, seed uint64) *Graph {
	if n < 0 || n > math.MaxInt32 {
		panic(fmt.Sprintf("core.GNP: n=%d out of range", n))
	}
	stream := func(yield func(u, v int32)) {
		if p <= 0 || n < 2 {
			return
		}
		if p >= 1 {
			for v := 1; v < n; v++ {
				for w := 0; w < v; w++ {
					yield(int32(v), int32(w))
				}
			}
			return
		}
		r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
		lq := math.Log1p(-p)
		// Walk pairs (v,w), w < v, in order; skip geometric gaps.
		v, w := 1, -1
		for v < n {
			skip := math.Floor(math.Log1p(-r.Float64()) / lq)
			if skip > float64(n)*float64(n) {
				return
			}
			w += 1 + int(skip)
			for w >= v && v < n {
				w -= v
				v++
			}
			if v < n {
				yield(int32(v), int32(w))
			}
		}
	}
	g, _ := buildCSR(n, stream, nil, nil, csrOptions{})
	g.Name = fmt.Sprintf("gnp(n=%d,p=%g,seed=%d)", n, p, seed)
	g.Format = "generated"
	return g
}

// BoundedDegree returns a random undirected graph on n vertices whose
// degrees are at most maxDegree: n·maxDegree/2 random pairs are tried and
// kept when both ends still have room and the edge is new, so most
// vertices end with degree maxDegree or close to it.
func BoundedDegree(n, maxDegree int, seed uint64) *Graph {
	if n < 0 || n > math.MaxInt32 || maxDegree < 0 {
		panic(fmt.Sprintf("core.BoundedDegree: n=%d maxDegree=%d out of range", n, maxDegree))
	}
	maxDegree = min(maxDegree, max(n-1, 0))
	nb := make([]int32, n*maxDegree)
	deg := make([]int32, n)
	var src, dst []int32
	r := rand.New(rand.NewPCG(seed, 0xb0b0b0b0))
	has := func(u, v int32) bool {
		for _, x := range nb[int(u)*maxDegree : int(u)*maxDegree+int(deg[u])] {
			if x == v {
				return true
			}
		}
		return false
	}
	if n >= 2 {
		for range n * maxDegree / 2 * 2 {
			u, v := int32(r.IntN(n)), int32(r.IntN(n))
			if u == v || int(deg[u]) >= maxDegree || int(deg[v]) >= maxDegree || has(u, v) {
				continue
			}
			nb[int(u)*maxDegree+int(deg[u])] = v
			nb[int(v)*maxDegree+int(deg[v])] = u
			deg[u]++
			deg[v]++
			src = append(src, u)
			dst = append(dst, v)
		}
	}
	g, _ := buildCSR(n, arrayStream(src, dst), nil, nil, csrOptions{})
	g.Name = fmt.Sprintf("bounded(n=%d,maxdeg=%d,seed=%d)", n, maxDegree, seed)
	g.Format = "generated"
	return g
}

// RMAT returns an undirected R-MAT graph (Chakrabarti, Zhan, Faloutsos
// 2004) on 2^scale vertices from edgeFactor·2^scale generated edges: each
// edge picks a quadrant of the adjacency matrix per level with
// probabilities a, b, c and d = 1-a-b-c (Graph500 uses 0.57, 0.19, 0.19).
// Self-loops are dropped and repeated edges merged, so the graph has
// somewhat fewer edges than generated; Repeated counts the merged ones.
//
// Probabilities are used at 16-bit precision, four levels per random word.
// Edges are generated in fixed chunks, each with its own PCG stream, by
// all CPUs at once: 10^8 edges need about 1 GB (the CSR arrays) and no
// edge list.
func RMAT(scale, edgeFactor int, a, b, c float64, seed uint64) *Graph {
	if scale < 0 || scale > 30 || edgeFactor < 0 {
		panic(fmt.Sprintf("core.RMAT: scale=%d edgeFactor=%d out of range", scale, edgeFactor))
	}
	if a < 0 || b < 0 || c < 0 || a+b+c > 1 {
		panic(fmt.Sprintf("core.RMAT: probabilities a=%g b=%g c=%g do not leave d=1-a-b-c ≥ 0", a, b, c))
	}
	n := 1 << scale
	m := edgeFactor << scale
	ta := uint64(a * 65536)
	tb := uint64((a + b) * 65536)
	tc := uint64((a + b + c) * 65536)
	const chunk = 1 << 16
	chunks := (m + chunk - 1) / chunk
	gen := func(ci int, yield func(u, v int32)) {
		r := rand.NewPCG(seed, uint64(ci)*0x9e3779b97f4a7c15+1)
		lo, hi := ci*chunk, min((ci+1)*chunk, m)
		for range hi - lo {
			var u, v uint32
			var bitsLeft int
			var word uint64
			for level := 0; level < scale; level++ {
				if bitsLeft == 0 {
					word, bitsLeft = r.Uint64(), 4
				}
				x := word & 0xffff
				word >>= 16
				bitsLeft--
				// Quadrant by thresholds, branch-free: rows from c and
				// d set u's bit, columns from b and d set v's.
				geA, geB, geC := b2u(x >= ta), b2u(x >= tb), b2u(x >= tc)
				u |= geB << level
				v |= (geA ^ geB ^ geC) << level
			}
			if u != v {
				yield(int32(u), int32(v))
			}
		}
	}
	g, dup := buildUndirectedConcurrent(n, chunks, gen)
	g.Repeated = dup.count
	g.Name = fmt.Sprintf("rmat(scale=%d,ef=%d,a=%g,b=%g,c=%g,seed=%d)", scale, edgeFactor, a, b, c, seed)
	g.Format = "generated"
	return g
}

// buildUndirectedConcurrent is buildCSR for generators whose edges come in
// independent chunks: chunks are generated in parallel, degrees counted
// and arcs placed with atomic cursors. The order of arcs within a vertex
// then depends on scheduling, but sorting and merging make the result
// deterministic (there is no payload to keep in order).
func buildUndirectedConcurrent(n, chunks int, gen func(chunk int, yield func(u, v int32))) (*Graph, dupInfo) {
	workers := runtime.GOMAXPROCS(0)
	parallel := func(body func(ci int)) {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					ci := int(next.Add(1) - 1)
					if ci >= chunks {
						return
					}
					body(ci)
				}
			}()
		}
		wg.Wait()
	}
	cnt := make([]atomic.Int64, n)
	parallel(func(ci int) {
		gen(ci, func(u, v int32) {
			cnt[u].Add(1)
			cnt[v].Add(1)
		})
	})
	g := &Graph{N: n, Offsets: make([]int, n+1)}
	off := g.Offsets
	for v := range n {
		off[v+1] = off[v] + int(cnt[v].Load())
		cnt[v].Store(int64(off[v])) // now the placement cursor
	}
	adj := make([]int32, off[n])
	parallel(func(ci int) {
		gen(ci, func(u, v int32) {
			adj[cnt[u].Add(1)-1] = v
			adj[cnt[v].Add(1)-1] = u
		})
	})
	cnt = nil
	sortSegments(off, adj, nil)
	var dup dupInfo
	g.Adj, dup = mergeDuplicates(off, adj, nil, csrOptions{})
	return g, dup
}

// MaxExactIntWeight bounds the integer weights generated and kept
// exactly: weights are float64, which holds every integer up to 2^53 in
// magnitude and not all beyond. The readers accept integers up to
// MaxFileInt (rounding those beyond 2^53 to the nearest float64).
const MaxExactIntWeight = 1 << 53

// RandomIntWeights sets g's weights to integers drawn uniformly from
// [lo, hi], the same for both arcs of an undirected edge (a hash of the
// seed and the edge, so it does not depend on arc order). It returns g.
// Beyond ±MaxExactIntWeight the weights are rounded to float64.
func RandomIntWeights(g *Graph, lo, hi int64, seed uint64) *Graph {
	if hi < lo {
		panic(fmt.Sprintf("core.RandomIntWeights: empty range [%d,%d]", lo, hi))
	}
	span := uint64(hi-lo) + 1
	setWeights(g, seed, func(h uint64) float64 {
		if span == 0 { // the full 64-bit range
			return float64(int64(h))
		}
		return float64(lo + int64(h%span))
	})
	g.IntWeights = true
	return g
}

// RandomRealWeights sets g's weights to reals drawn uniformly from
// [lo, hi), symmetric like RandomIntWeights. It returns g.
//
// lo and hi must be finite (the readers accept finite weights only); any
// finite range gives finite weights, even one wider than the largest
// float64 (hi−lo overflowing).
func RandomRealWeights(g *Graph, lo, hi float64, seed uint64) *Graph {
	if !(lo <= hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		panic(fmt.Sprintf("core.RandomRealWeights: range [%g,%g) is not finite and ordered", lo, hi))
	}
	span := hi - lo
	setWeights(g, seed, func(h uint64) float64 {
		u := float64(h>>11) / (1 << 53) // in [0, 1): exact, no overflow
		if math.IsInf(span, 0) {
			return lo*(1-u) + hi*u
		}
		return lo + span*u
	})
	g.IntWeights = false
	return g
}

func setWeights(g *Graph, seed uint64, draw func(uint64) float64) {
	g.Weights = make([]float64, len(g.Adj))
	for u := 0; u < g.N; u++ {
		for i := g.Offsets[u]; i < g.Offsets[u+1]; i++ {
			a, b := uint64(u), uint64(g.Adj[i])
			if !g.Directed && a > b {
				a, b = b, a
			}
			g.Weights[i] = draw(mix64(seed ^ mix64(a<<32|b)))
		}
	}
}

// mix64 is SplitMix64's finaliser: a cheap, well-spread hash.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
