package vertexcover

import "github.com/arbor-gpu/arbor/core"

// Complement returns the complement of undirected g: u and v are adjacent
// exactly when they are distinct and not adjacent in g. A DIMACS clique
// file's maximum clique is a maximum independent set of its complement, so
// n − ω(g) is the minimum cover of Complement(g).
func Complement(g *core.Graph) *core.Graph {
	n := g.N
	c := &core.Graph{N: n, Offsets: make([]int, n+1), Name: g.Name + " (complement)", Format: g.Format, Base: g.Base}
	total := 0
	for v := 0; v < n; v++ {
		total += n - 1 - g.Degree(v)
	}
	c.Adj = make([]int32, 0, total)
	for v := 0; v < n; v++ {
		nb := g.Neighbors(v)
		j := 0
		for u := 0; u < n; u++ {
			for j < len(nb) && int(nb[j]) < u {
				j++
			}
			if u == v || (j < len(nb) && int(nb[j]) == u) {
				continue
			}
			c.Adj = append(c.Adj, int32(u))
		}
		c.Offsets[v+1] = len(c.Adj)
	}
	return c
}
