package prim

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/bits"
	"slices"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
)

// scanOp is one instantiation of scan.cl's SCAN_KERNELS.
type scanOp struct {
	name  string // kernel name suffix
	elem  int    // bytes per element
	acc   int    // bytes per accumulator (the partials' element size)
	upper string // the op that scans or reduces the partials
	sign  bool   // accumulator is signed (for reading totals)
	ident uint64 // identity, as the accumulator's bit pattern
}

var scanOps = map[string]scanOp{
	"sum_i32": {"sum_i32", 4, 8, "sum_i64", true, 0},
	"sum_u32": {"sum_u32", 4, 8, "sum_i64", true, 0},
	"sum_i64": {"sum_i64", 8, 8, "sum_i64", true, 0},
	"max_i32": {"max_i32", 4, 4, "max_i32", true, uint64(1) << 31},
	"max_i64": {"max_i64", 8, 8, "max_i64", true, uint64(1) << 63},
	"max_u64": {"max_u64", 8, 8, "max_u64", false, 0},
}

// scanKernelNames lists scan.cl's kernels.
func scanKernelNames() []string {
	var out []string
	for _, op := range []string{"sum_i32", "sum_u32", "sum_i64", "max_i32", "max_i64", "max_u64"} {
		out = append(out, "scan_reduce_"+op, "scan_down_"+op)
	}
	return out
}

// Default tile shape: 256 work-items of 8 elements each, 2048 per tile.
const (
	defaultScanGroup   = 256
	defaultScanPerItem = 8
)

// tiles runs scan.cl: the shared engine of Scan and Reduce. It keeps its
// partial-sum buffers between calls and is not safe for concurrent use.
type tiles struct {
	dev            backend.Device
	prog           backend.Program
	kernels        map[string]backend.Kernel
	group, perItem int
	levels         []backend.Buffer // partials of recursion level i, grown on demand
	total          backend.Buffer   // 8 bytes: the last scan's total
}

// scanLocalBytes is the most local memory a scan_down launch takes: the
// padded tile and the per-item sums, 8 bytes each, each slice rounded to 16.
func scanLocalBytes(group, perItem int) uint64 {
	tile := group * perItem
	padded := tile + (tile-1)>>5 + 1
	return uint64((padded*8+15)/16*16 + (group*8+15)/16*16)
}

func newTiles(dev backend.Device, group, perItem int) (*tiles, error) {
	info := dev.Info()
	if group == 0 {
		group = defaultScanGroup
		if info.MaxWorkGroup > 0 && group > info.MaxWorkGroup {
			group = 1 << (bits.Len(uint(info.MaxWorkGroup)) - 1)
		}
	}
	if perItem == 0 {
		perItem = defaultScanPerItem
		for perItem > 1 && info.LocalMemory > 0 && scanLocalBytes(group, perItem) > info.LocalMemory {
			perItem /= 2
		}
	}
	if group <= 0 || group&(group-1) != 0 {
		return nil, fmt.Errorf("scan: work-group size %d is not a power of two", group)
	}
	if info.MaxWorkGroup > 0 && group > info.MaxWorkGroup {
		return nil, fmt.Errorf("scan: work-group size %d exceeds %s's %d", group, info, info.MaxWorkGroup)
	}
	if perItem <= 0 || perItem > 64 {
		return nil, fmt.Errorf("scan: %d elements per work-item (want 1..64)", perItem)
	}
	if need := scanLocalBytes(group, perItem); info.LocalMemory > 0 && need > info.LocalMemory {
		return nil, fmt.Errorf("scan: tiles of %dx%d need %d bytes of local memory, %s has %d",
			group, perItem, need, info, info.LocalMemory)
	}
	names := scanKernelNames()
	prog, ks, err := device.BuildKernels(dev, "scan", nil, names...)
	if err != nil {
		return nil, err
	}
	t := &tiles{dev: dev, prog: prog, kernels: ks, group: group, perItem: perItem}
	if t.total, err = dev.Alloc(8); err != nil {
		t.release()
		return nil, fmt.Errorf("scan: %w", err)
	}
	return t, nil
}

