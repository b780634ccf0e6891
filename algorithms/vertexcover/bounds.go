package vertexcover

import "math/bits"

// ccScratch is the reusable memory of the clique cover bound.
type ccScratch struct {
	order   []int32
	count   []int32 // per degree, for the counting sort
	clique  []int32 // per vertex: its clique, -1 when unassigned
	size    []int32 // per clique
	hits    []int32 // per clique: assigned neighbours of the current vertex
	touched []int32
	mate    []int32
	k       int // cliques of the last cliqueCover
	// sum: per clique, the sum of its members' indices (kept with
	// c.clique and c.size), so that a two-vertex clique's other member
	// is sum − the one known: no scan of its member row (partner). On
	// huge cliques the sum may wrap; the arithmetic is modular, so a
	// two-vertex clique's is still exact.
	sum []int32

	// absorb: the members of the cliques its search has reached
	augSeen []uint64
	pairNbs []int32 // freeClique: a stack of its neighbours in two-vertex cliques

	// unit propagation (upBound)
	start, members []int32
	rem            []int32
	used, inSet    []bool
	// avail: bit u is set while u is live, not in a clique already used
	// and not removed by the current propagation (then on the trail).
	// One bit test per adjacency entry instead of the alive, removed and
	// used-clique tests; on bitset states a unit reads its row masked by
	// avail instead of its adjacency list (was one byte per vertex,
	// cleared over all n at every call).
	avail   []uint64
	by      []int32
	trail   []int32
	units   []int32 // clique, vertex pairs
	singles []int32
	set     []int32
	union   []int32
	// forced: vertices every cover below the incumbent holds, found by
	// upBound's failed literals one set short of pruning; prunePart
	// clears it, search takes them (on vc-exact_091 with one thread and
	// no local search 170 k → 117 k nodes, 3.9 → 3.15 s)
	forced []int32
	// failed: the vertices whose failed literal conflicted in the last
	// upBound (forced or not); search branches on one of them when no
	// packing constraint names a vertex.
	failed []int32
	// trials: upBound's cliques for failed literals, in trial order
	trials []int32
	// holds[v] == holdStamp: v's failed literal is known not to fail in
	// the current upBound (it was implied by one that did not)
	holds     []uint32
	holdStamp uint32
	// resolved: upBound's max-resolution, vertex and new clique pairs
	resolved []int32
	// mutant breaks max-resolution for TestMaxResolutionMutation (never
	// set otherwise): mutantNoCliqueTest, mutantNoJoin.
	mutant int
	// clause: per vertex, its soft clause in upBound: its clique, or the
	// union of cliques that max-resolution joined (csize, joined: per
	// clause)
	clause []int32
	csize  []int32
	joined []bool
	// trialRun: upBound's copy of trials for its failed-literal loop
	trialRun []int32
	// link: per clause, the next clause whose members a join appended to
	// it (-1: none), so that a join needs no new layout
	link []int32
}

func (c *ccScratch) init(n int) {
	if len(c.clique) < n {
		c.clique = make([]int32, n)
		c.size = make([]int32, n)
		c.sum = make([]int32, n)
		c.hits = make([]int32, n)
		c.mate = make([]int32, n)
		for i := range c.clique {
			c.clique[i] = -1
			c.mate[i] = -1
		}
	}
}

// lowerBound is a lower bound on the cover the live graph still needs: the
// larger of a greedy clique cover bound (a clique of size q needs q−1 cover
// vertices, so live − #cliques) and a greedy maximal matching.
func (s *state) lowerBound() int {
	s.degreeOrder()
	cc := s.cliqueCoverBound(s.cc.order)
	if mb := s.matchingBound(); mb > cc {
		return mb
	}
	return cc
}

// prune reports whether the node cannot reach a cover smaller than best:
// the clique cover bound first, the matching bound only when that fails.
func (s *state) prune(best int64) bool {
	return s.prunePart(best, nil, nil)
}

