package kernel

import (
	"math"
	"math/bits"
	"sync/atomic"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/search"
)

// mcsplitParams are mcsplit_epoch's parameters: the wrapper launches with
// them, the twin reads its arguments through them.
var mcsplitParams = search.Params{
	Source: "mcsplit",
	In:     []search.Param{search.Buf[int32]("shape"), search.Buf[uint64]("adjg"), search.Buf[uint64]("adjh")},
	State: []search.Param{search.Buf[uint64]("frames"), search.Buf[uint64]("arena"), search.Buf[uint64]("paths"),
		search.Buf[uint32]("certs")},
	Goal: true,
}

func init() { search.RegisterTwin(mcsplitParams, mcsplitTwin) }

// The layout of an McSplit task and frame (mcsplit.cl).
const (
	MCSTaskPartial = 1 // the node was expanded: its candidates (and "v unmatched") remain
	MCSTaskCounted = 2 // a fresh node its parent already counted
	MCSTaskSkip    = 4 // "v unmatched" is part of the task

	mcsPhaseEnter        = 0
	mcsPhaseEnterCounted = 1
	mcsPhaseNext         = 2
	mcsNoVertex          = math.MaxInt32
)

// mcsTwin is one worker of mcsplit_epoch running on the CPU backend. It
// computes the same bounds, choices, children, donations and node counts
// as a work-group of the kernel, one item after the other.
type mcsTwin struct {
	w, n1, nmin, taskw, maxDepth, fh, dw int
	minProduct                           bool
	rules                                MCSplitRules
	adjg, adjh                           []uint64
	twg, twh                             []uint64 // twin rows (mcsTW0, mcsTW1)
	fr, ar, base                         []uint64
	cert                                 []uint32
}

func mcsplitTwin(g *backend.Group) {
	p := mcsplitParams
	shape := search.Arg[int32](g, p, "shape")
	t := &mcsTwin{w: int(shape[0]), n1: int(shape[1]), nmin: int(shape[2]), taskw: int(shape[4]),
		maxDepth: int(shape[6]), minProduct: shape[7] != 0, rules: MCSplitRules(shape[8])}
	n0 := int(shape[9])
	arenaDoms := int(shape[5])
	t.fh, t.dw = 4+t.w, 2*t.w
	t.adjg, t.adjh = search.Arg[uint64](g, p, "adjg"), search.Arg[uint64](g, p, "adjh")
	if t.rules&mcsTW0 != 0 {
		t.twg = t.adjg[n0*t.w:]
	}
	if t.rules&mcsTW1 != 0 {
		t.twh = t.adjh[t.n1*t.w:]
	}
	t.fr = search.WorkerArg[uint64](g, p, "frames", t.maxDepth*t.fh)
	t.ar = search.WorkerArg[uint64](g, p, "arena", arenaDoms*t.dw)
	t.base = search.WorkerArg[uint64](g, p, "paths", t.nmin)
	t.cert = search.WorkerArg[uint32](g, p, "certs", t.nmin+1)
	t.run(search.NewTwinWorker(g, p, int(shape[3]), t.taskw))
}

func (t *mcsTwin) frame(level int) []uint64 { return t.fr[level*t.fh : (level+1)*t.fh] }

func (t *mcsTwin) dom(off int) []uint64 { return t.ar[off*t.dw : (off+1)*t.dw] }

// pathPair is the i-th matched pair of the current node (v | w<<32).
func (t *mcsTwin) pathPair(i, basem int) uint64 {
	if i < basem {
		return t.base[i]
	}
	h := t.frame(i - basem)
	return h[1]&0xffffffff | h[2]<<32
}

func firstBit(s []uint64) int {
	for k, x := range s {
		if x != 0 {
			return k*64 + bits.TrailingZeros64(x)
		}
	}
	return mcsNoVertex
}

