package vertexcover

import (
	"fmt"

	"github.com/arbor-gpu/arbor/core"
)

// Complement returns the complement of undirected g: u and v are adjacent
// exactly when they are distinct and not adjacent in g. A DIMACS clique
// file's maximum clique is a maximum independent set of its complement, so
// n − ω(g) is the minimum cover of Complement(g).
func Complement(g *core.Graph) *core.Graph {
	n := g.N
	c := &core.Graph{N: n, Offsets: make([]int, n+1), Name: g.Name + " (complement)", Format: g.Format, Base: g.Base}
	// A self-loop (kept by the readers) is no edge of the complement's
	// count: n − 1 − the other neighbours (a negative total panicked).
	total := 0
	for v := 0; v < n; v++ {
		total += n - 1 - g.Degree(v)
		if g.HasEdge(v, v) {
			total++
		}
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

// ComplementBytes is what Complement allocates for g: 4 bytes an arc of
// the complement and the offsets. A float64, since n² overflows for the
// vertex counts a header may claim; callers check it against their memory
// limit before building (CheckComplement).
func ComplementBytes(g *core.Graph) float64 {
	n := float64(g.N)
	return 4*max(n*(n-1)-float64(len(g.Adj)), 0) + 8*(n+1)
}

// CheckComplement refuses Complement(g) when it would pass maxMemory
// (0: $ARBOR_MAX_MEMORY, else half the available memory) with a
// *core.MemoryError, before anything is allocated.
func CheckComplement(g *core.Graph, maxMemory int64) error {
	return core.ReadOptions{MaxMemory: maxMemory}.CheckMemory(fmt.Sprintf("the complement (%d vertices)", g.N), ComplementBytes(g))
}
