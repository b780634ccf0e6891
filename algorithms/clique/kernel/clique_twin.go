package kernel

import (
	"math/bits"
	"sync/atomic"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/search"
)

// cliqueParams are clique_epoch's parameters: the wrapper launches with
// them, the twin reads its arguments through them.
var cliqueParams = search.Params{
	Source: "clique",
	In:     []search.Param{search.Buf[int32]("shape"), search.Buf[uint64]("adj")},
	State: []search.Param{search.Buf[uint64]("frames"), search.Buf[uint32]("lists"), search.Buf[uint64]("bases"),
		search.Buf[uint32]("certs")},
	Goal: true,
}

func init() { search.RegisterTwin(cliqueParams, cliqueTwin) }

// The layout of a clique frame (clique.cl).
const (
	cqFH    = 4 // frame header words before P
	cqEnter = 0 // enter (count, colour) the node at level
	cqNext  = 2 // start the next child of the node at level
)

// cqTwin is one worker of clique_epoch running on the CPU backend. It
// takes the same decisions, in the same order, as a work-group of the
// kernel: the same colouring, children, donations, leaves and counts.
type cqTwin struct {
	w, n, taskw, maxDepth, fh int
	adj                       []uint64
	fr, base                  []uint64
	ls                        []uint32
	cert                      []uint32
	q, r                      []uint64
	// sg is the worker's lanes as a sub-group: the kernel colours through
	// ballots and shuffles where a worker is one sub-group and W ≤ LANES
	// (clique.cl, ARBOR_SG_WARP), and so does the twin when the launch
	// has more than one lane and W ≤ lanes. Nil: the plain route.
	sg *device.SubgroupTwin
}

func cliqueTwin(g *backend.Group) {
	p := cliqueParams
	shape := search.Arg[int32](g, p, "shape")
	t := &cqTwin{w: int(shape[0]), n: int(shape[1]), taskw: int(shape[4]), maxDepth: int(shape[5])}
	t.fh = cqFH + t.w
	t.adj = search.Arg[uint64](g, p, "adj")
	t.fr = search.WorkerArg[uint64](g, p, "frames", t.maxDepth*t.fh)
	t.ls = search.WorkerArg[uint32](g, p, "lists", t.maxDepth*t.n)
	t.base = search.WorkerArg[uint64](g, p, "bases", t.maxDepth)
	t.cert = search.WorkerArg[uint32](g, p, "certs", t.maxDepth+1)
	t.q, t.r = make([]uint64, t.w), make([]uint64, t.w)
	if lanes := g.Size[0]; lanes > 1 && t.w <= lanes {
		sg, err := device.NewSubgroupTwin(lanes)
		if err != nil {
			panic("clique_epoch twin: " + err.Error()) // the wrapper's CheckGeometry allows no such launch
		}
		t.sg = &sg
		t.q, t.r = make([]uint64, lanes), make([]uint64, lanes)
	}
	t.run(search.NewTwinWorker(g, p, int(shape[3]), t.taskw))
}

func (t *cqTwin) frame(level int) []uint64 { return t.fr[level*t.fh : (level+1)*t.fh] }
func (t *cqTwin) list(level int) []uint32  { return t.ls[level*t.n : (level+1)*t.n] }
func (t *cqTwin) row(v int) []uint64       { return t.adj[v*t.w : (v+1)*t.w] }

// member is the i-th vertex of the current clique.
func (t *cqTwin) member(i, basem int) uint64 {
	if i < basem {
		return t.base[i]
	}
	return t.frame(i - basem)[2]
}

func (t *cqTwin) run(w *search.TwinWorker) {
	W := t.w
	for w.Next() {
		if task := w.Task; task != nil {
			m, g := int(task[0]&0xffffffff), int(task[0]>>32)
			copy(t.base[:m], task[1+W:1+W+m])
			h := t.frame(0)
			h[0], h[1], h[2], h[3] = uint64(g), uint64(g), 0, 0
			copy(h[cqFH:], task[1:1+W])
			lst := t.list(0)
			for i := 0; i < g; i++ {
				lst[i] = uint32(task[1+W+t.maxDepth+i/2] >> (32 * (i & 1)))
			}
			w.Base = m // the task's own clique
			phase := cqEnter
			if g > 0 {
				phase = cqNext
			}
			w.Installed(phase)
			continue
		}
		level, basem := w.Level, w.Base
		h := t.frame(level)
		lst := t.list(level)
		size := basem + level
		inc := int(w.Ring.Load(search.DSInc))
		best := inc
		if w.Frozen {
			best = int(w.Goal) - 1
		}

		if w.Phase == cqNext {
			next, lo := int(h[1]), int(h[3])
			if next == lo || size+int(lst[next-1]>>16) <= best {
				w.Up()
				continue
			}
			v := int(lst[next-1] & 0xffff)
			row := t.row(v)
			c := t.frame(level + 1)
			var any uint64
			for j := 0; j < W; j++ {
				c[cqFH+j] = h[cqFH+j] & row[j]
				any |= c[cqFH+j]
			}
			h[cqFH+v>>6] &^= 1 << (v & 63)
			h[1] = uint64(next - 1)
			h[2] = uint64(v)
			if any != 0 {
				w.Level++
				w.Phase = cqEnter
				continue
			}
			w.Spent++
			if size+1 > inc {
				for i := 0; i <= size; i++ {
					t.cert[1+i] = uint32(t.member(i, basem))
				}
				atomic.StoreUint32(&t.cert[0], uint32(size+1))
				w.Ring.MaxInc(int32(size + 1))
			}
			continue
		}

		w.Nodes++
		w.Spent++
		if level > 0 {
			if w.Ring.ShouldGive() && t.donate(&w.Ring, level, basem, best) {
				w.Donated++
			}
		}
		// Colour P class by class and list the vertices of colour kmin and up.
		kmin := best - size + 1
		var nl int
		if t.sg != nil {
			nl = t.colourLanes(h[cqFH:], lst, kmin)
		} else {
			nl = t.colour(h[cqFH:], lst, kmin)
		}
		h[0], h[1], h[3] = uint64(nl), uint64(nl), 0
		w.Phase = cqNext
	}
	w.End()
}

