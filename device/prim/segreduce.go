package prim

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
)

// SegOutputs are the per-segment results of SegReduce.Run; a nil buffer is
// not computed. Sums are int64, Max and Argmax int32 (Argmax is the arc
// index into values of the largest value, the smallest among equals).
type SegOutputs struct {
	Sums, Max, Argmax backend.Buffer
}

// SegReduce reduces every segment of a CSR array (values[offsets[s] ..
// offsets[s+1]) for s < segments) to its sum, maximum and argmax. Not safe
// for concurrent use.
type SegReduce struct {
	dev   backend.Device
	prog  backend.Program
	k     backend.Kernel
	dummy backend.Buffer // bound to outputs not asked for
	group int
}

// NewSegReduce builds the segmented-reduction kernel for dev.
func NewSegReduce(dev backend.Device) (*SegReduce, error) {
	prog, err := device.Build(dev, "segreduce", nil, "segreduce_i32")
	if err != nil {
		return nil, err
	}
	s := &SegReduce{dev: dev, prog: prog, group: gridGroupFor(dev.Info())}
	if s.k, err = prog.Kernel("segreduce_i32"); err == nil {
		s.dummy, err = backend.AllocN[int64](dev, 1)
	}
	if err != nil {
		s.Release()
		return nil, fmt.Errorf("segreduce: %w", err)
	}
	return s, nil
}

// lanesFor picks how many work-items share a segment (or bitset row) of
// about avg elements: the power of two at or above it, from 1 to max.
func lanesFor(avg float64, limit int) int {
	if avg <= 1 {
		return 1
	}
	l := 1 << bits.Len(uint(math.Ceil(avg))-1)
	return min(l, limit)
}

// Run reduces the segments of values (int32) delimited by offsets (int32,
// segments+1 entries, ascending). arcs, when known (offsets[segments]),
// sizes the number of work-items per segment; 0 picks one per segment.
func (s *SegReduce) Run(q backend.Queue, offsets, values backend.Buffer, segments, arcs int, out SegOutputs) error {
	lanes := 1
	if segments > 0 {
		lanes = lanesFor(float64(arcs)/float64(segments), min(32, s.group))
	}
	return s.RunLanes(q, offsets, values, segments, lanes, out)
}

// RunLanes is Run with an explicit number of work-items per segment (a
// power of two up to the work-group size).
func (s *SegReduce) RunLanes(q backend.Queue, offsets, values backend.Buffer, segments, lanes int, out SegOutputs) error {
	if lanes <= 0 || lanes&(lanes-1) != 0 || lanes > s.group {
		return fmt.Errorf("segreduce: %d lanes (want a power of two up to %d)", lanes, s.group)
	}
	if segments < 0 || segments >= math.MaxInt32 {
		return fmt.Errorf("segreduce: %d segments", segments)
	}
	if err := checkLen("segreduce offsets", offsets, segments+1, 4); err != nil {
		return err
	}
	if values == nil {
		return fmt.Errorf("segreduce: nil values buffer")
	}
	want := int32(0)
	bufs := []backend.Buffer{s.dummy, s.dummy, s.dummy}
	for i, o := range []struct {
		b    backend.Buffer
		size int
		name string
	}{{out.Sums, 8, "sums"}, {out.Max, 4, "max"}, {out.Argmax, 4, "argmax"}} {
		if o.b == nil {
			continue
		}
		if err := checkLen("segreduce "+o.name, o.b, segments, o.size); err != nil {
			return err
		}
		want |= 1 << i
		bufs[i] = o.b
	}
	if segments == 0 || want == 0 {
		return nil
	}
	per := s.group / lanes
	groups := min((segments+per-1)/per, gridGroups)
	if err := q.Launch(s.k, backend.R1(groups*s.group, s.group), backend.Buf(offsets), backend.Buf(values),
		backend.I32(int32(segments)), backend.I32(int32(lanes)), backend.I32(want),
		backend.Buf(bufs[0]), backend.Buf(bufs[1]), backend.Buf(bufs[2]),
		backend.Local(s.group*8), backend.Local(s.group*8)); err != nil {
		return fmt.Errorf("segreduce_i32 on %s: %w", s.dev.Info(), err)
	}
	return nil
}

// Release frees the kernel, program and buffer.
func (s *SegReduce) Release() error {
	err := releaseAll(s.prog, []backend.Kernel{s.k}, s.dummy)
	*s = SegReduce{}
	return err
}

// releaseAll releases kernels, then buffers, then the program (nil entries
// skipped) and returns the first error.
func releaseAll(prog backend.Program, ks []backend.Kernel, bufs ...backend.Buffer) error {
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
