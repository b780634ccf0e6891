package mcs

// The k-graph search (many.go) in the pruned tree. Of PruneRR's rules only
// R5 carries: its argument is the node's bound alone (once the incumbent
// reaches it, no sibling and no unmatched branch can beat it), which the
// k-graph search has as it is. The twin rules (R1, R2, B1, R4) would need
// twin classes common to the k graphs' classes, R3 a split test over k
// sets, and rr2's B2 and learned order the pair engine's bidomains: they
// are off, each with its reason (manyPrune).

// mutManyR5Early, for TestManyR5 only: R5 ends a node one below its
// bound, which loses optima.
const mutManyR5Early mutation = 1 << 6

// manyPrune is the report of a k-graph search in mode.
func manyPrune(mode Pruning) PruneReport {
	r := PruneReport{Mode: mode}
	for _, rule := range rulesOf(mode) {
		why := ""
		switch rule {
		case RuleR5:
			r.Rules = append(r.Rules, rule)
			continue
		case RuleR1, RuleR2, RuleB1, RuleR4:
			why = "the k-graph search: twin classes would have to be common to the k graphs"
		case RuleR3:
			why = "the k-graph search: the same-split test would be over k sets"
		default:
			why = "the k-graph search: the pair engine's only"
		}
		r.Off = append(r.Off, RuleOff{rule, why})
	}
	return r
}

// ended reports whether R5 ends the node at depth: in a pruned mode, the
// incumbent has reached the node's bound (with ties still counting while
// several maxima are collected, passed it). It marks the frame, so that
// the node's other candidates and its unmatched branch are skipped.
func (w *manyWorker[C]) ended(depth int) bool {
	f := &w.frames[depth]
	if f.ended {
		return true
	}
	if w.p.opts.Prune == PruneNone {
		return false
	}
	best := w.sh.best.Load()
	if w.p.mutate&mutManyR5Early != 0 {
		best++
	}
	if best > f.bound || w.sh.full.Load() && best >= f.bound {
		f.ended = true
	}
	return f.ended
}