func (t *tiles) release() error {
	err := release(t.prog, slices.Collect(maps.Values(t.kernels)), append(t.levels, t.total)...)
	t.kernels, t.levels, t.total, t.prog = nil, nil, nil, nil
	return err
}

func (t *tiles) tile() int { return t.group * t.perItem }

// paddedTile is the local tile's length with scan.cl's SCAN_PAD slots.
func (t *tiles) paddedTile() int { return t.tile() + (t.tile()-1)>>5 + 1 }

// level returns the partials buffer of recursion level i with room for bytes.
func (t *tiles) level(i, bytes int) (backend.Buffer, error) {
	for len(t.levels) <= i {
		t.levels = append(t.levels, nil)
	}
	if b := t.levels[i]; b != nil && b.Size() >= bytes {
		return b, nil
	}
	if b := t.levels[i]; b != nil {
		if err := b.Free(); err != nil {
			return nil, err
		}
		t.levels[i] = nil
	}
	b, err := t.dev.Alloc(max(bytes, 64))
	if err != nil {
		return nil, err
	}
	t.levels[i] = b
	return b, nil
}

func checkLen(what string, b backend.Buffer, n, elem int) error {
	if n < 0 {
		return fmt.Errorf("%s: negative length %d", what, n)
	}
	if b == nil {
		return fmt.Errorf("%s: nil buffer", what)
	}
	if b.Size() < n*elem {
		return fmt.Errorf("%s: buffer of %d bytes holds fewer than %d elements of %d bytes", what, b.Size(), n, elem)
	}
	return nil
}

// scan runs the three phases for n elements of op's type; the partials of
// each level are scanned exclusively, in place, one level up.
func (t *tiles) scan(q backend.Queue, op scanOp, in, out backend.Buffer, n int, inclusive bool, level int) error {
	nt := (n + t.tile() - 1) / t.tile()
	offsets, use := t.total, int32(0)
	if nt > 1 {
		part, err := t.level(level, nt*op.acc)
		if err != nil {
			return err
		}
		if err := q.Launch(t.kernels["scan_reduce_"+op.name], backend.R1(nt*t.group, t.group),
			backend.Buf(in), backend.I64(int64(n)), backend.I32(int32(t.perItem)), backend.Buf(part),
			backend.Local(t.group*op.acc)); err != nil {
			return err
		}
		if err := t.scan(q, scanOps[op.upper], part, part, nt, false, level+1); err != nil {
			return err
		}
		offsets, use = part, 1
	}
	incl := int32(0)
	if inclusive {
		incl = 1
	}
	return q.Launch(t.kernels["scan_down_"+op.name], backend.R1(nt*t.group, t.group),
		backend.Buf(in), backend.Buf(out), backend.I64(int64(n)), backend.I32(int32(t.perItem)),
		backend.Buf(offsets), backend.I32(use), backend.I32(incl), backend.Buf(t.total),
		backend.Local(t.paddedTile()*op.elem), backend.Local(t.group*op.acc))
}

// run checks the buffers, scans, and reads the total when read is set.
func (t *tiles) run(q backend.Queue, opName string, in, out backend.Buffer, n int, inclusive, read bool) (uint64, error) {
	op := scanOps[opName]
	what := "scan " + opName
	if err := checkLen(what+" input", in, n, op.elem); err != nil {
		return 0, err
	}
	if err := checkLen(what+" output", out, n, op.elem); err != nil {
		return 0, err
	}
	if n > math.MaxInt64/8 {
		return 0, fmt.Errorf("%s: %d elements", what, n)
	}
	if n == 0 {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], op.ident)
		if err := q.Write(t.total, 0, b[:op.acc]); err != nil {
			return 0, fmt.Errorf("%s: %w", what, err)
		}
		return op.ident, nil
	}
	if err := t.scan(q, op, in, out, n, inclusive, 0); err != nil {
		return 0, fmt.Errorf("%s of %d on %s: %w", what, n, t.dev.Info(), err)
	}
	if !read {
		return 0, nil
	}
	return t.read(q, op, t.total)
}

