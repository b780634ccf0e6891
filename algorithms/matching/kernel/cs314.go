package kernel

import (
	"fmt"
	"math"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
)

// CS314KernelNames are the entry points of cs314.cl.
var CS314KernelNames = []string{
	"strongestNeighborScan", "collateSegments", "checkHandshaking",
	"markFilterEdges", "exclusivePrefixSum", "packGraph",
}

// DefaultStrideThreads is the thread count grid-stride wrappers use when the
// caller leaves it 0: enough work-items to fill a large GPU, and no more
// than the elements.
const DefaultStrideThreads = 1 << 18

// CS314 is cs314.cl built for one device. Its methods launch one kernel each
// on a queue, with buffers the caller owns; all buffers hold int32.
type CS314 struct {
	prog backend.Program
	k    map[string]backend.Kernel
	// Threads is the total number of work-items per launch (the grid-stride
	// loops make any value give the same result); 0 picks
	// min(elements, DefaultStrideThreads).
	Threads int
	// Local is the work-group size (0: the backend's default).
	Local int
}

// NewCS314 builds the CS314 kernels for dev.
func NewCS314(dev backend.Device) (*CS314, error) {
	prog, ks, err := device.BuildKernels(dev, "cs314", nil, CS314KernelNames...)
	if err != nil {
		return nil, err
	}
	return &CS314{prog: prog, k: ks}, nil
}

// Release frees the kernels and the program.
func (c *CS314) Release() {
	for _, k := range c.k {
		k.Release()
	}
	c.prog.Release()
}

// strideRange is the launch for n elements: the range and the thread count
// the kernel is told.
func strideRange(threads, local, n int) (backend.Range, int32, error) {
	nt := threads
	if nt <= 0 {
		nt = min(max(n, 1), DefaultStrideThreads)
	}
	if nt > math.MaxInt32 || n > math.MaxInt32-1 {
		return backend.Range{}, 0, fmt.Errorf("%d elements with %d threads exceed the kernels' 32-bit sizes", n, nt)
	}
	l := local
	if l > nt {
		l = 0 // let the backend round a small launch
	}
	return backend.R1(nt, l), int32(nt), nil
}

func (c *CS314) launch(q backend.Queue, name string, n int, args ...backend.Arg) error {
	r, nt, err := strideRange(c.Threads, c.Local, n)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if n == 0 {
		return nil
	}
	args = append(args, backend.I32(nt))
	if err := q.Launch(c.k[name], r, args...); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// StrongestNeighborScan runs one stride of the segmented max-scan over
// numEdges arcs: (oldDst, oldWeight) → (newDst, newWeight), setting
// madeChanges[0] to 1 when any arc changed (the caller clears it).
func (c *CS314) StrongestNeighborScan(q backend.Queue, src, oldDst, newDst, oldWeight, newWeight, madeChanges backend.Buffer, distance, numEdges int) error {
	return c.launch(q, "strongestNeighborScan", numEdges, backend.Buf(src), backend.Buf(oldDst), backend.Buf(newDst),
		backend.Buf(oldWeight), backend.Buf(newWeight), backend.Buf(madeChanges), backend.I32(int32(distance)), backend.I32(int32(numEdges)))
}

// CollateSegments writes each source's strongest neighbour (the scan result
// at the last arc of its segment) into strongNeighbor.
func (c *CS314) CollateSegments(q backend.Queue, src, scanResult, strongNeighbor backend.Buffer, numEdges int) error {
	return c.launch(q, "collateSegments", numEdges, backend.Buf(src), backend.Buf(scanResult), backend.Buf(strongNeighbor),
		backend.I32(int32(numEdges)))
}

// CheckHandshaking matches every unmatched vertex whose strongest neighbour
// is mutual.
func (c *CS314) CheckHandshaking(q backend.Queue, strongNeighbor, matches backend.Buffer, numVertices int) error {
	return c.launch(q, "checkHandshaking", numVertices, backend.Buf(strongNeighbor), backend.Buf(matches),
		backend.I32(int32(numVertices)))
}

// MarkFilterEdges sets keepEdges[i] to 1 when neither end of arc i is matched.
func (c *CS314) MarkFilterEdges(q backend.Queue, src, dst, matches, keepEdges backend.Buffer, numEdges int) error {
	return c.launch(q, "markFilterEdges", numEdges, backend.Buf(src), backend.Buf(dst), backend.Buf(matches),
		backend.Buf(keepEdges), backend.I32(int32(numEdges)))
}

// ExclusivePrefixSumStep runs one launch of the Hillis-Steele scan: distance
// 0 shifts right, others add the element distance back.
func (c *CS314) ExclusivePrefixSumStep(q backend.Queue, oldSum, newSum backend.Buffer, distance, numElements int) error {
	return c.launch(q, "exclusivePrefixSum", numElements, backend.Buf(oldSum), backend.Buf(newSum),
		backend.I32(int32(distance)), backend.I32(int32(numElements)))
}

// ExclusivePrefixSum runs the whole stride sequence (0, 1, 2, 4, ... below
// numElements) ping-ponging between a and b, and returns the buffer that
// holds the exclusive prefix sum of a's original contents (a or b).
func (c *CS314) ExclusivePrefixSum(q backend.Queue, a, b backend.Buffer, numElements int) (backend.Buffer, error) {
	for d := 0; d < numElements; d = max(1, 2*d) {
		if err := c.ExclusivePrefixSumStep(q, a, b, d, numElements); err != nil {
			return nil, err
		}
		a, b = b, a
	}
	return a, nil
}

// PackGraph scatters the kept arcs (edgeMap: the exclusive prefix sum of the
// keep flags over numEdges+1 entries) into the new arrays.
func (c *CS314) PackGraph(q backend.Queue, newSrc, oldSrc, newDst, oldDst, newWeight, oldWeight, edgeMap backend.Buffer, numEdges int) error {
	return c.launch(q, "packGraph", numEdges, backend.Buf(newSrc), backend.Buf(oldSrc), backend.Buf(newDst), backend.Buf(oldDst),
		backend.Buf(newWeight), backend.Buf(oldWeight), backend.Buf(edgeMap), backend.I32(int32(numEdges)))
}
