package kernel

import (
	"math/bits"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/search"
)

// kcountParams are kcount_epoch's parameters: the wrapper launches with
// them, the twin reads its arguments through them.
var kcountParams = search.Params{
	Source: "kcount",
	In:     []search.Param{search.Buf[int32]("shape"), search.Buf[uint64]("adj")},
	State:  []search.Param{search.Buf[uint64]("frames"), search.Buf[int64]("counts")},
}

func init() { search.RegisterTwin(kcountParams, kcountTwin) }

// kcountTwin is one worker of kcount_epoch (the porting guide's one-page
// example) on the CPU backend: the same steps in the same order.
func kcountTwin(g *backend.Group) {
	shape := search.Arg[int32](g, kcountParams, "shape")
	W, K := int(shape[0]), int(shape[1])
	adj := search.Arg[uint64](g, kcountParams, "adj")
	fr := search.WorkerArg[uint64](g, kcountParams, "frames", K*W)
	counts := search.Arg[int64](g, kcountParams, "counts")
	count := counts[g.ID[0]]
	row := func(v int) []uint64 { return adj[v*W : (v+1)*W] }
	first := func(p []uint64) int { // index of the first non-zero word, or W
		x := 0
		for x < W && p[x] == 0 {
			x++
		}
		return x
	}
	w := search.NewTwinWorker(g, kcountParams, int(shape[2]), 1+W)
	for w.Next() {
		if t := w.Task; t != nil {
			w.Base = int(t[0])
			copy(fr[:W], t[1:1+W])
			w.Installed(0)
			continue
		}
		p := fr[w.Level*W : (w.Level+1)*W]
		size := w.Base + w.Level
		if w.Phase == 0 {
			w.Nodes++
			w.Spent++
			w.Phase = 1
			if size == K-1 {
				for j := range p {
					count += int64(bits.OnesCount64(p[j]))
					p[j] = 0
				}
			} else if w.Level > 0 && w.Ring.ShouldGive() {
				for l := 0; l < w.Level; l++ {
					q := fr[l*W : (l+1)*W]
					x := first(q)
					if x == W {
						continue
					}
					v := x*64 + bits.TrailingZeros64(q[x])
					left := 0
					for j := range q {
						left += bits.OnesCount64(q[j] & row(v)[j])
					}
					given, pos, ok := false, uint32(0), true
					if w.Base+l+1+left >= K {
						if pos, ok = w.Ring.ReservePush(); ok {
							t := w.Ring.Slot(pos)
							t[0] = uint64(w.Base + l + 1)
							for j := range q {
								t[1+j] = q[j] & row(v)[j]
							}
							w.Ring.CommitPush(pos)
							w.Donated++
							given = true
						}
					}
					if given || w.Base+l+1+left < K {
						q[x] &= q[x] - 1
					}
					break
				}
			}
			continue
		}
		x := first(p)
		if x == W {
			w.Up()
			continue
		}
		v := x*64 + bits.TrailingZeros64(p[x])
		p[x] &= p[x] - 1
		c := fr[(w.Level+1)*W : (w.Level+2)*W]
		left := 0
		for j := range p {
			c[j] = p[j] & row(v)[j]
			left += bits.OnesCount64(c[j])
		}
		if size+1+left >= K {
			w.Level++
			w.Phase = 0
		}
	}
	w.End()
	counts[g.ID[0]] = count
}
