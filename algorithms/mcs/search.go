package mcs

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// bidomain is a pair of vertex sets, left[l:l+ll] of g and right[r:r+rl]
// of h, whose vertices may be matched to each other: they agree on their
// adjacency to every matched pair. Sets are ranges of the worker's left
// and right arrays, permuted in place as the search goes down, as in the
// original program. Only the sets matter to the search tree, never the
// order inside them or the order of the bidomains: v is always a set's
// smallest vertex, w runs through a set in increasing order, and ties
// between bidomains go to the smallest left vertex, which is unique.
type bidomain struct {
	l, r   int32
	ll, rl int32
	minL   int32 // smallest vertex of the left set: the tie-breaker and the next v
	adj    bool  // adjacent to a matched vertex (for Connected)
	// The split of the left set by the node's branching vertex v: made once
	// per node, it holds for every w, since children only permute within
	// the parts. left[l:l+la] are adjacent to v.
	la         int32
	minA, minN int32
	// eb is B2's bound of this bidomain plus one, 0 when not known (the
	// pruned search with B2 only, bound.go): the sets decide it, so it
	// holds as long as they are unchanged.
	eb int32
	// rm is the right set as a bit word, kept when the second graph has at
	// most 64 vertices (problem.rows1): childOrCut counts a child's
	// split with it, without touching the right array. It may still hold
	// the vertex matched last in the parent's own bidomain (children
	// leave it out by its bit). lm is the left set likewise (rows0):
	// takeLeft reads v's split from it, and splits the array only for a
	// child that is not cut (ensureLeft).
	rm, lm uint64
}

type pair struct{ v, w int32 }

// op is one step down the search tree: match v to w, or (w < 0) leave v
// unmatched. A path of ops from the root names a node, so a worker can
// rebuild a node another worker gave away.
type op struct{ v, w int32 }

// frame is a search node whose children are being explored, for giving
// away the ones not yet started.
type frame struct {
	v         int32
	ws        []int32 // candidates for v, increasing; ws[next:end] not started
	next, end int
	pathLen   int  // length of the path naming this node
	skipGiven bool // the "v unmatched" continuation was given away
}

const noVertex = math.MaxInt32

// worker runs the search on its own copy of the left and right arrays.
type worker[C cell] struct {
	p           *problem[C]
	sh          *shared
	left, right []int32
	doms        [][]bidomain // per depth below the task root
	ws          [][]int32    // per depth
	frames      []frame
	scratch     [2][]bidomain
	groupsL     []group[C] // filterMulti's scratch
	groupsR     []group[C]
	cur         []pair // the matching so far, in the new numbering
	path        []op   // ops from the root to the current node (parallel only)
	nodes       int64
	published   int64
	branched    int64 // nodes that passed the bound and branched (RRSplit's node count)
	branchedPub int64
	goal        int32
	bigFirst    bool
	connected   bool
	minProduct  bool
	par         bool // share work with other workers
	stopped     bool
	nodeCap     int64 // restarts: stop this worker's search at this many nodes
	// The pruned search (prune.go): lastImg is, per twin class of the
	// first graph, the image of its last matched member (−1: none); seen
	// and stamp mark the second graph's twin classes tried at a node.
	prune    bool
	lastImg  []int32
	explored [][]int32 // per depth: the candidates whose child was searched (R6)
	seen     []uint64
	stamp    uint64
	mark     []uint64 // candidates' bitset of the second graph's vertices (sortedAbove)
	pendV    []int32  // per depth: the v whose left split takeLeft left to ensureLeft, −1 none
	// Learned branching (learn.go): a score per vertex of each graph.
	score0, score1 []uint32
	histL, histR   []int32 // the edge-count bound's scratch (bound.go)
	maskL, maskR   []uint64
}

