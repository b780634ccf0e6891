package kernel

import (
	"math/bits"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/search"
)

// MCSplitOpen is one piece of an McSplit device search's unexplored work,
// as a stopped search leaves it: a node of the tree, either not entered
// yet (V < 0: the node itself is open) or already expanded on V (its
// children v→w for w in Cands, and "V unmatched" when Skip, are open).
type MCSplitOpen struct {
	// Pairs are the node's matched pairs (g vertex, h vertex), in the
	// order they were matched.
	Pairs [][2]int32
	// Doms are the node's bidomains, DomWords (2 × Words) words each: the
	// left set, then the right set. For an expanded node V is already out
	// of its left set, which may be left empty.
	Doms []uint64
	V    int32
	// Cands are V's candidates not yet started, increasing; each child
	// was counted when the node was expanded.
	Cands []int32
	// Skip: the "V unmatched" child is still to do (not counted yet).
	Skip bool
	// Counted: (V < 0) the node was counted by its parent already.
	Counted bool
}

// OpenWork collects the work a search stopped between launches has not
// explored: the tasks of pool (the host's, in the ring's layout), the
// tasks in the ring (which it drains), and every busy worker's stack, each
// frame's untried children and an entered-but-unexpanded node at the top.
// Together they are everything the search, run on, would still explore.
func (m *MCSplit) OpenWork(q backend.Queue, pool [][]uint64) ([]MCSplitOpen, error) {
	s := m.Shape
	var out []MCSplitOpen
	for _, t := range pool {
		out = append(out, m.decodeTask(t))
	}
	ring, err := m.Ring.Drain(q, m.Ring.Capacity)
	if err != nil {
		return nil, err
	}
	for _, t := range ring {
		out = append(out, m.decodeTask(t))
	}
	st, err := m.WorkerStatus(q)
	if err != nil {
		return nil, err
	}
	w, fh, depth := s.Words(), 4+s.Words(), s.MaxDepth()
	frames := make([]uint64, s.Workers*depth*fh)
	arena := make([]uint64, s.Workers*s.ArenaDoms()*2*w)
	base := make([]uint64, s.Workers*s.NMin())
	for _, r := range []struct {
		b   backend.Buffer
		dst []uint64
	}{{m.frames, frames}, {m.arena, arena}, {m.paths, base}} {
		if err := backend.ReadSlice(q, r.b, r.dst); err != nil {
			return nil, err
		}
	}
	for wid := 0; wid < s.Workers; wid++ {
		ws := st[wid*search.DSWWords : (wid+1)*search.DSWWords]
		if ws[search.DSWActive] == 0 {
			continue
		}
		level, phase, basem := int(ws[search.DSWLevel]), int(ws[search.DSWPhase]), int(ws[search.DSWBase])
		fr := frames[wid*depth*fh : (wid+1)*depth*fh]
		ar := arena[wid*s.ArenaDoms()*2*w : (wid+1)*s.ArenaDoms()*2*w]
		pairs := make([][2]int32, 0, basem+level)
		for _, p := range base[wid*s.NMin() : wid*s.NMin()+basem] {
			pairs = append(pairs, [2]int32{int32(uint32(p)), int32(p >> 32)})
		}
		for k := 0; k <= level; k++ {
			h := fr[k*fh : (k+1)*fh]
			nd, off := int(uint32(h[0])), int(h[0]>>32)
			o := MCSplitOpen{Pairs: pairs[:len(pairs):len(pairs)], Doms: ar[off*2*w : (off+nd)*2*w], V: -1}
			// Every frame below the top is exploring a child, so it is
			// expanded; the top one is too while it picks its next child
			// (PH_NEXT), else its node awaits entering.
			if k < level || phase == mcsPhaseNext {
				o.V, o.Cands, o.Skip = int32(uint32(h[1])), setBits(h[4:4+w]), h[2]>>32 != 0
			} else {
				o.Counted = phase == mcsPhaseEnterCounted
			}
			if o.V < 0 || len(o.Cands) > 0 || o.Skip {
				out = append(out, o)
			}
			if k < level {
				pairs = append(pairs, [2]int32{int32(uint32(h[1])), int32(uint32(h[2]))})
			}
		}
	}
	return out, nil
}

// decodeTask reads a task (mcsplit.cl's layout) as open work.
func (m *MCSplit) decodeTask(t []uint64) MCSplitOpen {
	s := m.Shape
	w := s.Words()
	nm, nd := int(uint32(t[0])), int(t[0]>>32)
	o := MCSplitOpen{V: -1, Counted: t[2]&MCSTaskCounted != 0}
	for _, p := range t[4+w : 4+w+nm] {
		o.Pairs = append(o.Pairs, [2]int32{int32(uint32(p)), int32(p >> 32)})
	}
	doms := t[4+w+s.NMin():]
	o.Doms = doms[:nd*2*w]
	if t[2]&MCSTaskPartial != 0 {
		o.V, o.Cands, o.Skip, o.Counted = int32(uint32(t[1])), setBits(t[4:4+w]), t[2]&MCSTaskSkip != 0, false
	}
	return o
}

// setBits lists the members of a bitset, increasing.
func setBits(s []uint64) []int32 {
	var out []int32
	for k, x := range s {
		for ; x != 0; x &= x - 1 {
			out = append(out, int32(k*64+bits.TrailingZeros64(x)))
		}
	}
	return out
}
