package mcs

import (
	"fmt"

	"github.com/arbor-gpu/arbor/core"
)

// Verify checks, independently of the search, that mapping (pairs of g and
// h vertex ids) is an isomorphism between the subgraphs of g and h induced
// by its two sides, under opts: injective on both sides; vertex labels
// equal (VertexLabels); self-loops on both sides or neither; every pair of
// matched vertices adjacent in g exactly when their images are adjacent in
// h, with arc directions (Directed) and edge labels (EdgeLabels) equal; and
// the matched subgraph connected (Connected; weakly when directed).
func Verify(g, h *core.Graph, mapping [][2]int, opts Options) error {
	usedG, usedH := map[int]int{}, map[int]int{}
	for i, m := range mapping {
		u, x := m[0], m[1]
		if u < 0 || u >= g.N {
			return fmt.Errorf("mcs: pair %d (%d→%d): %d is not a vertex of the first graph (%d vertices)", i, u, x, u, g.N)
		}
		if x < 0 || x >= h.N {
			return fmt.Errorf("mcs: pair %d (%d→%d): %d is not a vertex of the second graph (%d vertices)", i, u, x, x, h.N)
		}
		if j, ok := usedG[u]; ok {
			return fmt.Errorf("mcs: vertex %d of the first graph is matched twice (pairs %d and %d)", u, j, i)
		}
		if j, ok := usedH[x]; ok {
			return fmt.Errorf("mcs: vertex %d of the second graph is matched twice (pairs %d and %d)", x, j, i)
		}
		usedG[u], usedH[x] = i, i
		if opts.VertexLabels && vlabel(g, u) != vlabel(h, x) {
			return fmt.Errorf("mcs: %d→%d: vertex labels differ (%d, %d)", u, x, vlabel(g, u), vlabel(h, x))
		}
		if g.HasEdge(u, u) != h.HasEdge(x, x) {
			return fmt.Errorf("mcs: %d→%d: one has a self-loop, the other not", u, x)
		}
	}
	for i := range mapping {
		for j := i + 1; j < len(mapping); j++ {
			u, v := mapping[i][0], mapping[j][0]
			x, y := mapping[i][1], mapping[j][1]
			if a, b := relation(g, u, v, opts), relation(h, x, y, opts); a != b {
				return fmt.Errorf("mcs: pairs %d→%d and %d→%d: %s in the first graph but %s in the second", u, x, v, y, a, b)
			}
		}
	}
	if opts.Connected && len(mapping) > 1 {
		// Search the matched vertices of g, following arcs both ways.
		in := map[int]bool{}
		for _, m := range mapping {
			in[m[0]] = true
		}
		seen := map[int]bool{mapping[0][0]: true}
		stack := []int{mapping[0][0]}
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, m := range mapping {
				v := m[0]
				if !seen[v] && in[v] && (g.HasEdge(u, v) || g.HasEdge(v, u)) {
					seen[v] = true
					stack = append(stack, v)
				}
			}
		}
		if len(seen) != len(mapping) {
			return fmt.Errorf("mcs: the common subgraph is not connected (%d of %d vertices reachable from %d)", len(seen), len(mapping), mapping[0][0])
		}
	}
	return nil
}

func vlabel(g *core.Graph, v int) int32 {
	if g.VertexLabels == nil {
		return 0
	}
	return g.VertexLabels[v]
}

// relation describes how u and v are joined in g, as a string to compare.
func relation(g *core.Graph, u, v int, opts Options) string {
	arc := func(a, b int) (bool, int32) {
		i := g.ArcIndex(a, b)
		if i < 0 {
			return false, 0
		}
		if opts.EdgeLabels && g.EdgeLabels != nil {
			return true, g.EdgeLabels[i]
		}
		return true, 0
	}
	if opts.Directed {
		out, lo := arc(u, v)
		in, li := arc(v, u)
		s := "no arc"
		switch {
		case out && in:
			s = "arcs both ways"
		case out:
			s = "an arc forward"
		case in:
			s = "an arc backward"
		}
		if opts.EdgeLabels {
			s += fmt.Sprintf(" (labels %d/%d)", lo, li)
		}
		return s
	}
	a, b := min(u, v), max(u, v)
	ok, l := arc(a, b)
	if !ok {
		ok, l = arc(b, a)
	}
	if !ok {
		return "not adjacent"
	}
	if opts.EdgeLabels {
		return fmt.Sprintf("adjacent (label %d)", l)
	}
	return "adjacent"
}

// VerifyMany checks a SolveMany answer: every row has one vertex per
// graph, and for every pair of graphs the two columns form a mapping that
// Verify accepts (so the subgraphs induced in all the graphs are
// isomorphic through the rows).
func VerifyMany(graphs []*core.Graph, tuples [][]int, opts Options) error {
	for i, row := range tuples {
		if len(row) != len(graphs) {
			return fmt.Errorf("mcs: row %d has %d vertices for %d graphs", i, len(row), len(graphs))
		}
	}
	for a := range graphs {
		for b := a + 1; b < len(graphs); b++ {
			pairs := make([][2]int, len(tuples))
			for i, row := range tuples {
				pairs[i] = [2]int{row[a], row[b]}
			}
			if err := Verify(graphs[a], graphs[b], pairs, opts); err != nil {
				return fmt.Errorf("graphs %d and %d: %w", a+1, b+1, err)
			}
		}
	}
	return nil
}
