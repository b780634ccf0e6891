package vertexcover

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// ilsSearch improves a cover of g by iterated local search on its
// complement, an independent set S, in the style of Andrade, Resende and
// Werneck (J. Heuristics 2012; the local search of KaMIS and of the PACE
// 2019 winners' upper bounds). Its local search is the (1,2)-swap: a
// vertex x of S whose 1-tight neighbours (those whose only neighbour in S
// is x) hold two non-adjacent vertices u, w gives S − x + u + w; free
// vertices (no neighbour in S) go in at once. Each iteration perturbs S
// by forcing a vertex outside it in (its neighbours in S leave), runs the
// local search around the change, and keeps the result if S did not
// shrink, else with probability 1/(1 + δ·δ*) (δ: how much it shrank, δ*:
// how far it is below the best), otherwise undoes it.
//
// Why beside NuMVC: NuMVC's step is a vertex exchange at a fixed cover
// size, scored by edge weights, whose removal scan (or its sample, BMS)
// covers the whole cover; on kernels of thousands to tens of thousands of
// sparse vertices most of its steps go to parts of the graph far from
// where an improvement is possible. An ILS iteration touches only the
// perturbed vertex's neighbourhood, so it makes millions of local moves a
// second, and a (1,2)-swap is exactly the improvement that sparse kernels
// (meshes, road-like and sensor-like graphs of the PACE set) admit.
//
// Given a clique partition of g (part, k cliques; may be nil), half of the
// perturbations force a vertex of a clique that has none in S: on sparse
// kernels made of small cliques (the PACE families whose root bound is a
// clique cover's), the excess of a cover over the bound sits in such
// cliques, and random perturbations elsewhere rarely reach them.
//
// It stops at the deadline, when stop is set, or at target size, and
// returns the smallest cover seen; improved (if set) hears of each new
// best cover (the slice is reused: copy it), and latest (if set) may hand
// it a smaller cover found elsewhere, which it then goes on from.
func ilsSearch(g *core.Graph, part []int32, k int, target int, deadline time.Time, stop *atomic.Bool, seed uint64, init []bool, latest func(size int) []bool, improved func(inC []bool, size int)) []bool {
	s := newILS(g, seed)
	if part != nil {
		s.setPartition(part, k)
	}
	cover := make([]bool, g.N)
	if init != nil {
		copy(cover, init)
	}
	// Any cover to start from: complete init greedily.
	for v := 0; v < g.N; v++ {
		if cover[v] {
			continue
		}
		for _, u := range g.Neighbors(v) {
			if !cover[u] && int(u) > v {
				cover[v] = true
				break
			}
		}
	}
	s.jump(cover)
	s.localSearch()
	best := s.cover(nil)
	bestSize := g.N - s.size
	if improved != nil {
		improved(best, bestSize)
	}
	if bestSize <= target || g.N == s.size {
		return best
	}
	it := int64(1)
	defer func() { ilsIterations.Add(it) }()
	for ; ; it++ {
		if it&63 == 0 {
			if time.Now().After(deadline) || (stop != nil && stop.Load()) {
				break
			}
			if latest != nil && it&4095 == 0 {
				if c := latest(bestSize); c != nil {
					s.jump(c)
					s.localSearch()
					bestSize = g.N - s.size
					s.cover(best)
				}
			}
		}
		before := s.size
		s.log = s.log[:0]
		s.perturb()
		s.localSearch()
		if g.N-s.size < bestSize {
			bestSize = g.N - s.size
			s.cover(best)
			if improved != nil {
				improved(best, bestSize)
			}
			if bestSize <= target {
				break
			}
			continue
		}
		if s.size >= before {
			continue
		}
		d := before - s.size
		dStar := (g.N - bestSize) - s.size
		if s.rand(1<<20) < (1<<20)/(1+d*dStar) {
			continue
		}
		s.undo()
	}
	return best
}