// prunePart is prune on a clique cover that starts, when inherit is set,
// from the parent node's (inherit[v] the clique of v, inherit[n] the
// number of clique indices) instead of a fresh greedy one, and that is
// saved, when the node is not pruned, in save for its children (nil:
// neither). The parent's cover minus the vertices dead since is a clique
// cover of the child: a child only removes vertices and adds edges
// (folds, funnels), and a fold's merged vertex has lost its old clique
// mates (its two neighbours) by then. The singleton merges improve the
// cover from node to node, so it ends with fewer cliques than a fresh
// greedy cover merged once would (docs/results/vertexcover.md).
func (s *state) prunePart(best int64, inherit, save []int32) bool {
	s.cc.forced = s.cc.forced[:0]
	s.cc.failed = s.cc.failed[:0]
	s.degreeOrder()
	order := s.cc.order
	lb := -1
	if inherit != nil {
		lb = s.inheritCover(order, inherit)
	}
	if lb < 0 {
		lb = s.cliqueCover(order)
	}
	if int64(s.cover+lb) >= best {
		s.clearCliques(order)
		return true
	}
	if s.bits != nil {
		// Fewer cliques where a singleton can be absorbed (merge.go).
		lb += s.bitMergeSingles(order)
		if int64(s.cover+lb) >= best {
			s.clearCliques(order)
			return true
		}
	}
	if need := int(best) - s.cover - lb; need <= maxUPNeed {
		// Unit propagation over the cliques (MaxSAT-style reasoning, as
		// in Li and Quan's MaxCLQ): each disjoint set of cliques that no
		// independent set can hit all of raises the bound by one.
		if s.upBound(need) >= need {
			s.clearCliques(order)
			return true
		}
	}
	if save != nil {
		// The node branches: the two-vertex cliques it can dissolve are
		// worth it for the children, which inherit the cover (run before
		// unit propagation at every node it cost more than it saved).
		// When unit propagation forced vertices the caller takes them
		// and bounds again from this cover: dissolve pairs then.
		if len(s.cc.forced) == 0 && int(best)-s.cover-lb >= minPairNeed {
			lb += s.bitMergePairs(order)
			if int64(s.cover+lb) >= best {
				s.clearCliques(order)
				return true
			}
		}
		for i := range save[:s.n] {
			save[i] = -1
		}
		for _, v := range order {
			save[v] = s.cc.clique[v]
		}
		save[s.n] = int32(s.cc.k)
	}
	s.clearCliques(order)
	// A matching has at most nAlive/2 edges: when even that cannot
	// prune, skip the matching.
	if int64(s.cover+s.nAlive/2) < best {
		return false
	}
	return int64(s.cover+s.matchingBound()) >= best
}

// minPairNeed: a branching node dissolves two-vertex cliques for its
// children only when its bound is at least this many units short of
// pruning. Closer, the children mostly close by unit propagation anyway.
// Against every branching node, 1 thread, no local search: vc-exact_091
// 93.8 k → 94.0 k nodes, 2.23–2.28 → 2.18–2.20 s; _043 0.53 → 0.52 s;
// _083 the same. (Only 6 units short or more: _091 95.3 k nodes, no
// faster; the pace-nodes branch found the reverse, pairs only close to
// pruning, much worse.)
const minPairNeed = 5

// maxUPNeed: unit propagation is tried only when this few extra units of
// bound would prune the node. 5, not 8: on the PACE kernels the runs
// with 6–8 units missing neither pruned nor forced (0–1% more nodes) and
// cost 6–8% of the time with 2 threads (vc-exact_091 1.38 → 1.29 s); 4
// left 3–17% more nodes.
const maxUPNeed = 5

