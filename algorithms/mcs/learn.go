package mcs

// Learned branching for the pruned search (docs/design/mcs.md, "Learned
// branching"): after McSplit+RL (Liu, Li, Zhou, Wang; AAAI 2020) and
// McSplit+LL (Zhou, Liu, Li, Wang, Mouhoub, Yin; IJCAI 2022), written from
// the papers' ideas. Every vertex of both graphs carries a score: the bound
// reductions its matches caused so far. At a node, v is the free vertex of
// the chosen bidomain with the highest score (ties: the degree order), and
// v's candidates are tried by decreasing score. A match that shrinks the
// bound a lot ends its subtree early (the bound meets the incumbent
// sooner); vertices that did so before are tried first, and the tree gets
// smaller. Branching order never changes which solutions a node covers,
// so the search stays exact; the two places where the pruned search's
// rules depend on order are kept (below).

// learnMode turns the learned branching on: learnV picks v by score,
// learnW orders v's candidates by score.
type learnMode uint8

const (
	learnV learnMode = 1 << iota
	learnW
)

// learnDecay: once a score passes it, every score of that graph is halved,
// so what was learned in the last part of the search outweighs the first
// (McSplit+LL's short memory: the tree's regions differ).
const learnDecay = 1 << 16

// learnPick returns the vertex of bd's left set to branch on: the highest
// score, ties to the smallest index (the degree order). R1 and R2 need a
// twin class branched on in index order (v the smallest free member of its
// class, which is then always in bd), so a pick with twins is replaced by
// its class's smallest member in bd.
func (w *worker[C]) learnPick(bd *bidomain) int32 {
	left := w.left[bd.l : bd.l+bd.ll]
	v := bd.minL
	best := w.score0[v]
	for _, u := range left {
		if s := w.score0[u]; s > best || s == best && u < v {
			v, best = u, s
		}
	}
	if c := w.p.twins.cls0[v]; c >= 0 {
		for _, u := range left {
			if u < v && w.p.twins.cls0[u] == c {
				v = u
			}
		}
	}
	return v
}

// learnOrder sorts the candidates ws (increasing, one per twin class of
// the second graph) by decreasing score, stable. Only for a v without
// twins (c, v's class, < 0): R3's safety argument for a v with twins uses
// the increasing order of the candidates (a twin's image after the
// child's is above it).
func (w *worker[C]) learnOrder(ws []int32, c int32) {
	if c >= 0 && w.p.mutate&mutOrderTwins == 0 {
		return
	}
	s := w.score1
	for i := 1; i < len(ws); i++ {
		x := ws[i]
		j := i
		for ; j > 0 && s[ws[j-1]] < s[x]; j-- {
			ws[j] = ws[j-1]
		}
		ws[j] = x
	}
}

// childBound is the bound of the node's child whose bidomains are out.
func (w *worker[C]) childBound(out []bidomain) int32 {
	child := int32(len(w.cur)) + 1
	for i := range out {
		child += min(out[i].ll, out[i].rl)
	}
	return child
}

// learnReward credits v and x with the bound reduction of the child v→x:
// parent is the node's bound (its matching plus the bidomain sum), child
// the child's.
func (w *worker[C]) learnReward(parent, child int32, v, x int32) {
	r := uint32(parent - child)
	if w.score0[v] += r; w.score0[v] > learnDecay {
		halve(w.score0)
	}
	if w.score1[x] += r; w.score1[x] > learnDecay {
		halve(w.score1)
	}
}

func halve(s []uint32) {
	for i := range s {
		s[i] >>= 1
	}
}