func countBits(s []uint64) int {
	c := 0
	for _, x := range s {
		c += bits.OnesCount64(x)
	}
	return c
}

func (t *mcsTwin) run(wk *search.TwinWorker) {
	W := t.w
	cw := make([]int, 0, t.n1)
	cb := make([]int, t.n1)
	rset, drop := make([]uint64, W), make([]uint64, W)

	for wk.Next() {
		if task := wk.Task; task != nil {
			m, nd := int(task[0]&0xffffffff), int(task[0]>>32)
			copy(t.base[:m], task[4+W:4+W+m])
			copy(t.ar[:nd*t.dw], task[4+W+t.nmin:4+W+t.nmin+nd*t.dw])
			h := t.frame(0)
			h[0] = uint64(nd)
			h[1] = task[1]
			h[2] = 0
			if task[2]&MCSTaskSkip != 0 {
				h[2] = 1 << 32
			}
			h[3] = task[3]
			copy(h[4:4+W], task[4:4+W])
			wk.Base = m // the task's own matched pairs
			switch flags := task[2]; {
			case flags&MCSTaskPartial != 0:
				wk.Installed(mcsPhaseNext)
			case flags&MCSTaskCounted != 0:
				wk.Installed(mcsPhaseEnterCounted)
			default:
				wk.Installed(mcsPhaseEnter)
			}
			continue
		}
		h := t.frame(wk.Level)
		nd, off := int(h[0]&0xffffffff), int(h[0]>>32)
		m := wk.Base + wk.Level

		if wk.Phase == mcsPhaseNext {
			// R5: the incumbent reached the node's bound.
			if t.rules&MCSplitR5 != 0 && !wk.Frozen && int32(h[3]) > 0 && wk.Ring.Load(search.DSInc) >= int32(h[3]) {
				wk.Up()
				continue
			}
			cand := h[4 : 4+W]
			w := firstBit(cand)
			skip := h[2] >> 32
			if w != mcsNoVertex {
				v := int(h[1] & 0xffffffff)
				chosen := int(h[1] >> 32)
				cand[w>>6] &^= 1 << (w & 63)
				h[2] = uint64(w) | skip<<32
				av := t.adjg[v*W : v*W+W]
				aw := t.adjh[w*W : w*W+W]
				made := 0
				for i := 0; i < nd; i++ {
					d := t.dom(off + i)
					var en, ea, fn, fa uint64
					// Non-adjacent part first, then the adjacent one, as the kernel.
					for k := 0; k < W; k++ {
						l, r := d[k], d[W+k]
						if i == chosen && k == w>>6 {
							r &^= 1 << (w & 63)
						}
						en |= l &^ av[k]
						fn |= r &^ aw[k]
						ea |= l & av[k]
						fa |= r & aw[k]
					}
					if en != 0 && fn != 0 {
						out1 := t.dom(off + nd + made)
						for k := 0; k < W; k++ {
							l, r := d[k], d[W+k]
							if i == chosen && k == w>>6 {
								r &^= 1 << (w & 63)
							}
							out1[k], out1[W+k] = l&^av[k], r&^aw[k]
						}
						made++
					}
					if ea != 0 && fa != 0 {
						out2 := t.dom(off + nd + made)
						for k := 0; k < W; k++ {
							l, r := d[k], d[W+k]
							if i == chosen && k == w>>6 {
								r &^= 1 << (w & 63)
							}
							out2[k], out2[W+k] = l&av[k], r&aw[k]
						}
						made++
					}
				}
				c := t.frame(wk.Level + 1)
				c[0] = uint64(made) | uint64(off+nd)<<32
				wk.Level++
				wk.Phase = mcsPhaseEnterCounted
				continue
			}
			if skip != 0 {
				chosen := int(h[1] >> 32)
				d := t.dom(off + chosen)
				if t.twg != nil {
					// R2: v's twins leave with it.
					v := int(h[1] & 0xffffffff)
					for k := 0; k < W; k++ {
						d[k] &^= t.twg[v*W+k]
					}
				}
				left := false
				for k := 0; k < W; k++ {
					left = left || d[k] != 0
				}
				if !left {
					if chosen != nd-1 {
						copy(d, t.dom(off+nd-1))
					}
					nd--
				}
				h[0] = uint64(nd) | uint64(off)<<32
				h[2] = 0
				wk.Phase = mcsPhaseEnter
				continue
			}
			wk.Up()
			wk.Phase = mcsPhaseNext
			continue
		}

		// Enter the node.
		if wk.Phase == mcsPhaseEnter {
			wk.Nodes++
			wk.Spent++
		}
		inc := wk.Ring.Load(search.DSInc)
		if int32(m) > inc {
			for i := 0; i < m; i++ {
				p := t.pathPair(i, wk.Base)
				t.cert[1+i] = uint32(p&0xffff) | uint32(p>>32&0xffff)<<16
			}
			atomic.StoreUint32(&t.cert[0], uint32(m))
			wk.Ring.MaxInc(int32(m))
		}
		best := int(max(inc, int32(m)))
		if wk.Frozen {
			best = int(wk.Goal) - 1
		}

		if wk.Level > 0 {
			if wk.Ring.ShouldGive() {
				if t.donate(&wk.Ring, wk.Level, wk.Base) {
					wk.Donated++
				}
			}
		}

		bound := m
		kmin := uint64(math.MaxUint64)
		for i := 0; i < nd; i++ {
			d := t.dom(off + i)
			ls, rs := countBits(d[:W]), countBits(d[W:])
			bound += min(ls, rs)
			size := uint64(max(ls, rs))
			if t.minProduct {
				size = uint64(ls) * uint64(rs)
			}
			kmin = min(kmin, size<<32|uint64(firstBit(d[:W])))
		}
		if bound <= best || bound < int(wk.Goal) || nd == 0 {
			wk.Up()
			wk.Phase = mcsPhaseNext
			continue
		}
		v := int(kmin & 0xffffffff)
		chosen := 0
		for i := 0; i < nd; i++ {
			if t.dom(off + i)[v>>6]>>(v&63)&1 != 0 {
				chosen = i
				break
			}
		}
		cd := t.dom(off + chosen)
		copy(rset, cd[W:])
		if t.twg != nil && countBits(t.twg[v*W:v*W+W]) != 0 {
			// R1: the candidates are above the largest image of v's twins
			// on the path; B1: the bidomain's bound under that restriction.
			tv := t.twg[v*W : v*W+W]
			floor := -1
			for i := 0; i < m; i++ {
				p := t.pathPair(i, wk.Base)
				if u := int(p & 0xffffffff); tv[u>>6]>>(u&63)&1 != 0 {
					floor = max(floor, int(p>>32))
				}
			}
			ll, rl, cl, cr := 0, 0, 0, 0
			for k := 0; k < W; k++ {
				lo := floor + 1 - k*64
				above := ^uint64(0)
				switch {
				case lo >= 64:
					above = 0
				case lo > 0:
					above = ^(uint64(1)<<lo - 1)
				}
				ll += bits.OnesCount64(cd[k])
				cl += bits.OnesCount64(cd[k] & tv[k])
				rl += bits.OnesCount64(rset[k])
				rset[k] &= above
				cr += bits.OnesCount64(rset[k])
			}
			if cl > cr {
				bound += min(rl, ll-cl+cr) - min(ll, rl)
				if bound <= best || bound < int(wk.Goal) {
					wk.Up()
					wk.Phase = mcsPhaseNext
					continue
				}
			}
		}
		if t.twh != nil {
			// R4: a candidate with a twin below it among the candidates goes.
			clear(drop)
			for k := 0; k < W; k++ {
				for x := rset[k]; x != 0; x &= x - 1 {
					w := k*64 + bits.TrailingZeros64(x)
					for q := 0; q < W; q++ {
						if rset[q]&t.twh[w*W+q] != 0 {
							drop[k] |= 1 << (w & 63)
						}
					}
				}
			}
			for k := range rset {
				rset[k] &^= drop[k]
			}
		}
		cw = cw[:0]
		for k := 0; k < W; k++ {
			for x := rset[k]; x != 0; x &= x - 1 {
				cw = append(cw, k*64+bits.TrailingZeros64(x))
			}
		}
		cd[v>>6] &^= 1 << (v & 63)
		h[1] = uint64(v) | uint64(chosen)<<32
		h[2] = 1 << 32
		h[3] = uint64(uint32(bound))
		av := t.adjg[v*W : v*W+W]
		keep := h[4 : 4+W]
		clear(keep)
		stop := len(cw)
		for j, w := range cw {
			aw := t.adjh[w*W : w*W+W]
			sum := 0
			whole := true
			for i := 0; i < nd; i++ {
				d := t.dom(off + i)
				var lnc, lac, rnc, rac int
				for k := 0; k < W; k++ {
					l, r := d[k], d[W+k]
					if i == chosen && k == w>>6 {
						r &^= 1 << (w & 63)
					}
					lnc += bits.OnesCount64(l &^ av[k])
					lac += bits.OnesCount64(l & av[k])
					rnc += bits.OnesCount64(r &^ aw[k])
					rac += bits.OnesCount64(r & aw[k])
				}
				sum += min(lnc, rnc) + min(lac, rac)
				if lnc+lac != 0 && rnc+rac != 0 && (lnc != 0 || rnc != 0) && (lac != 0 || rac != 0) {
					whole = false
				}
			}
			cb[j] = m + 1 + sum
			if cb[j] > best && cb[j] >= int(wk.Goal) {
				keep[w>>6] |= 1 << (w & 63)
			}
			if whole && t.rules&MCSplitR3 != 0 {
				// R3: this child splits nothing: it ends the node.
				stop = j + 1
				h[2] = 0
				break
			}
		}
		wk.Nodes += int64(stop)
		wk.Spent += int64(stop)
		wk.Phase = mcsPhaseNext
	}

	wk.End()
}

