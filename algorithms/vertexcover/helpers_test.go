package vertexcover

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// gnp makes a G(n,p) graph from a seeded generator.
func gnp(t testing.TB, n int, p float64, seed uint64) *core.Graph {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	b := core.NewBuilder(n, false)
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if r.Float64() < p {
				b.AddEdge(u, v)
			}
		}
	}
	return build(t, b)
}

// fromEdges builds a graph from an edge list.
func fromEdges(t testing.TB, n int, edges [][2]int) *core.Graph {
	t.Helper()
	b := core.NewBuilder(n, false)
	for _, e := range edges {
		b.AddEdge(e[0], e[1])
	}
	return build(t, b)
}

func build(t testing.TB, b *core.Builder) *core.Graph {
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// bruteMin is the minimum cover size by enumerating every vertex subset
// (n ≤ 24): S is a cover when every vertex outside it has all its
// neighbours inside.
func bruteMin(g *core.Graph) int {
	n := g.N
	adj := make([]uint32, n)
	for v := 0; v < n; v++ {
		for _, u := range g.Neighbors(v) {
			adj[v] |= 1 << uint(u)
		}
	}
	best := n
	for s := uint32(0); s < 1<<uint(n); s++ {
		c := bits.OnesCount32(s)
		if c >= best {
			continue
		}
		ok := true
		for v := 0; v < n && ok; v++ {
			if s&(1<<uint(v)) == 0 && adj[v]&^s != 0 {
				ok = false
			}
		}
		if ok {
			best = c
		}
	}
	return best
}

// isCoverOfState checks that in covers every live edge of s.
func liveEdgesCovered(s *state, in []bool) bool {
	for v := 0; v < s.n; v++ {
		if !s.alive[v] {
			continue
		}
		for _, u := range s.adj[v] {
			if s.alive[u] && !in[v] && !in[u] {
				return false
			}
		}
	}
	return true
}

// liveSet returns v's live neighbours as a set.
func liveSet(s *state, v int32) map[int32]bool {
	m := map[int32]bool{}
	for _, u := range s.adj[v] {
		if s.alive[u] {
			m[u] = true
		}
	}
	return m
}

// liftedCover is an optimal cover of s's kernel kg (brute force; ids maps
// its vertices to s's) lifted back through s's reductions to a cover of
// the n-vertex input.
func liftedCover(s *state, kg *core.Graph, ids []int32, n int) []int {
	in := make([]bool, n)
	for i, c := range bruteCover(kg) {
		if c {
			in[ids[i]] = true
		}
	}
	resolve(s.ops, in)
	var cover []int
	for v, c := range in {
		if c {
			cover = append(cover, v)
		}
	}
	return cover
}

// optionalGraph is the graph of data file sub (relative to the shared
// data), or nil, said in the log, when the data lacks it or it cannot be
// read.
func optionalGraph(t *testing.T, sub string) *core.Graph {
	t.Helper()
	path := dataset.Optional(t, sub)
	if path == "" {
		return nil
	}
	g, err := core.ReadGraph(path, core.ReadOptions{})
	if err != nil {
		t.Logf("%s not read (%v): skipped", sub, err)
		return nil
	}
	return g
}

// checkReduced fails unless s's cover so far plus its kernel's optimum is
// want, g's optimum, and an optimal cover of the kernel lifts back through
// s's reductions to an optimal cover of g. what names the case.
func checkReduced(t *testing.T, g *core.Graph, s *state, want int, what string) {
	t.Helper()
	kg, ids := s.extract(nil)
	if got := s.cover + bruteMin(kg); got != want {
		t.Fatalf("%s: cover %d + kernel optimum = %d, want %d", what, s.cover, got, want)
	}
	cover := liftedCover(s, kg, ids, g.N)
	if err := Verify(g, cover); err != nil || len(cover) != want {
		t.Fatalf("%s: lifted cover %v (%d, want %d): %v", what, cover, len(cover), want, err)
	}
}

// randomBranch follows one child of a branching on a maximum-degree
// vertex v, chosen by r (v in the cover, or N(v)), then reduces.
func randomBranch(s *state, r *rand.Rand) {
	v := s.maxDegree()
	if r.IntN(2) == 0 {
		s.take(v)
	} else {
		for _, u := range s.liveNeighbors(v, nil) {
			s.take(u)
		}
	}
	s.reduce(noBudget)
}