// rootLowerBound also tries the vertices in index order: generators such as
// BHOSLIB's number each planted clique consecutively, which greedy in index
// order recovers exactly.
func (s *state) rootLowerBound() int {
	lb := s.lowerBound()
	// The degree-order clique cover raised by unit propagation.
	s.degreeOrder()
	up := s.cliqueCover(s.cc.order)
	up += s.upBound(1 << 30)
	s.clearCliques(s.cc.order)
	lb = max(lb, up)
	idx := make([]int32, 0, s.nAlive)
	for v := 0; v < s.n; v++ {
		if s.alive[v] {
			idx = append(idx, int32(v))
		}
	}
	if b := s.cliqueCoverBound(idx); b > lb {
		lb = b
	}
	return lb
}

// degreeOrder fills cc.order with the live vertices by ascending degree
// (counting sort; ties by index).
func (s *state) degreeOrder() {
	c := &s.cc
	c.init(s.n)
	if s.bits != nil {
		s.bitDegreeOrder()
		return
	}
	maxd := 0
	for v := 0; v < s.n; v++ {
		if s.alive[v] && int(s.deg[v]) > maxd {
			maxd = int(s.deg[v])
		}
	}
	if cap(c.count) < maxd+2 {
		c.count = make([]int32, maxd+2)
	}
	cnt := c.count[:maxd+2]
	clear(cnt)
	for v := 0; v < s.n; v++ {
		if s.alive[v] {
			cnt[s.deg[v]+1]++
		}
	}
	for d := 1; d < len(cnt); d++ {
		cnt[d] += cnt[d-1]
	}
	if cap(c.order) < s.nAlive {
		c.order = make([]int32, s.nAlive)
	}
	c.order = c.order[:s.nAlive]
	for v := 0; v < s.n; v++ {
		if s.alive[v] {
			c.order[cnt[s.deg[v]]] = int32(v)
			cnt[s.deg[v]]++
		}
	}
}

// cliqueCoverBound partitions the live vertices greedily into cliques, in
// the given order, each vertex joining the largest clique all of whose
// members it sees, and returns live − #cliques.
func (s *state) cliqueCoverBound(order []int32) int {
	b := s.cliqueCover(order)
	s.clearCliques(order)
	return b
}

// clearCliques undoes cliqueCover's assignment.
func (s *state) clearCliques(order []int32) {
	for _, v := range order {
		s.cc.clique[v] = -1
	}
}

// cliqueCover is cliqueCoverBound leaving the assignment in cc.clique and
// the clique count in cc.k (cleared by clearCliques).
func (s *state) cliqueCover(order []int32) int {
	c := &s.cc
	c.init(s.n)
	if s.bits != nil {
		return s.bitCliqueCover(order)
	}
	cliques := int32(0)
	for _, v := range order {
		c.touched = c.touched[:0]
		for _, u := range s.adj[v] {
			if !s.alive[u] {
				continue
			}
			if q := c.clique[u]; q >= 0 {
				if c.hits[q] == 0 {
					c.touched = append(c.touched, q)
				}
				c.hits[q]++
			}
		}
		best, bs := int32(-1), int32(0)
		for _, q := range c.touched {
			if c.hits[q] == c.size[q] && c.size[q] > bs {
				best, bs = q, c.size[q]
			}
			c.hits[q] = 0
		}
		if best < 0 {
			best = cliques
			c.size[best] = 0
			c.sum[best] = 0
			cliques++
		}
		c.clique[v] = best
		c.size[best]++
		c.sum[best] += v
	}
	c.k = int(cliques)
	return len(order) - int(cliques)
}

// matchingBound is the size of a greedy maximal matching, low degrees
// first (every matched edge needs its own cover vertex). It expects
// cc.order to hold the degree order.
func (s *state) matchingBound() int {
	c := &s.cc
	size := 0
	for _, v := range c.order {
		if c.mate[v] >= 0 {
			continue
		}
		best, bd := int32(-1), int32(1<<30)
		for _, u := range s.adj[v] {
			if s.alive[u] && c.mate[u] < 0 && s.deg[u] < bd {
				best, bd = u, s.deg[u]
			}
		}
		if best >= 0 {
			c.mate[v], c.mate[best] = best, v
			size++
		}
	}
	for _, v := range c.order {
		c.mate[v] = -1
	}
	return size
}