func (p *problem[C]) newWorker(sh *shared, goal int, par bool) *worker[C] {
	depth := min(p.n0, p.n1) + 2
	w := &worker[C]{
		p: p, sh: sh,
		left: make([]int32, len(p.left)), right: make([]int32, len(p.right)),
		doms: make([][]bidomain, depth), ws: make([][]int32, depth), frames: make([]frame, depth),
		goal: int32(goal), bigFirst: p.opts.BigFirst, connected: p.opts.Connected,
		minProduct: p.opts.Heuristic == MinProduct, par: par,
		mark: make([]uint64, (p.n1+63)/64), pendV: make([]int32, depth),
	}
	for i := range w.pendV {
		w.pendV[i] = -1
	}
	if p.prune {
		w.prune = true
		w.lastImg = make([]int32, p.twins.n0)
		w.seen = make([]uint64, p.n1)
		w.explored = make([][]int32, depth)
		if p.learn != 0 {
			w.score0, w.score1 = make([]uint32, p.n0), make([]uint32, p.n1)
		}
		if p.bound2 {
			w.histL, w.histR = make([]int32, p.n0), make([]int32, p.n1)
			w.maskL, w.maskR = make([]uint64, p.bits0.words), make([]uint64, p.bits1.words)
		}
	}
	// The per-depth bidomain lists grow as needed and keep their capacity:
	// a bidomain list never outgrows the left vertices left at its depth,
	// and deep levels are rarely wide, so this stays far below depth × n.
	return w
}

// tick counts a node; every 1024 it publishes the count and looks for a
// stop request. It reports whether to stop.
func (w *worker[C]) tick() bool {
	w.nodes++
	if w.nodes&1023 != 0 {
		return false
	}
	return w.poll()
}

func (w *worker[C]) poll() bool {
	total := w.sh.nodes.Add(w.nodes - w.published)
	w.published = w.nodes
	if w.sh.limit > 0 && total >= w.sh.limit {
		w.sh.halt()
	}
	if w.sh.deadEnd > 0 && total-w.sh.improvedAt.Load() > w.sh.deadEnd {
		w.sh.deadHit.Store(true)
		w.sh.halt()
	}
	if w.sh.stop.Load() || (w.nodeCap > 0 && w.nodes >= w.nodeCap) {
		w.stopped = true
	}
	return w.stopped
}

// finish flushes the counts and returns the worker's nodes.
func (w *worker[C]) finish() int64 {
	w.flush()
	return w.nodes
}

// flush publishes the last nodes counted.
func (w *worker[C]) flush() {
	w.sh.nodes.Add(w.nodes - w.published)
	w.published = w.nodes
	w.sh.branched.Add(w.branched - w.branchedPub)
	w.branchedPub = w.branched
}

// search explores the node whose bidomains are doms, at depth below the
// task root. The original recurses for the "v unmatched" branch as its last
// act; here that tail call is the next turn of the loop, each turn one node.
// With w.prune it applies RRSplit's reductions (Options.Prune), marked
// R1–R6, B1 and B2 after docs/design/mcs.md (their helpers are in
// prune.go); without, every rule is off and the tree is the original
// McSplit's node for node.
func (w *worker[C]) search(depth int, doms []bidomain) {
	p := w.p
	pathLen := len(w.path)
	for {
		best, ok := w.visit(depth)
		if !ok {
			break
		}
		// Bound, and the bidomain to branch on: smallest max(|L|,|R|) (or
		// product), ties to the smallest left vertex.
		bound, chosen := w.choose(doms)
		if bound <= best || bound < w.goal {
			break
		}
		if w.bigFirst && best == w.goal {
			break
		}
		if chosen < 0 { // Connected: nothing adjacent left to add
			break
		}
		bd := &doms[chosen]
		v := bd.minL
		nodeBound := bound
		if p.learn&learnV != 0 {
			v = w.learnPick(bd) // learn.go
		}
		c, floor := int32(-1), int32(-1) // v's twin class; R1: v's candidates are above floor
		skip := -1                       // the bidomain whose bound B1 lowered
		if w.prune {
			if c = p.twins.cls0[v]; c >= 0 {
				floor = w.lastImg[c]
				if b, lowered := w.twinBound(bd, c, floor, bound); lowered {
					if bound = b; bound <= best || bound < w.goal {
						break
					}
					skip = chosen
				}
			}
		}
		// B2 (bound.go): the edge-count bound, near the cut only.
		if stop := max(best, w.goal-1); p.bound2 && bound-stop <= boundSlack {
			if bound = w.tighten(doms, bound, stop, skip); bound <= stop {
				break
			}
		}
		w.branched++
		w.takeLeft(doms, bd, v, depth)

		ws := w.candidates(depth, bd, c, floor)
		f := &w.frames[depth]
		*f = frame{v: v, ws: ws, end: len(ws), pathLen: len(w.path)}
		bd.rl--
		if w.children(doms, bd, f, nodeBound, bound, c, floor, depth) {
			w.path = w.path[:pathLen]
			return
		}
		bd.rl++
		if f.skipGiven {
			break
		}
		doms = w.leaveUnmatched(doms, chosen, v, c)
	}
	w.path = w.path[:pathLen]
}

