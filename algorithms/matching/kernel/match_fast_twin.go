package kernel

import (
	"math/bits"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/arbor-gpu/arbor/backend"
)

// The Go twins of match_fast.cl, argument for argument.

func init() {
	backend.RegisterTwin("matchSources", matchSourcesTwin)
	backend.RegisterTwin("matchArgmax", matchArgmaxTwin)
	backend.RegisterTwin("matchHandshake", matchHandshakeTwin)
	backend.RegisterTwin("matchMarkTiles", matchMarkTilesTwin)
	backend.RegisterTwin("matchPackTiles", matchPackTilesTwin)
	backend.RegisterTwin("matchFilter", matchFilterTwin)
}

// MatchChunk is match_fast.cl's MATCH_CHUNK: arcs per argmax chunk.
const MatchChunk = 8

func keyDst(k uint64) int32 { return int32(^uint32(k)) }

// atomicMaxU64 is ATOMIC_MAX_U64: groups run concurrently on the CPU.
func atomicMaxU64(p *uint64, v uint64) {
	for {
		old := atomic.LoadUint64(p)
		if old >= v || atomic.CompareAndSwapUint64(p, old, v) {
			return
		}
	}
}

// matchSourcesTwin: offsets, src, n, numArcs, nthreads. The group's
// work-items t = g0 … g0+size-1 take arcs t + k·nthreads; for each k they
// cover one run of consecutive arcs, so the twin searches once per run and
// walks the offsets along it (the kernel searches per arc; the result, a
// function of the offsets alone, is the same).
func matchSourcesTwin(g *backend.Group) {
	offsets, src := g.I32s(0), g.I32s(1)
	n, m, nt := int(g.I32(2)), int(g.I32(3)), int(g.I32(4))
	g0 := g.ID[0] * g.Size[0]
	g1 := min(g0+g.Size[0], nt)
	for base := 0; base+g0 < m; base += nt {
		lo, hi := base+g0, min(base+g1, m)
		// The last vertex whose offset is ≤ lo.
		u, _ := slices.BinarySearch(offsets[:n+1], int32(lo)+1)
		u--
		for a := lo; a < hi; a++ {
			for int(offsets[u+1]) <= a {
				u++
			}
			src[a] = int32(u)
		}
	}
}

// matchArgmaxTwin: src, keys, best, numArcs, tag, slots (local). With
// only smaller tags in best beforehand (the kernel's precondition), the
// maximum by atomics is the kernel's result.
func matchArgmaxTwin(g *backend.Group) {
	src, keys, best := g.I32s(0), g.U64s(1), g.U64s(2)
	m, tag := int(g.I32(3)), g.U64(4)
	size := g.Size[0] * MatchChunk
	for lo := g.ID[0] * size; lo < m; lo += g.Groups[0] * size {
		for i := lo; i < min(lo+size, m); i++ {
			atomicMaxU64(&best[src[i]], keys[i]|tag)
		}
	}
}

// matchHandshakeTwin: src, best, match, matched, counts, pass, n,
// vertexAbove, tag, tagMask, nthreads.
func matchHandshakeTwin(g *backend.Group) {
	src, best, match, matched := g.I32s(0), g.U64s(1), g.I32s(2), g.U32s(3)
	m := g.I64s(4)[g.I32(5)]
	n, vertexAbove := int(g.I32(6)), g.I32(7)
	tag, tagMask, nt := g.U64(8), g.U64(9), int(g.I32(10))
	handshake := func(v int32) {
		if s := keyDst(best[v]); keyDst(best[s]) == v {
			match[v] = s
			setMatched(matched, v)
		}
	}
	strideItems(g, nt, func(t int) {
		if m > int64(vertexAbove) {
			for v := t; v < n; v += nt {
				if best[v]&tagMask == tag {
					handshake(int32(v))
				}
			}
			return
		}
		for i := t; i < int(m); i += nt {
			if v := src[i]; i == 0 || src[i-1] != v {
				handshake(v)
			}
		}
	})
}

// isMatched and setMatched are is_matched and set_matched: one bit per
// vertex; a vertex is matched once, so adding its bit is an atomic or.
func isMatched(matched []uint32, v int32) bool { return matched[v>>5]>>uint(v&31)&1 != 0 }

func setMatched(matched []uint32, v int32) { atomic.AddUint32(&matched[v>>5], 1<<uint(v&31)) }

// keepBits is the keep bits of load_live_chunk over chunk c of m arcs.
func keepBits(src []int32, keys []uint64, matched []uint32, c, m int) uint32 {
	lo, hi := chunkOf(c, m)
	var bits uint32
	for i := lo; i < hi; i++ {
		if !isMatched(matched, src[i]) && !isMatched(matched, keyDst(keys[i])) {
			bits |= 1 << uint(i-lo)
		}
	}
	return bits
}

// chunkOf is the arc range of chunk c of m arcs.
func chunkOf(c, m int) (lo, hi int) { return c * MatchChunk, min(c*MatchChunk+MatchChunk, m) }

// matchMarkTilesTwin: src, keys, matched, mask, tileCount, counts, pass,
// sums (local). The group's items run one after the other, which gives the
// device's result: the per-tile sum does not depend on the order.
func matchMarkTilesTwin(g *backend.Group) {
	src, keys, matched := g.I32s(0), g.U64s(1), g.U32s(2)
	mask, tileCount := g.U32s(3), g.I32s(4)
	m := int(g.I64s(5)[g.I32(6)])
	size := g.Size[0]
	chunks := (m + MatchChunk - 1) / MatchChunk
	tiles := (chunks + size - 1) / size
	for tile := g.ID[0]; tile < tiles; tile += g.Groups[0] {
		total := int32(0) // the tile's kept arcs before chunk c
		for c := tile * size; c < min(tile*size+size, chunks); c++ {
			bits := keepBits(src, keys, matched, c, m)
			mask[c] = bits | uint32(total)<<MatchChunk
			total += int32(popcount32(bits))
		}
		tileCount[tile] = total
	}
}

