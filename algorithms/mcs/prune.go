package mcs

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"time"
)

// Pruning chooses the search tree of the McSplit engines: one cut by
// RRSplit's reductions (Yu, Wang, Long, Lakshmanan, Cheng, SIGMOD 2025),
// the default, or the original McSplit's. docs/design/mcs.md states each
// rule and why it loses no optimum.
type Pruning int

const (
	// PruneRR (the zero value: every engine's default) adds RRSplit's
	// reductions: twin classes of the first graph
	// matched in index order (R1) and left out together (R2), the twin
	// bound (B1), a child whose split equals its parent's ends the node
	// (R3), twins of the second graph tried once per node (R4), a node
	// ends as soon as the incumbent reaches its bound (R5). R6 (a child
	// dominated by a searched sibling is skipped) is written and tested
	// but off: on MIVIA it costs more than it saves.
	PruneRR Pruning = iota
	// PruneNone explores the original McSplit's tree, node for node (node
	// counts compare with the original program's).
	PruneNone
	// PruneRR2 is PruneRR with the edge-count bound B2 (bound.go) and
	// learned branching (learn.go): same sizes, smaller proof trees on
	// large pairs. The CPU engines only: the device kernel, hybrid and
	// portfolio search PruneRR's tree for it (Result.Prune says so).
	PruneRR2
)

// The rules of PruneRR as Result.Prune names them (docs/design/mcs.md).
const (
	RuleR1 = "R1" // twins of the first graph matched in index order
	RuleR2 = "R2" // twins of the first graph left out together
	RuleB1 = "B1" // the twin bound
	RuleR3 = "R3" // a child splitting as its parent ends the node
	RuleR4 = "R4" // one candidate per twin class of the second graph
	RuleR5 = "R5" // a node ends once the incumbent reaches its bound
)

// RRRules are PruneRR's rules, in the order Result.Prune lists them.
var RRRules = []string{RuleR1, RuleR2, RuleB1, RuleR3, RuleR4, RuleR5}

// What PruneRR2 adds (bound.go, learn.go).
const (
	RuleB2      = "B2"      // the edge-count bound
	RuleLearned = "learned" // learned branching
)

// RR2Rules are PruneRR2's rules: PruneRR's, then B2 and learned branching.
var RR2Rules = []string{RuleR1, RuleR2, RuleB1, RuleR3, RuleR4, RuleR5, RuleB2, RuleLearned}

// rulesOf is the rules of mode (none for PruneNone).
func rulesOf(mode Pruning) []string {
	switch mode {
	case PruneRR:
		return RRRules
	case PruneRR2:
		return RR2Rules
	}
	return nil
}

// PruneReport says which rules a search ran: Rules ran, Off were switched
// off for this run (a rule that cannot be used with an option or engine),
// each with the reason.
type PruneReport struct {
	Mode  Pruning
	Rules []string
	Off   []RuleOff
}

// RuleOff is a rule switched off for one run, and why.
type RuleOff struct {
	Rule, Why string
}

// pruneReport is the report of a search in mode with every rule on
// except those off names (each with why).
func pruneReport(mode Pruning, why string, off ...string) PruneReport {
	r := PruneReport{Mode: mode}
	for _, rule := range rulesOf(mode) {
		if slices.Contains(off, rule) {
			r.Off = append(r.Off, RuleOff{rule, why})
		} else {
			r.Rules = append(r.Rules, rule)
		}
	}
	return r
}

// pruneUsed is the report of a two-graph Solve with opts that engine ran.
// Every engine runs every rule, except: restarts search the original tree
// (their recorded children are its nodes), R5 never fires with a fixed
// goal (the incumbent is never raised to a node's bound), and rr2's
// additions run on the CPU engines only.
func pruneUsed(opts Options, engine Engine) PruneReport {
	switch {
	case opts.Restarts && (engine == EngineCPU || engine == ""):
		return allOff(opts.Prune, "restarts record the root's children as nodes of the original tree")
	case opts.Goal > 0:
		return pruneReport(opts.Prune, "a fixed goal never raises the incumbent to a node's bound", RuleR5)
	}
	r := pruneReport(opts.Prune, "")
	if opts.Prune == PruneRR2 && engine != EngineCPU && engine != "" {
		r = pruneReport(opts.Prune, "the device kernel, hybrid and portfolio search rr's tree", RuleB2, RuleLearned)
	}
	return r
}