// read returns the accumulator at the start of b, sign-extended where signed.
func (t *tiles) read(q backend.Queue, op scanOp, b backend.Buffer) (uint64, error) {
	var buf [8]byte
	if err := q.Read(b, 0, buf[:op.acc]); err != nil {
		return 0, fmt.Errorf("scan %s: reading the total: %w", op.name, err)
	}
	if op.acc == 4 {
		v := binary.LittleEndian.Uint32(buf[:4])
		if op.sign {
			return uint64(int64(int32(v))), nil
		}
		return uint64(v), nil
	}
	return binary.LittleEndian.Uint64(buf[:]), nil
}

// reduce folds n elements to one accumulator with the tile reductions alone.
func (t *tiles) reduce(q backend.Queue, opName string, in backend.Buffer, n int) (uint64, error) {
	op := scanOps[opName]
	what := "reduce " + opName
	if err := checkLen(what, in, n, op.elem); err != nil {
		return 0, err
	}
	for level := 0; n > 0; level++ {
		nt := (n + t.tile() - 1) / t.tile()
		part, err := t.level(level, nt*op.acc)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", what, err)
		}
		if err := q.Launch(t.kernels["scan_reduce_"+op.name], backend.R1(nt*t.group, t.group),
			backend.Buf(in), backend.I64(int64(n)), backend.I32(int32(t.perItem)), backend.Buf(part),
			backend.Local(t.group*op.acc)); err != nil {
			return 0, fmt.Errorf("%s of %d on %s: %w", what, n, t.dev.Info(), err)
		}
		if nt == 1 {
			return t.read(q, op, part)
		}
		in, n, op = part, nt, scanOps[op.upper]
	}
	return op.ident, nil
}

// Scan computes prefix sums (and prefix maxima) of device-resident arrays:
// a work-efficient reduce-then-scan over tiles of Group×PerItem elements,
// recursive over the tiles' partials, so any n works in
// O(n) work and O(log n / log tile) launches. A Scan keeps its partial-sum
// buffers between calls; it is not safe for concurrent use (make one per
// goroutine), and calls on one queue are ordered as usual.
type Scan struct{ t *tiles }

// NewScan builds the scan kernels for dev with the default tile shape.
func NewScan(dev backend.Device) (*Scan, error) { return NewScanSize(dev, 0, 0) }

// NewScanSize is NewScan with an explicit work-group size (a power of two;
// 0 for the default, 256 clamped to the device) and elements per work-item
// (1..64; 0 for the default, 8).
func NewScanSize(dev backend.Device, group, perItem int) (*Scan, error) {
	t, err := newTiles(dev, group, perItem)
	if err != nil {
		return nil, err
	}
	return &Scan{t}, nil
}

// Group and PerItem report the tile shape in use.
func (s *Scan) Group() int   { return s.t.group }
func (s *Scan) PerItem() int { return s.t.perItem }

// Exclusive writes out[i] = in[0] + … + in[i-1] for the first n int32
// elements of in, and returns the sum of all n, exact in 64 bits (out's
// elements wrap as 32-bit addition does). in and out may be the same
// buffer. It blocks until the total is read; ExclusiveAsync does not.
func (s *Scan) Exclusive(q backend.Queue, in, out backend.Buffer, n int) (total int64, err error) {
	v, err := s.t.run(q, "sum_i32", in, out, n, false, true)
	return int64(v), err
}

// ExclusiveAsync is Exclusive without waiting: the total (int64) is left at
// offset 0 of TotalBuffer() when the queue reaches it, for a later kernel
// or read.
func (s *Scan) ExclusiveAsync(q backend.Queue, in, out backend.Buffer, n int) error {
	_, err := s.t.run(q, "sum_i32", in, out, n, false, false)
	return err
}

// TotalBuffer holds the total of the last scan: an int64 for sums, the
// element type for maxima. It belongs to the Scan; do not free it.
func (s *Scan) TotalBuffer() backend.Buffer { return s.t.total }

// Inclusive writes out[i] = in[0] + … + in[i] (int32) and returns the total.
func (s *Scan) Inclusive(q backend.Queue, in, out backend.Buffer, n int) (total int64, err error) {
	v, err := s.t.run(q, "sum_i32", in, out, n, true, true)
	return int64(v), err
}

