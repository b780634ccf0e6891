package vertexcover

import (
	"math/bits"
	"slices"

	"github.com/arbor-gpu/arbor/core"
)

// opKind is one change to the working graph. The list of applied ops is at
// once the undo trail, the record from which a cover of the input graph is
// rebuilt, and a task: replaying it on a fresh state reproduces the node.
type opKind uint8

const (
	opTake   opKind = iota // v goes into the cover and leaves the graph
	opDrop                 // v leaves the graph, not in the cover
	opFold                 // degree-2 v with non-adjacent a, b: a, b leave, v becomes the merged vertex
	opFunnel               // degree-3 v with N(v) = {a, b, c}, a–b an edge, c seeing neither: v and c leave, a and b see N(c) (funnel)
)

type op struct {
	kind       opKind
	v, a, b, c int32
	// fold undo data: the length of adj[v] before the fold and where the
	// fold's entries in state.appended start (a funnel's too).
	oldLen, appStart int32
}

// state is the mutable graph of one search: adjacency lists (entries of
// dead vertices stay in place), alive flags and live degrees. Changes are
// only made through ops and undone in LIFO order, so no node copies the
// graph.
type state struct {
	n        int
	adj      [][]int32
	alive    []bool
	deg      []int32
	nAlive   int
	m        int // live edges
	cover    int // cover size so far: takes plus folds
	ops      []op
	appended []int32 // vertices whose list got the merged vertex appended by a fold

	// reduction work list
	queue []int32
	inQ   []bool

	// unconfinedOn enables the unconfined rule: at the root only, where it
	// pays; inside the search it cut nodes by ~12% on PACE instances but
	// took ~45% of the time.
	unconfinedOn bool

	// funnelOn enables the funnel rule for degree-3 vertices (reduce):
	// on states of at most maxBitsetVertices. On the large sparse PACE
	// kernels (vc-exact_089, _109, _173, _183: 20–50 k vertices) it
	// shrank the kernel by a fifth but left the 4 s incumbent 15–70
	// vertices worse (the local searches run on the funnelled kernel).
	funnelOn bool

	// stop, when set (the root reductions: run), is polled by reduce
	// every stopEvery vertices; true ends it as if the budget were
	// exceeded. Left nil in the tree, where false from reduce prunes.
	stop func() bool

	// logTouched makes push also record the vertex in touched (the
	// greedy dive re-keys them in its degree heap).
	logTouched bool
	touched    []int32

	// scratch
	mark  []uint32
	stamp uint32
	// a second marker for work that nests inside the first (mirrors)
	mark2        []uint32
	stamp2       uint32
	seen         []uint32
	stampS       uint32
	queueScratch []int32
	cc           ccScratch

	// inCover[v]: v left the graph by a take (so is in the cover of the
	// graph it was taken from); folds[v]: folds now applied with v as the
	// merged vertex. The packing constraints (packing.go) read both.
	inCover []bool
	folds   []int32

	// fired counts each reduction rule's applications (ruleNames), for
	// the measurements of docs/results/vertexcover.md: one increment per
	// firing, too cheap to switch off.
	fired [numRules]int64

	// bits mirrors adj and alive as bitsets on small graphs (≤
	// maxBitsetVertices); nil otherwise.
	bits *bitAdj
}

// newState makes the working graph of g (undirected, no self-loops).
func newState(g *core.Graph) *state {
	n := g.N
	s := &state{n: n, adj: make([][]int32, n), alive: make([]bool, n), deg: make([]int32, n),
		funnelOn: n <= maxBitsetVertices, inQ: make([]bool, n), inCover: make([]bool, n), folds: make([]int32, n), mark: make([]uint32, n), mark2: make([]uint32, n), seen: make([]uint32, n)}
	for v := 0; v < n; v++ {
		o, e := g.Offsets[v], g.Offsets[v+1]
		// The full slice expression caps each list so a fold's append
		// reallocates instead of overwriting the next vertex's list.
		s.adj[v] = g.Adj[o:e:e]
		s.alive[v] = true
		s.deg[v] = int32(e - o)
		s.m += e - o
	}
	s.m /= 2
	s.nAlive = n
	if n <= maxBitsetVertices {
		s.bits = newBitAdj(n)
		for v := 0; v < n; v++ {
			s.bits.setAlive(int32(v), true)
			for _, u := range s.adj[v] {
				s.bits.set(int32(v), u)
			}
		}
	}
	return s
}

func (s *state) push(v int32) {
	if !s.inQ[v] {
		s.inQ[v] = true
		s.queue = append(s.queue, v)
	}
	if s.logTouched {
		s.touched = append(s.touched, v)
	}
}

func (s *state) clearQueue() {
	for _, v := range s.queue {
		s.inQ[v] = false
	}
	s.queue = s.queue[:0]
}

