// Package core holds Arbor's graph type and everything about graphs that
// is not an algorithm: Graph (compressed sparse rows, directed or not, with
// vertex and edge labels; csr.go, csr_par.go build it in parallel), the
// readers and writers of every file format (ReadGraph detects Matrix
// Market, DIMACS, PACE, MIVIA/ARG, LAD and edge lists, read*.go; errors
// name file, line and expectation, FormatError), the generators (GNP,
// BoundedDegree, RMAT, and random MTX / edge-list files), statistics
// (Stats) and validation.
//
// Why its own package: every algorithm, the CLI, the cluster and the
// benchmarks read and write the same graphs. Invariant: it knows nothing of
// devices (it never imports backend), so it stays the host-side reference.
package core

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
)

// Graph is a graph in compressed sparse row form. For an undirected graph
// every edge {u,v} is stored as the two arcs u→v and v→u; for a directed
// graph Adj holds out-arcs. Each vertex's neighbours are sorted ascending
// and distinct. Self-loops (one arc v→v) appear only where the source has
// them: a Builder with AllowSelfLoops, or a MIVIA or LAD file (the MIVIA
// 4D meshes have a few); the simple-graph formats reject or drop them.
type Graph struct {
	N        int
	Directed bool
	Offsets  []int   // len N+1: the arcs of v are Adj[Offsets[v]:Offsets[v+1]]
	Adj      []int32 // arc targets

	// Optional data; nil when the input has none.
	Weights    []float64 // per arc, parallel to Adj
	IntWeights bool      // every weight is an integer (the file said integer, or pattern)
	// PatternWeights: Weights are the 1s a Matrix Market pattern file
	// implies, not weights the file gives.
	PatternWeights bool
	VertexLabels   []int32 // per vertex
	EdgeLabels     []int32 // per arc, parallel to Adj

	// Where the graph came from, for messages.
	Name   string // file name or generator description
	Format string // format it was read in

	// Base is what to add to a vertex to get its number in the file: 1 for
	// 1-based formats (DIMACS, PACE, Matrix Market, 1-based edge lists), 0
	// otherwise. Print vertices as v+Base so users see their own numbering.
	Base int
	// Notes are facts a reader noticed that a user should know, e.g.
	// "vertex 0 has no edges: the file looks 1-based with a spare vertex 0".
	Notes []string
	// Repeated counts edge records of the file merged into an earlier
	// equal edge (some PACE and DIMACS files list an edge twice, and their
	// header counts both): Edges()+Repeated is the file's record count.
	Repeated int
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

// Build sorts and deduplicates the edges into CSR form. It costs about
// 24 bytes per added edge plus the graph (counting sort into CSR, then a
// sort per vertex); generators that can replay their edges use buildCSR's
// two-pass form instead and never store them.
func (b *Builder) Build() (*Graph, error) {
	if b.N < 0 || b.N > math.MaxInt32 {
		return nil, fmt.Errorf("graph: vertex count %d outside 0..%d", b.N, math.MaxInt32)
	}
	src := make([]int32, 0, len(b.edges))
	dst := make([]int32, 0, len(b.edges))
	var w []float64
	var lab []int32
	if b.HasWeights {
		w = make([]float64, 0, len(b.edges))
	}
	if b.HasEdgeLabels {
		lab = make([]int32, 0, len(b.edges))
	}
	for i, e := range b.edges {
		if e.U < 0 || int(e.U) >= b.N || e.V < 0 || int(e.V) >= b.N {
			return nil, fmt.Errorf("graph: edge %d (%d,%d) has an endpoint outside [0,%d)", i, e.U, e.V, b.N)
		}
		if e.U == e.V && !b.AllowSelfLoops {
			continue
		}
		src = append(src, e.U)
		dst = append(dst, e.V)
		if w != nil {
			w = append(w, e.Weight)
		}
		if lab != nil {
			lab = append(lab, e.Label)
		}
	}
	if b.VertexLabels != nil && len(b.VertexLabels) != b.N {
		return nil, fmt.Errorf("graph: %d vertex labels for %d vertices", len(b.VertexLabels), b.N)
	}
	g, _ := buildCSR(b.N, arrayStream(src, dst), w, lab, csrOptions{directed: b.Directed})
	g.VertexLabels = b.VertexLabels
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
