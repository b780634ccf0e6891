package mcs

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/arbor-gpu/arbor/core"
)

// approximate intersects the graphs one at a time, in GraphOrder: an exact
// MCS of the first two, keeping up to Options.Keep maximum solutions as
// induced subgraphs of the first graph with their maps; then, for each
// kept one, an exact MCS of that subgraph and the next graph, keeping the
// best Keep of all the results; and so on. A common subgraph of the kept
// subgraph and graph t is common to graphs 1..t, because the subgraph is
// isomorphic to its images in graphs 2..t−1. The cost is k−1 steps of at
// most Keep pair searches, not one search over all k graphs, but a step
// can throw away what a later graph needed: the answer is a lower bound,
// never proven.
func approximate(ctx context.Context, graphs []*core.Graph, opts Options) (MultiResult, error) {
	order := GraphOrder(graphs, opts.PlainOrder)
	keep := max(opts.Keep, 1)
	first := graphs[order[0]]
	pairOpts := opts
	pairOpts.Approximate, pairOpts.PlainOrder, pairOpts.Timeout = false, true, 0
	res := MultiResult{Approximate: true, Threads: opts.Threads, Order: order}

	// A candidate is a common subgraph of graphs order[0..t]: rows[i][s]
	// is the vertex of graphs[order[s]] in its i-th tuple.
	type candidate struct{ rows [][]int }
	r, all, err := solveManyExact(ctx, []*core.Graph{first, graphs[order[1]]}, pairOpts, keep)
	if err != nil {
		return MultiResult{}, err
	}
	res.Nodes += r.Nodes
	res.Threads = r.Threads
	var cands []candidate
	for _, sol := range all {
		cands = append(cands, candidate{rows: sol})
	}
	for t := 2; t < len(order) && len(cands) > 0 && ctx.Err() == nil; t++ {
		var next []candidate
		for _, c := range cands {
			verts := make([]int, len(c.rows))
			for i, row := range c.rows {
				verts[i] = row[0]
			}
			// rows are sorted by the first column, so sub's vertex i is
			// rows[i][0].
			sub, err := inducedSubgraph(first, verts)
			if err != nil {
				return MultiResult{}, err
			}
			r, all, err := solveManyExact(ctx, []*core.Graph{sub, graphs[order[t]]}, pairOpts, keep)
			if err != nil {
				return MultiResult{}, err
			}
			res.Nodes += r.Nodes
			for _, sol := range all {
				rows := make([][]int, len(sol))
				for i, pr := range sol {
					rows[i] = append(slices.Clone(c.rows[pr[0]]), pr[1])
				}
				sort.Slice(rows, func(a, b int) bool { return rows[a][0] < rows[b][0] })
				next = append(next, candidate{rows: rows})
			}
		}
		// The best keep, distinct as vertex sets of the first graph.
		sort.SliceStable(next, func(a, b int) bool { return len(next[a].rows) > len(next[b].rows) })
		cands = cands[:0]
		for _, c := range next {
			dup := false
			for _, d := range cands {
				dup = dup || sameColumn(c.rows, d.rows)
			}
			if !dup {
				cands = append(cands, c)
			}
			if len(cands) == keep {
				break
			}
		}
	}
	if len(cands) > 0 && len(cands[0].rows) > 0 {
		best := cands[0].rows
		res.Size = len(best)
		for _, row := range best {
			out := make([]int, len(graphs))
			for s, v := range row {
				out[order[s]] = v
			}
			res.Tuples = append(res.Tuples, out)
		}
		sort.Slice(res.Tuples, func(a, b int) bool { return res.Tuples[a][0] < res.Tuples[b][0] })
	}
	return res, nil
}

// sameColumn reports whether two row lists, sorted by their first
// column, use the same first-graph vertices.
func sameColumn(a, b [][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i][0] != b[i][0] {
			return false
		}
	}
	return true
}

// inducedSubgraph returns g's subgraph induced by verts (increasing):
// its vertex i is verts[i]; labels, directions and self-loops carried.
func inducedSubgraph(g *core.Graph, verts []int) (*core.Graph, error) {
	pos := make(map[int]int, len(verts))
	for i, v := range verts {
		pos[v] = i
	}
	b := core.NewBuilder(len(verts), g.Directed)
	b.HasEdgeLabels = g.EdgeLabels != nil
	b.AllowSelfLoops = true
	if g.VertexLabels != nil {
		b.VertexLabels = make([]int32, len(verts))
	}
	for i, u := range verts {
		if g.VertexLabels != nil {
			b.VertexLabels[i] = g.VertexLabels[u]
		}
		for a := g.Offsets[u]; a < g.Offsets[u+1]; a++ {
			j, ok := pos[int(g.Adj[a])]
			if !ok {
				continue
			}
			e := core.Edge{U: int32(i), V: int32(j), Weight: 1}
			if g.EdgeLabels != nil {
				e.Label = g.EdgeLabels[a]
			}
			// Undirected, keep the label relation reads: that of the arc
			// min→max, or of max→min when only that one is stored.
			if !g.Directed && i > j && g.HasEdge(verts[j], u) {
				continue
			}
			b.Add(e)
		}
	}
	sub, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("mcs: the subgraph induced by %d vertices of %s: %w", len(verts), g.Name, err)
	}
	return sub, nil
}
