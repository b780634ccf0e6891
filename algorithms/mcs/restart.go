package mcs

import (
	"math/rand/v2"
	"slices"
)

// runRestarts is Options.Restarts on one worker. The root node's children
// are fixed before any search: the root loop picks its v's and candidate
// lists from the bidomains alone, so turn k (after v_0..v_{k−1} were left
// unmatched) has the children v_k→x, x in v_k's candidates, each named by
// its path and all together the whole tree below the root. Each round
// takes the children not yet finished in a random order and searches each
// with a node budget; a child searched to the end (or pruned by its turn's
// bound) is recorded as finished and never searched again; the budget
// doubles every round. So every child is eventually finished, with the
// incumbent pruning only what cannot beat it: the search is complete,
// and exact. Random orders find good incumbents early where the fixed
// order is stuck in a bad first subtree; the price is the unfinished
// subtrees searched again from their roots.
func (p *problem[C]) runRestarts(sh *shared) int64 {
	w := p.newWorker(sh, 1, false)
	type task struct {
		path  []op
		bound int32 // bound of the root turn the child hangs from
	}
	var tasks []task
	var path []op
	for {
		w.nodes++ // the root turn, a node of the sequential tree too
		doms := w.rebuild(path)
		bound, chosen := int32(0), -1
		bestKey := uint64(1<<64 - 1)
		for i := range doms {
			d := &doms[i]
			bound += min(d.ll, d.rl)
			size := max(d.ll, d.rl)
			if p.opts.Heuristic == MinProduct {
				size = d.ll * d.rl
			}
			if key := uint64(size)<<32 | uint64(d.minL); key < bestKey {
				bestKey, chosen = key, i
			}
		}
		if chosen < 0 || bound == 0 {
			break
		}
		d := doms[chosen]
		ws := slices.Clone(w.right[d.r : d.r+d.rl])
		slices.Sort(ws)
		for _, x := range ws {
			tasks = append(tasks, task{appendOp(path, op{d.minL, x}), bound})
		}
		path = appendOp(path, op{d.minL, -1})
	}
	rng := rand.New(rand.NewPCG(p.opts.Seed, 0x9e3779b97f4a7c15))
	pending := make([]int, len(tasks))
	for i := range pending {
		pending[i] = i
	}
	budget := int64(1 << 12)
	for len(pending) > 0 && !sh.stop.Load() {
		rng.Shuffle(len(pending), func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
		left := pending[:0]
		for n, i := range pending {
			if sh.stop.Load() {
				left = append(left, pending[n:]...)
				break
			}
			if tasks[i].bound <= sh.best.Load() {
				continue // pruned: the root loop would not reach it
			}
			w.nodeCap = w.nodes + budget
			w.search(0, w.rebuild(tasks[i].path))
			if w.stopped {
				w.stopped = false
				left = append(left, i)
			}
		}
		pending = left
		budget *= 2
	}
	w.nodeCap = 0
	w.flush()
	return w.nodes
}
