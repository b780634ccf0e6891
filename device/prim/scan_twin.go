package prim

import (
	"math"

	"github.com/arbor-gpu/arbor/backend"
)

// elem is an element type the primitives' twins read buffers as.
type elem interface {
	int32 | uint32 | int64 | uint64
}

// argView returns buffer argument i of a twin's group as a []T.
func argView[T elem](g *backend.Group, i int) []T {
	var z T
	switch any(z).(type) {
	case int32:
		return any(g.I32s(i)).([]T)
	case uint32:
		return any(g.U32s(i)).([]T)
	case int64:
		return any(g.I64s(i)).([]T)
	default:
		return any(g.U64s(i)).([]T)
	}
}

func opSum[A elem](a, b A) A { return a + b }
func opMax[A elem](a, b A) A { return max(a, b) }

func init() {
	registerScanTwins[int32, int64]("sum_i32", 0, opSum[int64])
	registerScanTwins[uint32, int64]("sum_u32", 0, opSum[int64])
	registerScanTwins[int64, int64]("sum_i64", 0, opSum[int64])
	registerScanTwins[int32, int32]("max_i32", math.MinInt32, opMax[int32])
	registerScanTwins[int64, int64]("max_i64", math.MinInt64, opMax[int64])
	registerScanTwins[uint64, uint64]("max_u64", 0, opMax[uint64])
}

func registerScanTwins[T, A elem](name string, ident A, op func(A, A) A) {
	backend.RegisterTwin("scan_reduce_"+name, scanReduceTwin[T](ident, op))
	backend.RegisterTwin("scan_down_"+name, scanDownTwin[T](ident, op))
}

// tileOf returns the element range [base, end) of the group's tile.
func tileOf(g *backend.Group, n int64, perItem int) (int, int) {
	tile := int64(g.Size[0]) * int64(perItem)
	base := int64(g.ID[0]) * tile
	return int(base), int(max(base, min(base+tile, n)))
}

// scanReduceTwin is scan_reduce_OP: arguments in, n, per_item, partials, sums.
func scanReduceTwin[T, A elem](ident A, op func(A, A) A) backend.Twin {
	return func(g *backend.Group) {
		in, partials := argView[T](g, 0), argView[A](g, 3)
		base, end := tileOf(g, g.I64(1), int(g.I32(2)))
		acc := ident
		for _, v := range in[base:end] {
			acc = op(acc, A(v))
		}
		partials[g.ID[0]] = acc
	}
}

// scanDownTwin is scan_down_OP: arguments in, out, n, per_item, offsets,
// use_offsets, inclusive, total, tile, sums. Each element is read before
// its slot is written, so in and out may alias, as on the device.
func scanDownTwin[T, A elem](ident A, op func(A, A) A) backend.Twin {
	return func(g *backend.Group) {
		in, out, offsets, total := argView[T](g, 0), argView[T](g, 1), argView[A](g, 4), argView[A](g, 7)
		base, end := tileOf(g, g.I64(2), int(g.I32(3)))
		run := ident
		if g.I32(5) != 0 {
			run = offsets[g.ID[0]]
		}
		inclusive := g.I32(6) != 0
		for i := base; i < end; i++ {
			v := A(in[i])
			if inclusive {
				run = op(run, v)
				out[i] = T(run)
			} else {
				out[i] = T(run)
				run = op(run, v)
			}
		}
		if g.ID[0] == g.Groups[0]-1 {
			total[0] = run
		}
	}
}