// colour is the kernel's work-group route: P's words shared by the lanes,
// the lowest vertex left of the class found by scanning the words. It
// returns the number of vertices listed.
func (t *cqTwin) colour(p []uint64, lst []uint32, kmin int) int {
	W := t.w
	q, r := t.q, t.r
	copy(q, p)
	k, nl := 0, 0
	for anyBit(q) {
		k++
		copy(r, q)
		for lo := 0; ; {
			for lo < W && r[lo] == 0 {
				lo++
			}
			if lo == W {
				break
			}
			bit := r[lo] & -r[lo]
			v := lo*64 + bits.TrailingZeros64(bit)
			r[lo] &^= bit
			q[lo] &^= bit
			if k >= kmin {
				lst[nl] = uint32(v) | uint32(k)<<16
				nl++
			}
			row := t.row(v)
			for j := range r {
				r[j] &^= row[j]
			}
		}
	}
	return nl
}

// colourLanes is the kernel's sub-group route: lane l holds word l of the
// uncoloured set q and of the class's candidates r; a ballot finds the
// lowest lane with a candidate left and a shuffle hands its word to all.
// It lists the same vertices in the same order as colour.
func (t *cqTwin) colourLanes(p []uint64, lst []uint32, kmin int) int {
	sg, W := *t.sg, t.w
	q, r := t.q, t.r
	for l := range q {
		q[l] = 0
		if l < W {
			q[l] = p[l]
		}
	}
	k, nl := 0, 0
	for sg.Any(func(l int) bool { return q[l] != 0 }) {
		k++
		copy(r, q)
		for {
			mask := sg.Ballot(func(l int) bool { return r[l] != 0 })
			if mask == 0 {
				break
			}
			lo := bits.TrailingZeros64(mask)
			rw := sg.ShuffleU64(r, lo)
			bit := rw & -rw
			v := lo*64 + bits.TrailingZeros64(rw)
			r[lo] &^= bit
			q[lo] &^= bit
			if k >= kmin {
				lst[nl] = uint32(v) | uint32(k)<<16
				nl++
			}
			row := t.row(v)
			for l := 0; l < W; l++ {
				r[l] &^= row[l]
			}
		}
	}
	return nl
}

func anyBit(s []uint64) bool {
	for _, x := range s {
		if x != 0 {
			return true
		}
	}
	return false
}

// donate gives away the lowest-coloured half of the untried children
// (one if there is only one) of the shallowest node above level that has
// any worth trying, as the kernel does; false when there is none or the
// ring is full.
func (t *cqTwin) donate(ring *search.TwinRing, level, basem, best int) bool {
	W := t.w
	has := func(i int) bool {
		h := t.frame(i)
		nx, lo := int(h[1]), int(h[3])
		if nx == lo {
			return false
		}
		if basem+i+int(t.list(i)[nx-1]>>16) <= best {
			h[1] = uint64(lo)
			return false
		}
		return true
	}
	return ring.Donate(level, has, func(task []uint64, j int) {
		hj, lj := t.frame(j), t.list(j)
		nx, lo := int(hj[1]), int(hj[3])
		g := max(1, (nx-lo)/2)
		jm := basem + j
		copy(task[1:1+W], hj[cqFH:])
		for i := 0; i < jm; i++ {
			task[1+W+i] = t.member(i, basem)
		}
		for i := 0; 2*i < g; i++ {
			var e1 uint64
			if 2*i+1 < g {
				e1 = uint64(lj[lo+2*i+1])
			}
			task[1+W+t.maxDepth+i] = uint64(lj[lo+2*i]) | e1<<32
		}
		for i := lo + g; i < nx; i++ {
			v := int(lj[i] & 0xffff)
			task[1+v>>6] &^= 1 << (v & 63)
		}
		task[0] = uint64(jm) | uint64(g)<<32
		hj[3] = uint64(lo + g)
	})
}
