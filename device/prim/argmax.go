package prim

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
)

// PackMax is the deterministic argmax word of the prelude's arbor_pack_max:
// key (sign flipped, so unsigned order is signed order) in the high half,
// ^index in the low half. The maximum of packed words is the largest key
// with, among equal keys, the smallest index; 0 means "no element".
func PackMax(key int32, index uint32) uint64 {
	return uint64(uint32(key)^0x80000000)<<32 | uint64(^index)
}

// UnpackMax splits a packed word; 0 gives (math.MinInt32, -1).
func UnpackMax(p uint64) (key int32, index int32) {
	return int32(uint32(p>>32) ^ 0x80000000), int32(^uint32(p))
}

// Argmax finds the largest of device-resident int32 values with the
// smallest index among equals, over a whole array or per row (one
// work-group per row). Not safe for concurrent use.
type Argmax struct {
	dev   backend.Device
	prog  backend.Program
	k     map[string]backend.Kernel
	group int
	// Atomics: the whole-array argmax folds group maxima with a 64-bit
	// atomic max in one pass. NewArgmax sets it where the device has 64-bit
	// atomics; clear it to force the two-pass tree (the result is the same).
	Atomics  bool
	partials backend.Buffer // gridGroups packed words
	result   backend.Buffer // one packed word
}

// NewArgmax builds the argmax kernels for dev.
func NewArgmax(dev backend.Device) (*Argmax, error) {
	info := dev.Info()
	names := []string{"argmax_pack_i32", "argmax_groups_i32", "argmax_groups_u64", "argmax_rows_i32"}
	if info.Atomics64 {
		names = append(names, "argmax_atomic_i32")
	}
	prog, ks, err := device.BuildKernels(dev, "argmax", nil, names...)
	if err != nil {
		return nil, err
	}
	a := &Argmax{dev: dev, prog: prog, k: ks, group: gridGroupFor(info), Atomics: info.Atomics64}
	if a.partials, err = backend.AllocN[uint64](dev, gridGroups); err == nil {
		a.result, err = backend.AllocN[uint64](dev, 1)
	}
	if err != nil {
		a.Release()
		return nil, fmt.Errorf("argmax: %w", err)
	}
	return a, nil
}

// Packed writes the packed argmax word of the first n values (int32) to
// dst[0] (a uint64) without waiting: the form a later kernel consumes.
func (a *Argmax) Packed(q backend.Queue, values backend.Buffer, n int, dst backend.Buffer) error {
	if n > math.MaxInt32 {
		return fmt.Errorf("argmax: %d elements (indices are 32-bit)", n)
	}
	if err := checkLen("argmax values", values, n, 4); err != nil {
		return err
	}
	if err := checkLen("argmax result", dst, 1, 8); err != nil {
		return err
	}
	if n == 0 {
		return q.Fill(dst, 0, 8, 0)
	}
	r := gridRange(n, a.group)
	local := backend.Local(a.group * 8)
	if k := a.k["argmax_atomic_i32"]; a.Atomics && k != nil {
		if err := q.Fill(dst, 0, 8, 0); err != nil {
			return err
		}
		if err := q.Launch(k, r, backend.Buf(values), backend.I64(int64(n)), backend.Buf(dst), local); err != nil {
			return fmt.Errorf("argmax_atomic_i32 on %s: %w", a.dev.Info(), err)
		}
		return nil
	}
	groups := r.Global[0] / a.group
	first := a.partials
	if groups == 1 {
		first = dst
	}
	if err := q.Launch(a.k["argmax_groups_i32"], r, backend.Buf(values), backend.I64(int64(n)), backend.Buf(first), local); err != nil {
		return fmt.Errorf("argmax_groups_i32 on %s: %w", a.dev.Info(), err)
	}
	if groups == 1 {
		return nil
	}
	if err := q.Launch(a.k["argmax_groups_u64"], backend.R1(a.group, a.group), backend.Buf(a.partials),
		backend.I64(int64(groups)), backend.Buf(dst), local); err != nil {
		return fmt.Errorf("argmax_groups_u64 on %s: %w", a.dev.Info(), err)
	}
	return nil
}

