package matching

import (
	"fmt"
	"sort"

	"github.com/arbor-gpu/arbor/core"
)

// Matching gives each vertex its partner, or -1.
type Matching []int32

// Verify checks, independently of how m was computed, that m is a matching
// of g: one entry per vertex, every partner a vertex, partners symmetric,
// no vertex matched to itself, and every matched pair an edge of g.
// (Symmetry makes "no vertex twice" hold: a vertex has one entry.)
func (m Matching) Verify(g *core.Graph) error {
	if len(m) != g.N {
		return fmt.Errorf("matching has %d entries for %d vertices", len(m), g.N)
	}
	for v, p := range m {
		if p == -1 {
			continue
		}
		if p < 0 || int(p) >= g.N {
			return fmt.Errorf("vertex %d is matched to %d, not a vertex", v, p)
		}
		if int(p) == v {
			return fmt.Errorf("vertex %d is matched to itself", v)
		}
		if int(m[p]) != v {
			return fmt.Errorf("vertex %d is matched to %d, but %d is matched to %d", v, p, p, m[p])
		}
		if !g.HasEdge(v, int(p)) {
			return fmt.Errorf("vertex %d is matched to %d, but {%d,%d} is not an edge", v, p, v, p)
		}
	}
	return nil
}

// Maximal reports the first edge of g with both ends unmatched (a matching
// the handshake returns is always maximal), or ok.
func (m Matching) Maximal(g *core.Graph) (u, v int, ok bool) {
	for u := 0; u < g.N; u++ {
		for _, w := range g.Neighbors(u) {
			if int(w) != u && m[u] == -1 && m[w] == -1 {
				return u, int(w), false
			}
		}
	}
	return 0, 0, true
}

// Greedy is the sequential oracle: it scans the edges of g from strongest to
// weakest (weight descending; on equal weights the tie order — for
// TieIndex the smaller endpoint, then the larger, ascending) and takes every
// edge whose ends are both free. The handshake must return exactly this.
func Greedy(g *core.Graph, tie Tie) Matching {
	type edge struct {
		u, v int32
		w    float64
	}
	var edges []edge
	for u := 0; u < g.N; u++ {
		for a := g.Offsets[u]; a < g.Offsets[u+1]; a++ {
			if v := g.Adj[a]; int32(u) < v {
				w := 1.0
				if g.Weights != nil {
					w = g.Weights[a]
				}
				edges = append(edges, edge{int32(u), v, w})
			}
		}
	}
	sort.Slice(edges, func(i, j int) bool {
		a, b := edges[i], edges[j]
		return stronger(tie, a.w, a.u, a.v, b.w, b.u, b.v)
	})
	m := make(Matching, g.N)
	for i := range m {
		m[i] = -1
	}
	for _, e := range edges {
		if m[e.u] == -1 && m[e.v] == -1 {
			m[e.u], m[e.v] = e.v, e.u
		}
	}
	return m
}
