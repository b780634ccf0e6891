package kernel

import (
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/search"
)

// MCSplitLanes is the work-group size of mcsplit_epoch on GPUs: one warp
// on CUDA. CPU devices take one work-item per worker (MCSplitShape.Lanes):
// a core gains nothing from lanes that mostly wait on each other, and
// PoCL's compile time grows steeply with barriers inside loops.
const MCSplitLanes = 32

// MCSplitMaxVertices bounds the graphs the device engine takes: its
// bitsets and local arrays are sized at compile time, and each worker's
// stack holds, in the worst case, a quarter of n² bidomains.
const MCSplitMaxVertices = 256

// MCSplitShape is the size of an McSplit device search: the graphs, the
// bitset words, the workers and the ring.
type MCSplitShape struct {
	N0, N1     int // vertices of g and h
	Workers    int // work-groups, each one worker
	Capacity   int // ring slots, a power of two
	MinProduct bool
	Lanes      int // work-items per worker: 1 or a power of two up to 64 (0: device.Lanes, else MCSplitLanes)
	// Rules are the RRSplit reductions the kernel applies (MCSplitR3 |
	// MCSplitR5; the twin rules come with MCSplitTwins). 0 explores the
	// original McSplit's tree.
	Rules MCSplitRules
}

// MCSplitRules selects the kernel's reductions (mcsplit.cl, RR_*).
type MCSplitRules int32

const (
	MCSplitR3 MCSplitRules = 1 // a child splitting as its parent ends the node
	MCSplitR5 MCSplitRules = 2 // a node ends once the incumbent reaches its bound
	mcsTW0    MCSplitRules = 4 // set by NewMCSplit when twins.G is given
	mcsTW1    MCSplitRules = 8 // set by NewMCSplit when twins.H is given
)

// MCSplitTwins are the twin classes the kernel's R1, R2, B1 (G) and R4
// (H) use, as bitsets of Words words per vertex: G[v] is v's twin class
// (empty when v has none), H[w] the twins of w below w. A nil side turns
// its rules off.
type MCSplitTwins struct {
	G, H []uint64
}

func (s MCSplitShape) lanes() int {
	if s.Lanes <= 0 {
		return MCSplitLanes
	}
	return s.Lanes
}

// Words is the number of 64-bit words of a vertex set.
func (s MCSplitShape) Words() int { return (max(s.N0, s.N1) + 63) / 64 }

// NMin is min(N0, N1): the most pairs a mapping has.
func (s MCSplitShape) NMin() int { return min(s.N0, s.N1) }

// TaskWords is the size of one task.
func (s MCSplitShape) TaskWords() int { return 4 + s.Words() + s.NMin() + s.NMin()*2*s.Words() }

// MaxDepth is the number of frames of a stack: one per matched pair, plus the root.
func (s MCSplitShape) MaxDepth() int { return s.NMin() + 2 }

// ArenaDoms is the bidomains one worker's stack can hold: a node with m
// pairs matched has at most NMin − m bidomains (each needs an unmatched
// vertex on both sides), and the stack holds one node per m.
func (s MCSplitShape) ArenaDoms() int { n := s.NMin(); return n*(n+1)/2 + n + 2 }

// WorkerBytes is the device memory one worker's stack and slots take.
func (s MCSplitShape) WorkerBytes() int64 {
	w := int64(s.Words())
	return 8*int64(s.MaxDepth())*(4+w) + 8*int64(s.ArenaDoms())*2*w + 8*int64(s.NMin()) + 4*int64(s.NMin()+1) + 8*search.DSWWords
}

// Bytes is the device memory of the whole search.
func (s MCSplitShape) Bytes() int64 {
	w := int64(s.Words())
	return int64(s.Workers)*s.WorkerBytes() + int64(s.Capacity)*(8*int64(s.TaskWords())+4) + 16*w*int64(s.N0+s.N1) // adjacency and twin rows
}

// Resize is the shape with workers workers and a ring of capacity slots
// (search.FitShape).
func (s MCSplitShape) Resize(workers, capacity int) MCSplitShape {
	s.Workers, s.Capacity = workers, capacity
	return s
}

func (s MCSplitShape) check() error {
	if s.N0 < 1 || s.N1 < 1 || s.N0 > MCSplitMaxVertices || s.N1 > MCSplitMaxVertices {
		return fmt.Errorf("mcsplit: graphs of %d and %d vertices: the device engine takes 1 to %d", s.N0, s.N1, MCSplitMaxVertices)
	}
	return search.CheckGeometry("mcsplit", s.lanes(), s.Workers, s.Capacity)
}

// MCSplit is McSplit's search kernel on one device with its buffers: the
// adjacency bitsets, the ring, and every worker's stack, status and best
// certificate. Not safe for concurrent use.
type MCSplit struct {
	Shape MCSplitShape
	Ring  *search.Ring
	search.SearchKernel
	shape  backend.Buffer
	adjg   backend.Buffer
	adjh   backend.Buffer
	frames backend.Buffer
	arena  backend.Buffer
	paths  backend.Buffer
	certs  backend.Buffer
}