// ilsIterations is kept for measurements (as numvcSteps).
var ilsIterations atomic.Int64

// ils is the state of one iterated local search: S, each vertex's number
// of neighbours in S (tight), the free vertices (outside S, tight 0), the
// S vertices whose 1-tight neighbourhood changed (queue), and the log of
// the flips since the iteration began (to undo it).
type ils struct {
	g     *core.Graph
	n     int
	inS   []bool
	tight []int32
	size  int

	free idxSet // vertices outside S with no neighbour in S

	queue []int32
	inQ   []bool

	// forced marks the vertices the current perturbation put in: the
	// local search does not take them out again at once.
	forced  []int32
	isForce []bool

	log   []int32 // vertices flipped since the iteration began
	age   []int64 // iteration clock at each vertex's last flip
	clock int64
	mark  []int64 // scratch marks for the swap test
	stamp int64

	rand func(int) int

	// With a clique partition (setPartition): the cliques without a
	// vertex in S (defects: each costs the cover one vertex over the
	// partition's bound), which half of the perturbations aim at.
	part      []int32
	cliqueOff []int32 // members of clique c: cliqueMem[cliqueOff[c]:cliqueOff[c+1]]
	cliqueMem []int32
	inClique  []int32 // vertices of S in each clique
	defects   idxSet
}

// setPartition gives the search a clique partition of its graph (k
// cliques), whose uncovered cliques the perturbation then aims at.
func (s *ils) setPartition(part []int32, k int) {
	s.part = part
	s.cliqueOff = make([]int32, k+1)
	for _, c := range part {
		s.cliqueOff[c+1]++
	}
	for c := 0; c < k; c++ {
		s.cliqueOff[c+1] += s.cliqueOff[c]
	}
	s.cliqueMem = make([]int32, len(part))
	fill := slices.Clone(s.cliqueOff[:k])
	for v, c := range part {
		s.cliqueMem[fill[c]] = int32(v)
		fill[c]++
	}
	s.inClique = make([]int32, k)
	s.defects = newIdxSet(k)
}

// recountCliques recomputes the cliques' counts and the defects from S.
func (s *ils) recountCliques() {
	if s.part == nil {
		return
	}
	clear(s.inClique)
	for v, c := range s.part {
		if s.inS[v] {
			s.inClique[c]++
		}
	}
	s.defects.reset()
	for c := range s.inClique {
		if s.inClique[c] == 0 {
			s.defects.add(int32(c))
		}
	}
}

func (s *ils) cliqueGains(v int32) {
	c := s.part[v]
	if s.inClique[c] == 0 {
		s.defects.del(c)
	}
	s.inClique[c]++
}

func (s *ils) cliqueLoses(v int32) {
	c := s.part[v]
	s.inClique[c]--
	if s.inClique[c] == 0 {
		s.defects.add(c)
	}
}

func newILS(g *core.Graph, seed uint64) *ils {
	n := g.N
	s := &ils{g: g, n: n, rand: xorshiftFrom(seed)}
	s.inS = make([]bool, n)
	s.tight = make([]int32, n)
	s.free = newIdxSet(n)
	s.inQ = make([]bool, n)
	s.isForce = make([]bool, n)
	s.age = make([]int64, n)
	s.mark = make([]int64, n)
	return s
}

// jump makes S the complement of the cover c.
func (s *ils) jump(c []bool) {
	s.free.reset()
	s.queue = s.queue[:0]
	clear(s.inQ)
	clear(s.tight)
	s.size = 0
	for v := 0; v < s.n; v++ {
		s.inS[v] = !c[v]
		if s.inS[v] {
			s.size++
		}
	}
	for v := 0; v < s.n; v++ {
		if s.inS[v] {
			for _, u := range s.g.Neighbors(v) {
				s.tight[u]++
			}
		}
	}
	for v := 0; v < s.n; v++ {
		if s.inS[v] {
			s.push(int32(v))
		} else if s.tight[v] == 0 {
			s.free.add(int32(v))
		}
	}
	s.recountCliques()
}

