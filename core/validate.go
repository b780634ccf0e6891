package core

import "fmt"

// Validate checks the CSR invariants every reader and generator promises:
// offsets monotone and covering Adj, targets in range, each vertex's
// neighbours sorted and distinct, payload slices parallel to Adj, and for
// an undirected graph every arc matched by its reverse with the same
// weight and label. Algorithms given a hand-built Graph can call it first.
func (g *Graph) Validate() error {
	if g.N < 0 || len(g.Offsets) != g.N+1 || g.Offsets[0] != 0 || g.Offsets[g.N] != len(g.Adj) {
		return fmt.Errorf("graph %s: offsets do not describe %d vertices and %d arcs", g.Name, g.N, len(g.Adj))
	}
	if g.Weights != nil && len(g.Weights) != len(g.Adj) {
		return fmt.Errorf("graph %s: %d weights for %d arcs", g.Name, len(g.Weights), len(g.Adj))
	}
	if g.EdgeLabels != nil && len(g.EdgeLabels) != len(g.Adj) {
		return fmt.Errorf("graph %s: %d edge labels for %d arcs", g.Name, len(g.EdgeLabels), len(g.Adj))
	}
	if g.VertexLabels != nil && len(g.VertexLabels) != g.N {
		return fmt.Errorf("graph %s: %d vertex labels for %d vertices", g.Name, len(g.VertexLabels), g.N)
	}
	for v := 0; v < g.N; v++ {
		if g.Offsets[v+1] < g.Offsets[v] {
			return fmt.Errorf("graph %s: offsets decrease at vertex %d", g.Name, v)
		}
	}
	for v := 0; v < g.N; v++ {
		nb := g.Neighbors(v)
		for i, u := range nb {
			if u < 0 || int(u) >= g.N {
				return fmt.Errorf("graph %s: vertex %d has neighbour %d outside 0..%d", g.Name, v, u, g.N-1)
			}
			if i > 0 && nb[i-1] >= u {
				return fmt.Errorf("graph %s: neighbours of vertex %d are not sorted and distinct", g.Name, v)
			}
			if g.Directed {
				continue
			}
			j := g.ArcIndex(int(u), v)
			if j < 0 {
				return fmt.Errorf("graph %s: undirected arc %d→%d has no reverse", g.Name, v, u)
			}
			k := g.Offsets[v] + i
			if g.Weights != nil && g.Weights[j] != g.Weights[k] {
				return fmt.Errorf("graph %s: edge %d–%d has weights %g and %g", g.Name, v, u, g.Weights[k], g.Weights[j])
			}
			if g.EdgeLabels != nil && g.EdgeLabels[j] != g.EdgeLabels[k] {
				return fmt.Errorf("graph %s: edge %d–%d has labels %d and %d", g.Name, v, u, g.EdgeLabels[k], g.EdgeLabels[j])
			}
		}
	}
	return nil
}

// Members is the membership array of a vertex list of a graph on n
// vertices, for the checkers of the algorithms' answers: an error names
// (as what, "vertex" or "cover vertex") the first vertex out of [0,n) or
// listed twice.
func Members(n int, vs []int, what string) ([]bool, error) {
	in := make([]bool, n)
	for _, v := range vs {
		if v < 0 || v >= n {
			return nil, fmt.Errorf("%s %d is outside [0,%d)", what, v, n)
		}
		if in[v] {
			return nil, fmt.Errorf("%s %d is listed twice", what, v)
		}
		in[v] = true
	}
	return in, nil
}
