package prim

import (
	"fmt"
	"math"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
)

// Bitsets counts the bits two families of bitsets (arrays of uint64 words)
// have in common, row by row: McSplit's bidomain filtering. Not safe for
// concurrent use.
type Bitsets struct {
	dev   backend.Device
	prog  backend.Program
	k     backend.Kernel
	group int
}

// NewBitsets builds the bitset kernel for dev.
func NewBitsets(dev backend.Device) (*Bitsets, error) {
	prog, err := device.Build(dev, "bitset", nil, "bitset_and_count")
	if err != nil {
		return nil, err
	}
	b := &Bitsets{dev: dev, prog: prog, group: gridGroupFor(dev.Info())}
	if b.k, err = prog.Kernel("bitset_and_count"); err != nil {
		b.Release()
		return nil, fmt.Errorf("bitset: %w", err)
	}
	return b, nil
}

// AndCount writes counts[r] (int32) = popcount(row r & mask r) for r <
// nrows, where row r is the words uint64 words of rows starting at word
// r*rowStride and mask r those of mask starting at r*maskStride: maskStride
// 0 intersects every row with one mask, maskStride == rowStride pairs two
// arrays of rows.
func (b *Bitsets) AndCount(q backend.Queue, rows backend.Buffer, nrows, words, rowStride int, mask backend.Buffer, maskStride int, counts backend.Buffer) error {
	if nrows < 0 || words < 0 || rowStride < words || maskStride < 0 || (maskStride > 0 && maskStride < words) ||
		nrows >= math.MaxInt32 || words >= math.MaxInt32 {
		return fmt.Errorf("bitset: %d rows of %d words, strides %d and %d", nrows, words, rowStride, maskStride)
	}
	if nrows == 0 {
		return nil
	}
	if err := checkLen("bitset rows", rows, (nrows-1)*rowStride+words, 8); err != nil {
		return err
	}
	if err := checkLen("bitset mask", mask, (nrows-1)*maskStride+words, 8); err != nil {
		return err
	}
	if err := checkLen("bitset counts", counts, nrows, 4); err != nil {
		return err
	}
	lanes := lanesFor(float64(words), min(32, b.group))
	per := b.group / lanes
	groups := min((nrows+per-1)/per, gridGroups)
	if err := q.Launch(b.k, backend.R1(groups*b.group, b.group), backend.Buf(rows), backend.I32(int32(nrows)),
		backend.I32(int32(words)), backend.I64(int64(rowStride)), backend.Buf(mask), backend.I64(int64(maskStride)),
		backend.I32(int32(lanes)), backend.Buf(counts), backend.Local(b.group*4)); err != nil {
		return fmt.Errorf("bitset_and_count on %s: %w", b.dev.Info(), err)
	}
	return nil
}

// Release frees the kernel and program.
func (b *Bitsets) Release() error {
	err := releaseAll(b.prog, []backend.Kernel{b.k})
	*b = Bitsets{}
	return err
}