// cover writes the cover (the complement of S) into out, or a new slice.
func (s *ils) cover(out []bool) []bool {
	if out == nil {
		out = make([]bool, s.n)
	}
	for v := range out {
		out[v] = !s.inS[v]
	}
	return out
}

// idxSet is a set of small integers with O(1) add, delete and uniform
// random pick: the members in a list, each one's place in it.
type idxSet struct {
	list []int32
	pos  []int32 // place in list, or -1
}

func newIdxSet(n int) idxSet {
	s := idxSet{pos: make([]int32, n)}
	for i := range s.pos {
		s.pos[i] = -1
	}
	return s
}

func (s *idxSet) has(x int32) bool { return s.pos[x] >= 0 }

func (s *idxSet) add(x int32) {
	s.pos[x] = int32(len(s.list))
	s.list = append(s.list, x)
}

func (s *idxSet) del(x int32) {
	p := s.pos[x]
	last := s.list[len(s.list)-1]
	s.list[p] = last
	s.pos[last] = p
	s.list = s.list[:len(s.list)-1]
	s.pos[x] = -1
}

func (s *idxSet) reset() {
	for _, x := range s.list {
		s.pos[x] = -1
	}
	s.list = s.list[:0]
}

func (s *ils) push(x int32) {
	if !s.inQ[x] {
		s.inQ[x] = true
		s.queue = append(s.queue, x)
	}
}

// insert puts v (outside S, no neighbour in S) into S.
func (s *ils) insert(v int32) {
	if s.free.has(v) {
		s.free.del(v)
	}
	s.inS[v] = true
	s.size++
	s.log = append(s.log, v)
	if s.part != nil {
		s.cliqueGains(v)
	}
	s.age[v] = s.clock
	for _, u := range s.g.Neighbors(int(v)) {
		s.tight[u]++
		if s.tight[u] == 1 {
			if s.free.has(u) {
				s.free.del(u)
			}
		}
	}
	// Its 1-tight neighbours may now allow a swap.
	s.push(v)
}

// remove takes v out of S.
func (s *ils) remove(v int32) {
	s.inS[v] = false
	s.size--
	s.log = append(s.log, v)
	if s.part != nil {
		s.cliqueLoses(v)
	}
	s.age[v] = s.clock
	for _, u := range s.g.Neighbors(int(v)) {
		s.tight[u]--
		switch s.tight[u] {
		case 0:
			s.free.add(u)
		case 1:
			// u's one neighbour in S gains a 1-tight neighbour.
			for _, x := range s.g.Neighbors(int(u)) {
				if s.inS[x] {
					s.push(x)
					break
				}
			}
		}
	}
	if s.tight[v] == 0 {
		s.free.add(v)
	}
}

// undo reverts the flips of the log, newest first.
func (s *ils) undo() {
	log := s.log
	for i := len(log) - 1; i >= 0; i-- {
		v := log[i]
		if s.inS[v] {
			s.remove(v)
		} else {
			s.insert(v)
		}
	}
	// The queue keeps what the flips pushed, among them the vertices
	// the previous perturbation forced, whose swaps are still untried.
	s.log = log[:0]
}

