package kernel

import (
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/search"
)

// VCLanes is the work-group size of vc_epoch on GPUs: one warp on CUDA.
// CPU devices take one work-item per worker (VCShape.Lanes = 1), as
// McSplit's kernel does.
const VCLanes = 32

// VCMaxVertices bounds the kernels the device engine takes: each worker's
// stack holds up to (budget + 2) degree arrays of N int32 words, so its
// memory grows as N².
const VCMaxVertices = 1 << 13

// VCShape is the size of a vertex cover device search: the graph, the
// deepest stack, the workers and the ring. Degrees are int32 throughout
// (simpler than int16 and the same tree; memory is N² per worker either way).
type VCShape struct {
	N        int // vertices of the graph
	MaxCover int // the largest budget any node is searched with: the stack holds MaxCover+2 levels
	Workers  int // work-groups, each one worker
	Capacity int // ring slots, a power of two
	Lanes    int // work-items per worker: 1 or a power of two up to 64 (0: device.Lanes, else VCLanes)
}

func (s VCShape) lanes() int {
	if s.Lanes <= 0 {
		return VCLanes
	}
	return s.Lanes
}

// TaskWords is the size of one task: header and the packed degree array.
func (s VCShape) TaskWords() int { return vcTaskDeg + (s.N+1)/2 }

// MaxDepth is the number of frames of a stack. Every level below a task's
// root adds at least one vertex to the cover, and a node whose cover
// exceeds the budget is pruned before it branches.
func (s VCShape) MaxDepth() int { return min(s.MaxCover, s.N) + 2 }

// WorkerBytes is the device memory of one worker's stack, marks,
// certificate and status.
func (s VCShape) WorkerBytes() int64 {
	return 4*int64(s.MaxDepth())*int64(s.N+vcHW) + 4*int64(2*s.N+1) + 8*search.DSWWords
}

// Bytes is the device memory of the whole search (the graph aside).
func (s VCShape) Bytes() int64 {
	return int64(s.Workers)*s.WorkerBytes() + int64(s.Capacity)*(8*int64(s.TaskWords())+4)
}

// Resize is the shape with workers workers and a ring of capacity slots
// (search.FitShape).
func (s VCShape) Resize(workers, capacity int) VCShape {
	s.Workers, s.Capacity = workers, capacity
	return s
}

func (s VCShape) check() error {
	if s.N < 1 || s.N > VCMaxVertices {
		return fmt.Errorf("vc: a graph of %d vertices: the device engine takes 1 to %d", s.N, VCMaxVertices)
	}
	if s.MaxCover < 0 {
		return fmt.Errorf("vc: budget %d", s.MaxCover)
	}
	return search.CheckGeometry("vc", s.lanes(), s.Workers, s.Capacity)
}

// VC is the vertex cover search kernel on one device with its buffers:
// the CSR graph, the ring, and every worker's stack, marks, status and
// best certificate. Not safe for concurrent use.
type VC struct {
	Shape VCShape
	Ring  *search.Ring
	search.SearchKernel
	shape backend.Buffer
	off   backend.Buffer
	adj   backend.Buffer
	stack backend.Buffer
	hdrs  backend.Buffer
	marks backend.Buffer
	certs backend.Buffer
}