// NewMCSplit builds the kernel for shape on dev and uploads the adjacency
// bitsets (row v of g is adjg[v*Words : (v+1)*Words], likewise h).
//
// twins, when its sides are set, turns on the twin rules (MCSplitTwins).
func NewMCSplit(dev backend.Device, q backend.Queue, s MCSplitShape, adjg, adjh []uint64, twins MCSplitTwins) (*MCSplit, error) {
	if s.Lanes <= 0 {
		// A warp (32), or a wavefront of 64 where the device's sub-group
		// path is that wide (device.Lanes).
		s.Lanes = device.Lanes(dev.Info())
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	w := s.Words()
	if len(adjg) != s.N0*w || len(adjh) != s.N1*w {
		return nil, fmt.Errorf("mcsplit: adjacency of %d and %d words, want %d and %d", len(adjg), len(adjh), s.N0*w, s.N1*w)
	}
	mp := 0
	if s.MinProduct {
		mp = 1
	}
	rules := s.Rules &^ (mcsTW0 | mcsTW1)
	// The twin bitsets travel after the adjacency rows (no new kernel
	// argument); the kernel reads them only when its RR_TW bit says so.
	if twins.G != nil {
		if len(twins.G) != s.N0*w {
			return nil, fmt.Errorf("mcsplit: twin classes of g in %d words, want %d", len(twins.G), s.N0*w)
		}
		adjg = append(adjg[:len(adjg):len(adjg)], twins.G...)
		rules |= mcsTW0
	}
	if twins.H != nil {
		if len(twins.H) != s.N1*w {
			return nil, fmt.Errorf("mcsplit: twin classes of h in %d words, want %d", len(twins.H), s.N1*w)
		}
		adjh = append(adjh[:len(adjh):len(adjh)], twins.H...)
		rules |= mcsTW1
	}
	s.Rules = rules
	shape := []int32{int32(w), int32(s.N1), int32(s.NMin()), int32(s.Capacity), int32(s.TaskWords()),
		int32(s.ArenaDoms()), int32(s.MaxDepth()), int32(mp), int32(rules), int32(s.N0)}
	// Only what sizes registers and local arrays is compiled in; the rest
	// travels in shape, so PoCL and NVRTC build once per word count.
	defines := map[string]string{"LANES": fmt.Sprint(s.lanes()), "W": fmt.Sprint(w), "MINPRODUCT": fmt.Sprint(mp)}
	sk, err := search.NewSearchKernel(dev, q, mcsplitParams, defines, s.Workers, s.lanes())
	if err != nil {
		return nil, err
	}
	m := &MCSplit{Shape: s, SearchKernel: sk}
	bs := m.Buffers
	m.shape = backend.Upload(bs, shape)
	m.adjg = backend.Upload(bs, adjg)
	m.adjh = backend.Upload(bs, adjh)
	m.WState = backend.AllocIn[int64](bs, s.Workers*search.DSWWords)
	m.frames = backend.AllocIn[uint64](bs, s.Workers*s.MaxDepth()*(4+w))
	m.arena = backend.AllocIn[uint64](bs, s.Workers*s.ArenaDoms()*2*w)
	m.paths = backend.AllocIn[uint64](bs, s.Workers*s.NMin())
	m.certs = backend.AllocIn[uint32](bs, s.Workers*(s.NMin()+1))
	if m.Ring, err = m.NewRing(s.Capacity, s.TaskWords(), s.Bytes()); err != nil {
		m.Release()
		return nil, err
	}
	return m, nil
}

// Reset clears the workers and the ring and sets the incumbent's size.
func (m *MCSplit) Reset(q backend.Queue, incumbent int) error {
	s := m.Shape
	if err := backend.WriteSlice(q, m.certs, make([]uint32, s.Workers*(s.NMin()+1))); err != nil {
		return err
	}
	return m.ResetWorkers(q, m.Ring, incumbent)
}

// Epoch runs one launch: every worker takes tasks and searches until it
// has counted budget nodes, or finds nothing to do within idleLimit tries.
// goal prunes nodes whose bound is below it; frozen fixes the incumbent at
// goal−1 for pruning (the tree is then the same on every device).
func (m *MCSplit) Epoch(q backend.Queue, budget int64, idleLimit int32, goal int32, frozen bool) error {
	return m.Launch(q, map[string]backend.Buffer{"shape": m.shape, "adjg": m.adjg, "adjh": m.adjh, "frames": m.frames,
		"arena": m.arena, "paths": m.paths, "certs": m.certs}, m.Ring, budget, idleLimit, goal, frozen)
}

// TaskRing is the kernel's task ring.
func (m *MCSplit) TaskRing() *search.Ring { return m.Ring }

// WorkerStatus reads every worker's status words (DSW*).
func (m *MCSplit) WorkerStatus(q backend.Queue) ([]int64, error) {
	return m.Status(q)
}

// Best returns the largest certificate any worker published: its pairs
// (g vertex, h vertex) in the kernel's numbering.
func (m *MCSplit) Best(q backend.Queue) ([][2]int, error) {
	s := m.Shape
	c := make([]uint32, s.Workers*(s.NMin()+1))
	if err := backend.ReadSlice(q, m.certs, c); err != nil {
		return nil, err
	}
	bestW := search.BestWorker(c, s.Workers, s.NMin()+1, 0)
	if bestW < 0 {
		return nil, nil
	}
	out := make([][2]int, c[bestW*(s.NMin()+1)])
	for i := range out {
		p := c[bestW*(s.NMin()+1)+1+i]
		out[i] = [2]int{int(p & 0xffff), int(p >> 16)}
	}
	return out, nil
}

// Release frees the kernel, program and buffers.
func (m *MCSplit) Release() error {
	err := m.Free()
	*m = MCSplit{}
	return err
}