// perturb forces one vertex outside S in (sometimes more, near it, with
// probability halving for each further one), taking its neighbours in S
// out. The vertex is the oldest of a few random ones outside S, so that
// the perturbations move around the graph.
func (s *ils) perturb() {
	s.clock++
	// Last iteration's forced vertices may be swapped out again: the
	// local search skipped them.
	for _, v := range s.forced {
		s.isForce[v] = false
		if s.inS[v] {
			s.push(v)
		}
	}
	s.forced = s.forced[:0]
	k := 1
	for k < 4 && s.rand(2*s.size+2) == 0 {
		k++
	}
	var v int32 = -1
	if len(s.defects.list) > 0 && s.rand(4) < ilsDefectShare {
		// A random vertex of an uncovered clique (random, not the
		// least tight: on vc-exact_131 five seeds of six reached the
		// optimum in 3 s against two, on _175 all six reached 2,284
		// against 2,286–2,288). Forcing it moves the defect to a
		// neighbouring clique (or, with a swap, removes it): defects
		// wander until two meet, which is how a cover sheds its excess
		// over the bound.
		c := s.defects.list[s.rand(len(s.defects.list))]
		mem := s.cliqueMem[s.cliqueOff[c]:s.cliqueOff[c+1]]
		v = mem[s.rand(len(mem))]
	}
	fromDefect := v >= 0
	for try := 0; !fromDefect && try < 64 && (v < 0 || try < ilsSample); try++ {
		c := int32(s.rand(s.n))
		if s.inS[c] {
			continue
		}
		if v < 0 || s.tight[c] < s.tight[v] || (s.tight[c] == s.tight[v] && s.age[c] < s.age[v]) {
			v = c
		}
	}
	if v < 0 {
		return
	}
	s.force(v)
	for j := 1; j < k; j++ {
		// Another vertex within two steps of v, outside S.
		nb := s.g.Neighbors(int(v))
		if len(nb) == 0 {
			break
		}
		u := nb[s.rand(len(nb))]
		nb2 := s.g.Neighbors(int(u))
		w := nb2[s.rand(len(nb2))]
		if !s.inS[w] && !s.isForce[w] {
			s.force(w)
		}
	}
}

// force puts v into S, taking its neighbours in S out.
func (s *ils) force(v int32) {
	for _, u := range s.g.Neighbors(int(v)) {
		if s.inS[u] {
			if s.isForce[u] {
				return // would undo this perturbation's own move
			}
		}
	}
	for _, u := range s.g.Neighbors(int(v)) {
		if s.inS[u] {
			s.remove(u)
		}
	}
	s.insert(v)
	s.isForce[v] = true
	s.forced = append(s.forced, v)
}

// localSearch inserts free vertices and makes (1,2)-swaps until none is
// left. A forced vertex is not swapped out.
func (s *ils) localSearch() {
	for {
		if len(s.free.list) > 0 {
			// A random free vertex in.
			s.insert(s.free.list[s.rand(len(s.free.list))])
			continue
		}
		if len(s.queue) == 0 {
			return
		}
		x := s.queue[len(s.queue)-1]
		s.queue = s.queue[:len(s.queue)-1]
		s.inQ[x] = false
		if !s.inS[x] || s.isForce[x] {
			continue
		}
		if u, w := s.twoSwap(x); u >= 0 {
			s.remove(x)
			s.insert(u)
			s.insert(w)
		}
	}
}

// twoSwap finds two non-adjacent 1-tight neighbours of x (x their only
// neighbour in S), or (-1, -1).
func (s *ils) twoSwap(x int32) (int32, int32) {
	nb := s.g.Neighbors(int(x))
	ones := 0
	for _, u := range nb {
		if s.tight[u] == 1 {
			ones++
		}
	}
	if ones < 2 {
		return -1, -1
	}
	for i, u := range nb {
		if s.tight[u] != 1 {
			continue
		}
		s.stamp++
		for _, z := range s.g.Neighbors(int(u)) {
			s.mark[z] = s.stamp
		}
		for _, w := range nb[i+1:] {
			if s.tight[w] == 1 && s.mark[w] != s.stamp {
				return u, w
			}
		}
	}
	return -1, -1
}

// ilsSample is how many random vertices outside S the perturbation
// looks at: it forces the one with fewest neighbours in S (the smallest
// loss), the oldest on ties.
var ilsSample = 4

// ilsDefectShare is how many perturbations in four start at a defect
// (when there is a partition).
var ilsDefectShare = 2