// children searches the children v→x of the node (doms, v's bidomain bd,
// its frame f), in f's order: R3 and R5 may end the node early (f.end,
// f.skipGiven), R6 skips a dominated child. c and floor are v's twin class
// and its R1 floor. It restores lastImg and reports whether the search
// was stopped.
func (w *worker[C]) children(doms []bidomain, bd *bidomain, f *frame, nodeBound, bound, c, floor int32, depth int) (stopped bool) {
	p := w.p
	v, ws := f.v, f.ws
	m := int32(len(w.cur))
	// R3's reference: the bidomains a child must keep whole. The same
	// for every child (each w leaves v's right set as rl−1 vertices).
	keep := split{n: -1}
	if w.prune && !(w.connected && m == 0) && p.rrOff&offR3 == 0 {
		keep = wholeSplit(doms) // R3 is off at a connected search's root
	}
	if w.prune {
		w.explored[depth] = w.explored[depth][:0]
	}
	if w.par && keep.n >= 0 {
		w.r3Ahead(doms, bd, v, keep, depth, f)
	}
	cutOK := !p.multiway && !p.withR6 && !p.splitAll
	for f.next < f.end {
		x := ws[f.next]
		f.next++
		var out []bidomain
		if cutOK {
			var cut bool
			var lost int32
			if out, cut, lost = w.childOrCut(doms, bd, v, x, nodeBound, depth); cut {
				// A leaf its bound cuts, counted: learned branching's
				// reward and R5 as below.
				if p.learn != 0 {
					w.learnReward(nodeBound, nodeBound-lost, v, x)
				}
				if w.prune && w.sh.best.Load() >= bound && p.rrOff&offR5 == 0 {
					f.end = f.next
					f.skipGiven = true
				}
				continue
			}
		} else {
			out = w.child(doms, bd, v, x, depth)
		}
		if p.learn != 0 {
			w.learnReward(nodeBound, w.childBound(out), v, x) // learn.go
		}
		// R6 (off unless withR6: it costs more time than it saves on
		// MIVIA, docs/results/mcs.md): an explored sibling v→x′ sees
		// every vertex left to this child as x does: this child's
		// solutions are its, x and x′ swapped.
		if p.withR6 && w.dominated(out, x, w.explored[depth]) {
			continue
		}
		if w.prune {
			w.explored[depth] = append(w.explored[depth], x)
		}
		// R3: x splits every bidomain as v does, so this child holds
		// a solution as large as any of the node's: it ends the node.
		// (Connected, only once a pair is matched: v then touches it.)
		if keep.same(out) {
			f.end = f.next
			f.skipGiven = true
		}
		w.cur = append(w.cur, pair{v, x})
		if w.par {
			w.path = append(w.path, op{v, x})
		}
		if c >= 0 {
			w.lastImg[c] = x
		}
		w.search(depth+1, out)
		w.cur = w.cur[:len(w.cur)-1]
		if w.par {
			w.path = w.path[:f.pathLen]
		}
		if w.stopped {
			break
		}
		// R5: the incumbent reached the node's bound: the rest of the
		// node (siblings and the unmatched branch) cannot beat it.
		if w.prune && w.sh.best.Load() >= bound && p.rrOff&offR5 == 0 {
			f.end = f.next
			f.skipGiven = true
		}
	}
	if c >= 0 {
		w.lastImg[c] = floor
	}
	return w.stopped
}

