package kcount

import (
	"slices"

	"github.com/arbor-gpu/arbor/core"
)

// dag is the graph oriented along a degeneracy order: vertices are
// numbered by rank (the order in which min-degree peeling removes them)
// and every edge points from its lower rank to its higher, so a vertex has
// at most degeneracy out-neighbours and every clique is counted once, from
// its lowest-ranked vertex.
type dag struct {
	n, degeneracy int
	edges         int64
	order         []int32 // rank → input vertex
	off           []int   // rank i's out-neighbours are out[off[i]:off[i+1]]
	out           []int32 // ranks, ascending
}

// outs is rank i's out-neighbours.
func (d *dag) outs(i int) []int32 { return d.out[d.off[i]:d.off[i+1]] }

// undirected is g's simple undirected adjacency: either arc makes two
// vertices adjacent, self-loops dropped, each list sorted and distinct.
// An undirected graph without self-loops is used as it is.
func undirected(g *core.Graph) (off []int, adj []int32) {
	loops := false
	for u := 0; u < g.N && !loops; u++ {
		loops = slices.Contains(g.Neighbors(u), int32(u))
	}
	if !g.Directed && !loops {
		return g.Offsets, g.Adj
	}
	deg := make([]int, g.N+1)
	for u := 0; u < g.N; u++ {
		for _, v := range g.Neighbors(u) {
			if int(v) != u {
				deg[u]++
				if g.Directed {
					deg[v]++
				}
			}
		}
	}
	off = make([]int, g.N+1)
	for u := 0; u < g.N; u++ {
		off[u+1] = off[u] + deg[u]
	}
	fill := slices.Clone(off[:g.N])
	adj = make([]int32, off[g.N])
	for u := 0; u < g.N; u++ {
		for _, v := range g.Neighbors(u) {
			if int(v) == u {
				continue
			}
			adj[fill[u]] = v
			fill[u]++
			if g.Directed {
				adj[fill[v]] = int32(u)
				fill[v]++
			}
		}
	}
	// Sort and deduplicate each list (a directed graph's u→v and v→u
	// both landed in it), compacting in place.
	w := 0
	for u := 0; u < g.N; u++ {
		list := adj[off[u]:off[u+1]]
		slices.Sort(list)
		list = slices.Compact(list)
		off[u] = w
		w += copy(adj[w:], list)
	}
	off[g.N] = w
	return off, adj[:w]
}

// orient peels g by minimum degree (core.Peel) and orients its edges
// along the peeling order.
func orient(g *core.Graph) *dag {
	n := g.N
	off, adj := undirected(g)
	deg := make([]int, n)
	for v := 0; v < n; v++ {
		deg[v] = off[v+1] - off[v]
	}
	vert, degeneracy := core.Peel(deg, func(v int, visit func(u int)) {
		for _, u := range adj[off[v]:off[v+1]] {
			visit(int(u))
		}
	})
	d := &dag{n: n, degeneracy: degeneracy, edges: int64(len(adj) / 2), order: vert}
	rank := make([]int32, n)
	for i, v := range vert {
		rank[v] = int32(i)
	}
	d.off = make([]int, n+1)
	for i, v := range vert {
		c := 0
		for _, u := range adj[off[v]:off[v+1]] {
			if rank[u] > int32(i) {
				c++
			}
		}
		d.off[i+1] = d.off[i] + c
	}
	d.out = make([]int32, d.off[n])
	for i, v := range vert {
		o := d.out[d.off[i]:d.off[i]]
		for _, u := range adj[off[v]:off[v+1]] {
			if r := rank[u]; r > int32(i) {
				o = append(o, r)
			}
		}
		slices.Sort(o)
	}
	return d
}