// upBound looks for up to need disjoint inconsistent sets of cliques in
// the clique cover left by cliqueCover: sets no independent set can take a
// vertex from each of. Each lowers the independent set bound, so raises
// the cover bound, by one. A set is found by unit propagation: a clique
// with one candidate left must give that vertex, which removes its
// neighbours from the other cliques; a clique left empty is a conflict,
// and the cliques on its chain of reasons form the set. Beyond the cliques
// that are units from the start, each clique of up to
// maxFailedLiteralClique vertices is tried vertex by vertex (failed
// literals): if every choice conflicts, the clique with all the reasons is
// a set. It reads the cover that cliqueCover(cc.order) left (cc.clique and
// cc.size, which the merges keep).
//
// A set found is not used up but max-resolved (resolve): regrouped into
// one clique less when it can be (cc.clique changes, and stays a clique
// cover), else its clauses joined two by two; either way the bound is
// one more and the set's vertices stay in the propagation. The cliques
// are then soft clauses in MaxSAT terms, and "disjoint sets" below means
// sets of the clauses as they are when each is found.
//
// A failed literal found one set short of need (found = need−1) forces
// its vertex into the cover even when the other members of its clique do
// not fail: an independent set holding it misses a clause of its
// conflict and costs one for each set found, so it is too small
// to beat the incumbent (MaxCLQ's "the vertices whose addition fails are
// not branched on", for covers). Those go to cc.forced; then every member
// of the clique is tried, not only up to the first that does not fail.
func (s *state) upBound(need int) int {
	c := &s.cc
	k := c.k
	if cap(c.start) < k+1 {
		n := max(k+1, s.n+1)
		c.start = make([]int32, n)
		c.rem = make([]int32, n)
		c.used = make([]bool, n)
		c.inSet = make([]bool, n)
	}
	words := (s.n + 63) / 64
	if len(c.by) < s.n {
		c.by = make([]int32, s.n)
		c.members = make([]int32, s.n)
	}
	if len(c.avail) < words {
		c.avail = make([]uint64, words)
	}
	// avail: the live vertices not removed (by the current propagation,
	// or as members of a clique already used). A bitset, not a byte per
	// vertex: it is set up by a copy of the live bitset, and a unit's
	// propagation reads its row masked by it.
	avail := c.avail[:words]
	b := s.bits
	if b != nil {
		// order holds every live vertex
		copy(avail, b.alive)
	} else {
		clear(avail)
		for _, v := range c.order {
			avail[v>>6] |= 1 << (uint(v) & 63)
		}
	}
	start, rem, used := c.start[:k+1], c.rem[:k], c.used[:k]
	clear(used)
	if len(c.clause) < s.n {
		c.clause = make([]int32, s.n)
	}
	if len(c.csize) < k {
		c.csize = make([]int32, max(k, s.n))
		c.joined = make([]bool, max(k, s.n))
	}
	if len(c.link) < len(c.csize) {
		c.link = make([]int32, len(c.csize))
	}
	clause, csize, joined, link := c.clause, c.csize[:k], c.joined[:k], c.link[:k]
	clear(joined)
	for _, v := range c.order {
		clause[v] = c.clique[v]
	}
	members := c.members
	if cap(c.trials) < k {
		c.trials = make([]int32, 0, max(k, s.n+1))
	}
	var trials []int32
	// regrouped: max-resolution moved vertices between cliques since the
	// failed literals' loop last looked.
	regrouped := false
	// layout lays the clauses out for the propagation; it runs again
	// after a regroup (a join links its clauses instead: link).
	layout := func() {
		// Clique q's members go to members[start[q]:start[q+1]] in
		// order's order; c.size holds the clique sizes (cliqueCover,
		// inheritCover and the merges keep it). Cliques of one vertex
		// are the units every propagation starts from.
		c.singles = c.singles[:0]
		for q := range link {
			link[q] = -1
		}
		clear(csize)
		for _, v := range c.order {
			csize[clause[v]]++
		}
		start[0] = 0
		for q := int32(0); q < int32(k); q++ {
			start[q+1] = start[q] + csize[q]
			rem[q] = start[q+1] // the fill cursor, from the end
			if csize[q] == 1 {
				c.singles = append(c.singles, q)
			}
		}
		// One pass backwards over order buckets the vertices and lists the
		// cliques for failed literals. These are tried clique by clique in
		// descending order of the smallest degree in the clique (a clique
		// joins the list when the reverse degree order reaches its last
		// member: when its cursor reaches its start), not in index order:
		// high-degree literals remove more and conflict more often, and they
		// are the better branching vertices (search). 1 thread, no local
		// search: vc-exact_091 105.5 k → 97.4 k nodes, _083 63.0 k → 58.0 k,
		// _043 26.7 k → 23.9 k, about 7% faster.
		trials = c.trials[:0]
		for i := len(c.order) - 1; i >= 0; i-- {
			v := c.order[i]
			q := clause[v]
			rem[q]--
			members[rem[q]] = v
			if rem[q] == start[q] {
				if size := start[q+1] - start[q]; size >= 2 && size <= maxFailedLiteralClique {
					trials = append(trials, q)
				}
			}
		}
		c.trials = trials
		copy(rem, csize)
	}
	layout()
	// The work (adjacency entries read) is capped at a few passes over the
	// graph, so that huge kernels do not pay k propagations per node.
	work, budget := 0, upWorkPasses*(2*s.m+s.nAlive)

	// unit: clique r has one vertex left since u was removed; r must
	// give it.
	unit := func(r, u int32) {
		if o := start[r]; start[r+1]-o == 2 && link[r] < 0 {
			// most cliques here have two members: the other one
			c.units = append(c.units, r, members[o]+members[o+1]-u)
			return
		}
		for p := r; p >= 0; p = link[p] {
			for _, w := range members[start[p]:start[p+1]] {
				if bitHas(avail, w) {
					c.units = append(c.units, r, w)
					return
				}
			}
		}
	}
	// drop removes u, still available, because unit q took another
	// vertex (nothing if u is in q itself): its clique loses a member
	// and becomes a unit or, empty, the conflict drop returns (else -1).
	drop := func(u, q int32) int32 {
		r := clause[u]
		if r == q {
			return -1
		}
		avail[u>>6] &^= 1 << (uint(u) & 63)
		c.by[u] = q
		c.trail = append(c.trail, u)
		rem[r]--
		switch rem[r] {
		case 0:
			return r
		case 1:
			unit(r, u)
		}
		return -1
	}
	// propagate runs unit propagation from the initial units (hq < 0) or
	// from the hypothesis that clique hq gives vertex hv alone, on top of
	// the initial units' fixpoint left on the trail. It returns the
	// conflicting clique or -1; removals stay on the trail for trace and
	// undo.
	propagate := func(hq, hv int32) int32 {
		c.units = c.units[:0]
		if hq >= 0 {
			c.units = append(c.units, hq, hv)
		} else {
			for _, q := range c.singles {
				if !used[q] && csize[q] == 1 { // (not joined since)
					c.units = append(c.units, q, members[start[q]])
				}
			}
		}
		for i := 0; i < len(c.units); i += 2 {
			if work > budget {
				return -1
			}
			q, v := c.units[i], c.units[i+1]
			work += len(s.adj[v])
			if !bitHas(avail, v) {
				// v was removed after q became a unit: q is empty now,
				// a conflict recorded when it happened.
				continue
			}
			if b != nil {
				// v's row masked by avail: the vertices still there, in
				// index order, without reading the dead and removed
				// entries of adj[v] (on vc-exact_091 about 11 entries
				// read per unit for 2 removals).
				rv := b.row(v)
				for i := range avail {
					x := rv[i] & avail[i]
					for x != 0 {
						u := int32(i*64 + bits.TrailingZeros64(x))
						x &= x - 1
						if r := drop(u, q); r >= 0 {
							return r
						}
					}
				}
				continue
			}
			for _, u := range s.adj[v] {
				if !bitHas(avail, u) {
					continue
				}
				if r := drop(u, q); r >= 0 {
					return r
				}
			}
		}
		return -1
	}
	// undoTo takes back the removals on the trail after mark.
	undoTo := func(mark int) {
		for _, u := range c.trail[mark:] {
			avail[u>>6] |= 1 << (uint(u) & 63)
			rem[clause[u]]++
		}
		c.trail = c.trail[:mark]
	}
	undo := func() { undoTo(0) }
	// trace adds to c.set the cliques behind the conflict at r.
	trace := func(r int32) {
		stack := append(c.union[:0], r)
		defer func() { c.union = stack[:0] }()
		if !c.inSet[r] {
			c.inSet[r] = true
			c.set = append(c.set, r)
		}
		for len(stack) > 0 {
			q := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for l := q; l >= 0; l = link[l] {
				for _, u := range members[start[l]:start[l+1]] {
					if !bitHas(avail, u) {
						if p := c.by[u]; !c.inSet[p] {
							c.inSet[p] = true
							c.set = append(c.set, p)
							stack = append(stack, p)
						}
					}
				}
			}
		}
	}
	// resolve is max-resolution on the conflict at r that the initial
	// units reached (c.set traced, the removals still on the trail), in
	// the one case where the clauses it leaves are cliques again: each
	// unit p of the set gave its vertex v_p, and the members the units
	// removed go to the clique of the unit that removed them. When every
	// group {v_p} ∪ removed(p) is a clique, the set's |S| cliques become
	// |S|−1 over the same vertices (r is emptied): one unit of bound, as
	// committing the set gives, but the new cliques stay available to
	// the propagation instead of being used up (Li, Fang and Xu's
	// IncMaxCLQ, Li, Jiang and Manyà's MoMC). It is a clique cover with
	// one clique less, so the bound stays sound whatever the
	// propagation does next. It reports whether it moved the vertices
	// (after undoing the trail and laying the cliques out again).
	regroup := func(r int32) bool {
		for _, q := range c.set {
			if joined[q] {
				return false // not a clique
			}
		}
		pairs := c.resolved[:0]
		// fits: u sees every removed member already in p's group (and
		// p's vertex, which it is given adjacent).
		fits := func(u, p int32) bool {
			for j := 0; j < len(pairs); j += 2 {
				if pairs[j+1] == p && !s.hasEdge(u, pairs[j]) {
					return false
				}
			}
			return true
		}
		// anchor is unit p's vertex: its one member still available.
		anchor := func(p int32) int32 {
			for _, w := range members[start[p]:start[p+1]] {
				if bitHas(avail, w) {
					return w
				}
			}
			return -1
		}
		for _, q := range c.set {
			for _, u := range members[start[q]:start[q+1]] {
				if bitHas(avail, u) {
					continue // q's own vertex v_q stays in q
				}
				// u goes to the unit that removed it (u sees its
				// vertex), else to the first unit of the set whose
				// vertex and group it sees: r has no vertex to anchor a
				// group.
				p := c.by[u]
				if c.mutant != mutantNoCliqueTest && (p == r || !fits(u, p)) {
					p = -1
					for _, a := range c.set {
						if a != r && s.hasEdge(u, anchor(a)) && fits(u, a) {
							p = a
							break
						}
					}
				}
				if p < 0 || p == r {
					return false
				}
				pairs = append(pairs, u, p)
			}
		}
		c.resolved = pairs
		undo()
		for i := 0; i < len(pairs); i += 2 {
			u := pairs[i]
			s.moveToClique(u, c.clique[u], pairs[i+1])
			clause[u] = pairs[i+1]
		}
		for _, q := range c.set {
			c.inSet[q] = false
		}
		c.set = c.set[:0]
		layout()
		regrouped = true
		return true
	}
	// join is the weaker max-resolution for the sets that regroup cannot
	// take: the set's clauses are joined two by two (three at the end
	// when their number is odd) into clauses that stay in the
	// propagation (their members chained by link, not laid out again:
	// the layout after every join cost 9 % of the time on vc-exact_091). Sound: an independent set that misses a joined clause
	// misses both of its clauses, so the set costs it at least two, and
	// at least one in any case: the set's cost is at least one plus the
	// number of joined clauses missed.
	join := func() bool {
		undo()
		set := c.set
		heads := len(set) / 2
		for i, q := range set {
			h := set[min(i/2, heads-1)*2]
			if c.mutant == mutantNoJoin {
				h = q
			}
			if q != h {
				// q's chain goes after h (the trail is undone: rem is
				// the clause sizes)
				end := q
				for l := q; l >= 0; l = link[l] {
					for _, u := range members[start[l]:start[l+1]] {
						clause[u] = h
					}
					end = l
				}
				link[end] = link[h]
				link[h] = q
				rem[h] += rem[q]
				csize[h] += csize[q]
				rem[q], csize[q] = 0, 0
			}
			joined[h] = true
			c.inSet[q] = false
		}
		c.set = c.set[:0]
		return true
	}
	resolve := func(r int32) bool {
		if b == nil || len(c.set) > maxResolveSet || len(c.set) < 2 {
			return false
		}
		return regroup(r) || join()
	}
	commit := func() {
		for _, q := range c.set {
			used[q] = true
			c.inSet[q] = false
			for l := q; l >= 0; l = link[l] {
				for _, u := range members[start[l]:start[l+1]] {
					avail[u>>6] &^= 1 << (uint(u) & 63)
				}
			}
		}
		c.set = c.set[:0]
	}
	// settle propagates the initial units, committing the sets of their
	// conflicts, until they reach a fixpoint without one (or need sets
	// are found). That fixpoint stays on the trail (base): each failed
	// literal below propagates only its hypothesis from it and undoes
	// back to it, instead of propagating the initial units again for
	// every trial. Unit propagation finds a conflict or not whatever the
	// order, so the same literals fail as with the hypothesis first; the
	// sets traced can differ (docs/results/vertexcover.md).
	found, base := 0, 0
	settle := func() {
		undo()
		for found < need {
			r := propagate(-1, -1)
			if r < 0 {
				break
			}
			trace(r)
			if !resolve(r) {
				undo()
				commit()
			}
			found++
		}
		base = len(c.trail)
	}
	settle()
	if len(c.holds) < s.n {
		c.holds = make([]uint32, s.n)
	}
	newHolds := func() {
		c.holdStamp++
		if c.holdStamp == 0 {
			clear(c.holds)
			c.holdStamp = 1
		}
	}
	newHolds()
	// The loop runs over a copy of the trials: layout rebuilds them.
	tl := append(c.trialRun[:0], trials...)
	regrouped = false
	for ti := 0; ti < len(tl); ti++ {
		q := tl[ti]
		if found >= need || len(c.forced) >= maxForcedRound {
			break
		}
		// (clauses used by the initial units, or joined, are skipped)
		if used[q] || joined[q] || csize[q] < 2 || csize[q] > maxFailedLiteralClique {
			continue
		}
		all := true
		for _, a := range members[start[q]:start[q+1]] {
			if !bitHas(avail, a) {
				// The initial units removed a: clique by[a] has lost its
				// last candidate when a is taken. Its reasons are the
				// conflict.
				trace(c.by[a])
			} else {
				r := int32(-1)
				// A vertex implied by a literal that did not fail does
				// not fail either (its propagation is part of that one),
				// nor after a commit, which only takes cliques away: skip
				// it, the outcome is the same.
				if c.holds[a] != c.holdStamp {
					r = propagate(q, a)
				}
				if r < 0 {
					if c.holds[a] != c.holdStamp && work <= budget {
						// Every unit of this propagation holds as well
						// (when it ran to its fixpoint).
						for i := 1; i < len(c.units); i += 2 {
							c.holds[c.units[i]] = c.holdStamp
						}
					}
					all = false
					undoTo(base)
					if found == need-1 {
						// The other members may still be forced.
						continue
					}
					break
				}
				trace(r)
				undoTo(base)
			}
			c.failed = append(c.failed, a)
			if found == need-1 {
				// One set short of pruning: an independent set with a
				// misses a clique of this conflict as well as one of each
				// set found (disjoint from it), so it is too small to
				// beat the incumbent: every better cover holds a.
				c.forced = append(c.forced, a)
			}
		}
		if !all {
			for _, x := range c.set {
				c.inSet[x] = false
			}
			c.set = c.set[:0]
			continue
		}
		if !c.inSet[q] {
			c.inSet[q] = true
			c.set = append(c.set, q)
		}
		// The set's clauses are joined (or used up): the initial units'
		// fixpoint is built again.
		if b == nil || len(c.set) > maxResolveSet || len(c.set) < 2 || !join() {
			undo()
			commit()
		}
		found++
		settle()
		if regrouped {
			// Max-resolution changed the cliques: the trials start
			// again on the new ones, and what held may not hold now.
			// (Joins only weaken clauses: a literal that did not fail
			// still does not, and the trials go on.)
			regrouped = false
			newHolds()
			tl = append(tl[:0], trials...)
			ti = -1
		}
	}
	c.trialRun = tl
	undo()
	return found
}

