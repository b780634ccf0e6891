package prim

import (
	"sync/atomic"

	"github.com/arbor-gpu/arbor/backend"
)

func init() {
	backend.RegisterTwin("argmax_pack_i32", argmaxPackTwin)
	backend.RegisterTwin("argmax_groups_i32", argmaxGroupsTwin(packedI32))
	backend.RegisterTwin("argmax_groups_u64", argmaxGroupsTwin(packedU64))
	backend.RegisterTwin("argmax_atomic_i32", argmaxAtomicTwin)
	backend.RegisterTwin("argmax_rows_i32", argmaxRowsTwin)
}

// packedI32 and packedU64 read element i of buffer argument 0 as a packed word.
func packedI32(g *backend.Group) func(i int) uint64 {
	v := g.I32s(0)
	return func(i int) uint64 { return PackMax(v[i], uint32(i)) }
}

func packedU64(g *backend.Group) func(i int) uint64 {
	v := g.U64s(0)
	return func(i int) uint64 { return v[i] }
}

// groupArgmax is the maximum packed word over the indices the group's items
// visit in a grid-stride loop over n.
func groupArgmax(g *backend.Group, n int64, word func(i int) uint64) uint64 {
	var m uint64
	gridStride(g, n, func(i int) { m = max(m, word(i)) })
	return m
}

// argmaxPackTwin is argmax_pack_i32: arguments values, n, out.
func argmaxPackTwin(g *backend.Group) {
	v, out := g.I32s(0), g.U64s(2)
	gridStride(g, g.I64(1), func(i int) { out[i] = PackMax(v[i], uint32(i)) })
}

// argmaxGroupsTwin is argmax_groups_i32/u64: arguments in, n, partials, scratch.
func argmaxGroupsTwin(word func(g *backend.Group) func(int) uint64) backend.Twin {
	return func(g *backend.Group) {
		g.U64s(2)[g.ID[0]] = groupArgmax(g, g.I64(1), word(g))
	}
}

// argmaxAtomicTwin is argmax_atomic_i32: arguments values, n, result, scratch.
// Groups run concurrently on the CPU backend, so the fold is atomic there too.
func argmaxAtomicTwin(g *backend.Group) {
	m := groupArgmax(g, g.I64(1), packedI32(g))
	if m == 0 {
		return
	}
	p := &g.U64s(2)[0]
	for {
		old := atomic.LoadUint64(p)
		if old >= m || atomic.CompareAndSwapUint64(p, old, m) {
			return
		}
	}
}

// argmaxRowsTwin is argmax_rows_i32: arguments values, rows, cols, stride,
// index, value, scratch.
func argmaxRowsTwin(g *backend.Group) {
	values, rows, cols, stride := g.I32s(0), int(g.I32(1)), int(g.I32(2)), int(g.I64(3))
	index, value := g.I32s(4), g.I32s(5)
	for r := g.ID[0]; r < rows; r += g.Groups[0] {
		var m uint64
		for j, v := range values[r*stride : r*stride+cols] {
			m = max(m, PackMax(v, uint32(j)))
		}
		value[r], index[r] = UnpackMax(m)
	}
}
