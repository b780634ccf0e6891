package prim

import (
	"fmt"
	"math"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
)

// Launch shape of the grid-stride kernels: groups of 256, at most
// gridGroups groups (each item then loops over the rest).
const (
	gridGroup  = 256
	gridGroups = 4096
)

// gridRange is the launch range of a grid-stride kernel over n items.
func gridRange(n, group int) backend.Range {
	items := min(max(n, 1), group*gridGroups)
	return backend.R1((items+group-1)/group*group, group)
}

// gridGroupFor is gridGroup clamped to the device.
func gridGroupFor(info backend.Info) int {
	g := gridGroup
	for info.MaxWorkGroup > 0 && g > info.MaxWorkGroup {
		g /= 2
	}
	return g
}

// Compact is stable stream compaction on device-resident arrays: the
// elements whose int32 flag is non-zero are packed to the front of the
// destinations, in their original order. It owns a Scan and a positions
// buffer reused between calls; not safe for concurrent use.
type Compact struct {
	dev                             backend.Device
	scan                            *Scan
	prog                            backend.Program
	mark, scatter4, scatter8, index backend.Kernel
	pos                             backend.Buffer // int32 positions, grown on demand
	group                           int
}

// Column is one array moved by a compaction: Width bytes per element (4 or
// 8, any element type of that size). Src and Dst must differ; Dst needs
// room for the kept elements only.
type Column struct {
	Src, Dst backend.Buffer
	Width    int
}

// NewCompact builds the compaction (and scan) kernels for dev.
func NewCompact(dev backend.Device) (*Compact, error) {
	s, err := NewScan(dev)
	if err != nil {
		return nil, err
	}
	names := []string{"compact_mark", "compact_scatter4", "compact_scatter8", "compact_index"}
	prog, err := device.Build(dev, "compact", nil, names...)
	if err != nil {
		s.Release()
		return nil, err
	}
	c := &Compact{dev: dev, scan: s, prog: prog, group: gridGroupFor(dev.Info())}
	for i, k := range []*backend.Kernel{&c.mark, &c.scatter4, &c.scatter8, &c.index} {
		if *k, err = prog.Kernel(names[i]); err != nil {
			c.Release()
			return nil, fmt.Errorf("compact: %w", err)
		}
	}
	return c, nil
}

// positions marks and scans the flags: pos[i] is the destination of element
// i when kept; it returns how many are kept.
func (c *Compact) positions(q backend.Queue, flags backend.Buffer, n int) (int, error) {
	if err := checkLen("compact flags", flags, n, 4); err != nil {
		return 0, err
	}
	if n > math.MaxInt32 {
		return 0, fmt.Errorf("compact: %d elements (positions are 32-bit)", n)
	}
	if c.pos == nil || c.pos.Size() < n*4 {
		if c.pos != nil {
			if err := c.pos.Free(); err != nil {
				return 0, err
			}
			c.pos = nil
		}
		b, err := backend.AllocN[int32](c.dev, max(n, 16))
		if err != nil {
			return 0, fmt.Errorf("compact: %w", err)
		}
		c.pos = b
	}
	if n == 0 {
		return 0, nil
	}
	if err := q.Launch(c.mark, gridRange(n, c.group), backend.Buf(flags), backend.I64(int64(n)), backend.Buf(c.pos)); err != nil {
		return 0, fmt.Errorf("compact_mark on %s: %w", c.dev.Info(), err)
	}
	kept, err := c.scan.Exclusive(q, c.pos, c.pos, n)
	return int(kept), err
}

// Run compacts every column by the first n flags and returns the number of
// elements kept. It blocks until that number is known.
func (c *Compact) Run(q backend.Queue, flags backend.Buffer, n int, cols ...Column) (kept int, err error) {
	for i, col := range cols {
		if col.Width != 4 && col.Width != 8 {
			return 0, fmt.Errorf("compact: column %d has width %d (want 4 or 8)", i, col.Width)
		}
		if err := checkLen(fmt.Sprintf("compact column %d source", i), col.Src, n, col.Width); err != nil {
			return 0, err
		}
		if col.Src == col.Dst {
			return 0, fmt.Errorf("compact: column %d: source and destination are the same buffer", i)
		}
	}
	kept, err = c.positions(q, flags, n)
	if err != nil || kept == 0 {
		return kept, err
	}
	for i, col := range cols {
		if err := checkLen(fmt.Sprintf("compact column %d destination", i), col.Dst, kept, col.Width); err != nil {
			return 0, err
		}
		k := c.scatter4
		if col.Width == 8 {
			k = c.scatter8
		}
		if err := q.Launch(k, gridRange(n, c.group), backend.Buf(flags), backend.Buf(c.pos), backend.I64(int64(n)),
			backend.Buf(col.Src), backend.Buf(col.Dst)); err != nil {
			return 0, fmt.Errorf("compact column %d on %s: %w", i, c.dev.Info(), err)
		}
	}
	return kept, nil
}

// Indices writes the (int32) indices of the elements with a non-zero flag,
// ascending, to dst and returns how many there are.
func (c *Compact) Indices(q backend.Queue, flags backend.Buffer, n int, dst backend.Buffer) (kept int, err error) {
	kept, err = c.positions(q, flags, n)
	if err != nil || kept == 0 {
		return kept, err
	}
	if err := checkLen("compact indices", dst, kept, 4); err != nil {
		return 0, err
	}
	if err := q.Launch(c.index, gridRange(n, c.group), backend.Buf(flags), backend.Buf(c.pos), backend.I64(int64(n)),
		backend.Buf(dst)); err != nil {
		return 0, fmt.Errorf("compact_index on %s: %w", c.dev.Info(), err)
	}
	return kept, nil
}

// Release frees the kernels, programs and buffers.
func (c *Compact) Release() error {
	err := release(c.prog, []backend.Kernel{c.mark, c.scatter4, c.scatter8, c.index}, c.pos)
	if serr := c.scan.Release(); err == nil {
		err = serr
	}
	*c = Compact{scan: c.scan}
	return err
}
