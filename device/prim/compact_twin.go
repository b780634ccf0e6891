package prim

import "github.com/arbor-gpu/arbor/backend"

func init() {
	backend.RegisterTwin("compact_mark", compactMarkTwin)
	backend.RegisterTwin("compact_scatter4", compactScatterTwin[uint32])
	backend.RegisterTwin("compact_scatter8", compactScatterTwin[uint64])
	backend.RegisterTwin("compact_index", compactIndexTwin)
}

// gridStride calls fn for each index of the group's items in a grid-stride loop
// over n, as `for (i = get_global_id(0); i < n; i += get_global_size(0))`.
func gridStride(g *backend.Group, n int64, fn func(i int)) {
	step := int64(g.Global[0])
	g.Each(func(_, gid int) {
		for i := int64(gid); i < n; i += step {
			fn(int(i))
		}
	})
}

// compactMarkTwin is compact_mark: arguments flags, n, pos.
func compactMarkTwin(g *backend.Group) {
	flags, pos := g.I32s(0), g.I32s(2)
	gridStride(g, g.I64(1), func(i int) {
		pos[i] = 0
		if flags[i] != 0 {
			pos[i] = 1
		}
	})
}

// compactScatterTwin is compact_scatter4/8: arguments flags, pos, n, src, dst.
func compactScatterTwin[T elem](g *backend.Group) {
	flags, pos, src, dst := g.I32s(0), g.I32s(1), argView[T](g, 3), argView[T](g, 4)
	gridStride(g, g.I64(2), func(i int) {
		if flags[i] != 0 {
			dst[pos[i]] = src[i]
		}
	})
}

// compactIndexTwin is compact_index: arguments flags, pos, n, dst.
func compactIndexTwin(g *backend.Group) {
	flags, pos, dst := g.I32s(0), g.I32s(1), g.I32s(3)
	gridStride(g, g.I64(2), func(i int) {
		if flags[i] != 0 {
			dst[pos[i]] = int32(i)
		}
	})
}
