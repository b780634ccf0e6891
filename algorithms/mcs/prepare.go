package mcs

import (
	"fmt"
	"slices"
	"sort"

	"github.com/arbor-gpu/arbor/core"
)

// cell is one adjacency-matrix entry. Undirected, unlabelled problems use
// uint8 holding exactly 0 or 1 (the simple two-way split); directed or
// edge-labelled ones use uint32 holding out | in<<16 (directed) or the edge
// label's code (undirected), 0 meaning no edge (the multiway split).
type cell interface{ ~uint8 | ~uint32 }

// problem is a pair of graphs prepared the way McSplit prepares them:
// vertices stably sorted by degree, descending, and renumbered so that
// index order is degree order; adjacency matrices; the initial bidomains.
type problem[C cell] struct {
	opts       Options
	n0, n1     int
	adj0, adj1 []C     // row-major n×n matrices in the new numbering
	order0     []int   // new index → input vertex id, for g
	order1     []int   // and for h
	left       []int32 // initial left and right sets, bidomain by bidomain
	right      []int32
	doms       []bidomain // initial bidomains, one per vertex key in both graphs
	multiway   bool
	// prune runs the pruned search (Options.Prune) with the twin classes
	// in twins; set by the engines that search the pruned tree (solve,
	// the device engines, Prepare's subtree work: subtree_prune.go).
	prune  bool
	twins  twins
	rrOff  rrOff     // rules turned off, for measurements only
	withR6 bool      // R6 on (tests and measurements; off in PruneRR)
	learn  learnMode // learned branching in the pruned search (learn.go)
	bound2 bool      // the edge-count bound B2 in the pruned search (bound.go)
	bits0  adjBits   // B2's bit rows of each graph
	bits1  adjBits
	// rows0 and rows1 are each graph's adjacency as one bit word per
	// vertex (loops left out) when both have at most 64 vertices and the
	// split is simple; nil otherwise. bidomain.lm and rm use them.
	rows0, rows1 []uint64
	// splitAll makes every child's split whole (childOrCut off): tests
	// compare the trees with and without the early cut.
	splitAll bool
	mutate   mutation // a rule broken on purpose (mutation tests only)
}

// vertexKey is what two matched vertices must share: the label (when
// labels count) and whether the vertex has a self-loop. The original
// program folds loops into the label in the same way, even unlabelled.
type vertexKey struct {
	label int32
	loop  bool
}

func keyLess(a, b vertexKey) bool {
	if a.label != b.label {
		return a.label < b.label
	}
	return !a.loop && b.loop
}

// edgeLabelCodes gives the edge labels of the graphs dense codes 1..k, in
// label order (just 0 → 1 when no graph has any), for the adjacency
// matrices' cells.
func edgeLabelCodes(graphs []*core.Graph) (map[int32]uint32, error) {
	var all []int32
	seen := map[int32]bool{}
	for _, gr := range graphs {
		for _, l := range gr.EdgeLabels {
			if !seen[l] {
				seen[l] = true
				all = append(all, l)
			}
		}
	}
	slices.Sort(all)
	if len(all) == 0 {
		all = []int32{0}
	}
	if len(all) > 0xFFFF {
		return nil, fmt.Errorf("mcs: %d distinct edge labels: at most 65535 supported", len(all))
	}
	codes := make(map[int32]uint32, len(all))
	for i, l := range all {
		codes[l] = uint32(i + 1)
	}
	return codes, nil
}