// NewVC builds the kernel for s on dev and uploads the graph in CSR form
// (off has N+1 entries; every list sorted, without repeats or self-loops).
func NewVC(dev backend.Device, q backend.Queue, s VCShape, off, adj []int32) (*VC, error) {
	if s.Lanes <= 0 {
		// A warp (32), or a wavefront of 64 where the device's sub-group
		// path is that wide (device.Lanes).
		s.Lanes = device.Lanes(dev.Info())
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	if len(off) != s.N+1 || int(off[s.N]) != len(adj) {
		return nil, fmt.Errorf("vc: CSR of %d offsets and %d entries for %d vertices", len(off), len(adj), s.N)
	}
	shape := []int32{int32(s.N), int32(s.Capacity), int32(s.TaskWords()), int32(s.MaxDepth())}
	sk, err := search.NewSearchKernel(dev, q, vcParams, map[string]string{"LANES": fmt.Sprint(s.lanes())}, s.Workers, s.lanes())
	if err != nil {
		return nil, err
	}
	k := &VC{Shape: s, SearchKernel: sk}
	bs := k.Buffers
	// A graph without edges still needs buffers of some size.
	adjUp := adj
	if len(adjUp) == 0 {
		adjUp = []int32{0}
	}
	k.shape = backend.Upload(bs, shape)
	k.off = backend.Upload(bs, off)
	k.adj = backend.Upload(bs, adjUp)
	k.WState = backend.AllocIn[int64](bs, s.Workers*search.DSWWords)
	k.stack = backend.AllocIn[int32](bs, s.Workers*s.MaxDepth()*s.N)
	k.hdrs = backend.AllocIn[int32](bs, s.Workers*s.MaxDepth()*vcHW)
	k.marks = backend.AllocIn[int32](bs, s.Workers*s.N)
	k.certs = backend.AllocIn[int32](bs, s.Workers*(s.N+1))
	if k.Ring, err = k.NewRing(s.Capacity, s.TaskWords(), s.Bytes()); err != nil {
		k.Release()
		return nil, err
	}
	return k, nil
}

// Reset clears the workers, their marks and certificates and the ring, and
// sets the incumbent word: N − the size of the best cover known (a cover
// of size c is known: only smaller ones are looked for).
func (k *VC) Reset(q backend.Queue, incumbent int) error {
	s := k.Shape
	if err := backend.WriteSlice(q, k.marks, make([]int32, s.Workers*s.N)); err != nil {
		return err
	}
	certs := make([]int32, s.Workers*(s.N+1))
	for w := 0; w < s.Workers; w++ {
		certs[w*(s.N+1)] = -1 // no cover yet (0 would be a cover of all N)
	}
	if err := backend.WriteSlice(q, k.certs, certs); err != nil {
		return err
	}
	return k.ResetWorkers(q, k.Ring, incumbent)
}

// RootTask is the whole graph as a task: every vertex live with its degree.
func (k *VC) RootTask(off []int32) []uint64 {
	deg := make([]int32, k.Shape.N)
	for v := range deg {
		deg[v] = off[v+1] - off[v]
	}
	t := make([]uint64, k.Shape.TaskWords())
	PackVCTask(t, deg, 0, VCOpNone, 0)
	return t
}

// Epoch runs one launch: every worker takes tasks and searches until it
// has counted budget nodes, or finds nothing to do within idleLimit tries.
// With frozen, every node is searched with the budget goal (a cover of at
// most goal vertices; the tree is then the same on every device);
// otherwise with N − 1 − the incumbent word.
func (k *VC) Epoch(q backend.Queue, budget int64, idleLimit int32, goal int32, frozen bool) error {
	return k.Launch(q, map[string]backend.Buffer{"shape": k.shape, "off": k.off, "adj": k.adj, "stack": k.stack,
		"hdrs": k.hdrs, "marks": k.marks, "certs": k.certs}, k.Ring, budget, idleLimit, goal, frozen)
}

// TaskRing is the kernel's task ring.
func (k *VC) TaskRing() *search.Ring { return k.Ring }

// WorkerStatus reads every worker's status words (DSW*). A worker's
// DSWBase word counts children it lost to a full stack: the host treats
// any as an error (MaxCover too small).
func (k *VC) WorkerStatus(q backend.Queue) ([]int64, error) {
	st, err := k.Status(q)
	if err != nil {
		return nil, err
	}
	for w := 0; w < k.Shape.Workers; w++ {
		if lost := st[w*search.DSWWords+search.DSWBase]; lost != 0 {
			return st, fmt.Errorf("vc: worker %d lost %d children to a full stack of %d levels", w, lost, k.Shape.MaxDepth())
		}
	}
	return st, nil
}

// Best returns the smallest cover any worker published (vertices
// ascending, in the kernel's numbering), or nil when none did.
func (k *VC) Best(q backend.Queue) ([]int, error) {
	s := k.Shape
	c := make([]int32, s.Workers*(s.N+1))
	if err := backend.ReadSlice(q, k.certs, c); err != nil {
		return nil, err
	}
	bestW := search.BestWorker(c, s.Workers, s.N+1, -1) // -1: no cover yet
	if bestW < 0 {
		return nil, nil
	}
	bestV := c[bestW*(s.N+1)]
	cover := make([]int, 0, s.N-int(bestV))
	for v, in := range c[bestW*(s.N+1)+1 : (bestW+1)*(s.N+1)] {
		if in != 0 {
			cover = append(cover, v)
		}
	}
	if len(cover) != s.N-int(bestV) {
		return nil, fmt.Errorf("vc: the certificate holds %d vertices, its size word says %d", len(cover), s.N-int(bestV))
	}
	return cover, nil
}

// Release frees the kernel, program and buffers.
func (k *VC) Release() error {
	err := k.Free()
	*k = VC{}
	return err
}
