package matching

import (
	"fmt"
	"math"

	"github.com/arbor-gpu/arbor/algorithms/matching/kernel"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/par"
)

// Input is a graph prepared for the kernels, in the form they read: CSR
// offsets and one 64-bit key per arc, kernel.MatchKey(rank, dst), both
// arcs of every undirected edge, each vertex's arcs by ascending
// destination, with integer ranks that order the weights exactly (a higher
// rank is a stronger edge). The engines upload Offsets and Keys as they are
// (the per-arc sources are expanded on the device), so a run moves 8 bytes
// an arc to the device and computes nothing per arc on the host.
type Input struct {
	N       int
	Offsets []int32   // N+1: the arcs of u are [Offsets[u], Offsets[u+1])
	Keys    []uint64  // per arc: MatchKey(rank, dst)
	Weight  []float64 // per arc: the original weight
	MaxRank int32     // the largest rank (≥ 1)
	Tie     Tie
}

// Arcs is the number of arcs (twice the edges).
func (in *Input) Arcs() int { return len(in.Keys) }

// Dst is arc a's destination; Rank its weight rank.
func (in *Input) Dst(a int) int32  { return kernel.MatchKeyDst(in.Keys[a]) }
func (in *Input) Rank(a int) int32 { return int32(in.Keys[a] >> 32) }

// Sources returns each arc's source vertex (the spec engine and checks
// take arcs as source/destination arrays).
func (in *Input) Sources() []int32 {
	src := make([]int32, in.Arcs())
	par.Range(in.N, vertexPiece, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			for a := in.Offsets[u]; a < in.Offsets[u+1]; a++ {
				src[a] = int32(u)
			}
		}
	})
	return src
}

// columns returns the arcs as the CS314 kernels take them: source,
// destination and rank arrays.
func (in *Input) columns() (src, dst, rank []int32) {
	src, dst, rank = in.Sources(), make([]int32, in.Arcs()), make([]int32, in.Arcs())
	par.Range(in.Arcs(), 1<<16, func(lo, hi int) {
		for a := lo; a < hi; a++ {
			dst[a], rank[a] = in.Dst(a), in.Rank(a)
		}
	})
	return src, dst, rank
}