func newProblem[C cell](g, h *core.Graph, opts Options) (*problem[C], error) {
	multiway := opts.Directed || opts.EdgeLabels
	codes := map[int32]uint32{}
	if opts.EdgeLabels {
		var err error
		if codes, err = edgeLabelCodes([]*core.Graph{g, h}); err != nil {
			return nil, err
		}
	}
	m0, k0 := matrix[C](g, opts, codes)
	m1, k1 := matrix[C](h, opts, codes)
	d0, d1 := degrees(m0, g.N, opts.Directed), degrees(m1, h.N, opts.Directed)
	// As the original: each graph sorted by degree, descending, unless the
	// other graph is dense (more arcs than n(n−1), possible only directed),
	// then ascending; stable, so ties keep input order.
	dense := func(d []int, n int) bool {
		s := 0
		for _, x := range d {
			s += x
		}
		return s > n*(n-1)
	}
	o0 := order(d0, dense(d1, h.N))
	o1 := order(d1, dense(d0, g.N))
	if opts.BlockOrder {
		o0, o1 = blockOrder(m0, g.N, d0), blockOrder(m1, h.N, d1)
	}
	p := &problem[C]{
		opts: opts, n0: g.N, n1: h.N, order0: o0, order1: o1, multiway: multiway,
		adj0: permute(m0, o0), adj1: permute(m1, o1),
	}
	// One bidomain per vertex key present in both graphs, in key order.
	byKey0, byKey1 := map[vertexKey][]int32{}, map[vertexKey][]int32{}
	for i, v := range o0 {
		byKey0[k0[v]] = append(byKey0[k0[v]], int32(i))
	}
	for i, v := range o1 {
		byKey1[k1[v]] = append(byKey1[k1[v]], int32(i))
	}
	var keys []vertexKey
	for k := range byKey0 {
		if _, ok := byKey1[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keyLess(keys[i], keys[j]) })
	for _, k := range keys {
		l, r := byKey0[k], byKey1[k]
		p.doms = append(p.doms, bidomain{
			l: int32(len(p.left)), r: int32(len(p.right)), ll: int32(len(l)), rl: int32(len(r)), minL: l[0],
			lm: bitWord(l), rm: bitWord(r), // used only with rows0, rows1 (≤ 64 vertices)
		})
		p.left = append(p.left, l...)
		p.right = append(p.right, r...)
	}
	if !p.multiway && p.n0 <= 64 && p.n1 <= 64 {
		// One word a row (bound.go's bit rows, loops left out).
		p.rows0, p.rows1 = newAdjBits(p.adj0, p.n0).rows, newAdjBits(p.adj1, p.n1).rows
	}
	return p, nil
}

// bitWord is the set vs as bits of one word (vertices mod 64).
func bitWord(vs []int32) uint64 {
	var m uint64
	for _, x := range vs {
		m |= 1 << (x & 63)
	}
	return m
}

// MatrixBytes is the memory of the adjacency matrices a search keeps for a
// graph of n vertices (in input numbering and renumbered; 4 bytes a cell
// with opts.Directed or opts.EdgeLabels, else 1), to check against a
// memory limit before Solve or SolveMany builds them (CheckMemory).
func MatrixBytes(n int, opts Options) float64 {
	cell := 1.0
	if opts.Directed || opts.EdgeLabels {
		cell = 4
	}
	return 2 * cell * float64(n) * float64(n)
}

// CheckMemory refuses the adjacency matrices of graphs (MatrixBytes,
// summed) when they pass opts.MaxMemory, with a *core.MemoryError naming
// the largest graph, as Solve, SolveMany and Prepare do before they build
// them.
func CheckMemory(graphs []*core.Graph, opts Options) error {
	if len(graphs) == 0 {
		return nil
	}
	need, big := 0.0, 0
	for i, g := range graphs {
		need += MatrixBytes(g.N, opts)
		if g.N > graphs[big].N {
			big = i
		}
	}
	what := fmt.Sprintf("the adjacency matrices of %d graphs (largest %s, %d vertices)", len(graphs), graphs[big].Name, graphs[big].N)
	return core.ReadOptions{MaxMemory: opts.MaxMemory}.CheckMemory(what, need)
}

// matrix builds g's adjacency matrix in input numbering, and each vertex's key.
func matrix[C cell](g *core.Graph, opts Options, codes map[int32]uint32) ([]C, []vertexKey) {
	n := g.N
	m := make([]C, n*n)
	keys := make([]vertexKey, n)
	lab := func(i int) uint32 {
		if !opts.EdgeLabels {
			return 1
		}
		if g.EdgeLabels == nil {
			return codes[0]
		}
		return codes[g.EdgeLabels[i]]
	}
	for u := 0; u < n; u++ {
		if opts.VertexLabels && g.VertexLabels != nil {
			keys[u].label = g.VertexLabels[u]
		}
		for i := g.Offsets[u]; i < g.Offsets[u+1]; i++ {
			v := int(g.Adj[i])
			switch {
			case v == u:
				keys[u].loop = true
			case opts.Directed:
				m[u*n+v] |= C(lab(i))
				m[v*n+u] |= C(lab(i) << 16)
			case u < v || !g.HasEdge(v, u):
				// Undirected: the edge's label is arc min→max's when stored.
				m[u*n+v] = C(lab(i))
				m[v*n+u] = C(lab(i))
			}
		}
	}
	return m, keys
}