// visit counts the node and does what every node does before its bound:
// stop when asked (keeping the rest of the tree for a collecting run),
// offer the matching so far as an incumbent and give work to hungry
// workers. It returns the incumbent size to prune against and false to
// stop.
func (w *worker[C]) visit(depth int) (best int32, ok bool) {
	if w.tick() {
		if w.sh.collect {
			w.keepRest(depth)
		}
		return 0, false
	}
	m := int32(len(w.cur))
	best = w.sh.best.Load()
	if m > best {
		w.sh.offer(w.cur)
		if !w.sh.frozen {
			best = m
		}
	}
	if w.par && w.sh.q.Hungry() {
		w.donate(depth)
	}
	return best, true
}

// takeLeft takes v, the vertex branched on, out of its bidomain bd's left
// set (swapped to the end, where the unmatched branch finds it again) and,
// with a binary adjacency, splits the left sets by adjacency to v.
//
// With bit words (rows0) the split is counted on them (la, minA, minN)
// and the array split is left to ensureLeft: a node whose children the
// bound all cuts never makes it.
func (w *worker[C]) takeLeft(doms []bidomain, bd *bidomain, v int32, depth int) {
	left := w.left
	last := bd.l + bd.ll - 1
	for j := bd.l; ; j++ {
		if left[j] == v {
			left[j], left[last] = left[last], v
			break
		}
	}
	bd.ll--
	bd.lm &^= 1 << (v & 63)
	bd.eb = 0 // B2's bound of bd is stale (bound.go)
	p := w.p
	switch {
	case p.multiway:
	case p.rows0 != nil:
		rowV := p.rows0[v]
		for i := range doms {
			d := &doms[i]
			a, n := d.lm&rowV, d.lm&^rowV
			d.la = int32(bits.OnesCount64(a))
			d.minA, d.minN = lowestBit(a), lowestBit(n)
		}
		w.pendV[depth] = v
	default:
		w.splitLeft(doms, p.adj0[int(v)*p.n0:int(v)*p.n0+p.n0])
	}
}

// lowestBit is the smallest vertex of the bit word m, noVertex if empty.
func lowestBit(m uint64) int32 {
	if m == 0 {
		return noVertex
	}
	return int32(bits.TrailingZeros64(m))
}

// ensureLeft makes the left split takeLeft counted at depth, before the
// first child there that is not cut: every left set whose vertices v
// divides is partitioned, the adjacent ones first (those v leaves whole
// already are).
func (w *worker[C]) ensureLeft(doms []bidomain, depth int) {
	v := w.pendV[depth]
	if v < 0 {
		return
	}
	w.pendV[depth] = -1
	row := w.p.adj0[int(v)*w.p.n0 : int(v)*w.p.n0+w.p.n0]
	for i := range doms {
		if d := &doms[i]; d.la != 0 && d.la != d.ll {
			splitAdjacent(w.left[d.l:d.l+d.ll], row)
		}
	}
}

// leaveUnmatched turns the node into its last branch, where v stays
// unmatched (and with it, R2, its twins still in the bidomain): it returns
// the node's bidomains for the next turn of search's loop.
func (w *worker[C]) leaveUnmatched(doms []bidomain, chosen int, v, c int32) []bidomain {
	bd := &doms[chosen]
	left := w.left
	removed := false
	if c >= 0 {
		cls0 := w.p.twins.cls0
		for j := bd.l; j < bd.l+bd.ll; {
			if u := left[j]; cls0[u] == c {
				last := bd.l + bd.ll - 1
				left[j], left[last] = left[last], u
				bd.ll--
				bd.lm &^= 1 << (u & 63)
				removed = true
				continue
			}
			j++
		}
	}
	if bd.ll == 0 {
		doms[chosen] = doms[len(doms)-1]
		doms = doms[:len(doms)-1]
	} else if w.p.multiway || removed {
		bd.minL = minOf(left[bd.l : bd.l+bd.ll])
	} else {
		bd.minL = min(bd.minA, bd.minN)
	}
	if w.par {
		w.path = append(w.path, op{v, -1})
	}
	return doms
}