// ExclusiveU32 is Exclusive for uint32 elements (out wraps modulo 2³²; the
// total is the exact sum).
func (s *Scan) ExclusiveU32(q backend.Queue, in, out backend.Buffer, n int) (total int64, err error) {
	v, err := s.t.run(q, "sum_u32", in, out, n, false, true)
	return int64(v), err
}

// ExclusiveI64 is Exclusive for int64 elements.
func (s *Scan) ExclusiveI64(q backend.Queue, in, out backend.Buffer, n int) (total int64, err error) {
	v, err := s.t.run(q, "sum_i64", in, out, n, false, true)
	return int64(v), err
}

// PrefixMaxI32 writes the inclusive running maximum out[i] = max(in[0..i])
// of int32 elements and returns the maximum (math.MinInt32 when n is 0).
func (s *Scan) PrefixMaxI32(q backend.Queue, in, out backend.Buffer, n int) (int32, error) {
	v, err := s.t.run(q, "max_i32", in, out, n, true, true)
	return int32(v), err
}

// PrefixMaxU64 writes the inclusive running maximum of uint64 words: over
// words packed by PackMax (or the argmax_pack_i32 kernel) out[i] is the
// argmax of in[0..i], ties to the smaller index. It returns the maximum.
func (s *Scan) PrefixMaxU64(q backend.Queue, in, out backend.Buffer, n int) (uint64, error) {
	return s.t.run(q, "max_u64", in, out, n, true, true)
}

// Release frees the kernels, program and buffers.
func (s *Scan) Release() error { return s.t.release() }

// Reduce folds device-resident arrays to one value (sum or maximum) with the
// scan's tile reductions: about n/tile work-groups, then one per level.
// Not safe for concurrent use.
type Reduce struct{ t *tiles }

// NewReduce builds the reduction kernels for dev (default tile shape).
func NewReduce(dev backend.Device) (*Reduce, error) { return NewReduceSize(dev, 0, 0) }

// NewReduceSize is NewReduce with an explicit tile shape, as NewScanSize.
func NewReduceSize(dev backend.Device, group, perItem int) (*Reduce, error) {
	t, err := newTiles(dev, group, perItem)
	if err != nil {
		return nil, err
	}
	return &Reduce{t}, nil
}

// SumI32 returns the exact sum of n int32 elements.
func (r *Reduce) SumI32(q backend.Queue, in backend.Buffer, n int) (int64, error) {
	return reduceAs[int64](r.t, q, "sum_i32", in, n)
}

// SumU32 returns the exact sum of n uint32 elements.
func (r *Reduce) SumU32(q backend.Queue, in backend.Buffer, n int) (int64, error) {
	return reduceAs[int64](r.t, q, "sum_u32", in, n)
}

// SumI64 returns the sum of n int64 elements (wrapping on overflow).
func (r *Reduce) SumI64(q backend.Queue, in backend.Buffer, n int) (int64, error) {
	return reduceAs[int64](r.t, q, "sum_i64", in, n)
}

// MaxI32 returns the maximum of n int32 elements (math.MinInt32 for none).
func (r *Reduce) MaxI32(q backend.Queue, in backend.Buffer, n int) (int32, error) {
	return reduceAs[int32](r.t, q, "max_i32", in, n)
}

// MaxI64 returns the maximum of n int64 elements (math.MinInt64 for none).
func (r *Reduce) MaxI64(q backend.Queue, in backend.Buffer, n int) (int64, error) {
	return reduceAs[int64](r.t, q, "max_i64", in, n)
}

// MaxU64 returns the maximum of n uint64 words (0 for none): over packed
// argmax words, the whole array's argmax.
func (r *Reduce) MaxU64(q backend.Queue, in backend.Buffer, n int) (uint64, error) {
	return r.t.reduce(q, "max_u64", in, n)
}

// Release frees the kernels, program and buffers.
func (r *Reduce) Release() error { return r.t.release() }

// reduceAs is reduction op of n elements, its 64-bit result as T (the
// element type's value: a sum or maximum of int32s as int64 or int32).
func reduceAs[T int32 | int64](t *tiles, q backend.Queue, op string, in backend.Buffer, n int) (T, error) {
	v, err := t.reduce(q, op, in, n)
	return T(v), err
}
