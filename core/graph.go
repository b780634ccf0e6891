// Package core holds Arbor's graph type, its file formats and the pure-Go
// primitives the algorithms share. It knows nothing of devices: it is the
// reference the device code is checked against.
package core

import (
	"fmt"
	"math/bits"
	"sort"
)

// Graph is a graph in compressed sparse row form. For an undirected graph
// every edge {u,v} is stored as the two arcs u→v and v→u; for a directed
// graph Adj holds out-arcs. Each vertex's neighbours are sorted ascending
// and distinct; there are no self-loops unless AllowSelfLoops was set.
type Graph struct {
	N        int
	Directed bool
	Offsets  []int   // len N+1: the arcs of v are Adj[Offsets[v]:Offsets[v+1]]
	Adj      []int32 // arc targets

	// Optional data; nil when the input has none.
	Weights      []float64 // per arc, parallel to Adj
	IntWeights   bool      // every weight is an integer (the file said integer, or pattern)
	VertexLabels []int32   // per vertex
	EdgeLabels   []int32   // per arc, parallel to Adj

	// Where the graph came from, for messages.
	Name   string // file name or generator description
	Format string // format it was read in
}

// Edge is one input edge (or arc, for directed graphs).
type Edge struct {
	U, V   int32
	Weight float64
	Label  int32
}

// Builder collects edges and builds a Graph.
type Builder struct {
	N              int
	Directed       bool
	HasWeights     bool
	HasEdgeLabels  bool
	AllowSelfLoops bool
	// KeepDuplicates: when false (the default) a repeated edge keeps the
	// first occurrence's weight and label.
	VertexLabels []int32
	edges        []Edge
}

// NewBuilder starts a graph on n vertices.
func NewBuilder(n int, directed bool) *Builder { return &Builder{N: n, Directed: directed} }

// Add appends an edge; endpoints are checked in Build.
func (b *Builder) Add(e Edge) { b.edges = append(b.edges, e) }

// AddEdge appends an unweighted, unlabelled edge.
func (b *Builder) AddEdge(u, v int) {
	b.edges = append(b.edges, Edge{U: int32(u), V: int32(v), Weight: 1})
}

// Len is the number of edges added so far.
func (b *Builder) Len() int { return len(b.edges) }

// Build sorts and deduplicates the edges into CSR form.
func (b *Builder) Build() (*Graph, error) {
	if b.N < 0 {
		return nil, fmt.Errorf("graph: negative vertex count %d", b.N)
	}
	arcs := make([]Edge, 0, len(b.edges)*2)
	for i, e := range b.edges {
		if e.U < 0 || int(e.U) >= b.N || e.V < 0 || int(e.V) >= b.N {
			return nil, fmt.Errorf("graph: edge %d (%d,%d) has an endpoint outside [0,%d)", i, e.U, e.V, b.N)
		}
		if e.U == e.V && !b.AllowSelfLoops {
			continue
		}
		arcs = append(arcs, e)
		if !b.Directed && e.U != e.V {
			arcs = append(arcs, Edge{U: e.V, V: e.U, Weight: e.Weight, Label: e.Label})
		}
	}
	sort.SliceStable(arcs, func(i, j int) bool {
		if arcs[i].U != arcs[j].U {
			return arcs[i].U < arcs[j].U
		}
		return arcs[i].V < arcs[j].V
	})
	g := &Graph{N: b.N, Directed: b.Directed, Offsets: make([]int, b.N+1), VertexLabels: b.VertexLabels}
	g.Adj = make([]int32, 0, len(arcs))
	if b.HasWeights {
		g.Weights = make([]float64, 0, len(arcs))
	}
	if b.HasEdgeLabels {
		g.EdgeLabels = make([]int32, 0, len(arcs))
	}
	for i, a := range arcs {
		if i > 0 && arcs[i-1].U == a.U && arcs[i-1].V == a.V {
			continue // duplicate: the first occurrence wins
		}
		g.Adj = append(g.Adj, a.V)
		g.Offsets[a.U+1]++
		if b.HasWeights {
			g.Weights = append(g.Weights, a.Weight)
		}
		if b.HasEdgeLabels {
			g.EdgeLabels = append(g.EdgeLabels, a.Label)
		}
	}
	for v := 0; v < b.N; v++ {
		g.Offsets[v+1] += g.Offsets[v]
	}
	return g, nil
}

// Neighbors returns v's (out-)neighbours, sorted ascending.
func (g *Graph) Neighbors(v int) []int32 { return g.Adj[g.Offsets[v]:g.Offsets[v+1]] }

// Degree is v's (out-)degree.
func (g *Graph) Degree(v int) int { return g.Offsets[v+1] - g.Offsets[v] }

// Arcs is the number of stored arcs (twice the edges when undirected).
func (g *Graph) Arcs() int { return len(g.Adj) }

// Edges is the number of edges: arcs for directed graphs, arcs/2 (plus
// self-loops) for undirected ones.
func (g *Graph) Edges() int {
	if g.Directed {
		return len(g.Adj)
	}
	loops := 0
	for v := 0; v < g.N; v++ {
		for _, u := range g.Neighbors(v) {
			if int(u) == v {
				loops++
			}
		}
	}
	return (len(g.Adj)-loops)/2 + loops
}

// ArcIndex returns the index in Adj of arc u→v, or -1.
func (g *Graph) ArcIndex(u, v int) int {
	nb := g.Neighbors(u)
	i := sort.Search(len(nb), func(i int) bool { return nb[i] >= int32(v) })
	if i < len(nb) && nb[i] == int32(v) {
		return g.Offsets[u] + i
	}
	return -1
}

// HasEdge reports whether arc u→v exists (for undirected graphs: edge {u,v}).
func (g *Graph) HasEdge(u, v int) bool { return g.ArcIndex(u, v) >= 0 }

// Bitset is a fixed-size set of vertices.
type Bitset []uint64

// NewBitset returns an empty set for n vertices.
func NewBitset(n int) Bitset { return make(Bitset, (n+63)/64) }

func (b Bitset) Set(i int)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b Bitset) Clear(i int)    { b[i>>6] &^= 1 << (uint(i) & 63) }
func (b Bitset) Has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b Bitset) Count() (c int) {
	for _, w := range b {
		c += bits.OnesCount64(w)
	}
	return c
}

// AdjacencyMatrix returns one bitset row per vertex: row u holds v when arc
// u→v exists. Algorithms on small dense graphs (McSplit, clique bounds)
// test adjacency in O(1) with it.
func (g *Graph) AdjacencyMatrix() []Bitset {
	rows := make([]Bitset, g.N)
	words := (g.N + 63) / 64
	backing := make([]uint64, words*g.N)
	for u := 0; u < g.N; u++ {
		rows[u] = backing[u*words : (u+1)*words : (u+1)*words]
		for _, v := range g.Neighbors(u) {
			rows[u].Set(int(v))
		}
	}
	return rows
}