// child makes the bidomains of the child v→x of a node (doms; bd is v's
// bidomain, its right set already one short): x moves to the end of bd's
// right set, out of the children's view, and the split goes to
// w.doms[depth+1], which it returns.
func (w *worker[C]) child(doms []bidomain, bd *bidomain, v, x int32, depth int) []bidomain {
	p := w.p
	w.takeRight(bd, x)
	out := w.doms[depth+1][:0]
	if p.multiway {
		out = w.filterMulti(doms, v, x, out)
	} else {
		w.ensureLeft(doms, depth)
		out, _ = w.filterSimple(doms, v, x, out, noVertex)
	}
	w.doms[depth+1] = out
	return out
}

// takeRight moves x to the end of bd's right set (one short already),
// out of the children's view.
func (w *worker[C]) takeRight(bd *bidomain, x int32) {
	right := w.right
	lastR := bd.r + bd.rl
	for j := bd.r; ; j++ {
		if right[j] == x {
			right[j], right[lastR] = right[lastR], x
			return
		}
	}
}

// childOrCut is child for the simple split, except that it stops as soon
// as the child's bound is known to fail the child's own check (bound ≤
// incumbent, or below the goal): then it counts the child as the node it
// is, a leaf its bound cuts, and reports true. The tree is the same node
// for node; a cut child costs only part of its split, and no visit.
//
// The child's bound starts at nodeBound (every bidomain kept whole: the
// node's sum, v's bidomain one short on both sides, plus the pair v→x),
// and each bidomain the split divides loses min(ll, rl) less its parts'
// mins. It never cuts a child visit would do more with than count: one
// whose matching it would offer as an incumbent, or when the node polls
// (tick) or a hungry pool waits for work (donate), so stopping,
// collecting and sharing see the nodes they did; nor a child whose bound
// is nodeBound (need ≥ 1), which R3 may keep. With learned branching
// (rr2) a cut child's whole loss is counted (its reward, returned as
// lost), so it is cut on bit words only.
func (w *worker[C]) childOrCut(doms []bidomain, bd *bidomain, v, x, nodeBound int32, depth int) (out []bidomain, cut bool, lost int32) {
	need := int32(noVertex)
	// The child's matching is no incumbent (visit would offer it: with
	// McSplit↓ or a goal a child may be cut below the goal yet be the
	// largest found), the next node does not poll, no pool is hungry.
	if best := w.sh.best.Load(); int32(len(w.cur)) < best && (w.nodes+1)&1023 != 0 && !(w.par && w.sh.q.Hungry()) {
		need = nodeBound - min(max(best, w.goal-1), nodeBound-1)
		if w.p.rows1 != nil {
			// With bit words the child's loss is counted first, at one
			// popcount a bidomain: a cut child then costs no split at all.
			upTo := need
			if w.p.learn != 0 {
				upTo = noVertex
			}
			if lost = w.loss(doms, x, upTo); lost >= need {
				w.nodes++
				return nil, true, lost
			}
		}
		if w.p.rows1 != nil || w.p.learn != 0 {
			need = noVertex // not cut, or the part-way split's loss is not whole
		}
	}
	w.takeRight(bd, x)
	w.ensureLeft(doms, depth)
	out, cut = w.filterSimple(doms, v, x, w.doms[depth+1][:0], need)
	w.doms[depth+1] = out
	if cut {
		w.nodes++
	}
	return out, cut, 0
}

// loss is what the child v→x of a node (doms, split on the left by v)
// loses from the sum of min(ll, rl) over its bidomains (childOrCut),
// counting each right part on the bit words; it stops once it reaches
// upTo.
func (w *worker[C]) loss(doms []bidomain, x, upTo int32) int32 {
	rowX := w.p.rows1[x]
	xb := uint64(1) << x
	lost := int32(0)
	for i := range doms {
		d := &doms[i]
		if d.ll == 0 {
			continue
		}
		rm := d.rm &^ xb
		rl := int32(bits.OnesCount64(rm))
		ra := int32(bits.OnesCount64(rm & rowX))
		if lost += min(d.ll, rl) - min(d.ll-d.la, rl-ra) - min(d.la, ra); lost >= upTo {
			break
		}
	}
	return lost
}

