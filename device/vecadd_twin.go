package device

import "github.com/arbor-gpu/arbor/backend"

func init() {
	backend.RegisterTwin("vec_add", vecAddTwin)
	backend.RegisterTwin("group_sum", groupSumTwin)
}

// vecAddTwin is vec_add in Go: arguments a, b, c, n, scale.
func vecAddTwin(g *backend.Group) {
	a, b, c := g.I32s(0), g.I32s(1), g.I32s(2)
	n, scale := int(g.I32(3)), g.I32(4)
	g.Each(func(_, i int) {
		if i < n {
			c[i] = a[i] + scale*b[i]
		}
	})
}

// groupSumTwin is group_sum in Go: arguments a, sums, n, scratch. Each
// BARRIER of the source ends one g.Each phase here.
func groupSumTwin(g *backend.Group) {
	a, sums, n := g.I32s(0), g.I64s(1), int(g.I32(2))
	scratch := g.LocalI64(3)
	g.Each(func(lid, gid int) {
		scratch[lid] = 0
		if gid < n {
			scratch[lid] = int64(a[gid])
		}
	})
	for s := g.Size[0] / 2; s > 0; s >>= 1 {
		g.Each(func(lid, _ int) {
			if lid < s {
				scratch[lid] += scratch[lid+s]
			}
		})
	}
	sums[g.ID[0]] = scratch[0]
}
