package mcs

import "slices"

// The subtree interface (Expand, SolveSubtree, the cluster's tasks) in the
// pruned tree. A path names a node of the pruned tree as well as of the
// original one: R1's floors and R2's removals are functions of the path,
// which follow replays, and R3 and R4 decide which children a node has.
// So subtasks cut by expand and by keepRest, solved by searchRR, cover
// the pruned tree exactly (docs/design/mcs.md, "Engines").

// Mutations of children, for TestSubtreePruneMutations only: each must
// be caught (a node count or a size).
const (
	mutExpandFloor  mutation = 1 << (iota + 4) // R1's floor ignored
	mutExpandR3Root                            // R3 at a connected search's root
)

// usePrune makes p search the tree its options ask for (Prepare).
func (p *problem[C]) usePrune() {
	if p.opts.Prune == PruneNone {
		return
	}
	p.enablePrune()
	if p.opts.Prune == PruneRR2 {
		p.useRR2() // bound.go
	}
}

// subtreeSteps is the steps from the node w stands at (its bidomains doms,
// from follow) to its children, branching on the bidomain chosen, in the
// order the search takes them: v→x for each candidate x, then v
// unmatched. In the pruned tree the candidates are above v's twins'
// images (R1), one per twin class of the second graph (R4), and a child
// that splits as its parent ends the list (R3: no later candidate and no
// unmatched branch). v is its bidomain's smallest vertex (so the smallest
// of its twin class, as R1 and R2 need), whatever rr2's learned order
// would pick: any v of the chosen bidomain makes an exact tree. doms is
// changed (w follows its path again before using it).
func (w *worker[C]) subtreeSteps(doms []bidomain, chosen int) []op {
	p := w.p
	bd := &doms[chosen]
	v := bd.minL
	ws := slices.Clone(w.right[bd.r : bd.r+bd.rl])
	slices.Sort(ws)
	if !w.prune {
		ops := make([]op, 0, len(ws)+1)
		for _, x := range ws {
			ops = append(ops, op{v, x})
		}
		return append(ops, op{v, -1})
	}
	c := p.twins.cls0[v]
	if c >= 0 && p.mutate&mutExpandFloor == 0 {
		floor := w.lastImg[c]
		ws = slices.DeleteFunc(ws, func(x int32) bool { return x <= floor })
	}
	if p.twins.n1 > 0 {
		ws = firstOfClass(ws, p.twins.cls1)
	}
	// The node's state as searchRR leaves it before its children: v out
	// of its left set, the left sets split by v, one right vertex short.
	last := bd.l + bd.ll - 1
	for j := bd.l; ; j++ {
		if w.left[j] == v {
			w.left[j], w.left[last] = w.left[last], v
			break
		}
	}
	bd.ll--
	bd.lm &^= 1 << (v & 63)
	if !p.multiway {
		w.splitLeft(doms, p.adj0[int(v)*p.n0:int(v)*p.n0+p.n0])
	}
	bd.rl--
	keep := wholeSplit(doms)
	if (w.connected && len(w.cur) == 0 && p.mutate&mutExpandR3Root == 0) || p.rrOff&offR3 != 0 {
		keep.n = -1
	}
	ops := make([]op, 0, len(ws)+1)
	for _, x := range ws {
		ops = append(ops, op{v, x})
		if keep.same(w.child(doms, bd, v, x, 0)) {
			return ops // R3
		}
	}
	return append(ops, op{v, -1})
}

// firstOfClass keeps, of the vertices xs, those without a twin class
// (cls −1) and the first of each class, in order.
func firstOfClass(xs, cls []int32) []int32 {
	seen := map[int32]bool{}
	return slices.DeleteFunc(xs, func(x int32) bool {
		c := cls[x]
		if c < 0 {
			return false
		}
		dup := seen[c]
		seen[c] = true
		return dup
	})
}
