package prim

import (
	"math/bits"

	"github.com/arbor-gpu/arbor/backend"
)

func init() { backend.RegisterTwin("bitset_and_count", bitsetAndCountTwin) }

// bitsetAndCountTwin is bitset_and_count: arguments rows, nrows, words,
// row_stride, mask, mask_stride, lanes, counts, scratch.
func bitsetAndCountTwin(g *backend.Group) {
	rows, nrows, words, rowStride := g.U64s(0), int(g.I32(1)), int(g.I32(2)), int(g.I64(3))
	mask, maskStride, lanes, counts := g.U64s(4), int(g.I64(5)), int(g.I32(6)), g.I32s(7)
	laneSlots(g, nrows, lanes, func(r int) {
		c := 0
		row, m := rows[r*rowStride:], mask[r*maskStride:]
		for j := 0; j < words; j++ {
			c += bits.OnesCount64(row[j] & m[j])
		}
		counts[r] = int32(c)
	})
}
