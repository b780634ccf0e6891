package kernel

import (
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/search"
)

// CliqueLanes is the work-group size of clique_epoch on GPUs: one warp on
// CUDA. CPU devices take one work-item per worker (CliqueShape.Lanes), as
// for McSplit: PoCL's compile time grows steeply with barriers in loops.
const CliqueLanes = 32

// CliqueMaxVertices bounds the graphs the device clique engine takes: a
// list entry packs a vertex and its colour into 16 bits each, and the
// colouring's two local bitsets are sized at compile time (W words).
const CliqueMaxVertices = 4096

// CliqueShape is the size of a clique device search.
type CliqueShape struct {
	N        int // vertices
	MaxDepth int // frames per worker: at least the clique number + 1 (a colouring's colour count + 1 is safe)
	Workers  int // work-groups, each one worker
	Capacity int // ring slots, a power of two
	Lanes    int // work-items per worker: 1 or a power of two up to 64 (0: device.Lanes, else CliqueLanes)
}

func (s CliqueShape) lanes() int {
	if s.Lanes <= 0 {
		return CliqueLanes
	}
	return s.Lanes
}

// Words is the number of 64-bit words of a vertex set.
func (s CliqueShape) Words() int { return (s.N + 63) / 64 }

// TaskWords is the size of one task: |C| and the entries given, P, C's
// members, then up to N list entries two per word.
func (s CliqueShape) TaskWords() int { return 1 + s.Words() + s.MaxDepth + (s.N+1)/2 }

// WorkerBytes is the device memory of one worker: frames, lists, its
// task's clique, its certificate and its status words.
func (s CliqueShape) WorkerBytes() int64 {
	d := int64(s.MaxDepth)
	return 8*d*int64(cqFH+s.Words()) + 4*d*int64(s.N) + 8*d + 4*(d+1) + 8*search.DSWWords
}

// Bytes is the device memory of the whole search.
func (s CliqueShape) Bytes() int64 {
	return int64(s.Workers)*s.WorkerBytes() + int64(s.Capacity)*(8*int64(s.TaskWords())+4) + 8*int64(s.Words())*int64(s.N)
}

// Resize is the shape with workers workers and a ring of capacity slots
// (search.FitShape).
func (s CliqueShape) Resize(workers, capacity int) CliqueShape {
	s.Workers, s.Capacity = workers, capacity
	return s
}

func (s CliqueShape) check() error {
	if s.N < 1 || s.N > CliqueMaxVertices {
		return fmt.Errorf("clique: a graph of %d vertices: the device engine takes 1 to %d", s.N, CliqueMaxVertices)
	}
	if s.MaxDepth < 2 || s.MaxDepth > s.N+1 {
		return fmt.Errorf("clique: %d frames per worker for %d vertices (want 2 to n+1)", s.MaxDepth, s.N)
	}
	return search.CheckGeometry("clique", s.lanes(), s.Workers, s.Capacity)
}

// Clique is the maximum clique search kernel on one device with its
// buffers: the adjacency bitsets, the ring, and every worker's stack,
// status and best clique. Not safe for concurrent use.
type Clique struct {
	Shape CliqueShape
	Ring  *search.Ring
	search.SearchKernel
	shape  backend.Buffer
	adj    backend.Buffer
	frames backend.Buffer
	lists  backend.Buffer
	bases  backend.Buffer
	certs  backend.Buffer
}

