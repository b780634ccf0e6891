package device

import (
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
)

// VecAdd computes a + scale*b on dev, with work-groups of local items
// (0: the backend's default).
func VecAdd(dev backend.Device, a, b []int32, scale int32, local int) ([]int32, error) {
	if len(a) != len(b) {
		return nil, fmt.Errorf("vec_add: lengths %d and %d differ", len(a), len(b))
	}
	return runOnce(dev, "vecadd", "vec_add", func(q backend.Queue, k backend.Kernel) ([]int32, error) {
		ba, err := backend.AllocSlice(dev, q, a)
		if err != nil {
			return nil, err
		}
		defer ba.Free()
		bb, err := backend.AllocSlice(dev, q, b)
		if err != nil {
			return nil, err
		}
		defer bb.Free()
		bc, err := backend.AllocN[int32](dev, len(a))
		if err != nil {
			return nil, err
		}
		defer bc.Free()
		if err := q.Launch(k, backend.R1(len(a), local), backend.Buf(ba), backend.Buf(bb), backend.Buf(bc),
			backend.I32(int32(len(a))), backend.I32(scale)); err != nil {
			return nil, err
		}
		out := make([]int32, len(a))
		return out, backend.ReadSlice(q, bc, out)
	})
}

// GroupSums sums each work-group's slice of a (groups of local items, a power
// of two) and returns one int64 per group.
func GroupSums(dev backend.Device, a []int32, local int) ([]int64, error) {
	if local <= 0 || local&(local-1) != 0 {
		return nil, fmt.Errorf("group_sum: group size %d is not a power of two", local)
	}
	groups := (len(a) + local - 1) / local
	return runOnce(dev, "vecadd", "group_sum", func(q backend.Queue, k backend.Kernel) ([]int64, error) {
		ba, err := backend.AllocSlice(dev, q, a)
		if err != nil {
			return nil, err
		}
		defer ba.Free()
		bs, err := backend.AllocN[int64](dev, groups)
		if err != nil {
			return nil, err
		}
		defer bs.Free()
		if err := q.Launch(k, backend.R1(len(a), local), backend.Buf(ba), backend.Buf(bs),
			backend.I32(int32(len(a))), backend.Local(local*8)); err != nil {
			return nil, err
		}
		out := make([]int64, groups)
		return out, backend.ReadSlice(q, bs, out)
	})
}

// runOnce builds source, looks up kernel, makes a queue, runs fn and
// releases everything: the pattern of a one-shot wrapper.
func runOnce[T any](dev backend.Device, source, kernel string, fn func(backend.Queue, backend.Kernel) (T, error)) (T, error) {
	var zero T
	prog, err := Build(dev, source, nil, kernel)
	if err != nil {
		return zero, err
	}
	defer prog.Release()
	k, err := prog.Kernel(kernel)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", kernel, err)
	}
	defer k.Release()
	q, err := dev.NewQueue()
	if err != nil {
		return zero, fmt.Errorf("%s: %w", kernel, err)
	}
	defer q.Release()
	out, err := fn(q, k)
	if err != nil {
		return zero, fmt.Errorf("%s on %s: %w", kernel, dev.Info(), err)
	}
	return out, q.Finish()
}