// arcTo is the arc u→v, or -1: a binary search in u's arcs, whose keys
// descend as the destinations ascend.
func (in *Input) arcTo(u, v int32) int {
	lo, hi := int(in.Offsets[u]), int(in.Offsets[u+1])
	want := ^uint32(v)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if uint32(in.Keys[mid]) > want {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < int(in.Offsets[u+1]) && uint32(in.Keys[lo]) == want {
		return lo
	}
	return -1
}

// vertexPiece is the least number of vertices a preparing goroutine takes.
const vertexPiece = 1 << 14

// Prepare turns g into kernel input, on all cores. Weights are mapped to
// ranks: with TieIndex, equal weights get equal ranks and the kernels break
// ties by index; with TieHashed, every edge gets its own rank in the hashed
// strength order.
func Prepare(g *core.Graph, tie Tie) (*Input, error) {
	if g.Directed {
		return nil, fmt.Errorf("matching: %s is directed; matching needs an undirected graph", g.Name)
	}
	if int64(len(g.Adj)) >= math.MaxInt32-1 {
		return nil, fmt.Errorf("matching: %s has %d arcs; the kernels index arcs with 32-bit integers", g.Name, len(g.Adj))
	}
	n := g.N
	in := &Input{N: n, Tie: tie, Offsets: make([]int32, n+1)}
	// Offsets without the self-loops (a self-loop matches nothing): the
	// degrees per piece of vertices, then each piece's base.
	k := par.Workers(n, vertexPiece)
	base := make([]int32, k+1)
	par.Pieces(n, k, func(i, lo, hi int) {
		var c int32
		for u := lo; u < hi; u++ {
			var d int32
			for a := g.Offsets[u]; a < g.Offsets[u+1]; a++ {
				if int(g.Adj[a]) != u {
					d++
				}
			}
			c += d
			in.Offsets[u+1] = c
		}
		base[i+1] = c
	})
	for i := range k {
		base[i+1] += base[i]
	}
	m := int(base[k])
	in.Keys = make([]uint64, m)
	in.Weight = make([]float64, m)
	// The first NaN-weighted edge of each piece; set before the pieces run,
	// since a graph of no vertices runs none.
	nanAt := make([][2]int32, k)
	for i := range nanAt {
		nanAt[i] = [2]int32{-1, -1}
	}
	par.Pieces(n, k, func(i, lo, hi int) {
		for u := lo; u < hi; u++ {
			in.Offsets[u+1] += base[i]
		}
		pos := int(base[i])
		for u := lo; u < hi; u++ {
			for a := g.Offsets[u]; a < g.Offsets[u+1]; a++ {
				v := g.Adj[a]
				if int(v) == u {
					continue
				}
				w := 1.0
				if g.Weights != nil {
					w = g.Weights[a]
					if math.IsNaN(w) && nanAt[i][0] < 0 {
						nanAt[i] = [2]int32{int32(u), v}
					}
				}
				in.Keys[pos] = kernel.MatchKey(0, v) // the rank comes with setRanks
				in.Weight[pos] = w
				pos++
			}
		}
	})
	for _, e := range nanAt {
		if e[0] >= 0 {
			return nil, fmt.Errorf("matching: %s: edge (%d,%d) has weight NaN", g.Name, e[0], e[1])
		}
	}
	if tie == TieHashed {
		in.rankHashed()
	} else {
		in.rankByWeight()
	}
	return in, nil
}

// setRanks puts rank(a) into the high word of every key and records the
// largest.
func (in *Input) setRanks(rank func(a int) int32) {
	k := par.Workers(in.Arcs(), 1<<16)
	maxes := make([]int32, k)
	par.Pieces(in.Arcs(), k, func(i, lo, hi int) {
		top := int32(1)
		for a := lo; a < hi; a++ {
			r := rank(a)
			in.Keys[a] = kernel.MatchKey(r, in.Dst(a))
			top = max(top, r)
		}
		maxes[i] = top
	})
	in.MaxRank = 1
	for _, r := range maxes {
		in.MaxRank = max(in.MaxRank, r)
	}
}

// intRankSpan is the widest range of integer weights ranked by value: a
// rank below 2^24 leaves the device's best[] entries at least 8 tag bits.
const intRankSpan = 1 << 24

// rankByWeight gives equal weights equal ranks and heavier weights higher
// ones. Integer weights within intRankSpan of each other (pattern and
// integer files, generated weights) are ranked by value, w - min + 1, with
// no sort; any other weights by their position among the distinct values,
// 1 + the number of distinct smaller weights.
func (in *Input) rankByWeight() {
	m := in.Arcs()
	if m == 0 {
		in.MaxRank = 1
		return
	}
	type span struct {
		lo, hi   float64
		integral bool
	}
	k := par.Workers(m, 1<<16)
	spans := make([]span, k)
	par.Pieces(m, k, func(i, lo, hi int) {
		s := span{in.Weight[lo], in.Weight[lo], true}
		for _, w := range in.Weight[lo:hi] {
			s.lo, s.hi = min(s.lo, w), max(s.hi, w)
			if s.integral && w != math.Trunc(w) {
				s.integral = false
			}
		}
		spans[i] = s
	})
	all := spans[0]
	for _, s := range spans[1:] {
		all.lo, all.hi, all.integral = min(all.lo, s.lo), max(all.hi, s.hi), all.integral && s.integral
	}
	if all.integral && !math.IsInf(all.lo, 0) && !math.IsInf(all.hi, 0) && all.hi-all.lo < intRankSpan {
		in.setRanks(func(a int) int32 { return int32(in.Weight[a]-all.lo) + 1 })
		return
	}
	// Rank by sorting the arcs on their weights, as integers that order
	// like them (float comparisons pay for NaN checks at every step), with
	// a radix sort of flat arrays: both arcs of an edge carry its weight,
	// so sorting them all spares a search for each reverse arc.
	keys, arcs := make([]uint64, m), make([]int32, m)
	par.Range(m, 1<<16, func(lo, hi int) {
		for a := lo; a < hi; a++ {
			keys[a], arcs[a] = orderedBits(in.Weight[a]), int32(a)
		}
	})
	par.SortPairs(keys, arcs)
	rank := make([]int32, m)
	denseRanks(m, func(j int) bool { return keys[j-1] == keys[j] }, func(j int, r int32) { rank[arcs[j]] = r })
	in.setRanks(func(a int) int32 { return rank[a] })
}

// denseRanks hands out ranks along a sorted sequence of n items, on all
// cores: 1 for the first, the same rank while same(j) (item j equals item
// j-1), one more at each new value; set(j, r) receives them. Each piece's
// first rank is one plus the number of new values before it.
func denseRanks(n int, same func(j int) bool, set func(j int, r int32)) {
	k := par.Workers(n, 1<<16)
	starts := make([]int32, k+1)
	par.Pieces(n, k, func(i, lo, hi int) {
		var c int32
		for j := lo; j < hi; j++ {
			if j == 0 || !same(j) {
				c++
			}
		}
		starts[i+1] = c
	})
	for i := range k {
		starts[i+1] += starts[i]
	}
	par.Pieces(n, k, func(i, lo, hi int) {
		r := starts[i]
		for j := lo; j < hi; j++ {
			if j == 0 || !same(j) {
				r++
			}
			set(j, r)
		}
	})
}

// orderedBits maps a float64 (not NaN) to a uint64 of the same order:
// negative numbers have every bit flipped, others the sign bit set, and
// -0 is +0.
func orderedBits(w float64) uint64 {
	if w == 0 {
		w = 0
	}
	b := math.Float64bits(w)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// pairHash mixes an edge's endpoints (splitmix64's finaliser): the hashed
// tie-break's secondary key.
func pairHash(u, v int32) uint64 {
	if u > v {
		u, v = v, u
	}
	x := uint64(uint32(u))<<32 | uint64(uint32(v))
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// stronger reports whether edge {a1,a2} of weight wa comes before {b1,b2} of
// weight wb in the greedy order for tie: heavier first; on equal weights,
// TieIndex takes the smaller endpoints first, TieHashed the larger hash first
// (then the smaller endpoints).
func stronger(tie Tie, wa float64, a1, a2 int32, wb float64, b1, b2 int32) bool {
	if wa != wb {
		return wa > wb
	}
	if tie == TieHashed {
		if ha, hb := pairHash(a1, a2), pairHash(b1, b2); ha != hb {
			return ha > hb
		}
	}
	amin, amax := min(a1, a2), max(a1, a2)
	bmin, bmax := min(b1, b2), max(b1, b2)
	if amin != bmin {
		return amin < bmin
	}
	return amax < bmax
}

// rankHashed gives every edge a distinct rank in the hashed strength order.
// Both arcs of an edge share it, so the kernels' index tie-break is never
// used.
func (in *Input) rankHashed() {
	type strength struct {
		w, h uint64
		u, v int32
	}
	// Ascending rank = weakest first: the reverse of the greedy order
	// (stronger), with the hashes computed once.
	rankEdges(in, func(u, v int32, a int) strength {
		return strength{orderedBits(in.Weight[a]), pairHash(u, v), u, v}
	}, func(a, b strength) int {
		switch {
		case a.w != b.w:
			return cmpOrder(a.w < b.w)
		case a.h != b.h:
			return cmpOrder(a.h < b.h)
		case a.u != b.u:
			return cmpOrder(a.u > b.u)
		case a.v != b.v:
			return cmpOrder(a.v > b.v)
		}
		return 0
	})
}

// rankEdges ranks the edges by key (computed from the edge's endpoints u < v
// and its arc u→v) in the order of compare: rank 1 for the least key, equal
// keys equal ranks, one more for each larger distinct key. Both arcs of an
// edge get its rank. The edges are sorted once, on all cores.
func rankEdges[K any](in *Input, key func(u, v int32, a int) K, compare func(a, b K) int) {
	type item struct {
		k   K
		arc int32
	}
	// The edges of each piece of vertices, counted, then written in place.
	k := par.Workers(in.N, vertexPiece)
	base := make([]int, k+1)
	upper := func(u int, fn func(v int32, a int)) {
		for a := int(in.Offsets[u]); a < int(in.Offsets[u+1]); a++ {
			if v := in.Dst(a); int32(u) < v {
				fn(v, a)
			}
		}
	}
	par.Pieces(in.N, k, func(i, lo, hi int) {
		c := 0
		for u := lo; u < hi; u++ {
			upper(u, func(int32, int) { c++ })
		}
		base[i+1] = c
	})
	for i := range k {
		base[i+1] += base[i]
	}
	items := make([]item, base[k])
	par.Pieces(in.N, k, func(i, lo, hi int) {
		j := base[i]
		for u := lo; u < hi; u++ {
			upper(u, func(v int32, a int) {
				items[j] = item{key(int32(u), v, a), int32(a)}
				j++
			})
		}
	})
	par.SortFunc(items, func(a, b item) int { return compare(a.k, b.k) })
	rank := make([]int32, in.Arcs())
	denseRanks(len(items), func(j int) bool { return compare(items[j-1].k, items[j].k) == 0 },
		func(j int, r int32) { rank[items[j].arc] = r })
	items = nil
	// The reverse arcs v→u (v > u) take the rank of u→v.
	par.Range(in.N, vertexPiece, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			for a := in.Offsets[v]; a < in.Offsets[v+1]; a++ {
				if u := in.Dst(int(a)); u < int32(v) {
					rank[a] = rank[in.arcTo(u, int32(v))]
				}
			}
		}
	})
	in.setRanks(func(a int) int32 { return rank[a] })
}

// cmpOrder is -1 when less holds, else 1 (ties are resolved before).
func cmpOrder(less bool) int {
	if less {
		return -1
	}
	return 1
}

// totalBlock is the number of vertices whose matched weights are summed
// together before the block sums are added in order: a fixed size, so the
// float sum is the same on every machine whatever its core count.
const totalBlock = 1 << 16

// total counts the pairs of mate and sums their original weights (in
// float64, from the input, not the ranks).
func (in *Input) total(mate Matching) (pairs int, weight float64) {
	blocks := (in.N + totalBlock - 1) / totalBlock
	counts := make([]int, blocks)
	sums := make([]float64, blocks)
	par.Range(blocks, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			for u := b * totalBlock; u < min((b+1)*totalBlock, in.N); u++ {
				if v := mate[u]; v > int32(u) {
					if a := in.arcTo(int32(u), v); a >= 0 {
						counts[b]++
						sums[b] += in.Weight[a]
					}
				}
			}
		}
	})
	for b := range blocks {
		pairs += counts[b]
		weight += sums[b]
	}
	return pairs, weight
}