// maxFailedLiteralClique is the largest clique whose vertices upBound
// tries one by one (4 and 5 found nothing more on the PACE instances and
// cost time). Two, not three: the three-vertex trials cost more than the
// conflicts they find; on the 28 PACE instances of ≤ 450 vertices also
// 0–4% fewer nodes (the disjoint sets found differ) and vc-exact_043 /
// _091 about 10% / 5% faster (docs/results/vertexcover.md). With the cheaper trials of
// branch up (no initial units propagated again per trial) three is still
// worse: _091 94.3 k → 100.5 k nodes, 1.72 → 1.95 s.
const maxFailedLiteralClique = 2

// maxForcedRound: upBound stops its failed literals once this many
// vertices are forced; the node takes them and bounds again (the rest of
// the trials would mostly meet the same conflicts). Against no cap: 0–0.3%
// more nodes, 2–3% faster (2 threads, vc-exact_091 1.32 → 1.29 s); a cap
// of 1 or 2 left 1–5% more nodes and was slower.
const maxForcedRound = 4

// The mutants of max-resolution (ccScratch.mutant).
const (
	mutantNoCliqueTest = 1 + iota // regroup without its clique test
	mutantNoJoin                  // join leaving each clause alone
)

// maxResolveSet: max-resolution is tried on conflicts of at most this many
// cliques (its clique test is quadratic in the removed members).
const maxResolveSet = 32

// upWorkPasses caps upBound's work in passes over the live graph.
const upWorkPasses = 16

// inheritCover sets the clique cover (bitset states) to inherit's cliques
// over the live vertices in order and returns its bound: live vertices
// minus non-empty cliques. inherit[n] holds the number of clique indices.
// It returns -1, setting nothing, when a live vertex has no clique there
// (was dead in the parent: no op does that now, but the bound would be
// wrong if one did).
func (s *state) inheritCover(order []int32, inherit []int32) int {
	c, b := &s.cc, s.bits
	for _, v := range order {
		if inherit[v] < 0 {
			return -1
		}
	}
	k := int(inherit[s.n])
	w := b.w
	if len(b.cl) < s.n*w {
		b.cl = make([]uint64, s.n*w)
	}
	clear(b.cl[:k*w])
	clear(c.size[:k])
	clear(c.sum[:k])
	for _, v := range order {
		q := inherit[v]
		c.clique[v] = q
		c.size[q]++
		c.sum[q] += v
		b.cl[int(q)*w+int(v>>6)] |= 1 << (uint(v) & 63)
	}
	used := 0
	for q := 0; q < k; q++ {
		if c.size[q] > 0 {
			used++
		}
	}
	c.k = k
	return len(order) - used
}