// remove takes v out of the graph and queues its live neighbours, whose
// degrees change. deg[v] is left as it was: a dead vertex's degree is
// frozen until it is restored.
func (s *state) remove(v int32) {
	s.alive[v] = false
	if s.bits != nil {
		s.bits.setAlive(v, false)
	}
	s.nAlive--
	s.m -= int(s.deg[v])
	if b := s.bits; b != nil {
		// v's live neighbours from its row (it mirrors adj[v], which has
		// no repeated entries), in index order: no walk over the dead
		// entries. The queue order changes with it (±0.1% nodes).
		rv := b.row(v)
		for i, x := range b.alive {
			x &= rv[i]
			for x != 0 {
				u := int32(i*64 + bits.TrailingZeros64(x))
				x &= x - 1
				s.deg[u]--
				s.push(u)
			}
		}
		return
	}
	for _, u := range s.adj[v] {
		if s.alive[u] {
			s.deg[u]--
			s.push(u)
		}
	}
}

func (s *state) restore(v int32) {
	if b := s.bits; b != nil {
		// v's live neighbours from its row (it mirrors adj[v], which has
		// no repeated entries): no walk over the dead entries, and no
		// order to keep here, unlike remove's queue.
		rv := b.row(v)
		for i, x := range b.alive {
			x &= rv[i]
			for x != 0 {
				s.deg[i*64+bits.TrailingZeros64(x)]++
				x &= x - 1
			}
		}
	} else {
		for _, u := range s.adj[v] {
			if s.alive[u] {
				s.deg[u]++
			}
		}
	}
	s.alive[v] = true
	if s.bits != nil {
		s.bits.setAlive(v, true)
	}
	s.nAlive++
	s.m += int(s.deg[v])
}

func (s *state) take(v int32) {
	s.ops = append(s.ops, op{kind: opTake, v: v})
	s.remove(v)
	s.inCover[v] = true
	s.cover++
}

func (s *state) drop(v int32) {
	s.ops = append(s.ops, op{kind: opDrop, v: v})
	s.remove(v)
}

// fold merges degree-2 vertex v and its non-adjacent neighbours a, b into
// one vertex (reusing v's id) adjacent to N(a) ∪ N(b) \ {v}. The cover
// grows by one: if the merged vertex ends in the cover, a and b do,
// otherwise v does (see resolve).
func (s *state) fold(v, a, b int32) {
	o := op{kind: opFold, v: v, a: a, b: b, oldLen: int32(len(s.adj[v])), appStart: int32(len(s.appended))}
	s.ops = append(s.ops, o)
	s.folds[v]++
	s.remove(a)
	s.remove(b)
	s.stamp++
	st := s.stamp
	s.mark[v] = st
	for _, x := range [2]int32{a, b} {
		for _, y := range s.adj[x] {
			if !s.alive[y] || s.mark[y] == st {
				continue
			}
			// y is not adjacent to v already: v's only live
			// neighbours were a and b.
			s.mark[y] = st
			s.link(v, y)
			s.appended = append(s.appended, y)
		}
	}
	s.m += int(s.deg[v])
	s.cover++
	s.push(v)
}

// link adds the edge xy, as a fold or a funnel does (their undo pops it
// off both lists).
func (s *state) link(x, y int32) {
	if s.bits != nil {
		s.bits.set(x, y)
		s.bits.set(y, x)
	}
	s.adj[x] = append(s.adj[x], y)
	s.adj[y] = append(s.adj[y], x)
	s.deg[x]++
	s.deg[y]++
}

// funnel applies Akiba and Iwata's funnel rule to degree-3 v with
// N(v) = {a, b, c}, a and b adjacent, c adjacent to neither: N(v) \ {c} is
// a clique, so some maximum independent set holds v or c (one without
// either holds at most one of a, b, and swapping it for v keeps it
// independent). Then v and c leave, a and b become adjacent to every
// vertex of N(c) \ {v}, and the cover grows by one: if the smaller graph's
// cover holds a and b, c joins it, else v (see resolve). It generalises
// the degree-2 fold (there N(v) \ {c} is one vertex).
func (s *state) funnel(v, a, b, c int32) {
	o := op{kind: opFunnel, v: v, a: a, b: b, c: c, appStart: int32(len(s.appended))}
	s.ops = append(s.ops, o)
	s.remove(v)
	s.remove(c)
	for _, x := range [2]int32{a, b} {
		for _, y := range s.adj[c] {
			if !s.alive[y] || s.hasEdge(x, y) {
				continue
			}
			s.link(x, y)
			s.m++
			s.appended = append(s.appended, x, y)
			s.push(y)
		}
		s.push(x)
	}
	s.cover++
}

// unfunnel undoes funnel: the added edges in reverse order (each is the
// last entry of both lists), then c and v come back.
func (s *state) unfunnel(o op) {
	for i := len(s.appended) - 2; i >= int(o.appStart); i -= 2 {
		x, y := s.appended[i], s.appended[i+1]
		if s.bits != nil {
			s.bits.unset(x, y)
			s.bits.unset(y, x)
		}
		s.adj[x] = s.adj[x][:len(s.adj[x])-1]
		s.adj[y] = s.adj[y][:len(s.adj[y])-1]
		s.deg[x]--
		s.deg[y]--
		s.m--
	}
	s.appended = s.appended[:o.appStart]
	s.restore(o.c)
	s.restore(o.v)
	s.cover--
}