// donate gives away half of the untried children of the shallowest node
// above level that has any, as the kernel does; false when the ring is full.
func (t *mcsTwin) donate(ring *search.TwinRing, level, basem int) bool {
	W := t.w
	has := func(k int) bool {
		h := t.frame(k)
		return h[2]>>32 != 0 || countBits(h[4:4+W]) != 0
	}
	return ring.Donate(level, has, func(task []uint64, j int) {
		hj := t.frame(j)
		cand := hj[4 : 4+W]
		give := make([]uint64, W)
		skip := hj[2] >> 32
		c := countBits(cand)
		switch {
		case c >= 2:
			keep := (c + 1) / 2
			for k := 0; k < W; k++ {
				for x := cand[k]; x != 0; {
					low := x & -x
					x ^= low
					if keep > 0 {
						keep--
					} else {
						give[k] |= low
						cand[k] ^= low
					}
				}
			}
		case c == 1 && skip == 0:
			copy(give, cand)
			clear(cand)
		}
		nd, off := int(hj[0]&0xffffffff), int(hj[0]>>32)
		jm := basem + j
		for i := 0; i < jm; i++ {
			task[4+W+i] = t.pathPair(i, basem)
		}
		copy(task[4+W+t.nmin:], t.ar[off*t.dw:(off+nd)*t.dw])
		task[0] = uint64(jm) | uint64(nd)<<32
		task[1] = hj[1]
		task[2] = MCSTaskPartial
		if skip != 0 {
			task[2] |= MCSTaskSkip
		}
		task[3] = hj[3] // the node's bound (R5)
		copy(task[4:4+W], give)
		hj[2] &= 0xffffffff
	})
}
