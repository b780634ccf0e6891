package kernel

import (
	"math"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/search"
)

// vcParams are vc_epoch's parameters: the wrapper launches with them, the
// twin reads its arguments through them.
var vcParams = search.Params{
	Source: "vc",
	In:     []search.Param{search.Buf[int32]("shape"), search.Buf[int32]("off"), search.Buf[int32]("adj")},
	State: []search.Param{search.Buf[int32]("stack"), search.Buf[int32]("hdrs"), search.Buf[int32]("marks"),
		search.Buf[int32]("certs")},
	Goal: true,
}

func init() { search.RegisterTwin(vcParams, vcTwin) }

// The layout of a vertex cover node, frame header and task (vc.cl).
const (
	VCIn   = -1 // deg[v]: v is in the cover
	vcMark = -3 // deg[v]: v is being taken (inside applyMarks only)

	vcHCover = 0
	vcHV     = 1
	vcHNext  = 2 // 1: "v in" next; 2: "N(v) in" next; 3: done
	vcHOp    = 3
	vcHW     = 4

	VCOpNone   = 0 // enter the node as it is
	VCOpTakeV  = 1 // put the task's vertex in the cover first
	VCOpTakeNV = 2 // put its live neighbours in the cover first

	vcPhaseEnter = 0
	vcPhaseNext  = 1

	vcTaskDeg = 2 // the first word of a task's degree array
)

// vcWorker is one worker of vc_epoch on the CPU backend: a work-group of
// one item. It applies the same rounds of reductions (decided on a
// snapshot, as the kernel's lanes do), the same bound, branching vertex,
// children, donations and node counts.
type vcWorker struct {
	n, taskw, maxDepth int
	off, adj           []int32
	fr, hd, mk, cert   []int32
}

func vcTwin(g *backend.Group) {
	p := vcParams
	shape := search.Arg[int32](g, p, "shape")
	w := &vcWorker{n: int(shape[0]), taskw: int(shape[2]), maxDepth: int(shape[3])}
	w.off, w.adj = search.Arg[int32](g, p, "off"), search.Arg[int32](g, p, "adj")
	w.fr = search.WorkerArg[int32](g, p, "stack", w.maxDepth*w.n)
	w.hd = search.WorkerArg[int32](g, p, "hdrs", w.maxDepth*vcHW)
	w.mk = search.WorkerArg[int32](g, p, "marks", w.n)
	w.cert = search.WorkerArg[int32](g, p, "certs", w.n+1)
	w.run(search.NewTwinWorker(g, p, int(shape[1]), w.taskw))
}

func (w *vcWorker) frame(level int) []int32  { return w.fr[level*w.n : (level+1)*w.n] }
func (w *vcWorker) header(level int) []int32 { return w.hd[level*vcHW : (level+1)*vcHW] }

// applyMarks puts the marked vertices in the cover and returns how many.
func (w *vcWorker) applyMarks(deg []int32) int32 {
	var c int32
	for v, d := range deg {
		if d != vcMark {
			continue
		}
		for _, u := range w.adj[w.off[v]:w.off[v+1]] {
			if deg[u] >= 0 {
				deg[u]--
			}
		}
	}
	for v, d := range deg {
		if d == vcMark {
			deg[v] = VCIn
			c++
		}
	}
	return c
}

// reduce applies the rounds of high-degree, degree-one and triangle rules to a
// fixed point and returns the cover size and the budget left (negative:
// pruned).
func (w *vcWorker) reduce(deg []int32, cover, allowed int32) (int32, int32) {
	kleft := allowed - cover
	for kleft >= 0 {
		c := 0
		for v, d := range deg {
			if d <= 0 {
				continue
			}
			if d > kleft {
				w.mk[v] = 1
				c++
			} else if d == 1 {
				u := int32(v)
				for _, x := range w.adj[w.off[v]:w.off[v+1]] {
					if deg[x] >= 0 {
						u = x
						break
					}
				}
				if !(deg[u] == 1 && u < int32(v)) {
					w.mk[u] = 1
					c++
				}
			} else if d == 2 {
				a, b := int32(-1), int32(-1)
				for _, x := range w.adj[w.off[v]:w.off[v+1]] {
					if deg[x] >= 0 {
						if a < 0 {
							a = x
						} else {
							b = x
							break
						}
					}
				}
				tri := false
				for _, x := range w.adj[w.off[a]:w.off[a+1]] {
					if x >= b {
						tri = x == b
						break
					}
				}
				if tri && !(deg[a] == 2 && a < int32(v)) && !(deg[b] == 2 && b < int32(v)) {
					w.mk[a], w.mk[b] = 1, 1
					c++
				}
			}
		}
		if c == 0 {
			break
		}
		for v, m := range w.mk {
			if m != 0 {
				w.mk[v] = 0
				deg[v] = vcMark
			}
		}
		cover += w.applyMarks(deg)
		kleft = allowed - cover
	}
	return cover, kleft
}

