package kernels

import (
	"runtime"
	"sync/atomic"

	"github.com/arbor-gpu/arbor/cpu"
)

// The Go twins of match_fast.cl, argument for argument.

func init() {
	cpu.RegisterTwin("matchArgmax", matchArgmaxTwin)
	cpu.RegisterTwin("matchHandshake", matchHandshakeTwin)
	cpu.RegisterTwin("matchHandshakeVertices", matchHandshakeVerticesTwin)
	cpu.RegisterTwin("matchMarkTiles", matchMarkTilesTwin)
	cpu.RegisterTwin("matchPackTiles", matchPackTilesTwin)
	cpu.RegisterTwin("matchHandshakeNext", matchHandshakeNextTwin)
	cpu.RegisterTwin("matchFilterOnePass", matchFilterOnePassTwin)
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

// matchArgmaxTwin: src, keys, best, numArcs, nthreads.
func matchArgmaxTwin(g *cpu.Group) {
	src, keys, best := g.I32s(0), g.U64s(1), g.U64s(2)
	m, nt := g.I32(3), int(g.I32(4))
	chunks := (int(m) + MatchChunk - 1) / MatchChunk
	strideItems(g, nt, func(t int) {
		for c := t; c < chunks; c += nt {
			lo := c * MatchChunk
			hi := min(lo+MatchChunk, int(m))
			v, acc := src[lo], keys[lo]
			open := lo > 0 && src[lo-1] == v
			flush := func(closed bool) {
				if open || !closed {
					atomicMaxU64(&best[v], acc)
				} else {
					atomic.StoreUint64(&best[v], acc)
				}
			}
			for i := lo + 1; i < hi; i++ {
				if u, k := src[i], keys[i]; u != v {
					flush(true)
					v, acc, open = u, k, false
				} else if k > acc {
					acc = k
				}
			}
			flush(!(hi < int(m) && src[hi] == v))
		}
	})
}

// matchHandshakeTwin: src, best, match, matched, arcCount, nthreads.
func matchHandshakeTwin(g *cpu.Group) {
	src, best, match, matched := g.I32s(0), g.U64s(1), g.I32s(2), g.U32s(3)
	m, nt := int(g.I64s(4)[0]), int(g.I32(5))
	strideItems(g, nt, func(t int) {
		for i := t; i < m; i += nt {
			if v := src[i]; i == 0 || src[i-1] != v {
				if s := keyDst(best[v]); keyDst(best[s]) == v {
					match[v] = s
					setMatched(matched, v)
				}
			}
		}
	})
}

// matchHandshakeVerticesTwin: best, match, matched, n, nthreads.
func matchHandshakeVerticesTwin(g *cpu.Group) {
	best, match, matched := g.U64s(0), g.I32s(1), g.U32s(2)
	n, nt := int(g.I32(3)), int(g.I32(4))
	strideItems(g, nt, func(t int) {
		for v := t; v < n; v += nt {
			if b := best[v]; b != 0 {
				if s := keyDst(b); keyDst(best[s]) == int32(v) {
					match[v] = s
					setMatched(matched, int32(v))
				}
			}
		}
	})
}

// isMatched and setMatched are is_matched and set_matched: one bit per
// vertex; a vertex is matched once, so adding its bit is an atomic or.
func isMatched(matched []uint32, v int32) bool { return matched[v>>5]>>uint(v&31)&1 != 0 }

func setMatched(matched []uint32, v int32) { atomic.AddUint32(&matched[v>>5], 1<<uint(v&31)) }

// matchMarkTilesTwin: src, keys, matched, best, mask, tileCount, arcCount,
// sums (local). The group's items run one after the other, which gives the
// device's result: the per-tile sum does not depend on the order.
func matchMarkTilesTwin(g *cpu.Group) {
	src, keys, matched, best := g.I32s(0), g.U64s(1), g.U32s(2), g.U64s(3)
	mask, tileCount := g.U32s(4), g.I32s(5)
	m := int(g.I64s(6)[0])
	size := g.Size[0]
	chunks := (m + MatchChunk - 1) / MatchChunk
	tiles := (chunks + size - 1) / size
	for tile := g.ID[0]; tile < tiles; tile += g.Groups[0] {
		total := int32(0) // the tile's kept arcs before chunk c
		for lid := 0; lid < size; lid++ {
			c := tile*size + lid
			if c >= chunks {
				break
			}
			lo := c * MatchChunk
			hi := min(lo+MatchChunk, m)
			var bits uint32
			rank := total
			for i := lo; i < hi; i++ {
				v := src[i]
				if !isMatched(matched, v) && !isMatched(matched, keyDst(keys[i])) {
					bits |= 1 << uint(i-lo)
					total++
				}
				if i == 0 || src[i-1] != v {
					best[v] = 0
				}
			}
			mask[c] = bits | uint32(rank)<<MatchChunk
		}
		tileCount[tile] = total
	}
}

// matchPackTilesTwin: src, keys, mask, tileOffset, newSrc, newKeys, best,
// arcCount.
func matchPackTilesTwin(g *cpu.Group) {
	src, keys, mask, tileOffset := g.I32s(0), g.U64s(1), g.U32s(2), g.I32s(3)
	newSrc, newKeys, best := g.I32s(4), g.U64s(5), g.U64s(6)
	m := int(g.I64s(7)[0])
	size := g.Size[0]
	chunks := (m + MatchChunk - 1) / MatchChunk
	tiles := (chunks + size - 1) / size
	for tile := g.ID[0]; tile < tiles; tile += g.Groups[0] {
		for lid := 0; lid < size; lid++ {
			c := tile*size + lid
			if c >= chunks {
				break
			}
			bits := mask[c] & (1<<MatchChunk - 1)
			if bits == 0 {
				continue
			}
			pos := int(tileOffset[tile]) + int(mask[c]>>MatchChunk)
			lo := c * MatchChunk
			hi := min(lo+MatchChunk, m)
			first := src[lo]
			before := lo > 0 && src[lo-1] == first
			v, acc := int32(-1), uint64(0)
			flush := func(shared bool) {
				if shared {
					atomicMaxU64(&best[v], acc)
				} else {
					atomic.StoreUint64(&best[v], acc)
				}
			}
			for i := lo; i < hi; i++ {
				if bits>>uint(i-lo)&1 == 0 {
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
	}
}

// matchHandshakeNextTwin: src, best, bestNext, match, matched, numArcs,
// nthreads.
func matchHandshakeNextTwin(g *cpu.Group) {
	src, best, bestNext, match, matched := g.I32s(0), g.U64s(1), g.U64s(2), g.I32s(3), g.U32s(4)
	m, nt := int(g.I32(5)), int(g.I32(6))
	strideItems(g, nt, func(t int) {
		for i := t; i < m; i += nt {
			if v := src[i]; i == 0 || src[i-1] != v {
				if s := keyDst(best[v]); keyDst(best[s]) == v {
					match[v] = s
					setMatched(matched, v)
				}
				bestNext[v] = 0
			}
		}
	})
}

const (
	matchFlagAggregate = uint64(1) << 62
	matchFlagPrefix    = uint64(2) << 62
	matchValueMask     = uint64(1)<<62 - 1
)

// matchFilterOnePassTwin: src, keys, matched, status, counter, newSrc,
// newKeys, bestNext, total, numArcs, scratch (local). The CPU backend hands
// groups to its workers in order and runs each to completion, so a tile's
// predecessors are always claimed by running or finished groups, as on a
// device; the look-back spins with atomic loads.
func matchFilterOnePassTwin(g *cpu.Group) {
	src, keys, matched, status := g.I32s(0), g.U64s(1), g.U32s(2), g.U64s(3)
	counter, newSrc, newKeys, bestNext := g.I32s(4), g.I32s(5), g.U64s(6), g.U64s(7)
	total := g.I64s(8)
	m := int(g.I32(9))
	size := g.Size[0]
	chunks := (m + MatchChunk - 1) / MatchChunk
	tiles := (chunks + size - 1) / size
	bits := make([]uint32, size)
	for {
		tile := int(atomic.AddInt32(&counter[0], 1) - 1)
		if tile >= tiles {
			return
		}
		agg := int64(0)
		for lid := range bits {
			bits[lid] = 0
			c := tile*size + lid
			if c >= chunks {
				continue
			}
			lo, hi := c*MatchChunk, min(c*MatchChunk+MatchChunk, m)
			for i := lo; i < hi; i++ {
				if !isMatched(matched, src[i]) && !isMatched(matched, keyDst(keys[i])) {
					bits[lid] |= 1 << uint(i-lo)
					agg++
				}
			}
		}
		excl := int64(0)
		if tile == 0 {
			atomicMaxU64(&status[0], matchFlagPrefix|uint64(agg))
		} else {
			atomicMaxU64(&status[tile], matchFlagAggregate|uint64(agg))
			for j := tile - 1; ; {
				s := atomic.LoadUint64(&status[j])
				if s == 0 {
					runtime.Gosched()
					continue
				}
				excl += int64(s & matchValueMask)
				if s&matchFlagPrefix == matchFlagPrefix {
					break
				}
				j--
			}
			atomicMaxU64(&status[tile], matchFlagPrefix|uint64(excl+agg))
		}
		if tile == tiles-1 {
			atomic.StoreInt64(&total[0], excl+agg)
		}
		pos := int(excl)
		for lid, b := range bits {
			if b == 0 {
				continue
			}
			c := tile*size + lid
			lo, hi := c*MatchChunk, min(c*MatchChunk+MatchChunk, m)
			first := src[lo]
			before := lo > 0 && src[lo-1] == first
			v, acc := int32(-1), uint64(0)
			flush := func(shared bool) {
				if shared {
					atomicMaxU64(&bestNext[v], acc)
				} else {
					atomic.StoreUint64(&bestNext[v], acc)
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
	}
}