// splitLeft partitions every left set into the vertices adjacent to v
// (row is v's matrix row, entries 0 or 1) and the others.
func (w *worker[C]) splitLeft(doms []bidomain, row []C) {
	left := w.left
	for i := range doms {
		d := &doms[i]
		k, minA, minN := splitAdjacentMin(left[d.l:d.l+d.ll], row)
		d.la = int32(k)
		d.minA, d.minN = minA, minN
	}
}

// filterSimple builds the children's bidomains for w (row is w's matrix
// row): each bidomain splits into its non-adjacent and adjacent parts,
// keeping those with both sides non-empty. The left split is splitLeft's.
// It stops, reporting true, once the bidomains split so far have lost
// need from the sum of min(ll, rl) (childOrCut; noVertex: never). v→x
// is the pair matched (x's row splits the right sets).
func (w *worker[C]) filterSimple(doms []bidomain, v, x int32, out []bidomain, need int32) ([]bidomain, bool) {
	p := w.p
	right := w.right
	row := p.adj1[int(x)*p.n1 : int(x)*p.n1+p.n1]
	var rowX, xb, rowV uint64 // the children's bit words (rows0, rows1)
	if p.rows1 != nil {
		rowX, xb = p.rows1[x], 1<<x
	}
	if p.rows0 != nil {
		rowV = p.rows0[v]
	}
	for i := range doms {
		d := &doms[i]
		if d.ll == 0 {
			continue
		}
		ra := int32(splitAdjacent(right[d.r:d.r+d.rl], row))
		// A part that is the whole bidomain keeps its B2 bound (bound.go).
		eb := d.eb
		if d.la != 0 && d.la != d.ll || ra != 0 && ra != d.rl {
			eb = 0
		}
		lnon, rnon := d.ll-d.la, d.rl-ra
		if need -= min(d.ll, d.rl) - min(lnon, rnon) - min(d.la, ra); need <= 0 {
			return out, true
		}
		if lnon > 0 && rnon > 0 {
			out = append(out, bidomain{l: d.l + d.la, r: d.r + ra, ll: lnon, rl: rnon, minL: d.minN, adj: d.adj, eb: eb, rm: d.rm &^ rowX &^ xb, lm: d.lm &^ rowV})
		}
		if d.la > 0 && ra > 0 {
			out = append(out, bidomain{l: d.l, r: d.r, ll: d.la, rl: ra, minL: d.minA, adj: true, eb: eb, rm: d.rm & rowX &^ xb, lm: d.lm & rowV})
		}
	}
	return out, false
}

// splitAdjacent moves the vertices of seg adjacent in row (entries
// exactly 0 or 1) to its front and returns their count. Branch-free: it
// swaps unconditionally and only an adjacent vertex advances the count.
// splitAdjacent and splitAdjacentMin are functions of their own, not
// inlined, so that their loops keep every value in a register: inlined
// into the workers' methods, the compiler kept the count (or splitLeft's
// minimum) on the stack, a store and a reload on the loop's critical path
// for every vertex (BenchmarkMIVIA, one thread, five alternating runs,
// mean M nodes per CPU-second: mcs10_b03_s40.A01 11.1 → 12.4,
// mcs90_b06_s70.A00 10.2 → 10.8; the same nodes).
//
//go:noinline
func splitAdjacent[C cell](seg []int32, row []C) int {
	k := 0
	for j, x := range seg {
		a := int(row[x])
		seg[j] = seg[k]
		seg[k] = x
		k += a
	}
	return k
}

// splitAdjacentMin is splitAdjacent that also returns the least vertex
// among the adjacent ones and among the others (noVertex for none).
//
//go:noinline
func splitAdjacentMin[C cell](seg []int32, row []C) (k int, minA, minN int32) {
	minA, minN = noVertex, noVertex
	for j, x := range seg {
		a := int32(row[x])
		seg[j] = seg[k]
		seg[k] = x
		k += int(a)
		mask := -a // all ones when adjacent
		minA = min(minA, x|(^mask&noVertex))
		minN = min(minN, x|(mask&noVertex))
	}
	return k, minA, minN
}