// NewClique builds the kernel for s on dev and uploads the adjacency
// bitsets (row v is adj[v*Words : (v+1)*Words], no self-loops).
func NewClique(dev backend.Device, q backend.Queue, s CliqueShape, adj []uint64) (*Clique, error) {
	if s.Lanes <= 0 {
		// A warp (32), or a wavefront of 64 where the device's sub-group
		// path is that wide (device.Lanes).
		s.Lanes = device.Lanes(dev.Info())
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	w := s.Words()
	if len(adj) != s.N*w {
		return nil, fmt.Errorf("clique: adjacency of %d words, want %d", len(adj), s.N*w)
	}
	shape := []int32{int32(w), int32(s.N), 0, int32(s.Capacity), int32(s.TaskWords()), int32(s.MaxDepth)}
	// Only what sizes local arrays is compiled in; the rest travels in
	// shape, so that PoCL and NVRTC build once per word count.
	defines := map[string]string{"LANES": fmt.Sprint(s.lanes()), "W": fmt.Sprint(w)}
	sk, err := search.NewSearchKernel(dev, q, cliqueParams, defines, s.Workers, s.lanes())
	if err != nil {
		return nil, err
	}
	c := &Clique{Shape: s, SearchKernel: sk}
	bs := c.Buffers
	c.shape = backend.Upload(bs, shape)
	c.adj = backend.Upload(bs, adj)
	c.WState = backend.AllocIn[int64](bs, s.Workers*search.DSWWords)
	c.frames = backend.AllocIn[uint64](bs, s.Workers*s.MaxDepth*(cqFH+w))
	c.lists = backend.AllocIn[uint32](bs, s.Workers*s.MaxDepth*s.N)
	c.bases = backend.AllocIn[uint64](bs, s.Workers*s.MaxDepth)
	c.certs = backend.AllocIn[uint32](bs, s.Workers*(s.MaxDepth+1))
	if c.Ring, err = c.NewRing(s.Capacity, s.TaskWords(), s.Bytes()); err != nil {
		c.Release()
		return nil, err
	}
	return c, nil
}

// Reset clears the workers and the ring and sets the incumbent's size.
func (c *Clique) Reset(q backend.Queue, incumbent int) error {
	s := c.Shape
	if err := backend.WriteSlice(q, c.certs, make([]uint32, s.Workers*(s.MaxDepth+1))); err != nil {
		return err
	}
	return c.ResetWorkers(q, c.Ring, incumbent)
}

// RootTask is the task of the whole search: every vertex a candidate, the
// clique empty.
func (s CliqueShape) RootTask() []uint64 {
	t := make([]uint64, s.TaskWords())
	for v := 0; v < s.N; v++ {
		t[1+v/64] |= 1 << (v % 64)
	}
	return t
}

// Epoch runs one launch: every worker takes tasks and searches until it
// has spent budget steps (nodes and leaves), or finds nothing to do within
// idleLimit tries. frozen fixes the incumbent at goal−1 for pruning (the
// tree is then the same on every device); cliques larger than the
// incumbent word are still published.
func (c *Clique) Epoch(q backend.Queue, budget int64, idleLimit int32, goal int32, frozen bool) error {
	return c.Launch(q, map[string]backend.Buffer{"shape": c.shape, "adj": c.adj, "frames": c.frames, "lists": c.lists,
		"bases": c.bases, "certs": c.certs}, c.Ring, budget, idleLimit, goal, frozen)
}

// TaskRing is the kernel's task ring.
func (c *Clique) TaskRing() *search.Ring { return c.Ring }

// WorkerStatus reads every worker's status words (DSW*).
func (c *Clique) WorkerStatus(q backend.Queue) ([]int64, error) {
	return c.Status(q)
}

// Best returns the largest clique any worker published, in the kernel's
// numbering (nil when none).
func (c *Clique) Best(q backend.Queue) ([]int, error) {
	s := c.Shape
	stride := s.MaxDepth + 1
	certs := make([]uint32, s.Workers*stride)
	if err := backend.ReadSlice(q, c.certs, certs); err != nil {
		return nil, err
	}
	bestW := search.BestWorker(certs, s.Workers, stride, 0)
	if bestW < 0 {
		return nil, nil
	}
	out := make([]int, certs[bestW*stride])
	for i := range out {
		out[i] = int(certs[bestW*stride+1+i])
	}
	return out, nil
}

// Release frees the kernel, program and buffers.
func (c *Clique) Release() error {
	err := c.Free()
	*c = Clique{}
	return err
}
