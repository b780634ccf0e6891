package kernel

import (
	"math/bits"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/search"
)

func init() { backend.RegisterTwin("kcount_epoch", kcountTwin) }

// kcountTwin is one worker of kcount_epoch (the porting guide's one-page
// example) on the CPU backend: the same steps in the same order.
func kcountTwin(g *backend.Group) {
	shape := g.I32s(0)
	W, K := int(shape[0]), int(shape[1])
	adj := g.U64s(1)
	ring := search.TwinRing{Slots: g.U64s(2), Seq: g.U32s(3), Ctrl: g.U32s(4), Cap: uint32(shape[2]), TaskW: 1 + W}
	wid := g.ID[0]
	st := g.I64s(5)[wid*search.DSWWords : (wid+1)*search.DSWWords]
	fr := g.U64s(6)[wid*K*W : (wid+1)*K*W]
	counts := g.I64s(7)
	budget, idleLimit := g.I64(8), g.I32(9)
	nodes, donated, taken, count, spent := st[search.DSWNodes], st[search.DSWDonated], st[search.DSWTaken], counts[wid], int64(0)
	active, level, phase, base := st[search.DSWActive] != 0, int(st[search.DSWLevel]), int(st[search.DSWPhase]), int(st[search.DSWBase])
	polls, waiting := int32(0), false
	if active {
		ring.Add(search.DSRunning, 1)
	}
	row := func(v int) []uint64 { return adj[v*W : (v+1)*W] }
	first := func(p []uint64) int { // index of the first non-zero word, or W
		w := 0
		for w < W && p[w] == 0 {
			w++
		}
		return w
	}
	for {
		if !active {
			pos, took, giveUp := ring.Idle(&waiting, &polls, idleLimit)
			if giveUp {
				break
			}
			if !took {
				continue
			}
			t := ring.Slot(pos)
			base = int(t[0])
			copy(fr[:W], t[1:1+W])
			ring.CommitPop(pos)
			active, waiting, polls, level, phase = true, false, 0, 0, 0
			taken++
			continue
		}
		if spent >= budget {
			break
		}
		p := fr[level*W : (level+1)*W]
		size := base + level
		if phase == 0 {
			nodes++
			spent++
			phase = 1
			if size == K-1 {
				for j := range p {
					count += int64(bits.OnesCount64(p[j]))
					p[j] = 0
				}
			} else if level > 0 && ring.ShouldGive() {
				for l := 0; l < level; l++ {
					q := fr[l*W : (l+1)*W]
					w := first(q)
					if w == W {
						continue
					}
					v := w*64 + bits.TrailingZeros64(q[w])
					left := 0
					for j := range q {
						left += bits.OnesCount64(q[j] & row(v)[j])
					}
					given, pos, ok := false, uint32(0), true
					if base+l+1+left >= K {
						if pos, ok = ring.ReservePush(); ok {
							t := ring.Slot(pos)
							t[0] = uint64(base + l + 1)
							for j := range q {
								t[1+j] = q[j] & row(v)[j]
							}
							ring.CommitPush(pos)
							donated++
							given = true
						}
					}
					if given || base+l+1+left < K {
						q[w] &= q[w] - 1
					}
					break
				}
			}
			continue
		}
		w := first(p)
		if w == W {
			if level > 0 {
				level--
			} else {
				active = false
				ring.Add(search.DSRunning, -1)
			}
			continue
		}
		v := w*64 + bits.TrailingZeros64(p[w])
		p[w] &= p[w] - 1
		c := fr[(level+1)*W : (level+2)*W]
		left := 0
		for j := range p {
			c[j] = p[j] & row(v)[j]
			left += bits.OnesCount64(c[j])
		}
		if size+1+left >= K {
			level++
			phase = 0
		}
	}
	ring.SaveStatus(st, nodes, active, level, phase, base, donated, taken, waiting)
	counts[wid] = count
}