// filterMulti is filterSimple for directed or edge-labelled graphs: each
// bidomain splits into one part per adjacency value (no edge; or the edge
// label, or out/in/both directions), keeping parts with both sides non-empty.
func (w *worker[C]) filterMulti(doms []bidomain, v, x int32, out []bidomain) []bidomain {
	p := w.p
	rowV := p.adj0[int(v)*p.n0 : int(v)*p.n0+p.n0]
	rowW := p.adj1[int(x)*p.n1 : int(x)*p.n1+p.n1]
	for i := range doms {
		d := &doms[i]
		if d.ll == 0 || d.rl == 0 {
			continue
		}
		ls := w.left[d.l : d.l+d.ll]
		rs := w.right[d.r : d.r+d.rl]
		gl := groupByKey(ls, rowV, w.groupsL[:0])
		gr := groupByKey(rs, rowW, w.groupsR[:0])
		w.groupsL, w.groupsR = gl, gr
		for _, a := range gl {
			for _, b := range gr {
				if a.key != b.key {
					continue
				}
				if a.hi > a.lo && b.hi > b.lo {
					out = append(out, bidomain{
						l: d.l + a.lo, r: d.r + b.lo, ll: a.hi - a.lo, rl: b.hi - b.lo,
						minL: minOf(ls[a.lo:a.hi]), adj: a.key != 0 || d.adj,
					})
				}
				break
			}
		}
	}
	return out
}

// group is a run s[lo:hi] of vertices sharing one matrix value.
type group[C cell] struct {
	key    C
	lo, hi int32
}

// groupByKey reorders s into runs of equal matrix value in row, the zero
// run first (possibly empty), and returns the runs. Few distinct values is
// the rule (directed: out, in, both), so it partitions value by value, and
// sorts what is left after a few rounds.
func groupByKey[C cell](s []int32, row []C, out []group[C]) []group[C] {
	k := 0
	for j, x := range s {
		if row[x] == 0 {
			s[j] = s[k]
			s[k] = x
			k++
		}
	}
	out = append(out, group[C]{0, 0, int32(k)})
	for round := 0; k < len(s); round++ {
		if round == 6 {
			rest := s[k:]
			sortByKey(rest, row)
			for a := 0; a < len(rest); {
				b := a + 1
				for b < len(rest) && row[rest[b]] == row[rest[a]] {
					b++
				}
				out = append(out, group[C]{row[rest[a]], int32(k + a), int32(k + b)})
				a = b
			}
			break
		}
		key := row[s[k]]
		lo := k
		for j := k; j < len(s); j++ {
			if x := s[j]; row[x] == key {
				s[j] = s[k]
				s[k] = x
				k++
			}
		}
		out = append(out, group[C]{key, int32(lo), int32(k)})
	}
	return out
}

// sortByKey sorts vertices by their matrix value in row.
func sortByKey[C cell](s []int32, row []C) {
	if len(s) > 24 {
		slices.SortFunc(s, func(a, b int32) int {
			switch ka, kb := row[a], row[b]; {
			case ka < kb:
				return -1
			case ka > kb:
				return 1
			}
			return 0
		})
		return
	}
	for i := 1; i < len(s); i++ {
		x := s[i]
		k := row[x]
		j := i
		for ; j > 0 && row[s[j-1]] > k; j-- {
			s[j] = s[j-1]
		}
		s[j] = x
	}
}

func insertionSort(s []int32) {
	if len(s) > 32 {
		slices.Sort(s)
		return
	}
	for i := 1; i < len(s); i++ {
		x := s[i]
		j := i
		for ; j > 0 && s[j-1] > x; j-- {
			s[j] = s[j-1]
		}
		s[j] = x
	}
}

func minOf(s []int32) int32 {
	m := int32(noVertex)
	for _, x := range s {
		m = min(m, x)
	}
	return m
}