// Run returns the index and value of the largest of the first n int32
// values, the smallest index among equals; (-1, math.MinInt32) when n is 0.
func (a *Argmax) Run(q backend.Queue, values backend.Buffer, n int) (index int, value int32, err error) {
	if err := a.Packed(q, values, n, a.result); err != nil {
		return 0, 0, err
	}
	var b [8]byte
	if err := q.Read(a.result, 0, b[:]); err != nil {
		return 0, 0, fmt.Errorf("argmax: %w", err)
	}
	v, i := UnpackMax(binary.LittleEndian.Uint64(b[:]))
	return int(i), v, nil
}

// Pack writes out[i] = PackMax(values[i], i) for the first n values: the
// input of Scan.PrefixMaxU64 (running argmax) and Reduce.MaxU64.
func (a *Argmax) Pack(q backend.Queue, values backend.Buffer, n int, out backend.Buffer) error {
	if err := checkLen("argmax_pack values", values, n, 4); err != nil {
		return err
	}
	if err := checkLen("argmax_pack output", out, n, 8); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if err := q.Launch(a.k["argmax_pack_i32"], gridRange(n, a.group), backend.Buf(values), backend.I64(int64(n)), backend.Buf(out)); err != nil {
		return fmt.Errorf("argmax_pack_i32 on %s: %w", a.dev.Info(), err)
	}
	return nil
}

// Rows computes, for each of rows rows of cols int32 values (row r starts at
// element r*stride), the column of its largest value (smallest on ties; -1
// for cols 0) into index and that value (math.MinInt32 for cols 0) into
// value, one work-group per row: the per-group argmax of vertex-cover
// branching. group is the work-group size (a power of two; 0: 256 clamped).
func (a *Argmax) Rows(q backend.Queue, values backend.Buffer, rows, cols, stride, group int, index, value backend.Buffer) error {
	if group == 0 {
		group = a.group
	}
	if group <= 0 || group&(group-1) != 0 {
		return fmt.Errorf("argmax rows: work-group size %d is not a power of two", group)
	}
	if rows < 0 || cols < 0 || stride < cols || rows > math.MaxInt32 || cols > math.MaxInt32 {
		return fmt.Errorf("argmax rows: %d rows of %d columns with stride %d", rows, cols, stride)
	}
	if rows == 0 {
		return nil
	}
	if err := checkLen("argmax rows values", values, (rows-1)*stride+cols, 4); err != nil {
		return err
	}
	if err := checkLen("argmax rows index", index, rows, 4); err != nil {
		return err
	}
	if err := checkLen("argmax rows value", value, rows, 4); err != nil {
		return err
	}
	groups := min(rows, gridGroups*4)
	if err := q.Launch(a.k["argmax_rows_i32"], backend.R1(groups*group, group), backend.Buf(values), backend.I32(int32(rows)),
		backend.I32(int32(cols)), backend.I64(int64(stride)), backend.Buf(index), backend.Buf(value), backend.Local(group*8)); err != nil {
		return fmt.Errorf("argmax_rows_i32 on %s: %w", a.dev.Info(), err)
	}
	return nil
}

// Release frees the kernels, program and buffers.
func (a *Argmax) Release() error {
	err := release(a.prog, slices.Collect(maps.Values(a.k)), a.partials, a.result)
	*a = Argmax{}
	return err
}

// release frees kernels, then buffers, then the program (nil ones are
// skipped) and returns the first error.
func release(prog backend.Program, ks []backend.Kernel, bufs ...backend.Buffer) error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for _, k := range ks {
		if k != nil {
			keep(k.Release())
		}
	}
	for _, b := range bufs {
		if b != nil {
			keep(b.Free())
		}
	}
	if prog != nil {
		keep(prog.Release())
	}
	return first
}