func popcount32(x uint32) int { return bits.OnesCount32(x) }

// stageKept is stage_kept: it writes the kept arcs of chunk [lo, hi) (keep
// bits b) to newSrc, newKeys from pos on and their per-source maxima,
// tagged, to best.
func stageKept(src []int32, keys []uint64, lo, hi, m int, b uint32, pos int, newSrc []int32, newKeys, best []uint64, tag uint64) {
	first := src[lo]
	before := lo > 0 && src[lo-1] == first
	v, acc := int32(-1), uint64(0)
	flush := func(shared bool) {
		if shared {
			atomicMaxU64(&best[v], acc|tag)
		} else {
			atomic.StoreUint64(&best[v], acc|tag)
		}
	}
	for i := lo; i < hi; i++ {
		if b>>uint(i-lo)&1 == 0 {
			continue
		}
		u, k := src[i], keys[i]
		newSrc[pos], newKeys[pos] = u, k
		pos++
		if u == v {
			acc = max(acc, k)
			continue
		}
		if v >= 0 {
			flush(v == first && before)
		}
		v, acc = u, k
	}
	flush((v == first && before) || (hi < m && src[hi] == v))
}

// matchPackTilesTwin: src, keys, mask, tileOffset, newSrc, newKeys, best,
// counts, pass, tag, stage (local).
func matchPackTilesTwin(g *backend.Group) {
	src, keys, mask, tileOffset := g.I32s(0), g.U64s(1), g.U32s(2), g.I32s(3)
	newSrc, newKeys, best := g.I32s(4), g.U64s(5), g.U64s(6)
	m, tag := int(g.I64s(7)[g.I32(8)]), g.U64(9)
	size := g.Size[0]
	chunks := (m + MatchChunk - 1) / MatchChunk
	tiles := (chunks + size - 1) / size
	for tile := g.ID[0]; tile < tiles; tile += g.Groups[0] {
		for c := tile * size; c < min(tile*size+size, chunks); c++ {
			if b := mask[c] & (1<<MatchChunk - 1); b != 0 {
				lo, hi := chunkOf(c, m)
				stageKept(src, keys, lo, hi, m, b, int(tileOffset[tile])+int(mask[c]>>MatchChunk), newSrc, newKeys, best, tag)
			}
		}
	}
}

// The status words of matchFilter (match_status).
const (
	matchStatusAggregate = 1
	matchStatusPrefix    = 2
)

func matchStatus(epoch int32, flag uint64, value int64) uint64 {
	return uint64(uint32(epoch))<<33 | flag<<31 | uint64(value)
}

// matchFilterTwin: src, keys, matched, status, counter, newSrc, newKeys,
// best, counts, pass, epoch, tag, stage (local). The CPU backend hands
// groups to its workers in order and runs each to completion, so a tile's
// predecessors are always claimed by running or finished groups, as on a
// device; the look-back spins with atomic loads.
func matchFilterTwin(g *backend.Group) {
	src, keys, matched, status := g.I32s(0), g.U64s(1), g.U32s(2), g.U64s(3)
	counter, newSrc, newKeys, best := g.I32s(4), g.I32s(5), g.U64s(6), g.U64s(7)
	counts, pass, epoch, tag := g.I64s(8), int(g.I32(9)), g.I32(10), g.U64(11)
	m := int(counts[pass])
	size := g.Size[0]
	chunks := (m + MatchChunk - 1) / MatchChunk
	tiles := (chunks + size - 1) / size
	if g.ID[0] == 0 {
		atomic.StoreInt32(&counter[(epoch+1)&1], 0)
		if tiles == 0 {
			atomic.StoreInt64(&counts[pass+1], 0)
		}
	}
	bits := make([]uint32, size)
	for {
		tile := int(atomic.AddInt32(&counter[epoch&1], 1) - 1)
		if tile >= tiles {
			return
		}
		agg := int64(0)
		for lid := range bits {
			bits[lid] = 0
			if c := tile*size + lid; c < chunks {
				bits[lid] = keepBits(src, keys, matched, c, m)
				agg += int64(popcount32(bits[lid]))
			}
		}
		if tile == 0 {
			atomicMaxU64(&status[0], matchStatus(epoch, matchStatusPrefix, agg))
		} else {
			atomicMaxU64(&status[tile], matchStatus(epoch, matchStatusAggregate, agg))
		}
		excl := int64(0)
		for j := tile - 1; j >= 0; {
			s := atomic.LoadUint64(&status[j])
			if int32(s>>33) != epoch {
				runtime.Gosched()
				continue
			}
			excl += int64(s & 0x7fffffff)
			if s>>31&3 == matchStatusPrefix {
				break
			}
			j--
		}
		if tile > 0 {
			atomicMaxU64(&status[tile], matchStatus(epoch, matchStatusPrefix, excl+agg))
		}
		if tile == tiles-1 {
			atomic.StoreInt64(&counts[pass+1], excl+agg)
		}
		pos := int(excl)
		for lid, b := range bits {
			if b != 0 {
				lo, hi := chunkOf(tile*size+lid, m)
				stageKept(src, keys, lo, hi, m, b, pos, newSrc, newKeys, best, tag)
			}
			pos += popcount32(b)
		}
	}
}