// rebuild resets the worker to the root and follows path down to the node
// it names, returning that node's bidomains (in w.doms[0]); w.cur holds
// the node's matching afterwards. The paths the engine makes itself are
// always valid, so an error here is a bug.
func (w *worker[C]) rebuild(path []op) []bidomain {
	doms, err := w.follow(path)
	if err != nil {
		panic(err)
	}
	return doms
}

// follow is rebuild for paths that may come from outside (a cluster task):
// a step that names a vertex absent from the node's sets, or a candidate
// outside v's bidomain, is an error, not a crash.
func (w *worker[C]) follow(path []op) ([]bidomain, error) {
	p := w.p
	copy(w.left, p.left)
	copy(w.right, p.right)
	w.cur = w.cur[:0]
	w.path = append(w.path[:0], path...)
	doms := append(w.scratch[0][:0], p.doms...)
	for i := range w.lastImg {
		w.lastImg[i] = -1
	}
	flip := 1
	for k, o := range path {
		i := -1
		if o.v >= 0 && int(o.v) < p.n0 {
			i = w.findLeft(doms, o.v)
		}
		if i < 0 {
			return nil, fmt.Errorf("mcs: path step %d: vertex %d of the first graph is not free at that node", k, o.v)
		}
		d := &doms[i]
		if o.w >= 0 && !slices.Contains(w.right[d.r:d.r+d.rl], o.w) {
			return nil, fmt.Errorf("mcs: path step %d: vertex %d of the second graph is not a candidate for %d", k, o.w, o.v)
		}
		last := d.l + d.ll - 1
		for j := d.l; ; j++ {
			if w.left[j] == o.v {
				w.left[j], w.left[last] = w.left[last], o.v
				break
			}
		}
		d.ll--
		d.lm &^= 1 << (o.v & 63)
		if o.w < 0 {
			if c := w.twinClass(o.v); c >= 0 {
				// The pruned search leaves v's twins out with it (R2): those
				// after v (v is the smallest of its class still free there;
				// twins before it are matched, or come later in a path of
				// devicePath's, which leaves vertices out first).
				for j := d.l; j < d.l+d.ll; {
					if u := w.left[j]; p.twins.cls0[u] == c && u > o.v {
						last := d.l + d.ll - 1
						w.left[j], w.left[last] = w.left[last], u
						d.ll--
						d.lm &^= 1 << (u & 63)
						continue
					}
					j++
				}
			}
			if d.ll == 0 {
				doms[i] = doms[len(doms)-1]
				doms = doms[:len(doms)-1]
			} else {
				d.minL = minOf(w.left[d.l : d.l+d.ll])
			}
			continue
		}
		lastR := d.r + d.rl - 1
		for j := d.r; ; j++ {
			if w.right[j] == o.w {
				w.right[j], w.right[lastR] = w.right[lastR], o.w
				break
			}
		}
		d.rl--
		out := w.scratch[flip][:0]
		if p.multiway {
			out = w.filterMulti(doms, o.v, o.w, out)
		} else {
			w.splitLeft(doms, p.adj0[int(o.v)*p.n0:int(o.v)*p.n0+p.n0])
			out, _ = w.filterSimple(doms, o.v, o.w, out, noVertex)
		}
		w.scratch[flip] = out
		doms = out
		flip ^= 1
		w.cur = append(w.cur, pair{o.v, o.w})
		if c := w.twinClass(o.v); c >= 0 {
			// R1's floor: the largest image (the last one on the search's
			// own paths, where twins' images increase).
			w.lastImg[c] = max(w.lastImg[c], o.w)
		}
	}
	w.doms[0] = append(w.doms[0][:0], doms...)
	return w.doms[0], nil
}

// twinClass is v's twin class in the pruned search, −1 for none or when
// the search is not pruned.
func (w *worker[C]) twinClass(v int32) int32 {
	if !w.prune {
		return -1
	}
	return w.p.twins.cls0[v]
}

// findLeft returns the index of the bidomain whose left set holds v, or -1.
func (w *worker[C]) findLeft(doms []bidomain, v int32) int {
	for i := range doms {
		d := &doms[i]
		for _, x := range w.left[d.l : d.l+d.ll] {
			if x == v {
				return i
			}
		}
	}
	return -1
}