// SubtreePrune is the report of a search made of subtrees (the cluster's
// tasks, Prepared.SolveSubtree): their paths name nodes of the tree
// opts.Prune chooses (subtree_prune.go), so every rule runs, except
// rr2's additions on a device (DeviceSubtrees searches rr's tree).
func SubtreePrune(opts Options) PruneReport {
	if opts.Prune == PruneRR2 {
		return pruneReport(opts.Prune, "CPU workers only: a device worker's tasks search rr's tree", RuleB2, RuleLearned)
	}
	return pruneReport(opts.Prune, "")
}

// allOff is the report of a search in mode whose engine has no pruned
// tree: every rule off, for why.
func allOff(mode Pruning, why string) PruneReport {
	return pruneReport(mode, why, rulesOf(mode)...)
}

func (p Pruning) String() string {
	switch p {
	case PruneNone:
		return "none"
	case PruneRR:
		return "rr"
	case PruneRR2:
		return "rr2"
	}
	return fmt.Sprintf("Pruning(%d)", int(p))
}

// ParsePruning reads "rr" (or "", the default), "none" (or "faithful")
// and "rr2".
func ParsePruning(s string) (Pruning, error) {
	switch s {
	case "none", "faithful":
		return PruneNone, nil
	case "rr", "":
		return PruneRR, nil
	case "rr2":
		return PruneRR2, nil
	}
	return 0, fmt.Errorf("unknown --prune value %q: want rr (the default: RRSplit's reductions), none (the original McSplit's tree) or rr2 (rr with the edge-count bound and learned branching)", s)
}

// rrOff turns rules of the pruned search off, for measuring what each
// one does (TestMeasurePruneRules): twins of the first graph (R1, R2, B1),
// of the second (R4), R3, R5. problem.withR6 turns R6 on.
type rrOff uint8

const (
	offTwins0 rrOff = 1 << iota
	offTwins1
	offR3
	offR5
)

// twins holds the twin classes of both graphs for the pruned search.
// Two vertices are twins when swapping them is an automorphism of their
// graph that also keeps vertex keys: same key, same matrix cells to and
// from every third vertex, the same loop cell, and the cell between them
// the same both ways. Twins start in the same root bidomain and, as long
// as both are free, no match can separate them (each matched vertex sees
// them alike).
type twins struct {
	cls0, cls1 []int32 // class of each vertex (new numbering), −1 if it has no twin
	n0, n1     int     // classes of each graph
}

// findTwins computes the twin classes of both graphs of p.
func (p *problem[C]) findTwins() twins {
	key0 := make([]int32, p.n0)
	key1 := make([]int32, p.n1)
	for i := range key0 {
		key0[i] = -1
	}
	for i := range key1 {
		key1[i] = -1
	}
	for k, d := range p.doms {
		for _, v := range p.left[d.l : d.l+d.ll] {
			key0[v] = int32(k)
		}
		for _, x := range p.right[d.r : d.r+d.rl] {
			key1[x] = int32(k)
		}
	}
	var t twins
	t.cls0, t.n0 = twinClasses(p.adj0, p.n0, key0)
	t.cls1, t.n1 = twinClasses(p.adj1, p.n1, key1)
	return t
}