func (s *state) unfold(o op) {
	for i := len(s.appended) - 1; i >= int(o.appStart); i-- {
		y := s.appended[i]
		if s.bits != nil {
			s.bits.unset(o.v, y)
			s.bits.unset(y, o.v)
		}
		s.adj[y] = s.adj[y][:len(s.adj[y])-1]
		s.deg[y]--
	}
	s.appended = s.appended[:o.appStart]
	s.m -= int(s.deg[o.v])
	s.deg[o.v] = 0
	s.adj[o.v] = s.adj[o.v][:o.oldLen]
	s.restore(o.b)
	s.restore(o.a)
	s.folds[o.v]--
	s.cover--
}

// undoTo rolls the graph back to when len(ops) was mark.
func (s *state) undoTo(mark int) {
	s.clearQueue()
	for len(s.ops) > mark {
		o := s.ops[len(s.ops)-1]
		s.ops = s.ops[:len(s.ops)-1]
		switch o.kind {
		case opTake:
			s.restore(o.v)
			s.inCover[o.v] = false
			s.cover--
		case opDrop:
			s.restore(o.v)
		case opFold:
			s.unfold(o)
		case opFunnel:
			s.unfunnel(o)
		}
	}
}

// apply replays one op recorded by another state of the same input graph.
func (s *state) apply(o op) {
	switch o.kind {
	case opTake:
		s.take(o.v)
	case opDrop:
		s.drop(o.v)
	case opFold:
		s.fold(o.v, o.a, o.b)
	case opFunnel:
		s.funnel(o.v, o.a, o.b, o.c)
	}
}

// resolve turns a cover of the current graph (in[v] for live v; dead
// entries false) into a cover of the input graph, in place, by walking the
// ops backwards: folds are undone in the reverse order they were made.
func resolve(ops []op, in []bool) {
	for i := len(ops) - 1; i >= 0; i-- {
		o := ops[i]
		switch o.kind {
		case opTake:
			in[o.v] = true
		case opDrop:
			in[o.v] = false
		case opFold:
			if in[o.v] {
				in[o.v], in[o.a], in[o.b] = false, true, true
			} else {
				in[o.v] = true
			}
		case opFunnel:
			// a and b both covered: v is free to join the independent
			// set, so c is covered; otherwise one of a, b is out of the
			// cover, so all of N(c) \ {v} (its new neighbours) are in it
			// and c joins the independent set.
			cv := in[o.a] && in[o.b]
			in[o.c], in[o.v] = cv, !cv
		}
	}
}

// adjacent reports whether live vertices a and b are adjacent.
func (s *state) adjacent(a, b int32) bool {
	if len(s.adj[a]) > len(s.adj[b]) {
		a, b = b, a
	}
	for _, u := range s.adj[a] {
		if u == b {
			return s.alive[b]
		}
	}
	return false
}

// liveNeighbors appends v's live neighbours to buf.
func (s *state) liveNeighbors(v int32, buf []int32) []int32 {
	for _, u := range s.adj[v] {
		if s.alive[u] {
			buf = append(buf, u)
		}
	}
	return buf
}

// maxDegree returns the live vertex of largest degree, smallest index on
// ties (the rule the device engine shares), or -1.
func (s *state) maxDegree() int32 {
	best, bd := int32(-1), int32(-1)
	for v := 0; v < s.n; v++ {
		if s.alive[v] && s.deg[v] > bd {
			best, bd = int32(v), s.deg[v]
		}
	}
	return best
}

// extract builds the live graph as a core.Graph on vertices 0..k-1; ids[i]
// is the state vertex of new vertex i. Only vertices with keep[v] (nil: all
// live) are taken.
func (s *state) extract(keep func(v int32) bool) (*core.Graph, []int32) {
	idx := make([]int32, 0, s.nAlive)
	newID := make(map[int32]int32)
	local := s.n <= 1<<22
	var dense []int32
	if local {
		dense = make([]int32, s.n)
	}
	for v := 0; v < s.n; v++ {
		if s.alive[v] && (keep == nil || keep(int32(v))) {
			if local {
				dense[v] = int32(len(idx))
			} else {
				newID[int32(v)] = int32(len(idx))
			}
			idx = append(idx, int32(v))
		}
	}
	lookup := func(v int32) int32 {
		if local {
			return dense[v]
		}
		return newID[v]
	}
	k := len(idx)
	g := &core.Graph{N: k, Offsets: make([]int, k+1), Name: "kernel"}
	for i, v := range idx {
		g.Offsets[i+1] = g.Offsets[i] + int(s.deg[v])
	}
	g.Adj = make([]int32, g.Offsets[k])
	for i, v := range idx {
		p := g.Offsets[i]
		for _, u := range s.adj[v] {
			if s.alive[u] {
				g.Adj[p] = lookup(u)
				p++
			}
		}
		slices.Sort(g.Adj[g.Offsets[i]:p])
	}
	return g, idx
}
