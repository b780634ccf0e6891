package core

import "math"

// Stats summarises a graph: what `arbor info` prints.
type Stats struct {
	Vertices   int     `json:"vertices"`
	Edges      int     `json:"edges"`
	Arcs       int     `json:"arcs"`
	Repeated   int     `json:"repeated_records"` // file records merged into an earlier equal edge
	Directed   bool    `json:"directed"`
	SelfLoops  int     `json:"self_loops"`
	MinDegree  int     `json:"min_degree"` // out-degree for directed graphs
	MaxDegree  int     `json:"max_degree"`
	AvgDegree  float64 `json:"avg_degree"`
	Isolated   int     `json:"isolated"` // vertices with no arcs in or out
	Components int     `json:"components"`
	Largest    int     `json:"largest_component"` // vertices in the largest component
	// Distinct label values; -1 when the graph has no such labels.
	VertexLabels int `json:"vertex_labels"`
	EdgeLabels   int `json:"edge_labels"`
	// Weights is "" (none), "integer", "real" or "pattern" (a Matrix
	// Market pattern file: no weights given, every edge 1); the range
	// over all arcs (not for "pattern").
	Weights   string  `json:"weights,omitempty"`
	MinWeight float64 `json:"min_weight,omitempty"`
	MaxWeight float64 `json:"max_weight,omitempty"`
}

// Stats computes g's summary in O(N + arcs).
func (g *Graph) Stats() Stats {
	s := Stats{Vertices: g.N, Edges: g.Edges(), Arcs: g.Arcs(), Repeated: g.Repeated, Directed: g.Directed,
		SelfLoops: countLoops(g), VertexLabels: -1, EdgeLabels: -1}
	if g.N > 0 {
		s.MinDegree = math.MaxInt
		for v := 0; v < g.N; v++ {
			d := g.Degree(v)
			s.MinDegree = min(s.MinDegree, d)
			s.MaxDegree = max(s.MaxDegree, d)
		}
		s.AvgDegree = float64(g.Arcs()) / float64(g.N)
	}
	comp, count := g.Components()
	s.Components = count
	size := make([]int, count)
	for _, c := range comp {
		size[c]++
	}
	for _, n := range size {
		s.Largest = max(s.Largest, n)
	}
	touched := make([]bool, g.N)
	for v := 0; v < g.N; v++ {
		if g.Degree(v) > 0 {
			touched[v] = true
		}
	}
	for _, u := range g.Adj {
		touched[u] = true
	}
	for _, t := range touched {
		if !t {
			s.Isolated++
		}
	}
	distinct := func(ls []int32) int {
		if ls == nil {
			return -1
		}
		m := map[int32]struct{}{}
		for _, l := range ls {
			m[l] = struct{}{}
		}
		return len(m)
	}
	s.VertexLabels = distinct(g.VertexLabels)
	s.EdgeLabels = distinct(g.EdgeLabels)
	if g.PatternWeights {
		s.Weights = "pattern" // the file gives none: every edge weighs 1
	} else if g.Weights != nil {
		s.Weights = "real"
		if g.IntWeights {
			s.Weights = "integer"
		}
		if len(g.Weights) > 0 {
			s.MinWeight, s.MaxWeight = math.Inf(1), math.Inf(-1)
			for _, w := range g.Weights {
				s.MinWeight = min(s.MinWeight, w)
				s.MaxWeight = max(s.MaxWeight, w)
			}
		}
	}
	return s
}

// Components labels each vertex with its connected component (weakly
// connected for directed graphs), numbered 0.. in order of their smallest
// vertex, and returns the labels and the count.
func (g *Graph) Components() (comp []int32, count int) {
	parent := make([]int32, g.N)
	for v := range parent {
		parent[v] = int32(v)
	}
	var find func(int32) int32
	find = func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]] // path halving
			x = parent[x]
		}
		return x
	}
	for u := 0; u < g.N; u++ {
		for _, v := range g.Neighbors(u) {
			a, b := find(int32(u)), find(v)
			if a != b {
				if a < b {
					a, b = b, a
				}
				parent[a] = b // the smaller root wins: roots are component minima
			}
		}
	}
	comp = make([]int32, g.N)
	id := make([]int32, g.N)
	for v := 0; v < g.N; v++ {
		r := find(int32(v))
		if r == int32(v) {
			id[v] = int32(count)
			count++
		}
		comp[v] = id[r]
	}
	return comp, count
}