// run is the worker loop; sw.Base counts the children lost to a full
// stack (it must stay 0).
func (w *vcWorker) run(sw *search.TwinWorker) {
	n := int32(w.n)
	for sw.Next() {
		if t := sw.Task; t != nil {
			deg := w.frame(0)
			for i := range deg {
				x := t[vcTaskDeg+i/2]
				deg[i] = int32(uint32(x >> (32 * uint(i%2))))
			}
			h := w.header(0)
			h[vcHCover], h[vcHOp], h[vcHV], h[vcHNext] = int32(uint32(t[0])), int32(t[0]>>32), int32(uint32(t[1])), 0
			sw.Installed(vcPhaseEnter)
			continue
		}
		level := sw.Level
		deg, h := w.frame(level), w.header(level)

		if sw.Phase == vcPhaseNext {
			switch h[vcHNext] {
			case 1:
				if level+1 >= w.maxDepth {
					sw.Base++
					h[vcHNext] = 2
					continue
				}
				copy(w.frame(level+1), deg)
				ch := w.header(level + 1)
				ch[vcHCover], ch[vcHV], ch[vcHNext], ch[vcHOp] = h[vcHCover], h[vcHV], 0, VCOpTakeV
				h[vcHNext] = 2
				sw.Level++
				sw.Phase = vcPhaseEnter
			case 2:
				h[vcHNext], h[vcHOp] = 0, VCOpTakeNV
				sw.Phase = vcPhaseEnter
			default:
				sw.Up()
				sw.Phase = vcPhaseNext
			}
			continue
		}

		sw.Nodes++
		sw.Spent++
		inc := sw.Ring.Load(search.DSInc)
		op, ov, cover := h[vcHOp], h[vcHV], h[vcHCover]
		allowed := n - 1 - inc
		if sw.Frozen {
			allowed = sw.Goal
		}
		switch op {
		case VCOpTakeV:
			deg[ov] = vcMark
		case VCOpTakeNV:
			for _, u := range w.adj[w.off[ov]:w.off[ov+1]] {
				if deg[u] >= 0 {
					deg[u] = vcMark
				}
			}
		}
		if op != VCOpNone {
			cover += w.applyMarks(deg)
		}
		cover, kleft := w.reduce(deg, cover, allowed)
		if kleft < 0 {
			sw.Up()
			sw.Phase = vcPhaseNext
			continue
		}
		var dsum int32
		key := uint64(math.MaxUint64)
		for v, d := range deg {
			if d > 0 {
				dsum += d
				key = min(key, uint64(uint32(0x7fffffff-d))<<32|uint64(v))
			}
		}
		if dsum == 0 {
			if value := n - cover; value > inc {
				for v, d := range deg {
					w.cert[1+v] = 0
					if d == VCIn {
						w.cert[1+v] = 1
					}
				}
				w.cert[0] = value
				sw.Ring.MaxInc(value)
			}
			sw.Up()
			sw.Phase = vcPhaseNext
			continue
		}
		maxd := 0x7fffffff - int32(key>>32)
		if int64(dsum/2) > int64(kleft)*int64(maxd) {
			sw.Up()
			sw.Phase = vcPhaseNext
			continue
		}
		if w.matching(deg, kleft) > kleft {
			sw.Up()
			sw.Phase = vcPhaseNext
			continue
		}
		if level > 0 {
			if sw.Ring.ShouldGive() && w.donate(&sw.Ring, level) {
				sw.Donated++
			}
		}
		h[vcHCover], h[vcHV], h[vcHNext], h[vcHOp] = cover, int32(uint32(key)), 1, VCOpNone
		sw.Phase = vcPhaseNext
	}
	sw.End()
}

// matching is the size of the kernel's greedy maximal matching (vertices
// and lists in index order), counted up to limit+1.
func (w *vcWorker) matching(deg []int32, limit int32) int32 {
	var m int32
	for v := 0; v < w.n && m <= limit; v++ {
		if deg[v] <= 0 || w.mk[v] != 0 {
			continue
		}
		for _, u := range w.adj[w.off[v]:w.off[v+1]] {
			if deg[u] >= 0 && w.mk[u] == 0 {
				w.mk[u], w.mk[v] = 1, 1
				m++
				break
			}
		}
	}
	clear(w.mk)
	return m
}

// donate gives away the "N(v) in the cover" child of the shallowest node
// above level that still has it to do; false when there is none or the
// ring is full.
func (w *vcWorker) donate(ring *search.TwinRing, level int) bool {
	has := func(k int) bool { return w.header(k)[vcHNext] == 2 }
	return ring.Donate(level, has, func(t []uint64, j int) {
		hj := w.header(j)
		PackVCTask(t, w.frame(j), hj[vcHCover], VCOpTakeNV, hj[vcHV])
		hj[vcHNext] = 3
	})
}

// PackVCTask writes a task: the degree array deg with cover vertices
// already in the cover and op (VCOp*) on vertex v still to apply. t must
// hold VCShape.TaskWords words.
func PackVCTask(t []uint64, deg []int32, cover, op, v int32) {
	t[0] = uint64(uint32(cover)) | uint64(uint32(op))<<32
	t[1] = uint64(uint32(v))
	d := t[vcTaskDeg:]
	for i := range (len(deg) + 1) / 2 {
		lo := uint64(uint32(deg[2*i]))
		var hi uint64
		if 2*i+1 < len(deg) {
			hi = uint64(uint32(deg[2*i+1]))
		}
		d[i] = lo | hi<<32
	}
}