// degrees counts neighbours as the original does: undirected, vertices
// adjacent; directed, out-neighbours plus in-neighbours.
func degrees[C cell](m []C, n int, directed bool) []int {
	d := make([]int, n)
	for u := 0; u < n; u++ {
		for _, c := range m[u*n : u*n+n] {
			x := uint32(c)
			if directed {
				if x&0xFFFF != 0 {
					d[u]++
				}
				if x>>16 != 0 {
					d[u]++
				}
			} else if x != 0 {
				d[u]++
			}
		}
	}
	return d
}

// order returns the vertices stably sorted by degree, descending (or
// ascending when asc).
func order(deg []int, asc bool) []int {
	o := make([]int, len(deg))
	for i := range o {
		o[i] = i
	}
	sort.SliceStable(o, func(i, j int) bool {
		if asc {
			return deg[o[i]] < deg[o[j]]
		}
		return deg[o[i]] > deg[o[j]]
	})
	return o
}

// permute renumbers matrix m so that new vertex i is old vertex o[i].
func permute[C cell](m []C, o []int) []C {
	n := len(o)
	out := make([]C, n*n)
	for i, oi := range o {
		row := m[oi*n : oi*n+n]
		for j, oj := range o {
			out[i*n+j] = row[oj]
		}
	}
	return out
}

// blockOrder is Options.BlockOrder's vertex order: the connected
// components, largest first; inside each, a border of the vertices of
// high degree (above twice the component's mean), by degree descending,
// then the others breadth-first from the border, each vertex's unplaced
// neighbours by degree descending (Cuthill–McKee). The adjacency matrix
// becomes bordered and banded, close to block triangular: a vertex's
// neighbours mostly come just before it, so the vertices McSplit branches
// on in turn (the smallest index of a bidomain) split the same
// neighbourhoods and the bidomains fall apart faster than in a pure degree
// order, where consecutive vertices are often far apart in the graph.
func blockOrder[C cell](m []C, n int, deg []int) []int {
	adjacent := func(u, v int) bool { return u != v && m[u*n+v] != 0 }
	byDegree := func(vs []int) {
		sort.SliceStable(vs, func(i, j int) bool { return deg[vs[i]] > deg[vs[j]] })
	}
	// Components, in order of their first vertex, then largest first.
	comp := make([]int, n)
	for i := range comp {
		comp[i] = -1
	}
	var comps [][]int
	for s := 0; s < n; s++ {
		if comp[s] >= 0 {
			continue
		}
		c := len(comps)
		members := []int{s}
		comp[s] = c
		for i := 0; i < len(members); i++ {
			u := members[i]
			for v := 0; v < n; v++ {
				if comp[v] < 0 && adjacent(u, v) {
					comp[v] = c
					members = append(members, v)
				}
			}
		}
		slices.Sort(members)
		comps = append(comps, members)
	}
	sort.SliceStable(comps, func(i, j int) bool { return len(comps[i]) > len(comps[j]) })
	out := make([]int, 0, n)
	placed := make([]bool, n)
	for _, members := range comps {
		sum := 0
		for _, v := range members {
			sum += deg[v]
		}
		var border []int
		for _, v := range members {
			if deg[v]*len(members) > 2*sum {
				border = append(border, v)
			}
		}
		if len(border) == 0 {
			// No vertex stands out: start from one of highest degree.
			best := members[0]
			for _, v := range members {
				if deg[v] > deg[best] {
					best = v
				}
			}
			border = []int{best}
		}
		byDegree(border)
		start := len(out)
		for _, v := range border {
			placed[v] = true
			out = append(out, v)
		}
		for i := start; i < len(out); i++ {
			u := out[i]
			var next []int
			for _, v := range members {
				if !placed[v] && adjacent(u, v) {
					placed[v] = true
					next = append(next, v)
				}
			}
			byDegree(next)
			out = append(out, next...)
		}
	}
	return out
}