// twinClasses returns the twin class of each vertex of the n×n matrix adj
// (−1 for none, and for vertices with key −1, which no bidomain holds)
// and the number of classes. Candidates are grouped by a hash of their
// neighbourhood, then checked cell by cell against the class's first
// member: the twin relation is transitive (docs/design/mcs.md), so one
// check per vertex suffices.
func twinClasses[C cell](adj []C, n int, key []int32) ([]int32, int) {
	mix := func(a int, c C) uint64 {
		z := uint64(a)<<32 ^ uint64(c) + 0x9e3779b97f4a7c15
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	type bucketKey struct {
		key  int32
		hash uint64
		cell C // 0: false twins (not adjacent); else the cell between true twins
	}
	buckets := map[bucketKey][]int32{}
	var order []bucketKey
	add := func(k bucketKey, v int) {
		if _, ok := buckets[k]; !ok {
			order = append(order, k)
		}
		buckets[k] = append(buckets[k], int32(v))
	}
	var vals []C
	for v := 0; v < n; v++ {
		if key[v] < 0 {
			continue
		}
		row := adj[v*n : v*n+n]
		var open uint64
		vals = vals[:0]
		for a, c := range row {
			if a != v && c != 0 {
				open += mix(a, c)
				if !slices.Contains(vals, c) {
					vals = append(vals, c)
				}
			}
		}
		// False twins u, v: equal open neighbourhoods. True twins with cell
		// c between them: open(u) − h(v,c) = open(v) − h(u,c), so
		// open(u) + h(u,c) = open(v) + h(v,c).
		add(bucketKey{key[v], open, 0}, v)
		for _, c := range vals {
			add(bucketKey{key[v], open + mix(v, c), c}, v)
		}
	}
	cls := make([]int32, n)
	for i := range cls {
		cls[i] = -1
	}
	classes := int32(0)
	for _, k := range order {
		b := buckets[k]
		for i, u := range b {
			if cls[u] >= 0 || i == len(b)-1 {
				continue
			}
			c := int32(-1)
			for _, v := range b[i+1:] {
				if cls[v] < 0 && isTwin(adj, n, int(u), int(v)) {
					if c < 0 {
						c = classes
						classes++
						cls[u] = c
					}
					cls[v] = c
				}
			}
		}
	}
	return cls, int(classes)
}

// isTwin reports whether swapping u and v is an automorphism of adj.
func isTwin[C cell](adj []C, n, u, v int) bool {
	if adj[u*n+u] != adj[v*n+v] || adj[u*n+v] != adj[v*n+u] {
		return false
	}
	ru, rv := adj[u*n:u*n+n], adj[v*n:v*n+n]
	for a := 0; a < n; a++ {
		if a == u || a == v {
			continue
		}
		if ru[a] != rv[a] || adj[a*n+u] != adj[a*n+v] {
			return false
		}
	}
	return true
}

// runPruned is run, with the pruned search when prune is set.
func (p *problem[C]) runPruned(ctx context.Context, threads int, start time.Time, prune bool) Result {
	if prune {
		p.enablePrune()
		if p.opts.Prune == PruneRR2 {
			p.useRR2() // bound.go
		}
	}
	return p.run(ctx, threads, start)
}

// enablePrune makes p's workers search the pruned tree: it finds the twin
// classes (less those rrOff turns off).
func (p *problem[C]) enablePrune() {
	p.prune = true
	p.twins = p.findTwins()
	if p.rrOff&offTwins0 != 0 {
		for i := range p.twins.cls0 {
			p.twins.cls0[i] = -1
		}
		p.twins.n0 = 0
	}
	if p.rrOff&offTwins1 != 0 {
		p.twins.n1 = 0
	}
}

// explore runs the worker's search from the node whose bidomains are doms.
func (w *worker[C]) explore(doms []bidomain) {
	w.search(0, doms)
}

// twinBound is B1: v's twins in its bidomain bd (class c) can take only
// the right vertices above floor, so when they outnumber those the node's
// bound drops. It returns the new bound and whether B1 applied.
func (w *worker[C]) twinBound(bd *bidomain, c, floor, bound int32) (int32, bool) {
	cls0 := w.p.twins.cls0
	cl, cr := int32(0), int32(0)
	for _, u := range w.left[bd.l : bd.l+bd.ll] {
		if cls0[u] == c {
			cl++
		}
	}
	for _, x := range w.right[bd.r : bd.r+bd.rl] {
		if x > floor {
			cr++
		}
	}
	if cl <= cr {
		return bound, false
	}
	return bound + min(bd.rl, bd.ll-cl+cr) - min(bd.ll, bd.rl), true
}

// candidates lists the right vertices v (twin class c, −1 for none) may
// take at this node, increasing: above floor (R1), one per twin class of
// the second graph (R4), in learned order with learnW. It keeps them in
// w.ws[depth].
func (w *worker[C]) candidates(depth int, bd *bidomain, c, floor int32) []int32 {
	p := w.p
	ws := w.sortedAbove(w.ws[depth][:0], w.right[bd.r:bd.r+bd.rl], floor)
	if p.twins.n1 > 0 {
		cls1 := p.twins.cls1
		w.stamp++
		k := 0
		for _, x := range ws {
			if cx := cls1[x]; cx >= 0 {
				if w.seen[cx] == w.stamp {
					continue
				}
				w.seen[cx] = w.stamp
			}
			ws[k] = x
			k++
		}
		ws = ws[:k]
	}
	if p.learn&learnW != 0 {
		w.learnOrder(ws, c) // learn.go
	}
	w.ws[depth] = ws
	return ws
}

// sortedAbove appends the vertices of set above floor to ws in
// increasing order: through a bitset of the second graph's vertices
// (w.mark, left empty again), O(|set| + n/64) instead of a sort.
func (w *worker[C]) sortedAbove(ws, set []int32, floor int32) []int32 {
	mark := w.mark
	for _, x := range set {
		if x > floor {
			mark[x>>6] |= 1 << (x & 63)
		}
	}
	for i, m := range mark {
		for ; m != 0; m &= m - 1 {
			ws = append(ws, int32(i<<6|bits.TrailingZeros64(m)))
		}
		mark[i] = 0
	}
	return ws
}

// dominated reports whether the child v→y, whose bidomains are out, is
// dominated by an explored sibling v→x (R6): x and y have the same cell to
// every right vertex of out other than x, and the same cell between them
// both ways. Every solution of the child then becomes one of the sibling's
// with x and y swapped (docs/design/mcs.md). A check stops at the first
// differing cell, so on graphs without such pairs it costs a few reads.
func (w *worker[C]) dominated(out []bidomain, y int32, explored []int32) bool {
	n1 := w.p.n1
	adj1 := w.p.adj1
	rowY := adj1[int(y)*n1 : int(y)*n1+n1]
	for _, x := range explored {
		rowX := adj1[int(x)*n1 : int(x)*n1+n1]
		if rowX[y] != rowY[x] {
			continue
		}
		same := true
		for i := 0; i < len(out) && same; i++ {
			for _, r := range w.right[out[i].r : out[i].r+out[i].rl] {
				if rowX[r] != rowY[r] && r != x {
					same = false
					break
				}
			}
		}
		if same {
			return true
		}
	}
	return false
}

// split sums up the bidomains with both sides non-empty: their number
// and their left and right sizes.
type split struct{ n, l, r int32 }

// r3Ahead decides R3 for the node's children before the first is
// explored, in a search that gives work away: the siblings after the
// child that ends the node (and the branch leaving v unmatched) must never
// be handed to another worker, which would search them although the
// sequential search cuts them. Then the tree, and with a goal its node
// count, is the same whatever the number of workers (the device kernel
// decides R3 for all children at once too). It sets f.end past that child
// and marks the unmatched branch as skipped.
func (w *worker[C]) r3Ahead(doms []bidomain, bd *bidomain, v int32, keep split, depth int, f *frame) {
	p := w.p
	if !p.multiway {
		// A child keeps every bidomain whole only if v does on the left
		// (splitLeft's parts): one split left set makes two children of
		// it, or loses vertices. Cheap, and it rules R3 out at most nodes.
		for i := range doms {
			if d := &doms[i]; d.ll > 0 && d.rl > 0 && d.la != 0 && d.la != d.ll {
				return
			}
		}
	}
	for i := f.next; i < f.end; i++ {
		if keep.same(w.child(doms, bd, v, f.ws[i], depth)) {
			f.end = i + 1
			f.skipGiven = true
			return
		}
	}
}

// wholeSplit is the split a child's bidomains must have for R3: every
// bidomain of doms with both sides non-empty kept whole.
func wholeSplit(doms []bidomain) split {
	var s split
	for i := range doms {
		if d := &doms[i]; d.ll > 0 && d.rl > 0 {
			s.n++
			s.l += d.ll
			s.r += d.rl
		}
	}
	return s
}

// same reports whether the child bidomains out, made from the node's by a
// pair v→x, keep every bidomain of the node with both sides non-empty
// whole: all of its left set on one side of v and all of its right set on
// the same side of x. Each such bidomain yields at most one child
// bidomain holding all of it, so the number and the sizes decide it.
func (s split) same(out []bidomain) bool {
	if int32(len(out)) != s.n {
		return false
	}
	l, r := s.l, s.r
	for i := range out {
		l -= out[i].ll
		r -= out[i].rl
	}
	return l == 0 && r == 0
}
