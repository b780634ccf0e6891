package core

import (
	"slices"
	"strings"
	"testing"
)

// TestPeelCores: Peel's core numbers and degeneracy equal those of the
// k-cores found by plain repeated deletion, and its order is a peeling
// order: every vertex has at most its core number of neighbours peeled
// after it.
func TestPeelCores(t *testing.T) {
	for seed := range uint64(60) {
		g := GNP(1+int(seed%23), 0.05+float64(seed%7)*0.12, seed)
		n := g.N
		deg := make([]int, n)
		for v := range deg {
			deg[v] = len(g.Neighbors(v))
		}
		order, degeneracy := Peel(deg, func(v int, visit func(u int)) {
			for _, u := range g.Neighbors(v) {
				visit(int(u))
			}
		})
		// The k-core: delete vertices of degree below k until none is left.
		want := make([]int, n)
		for k := 1; k <= n; k++ {
			alive := slices.Repeat([]bool{true}, n)
			for changed := true; changed; {
				changed = false
				for v := 0; v < n; v++ {
					d := 0
					for _, u := range g.Neighbors(v) {
						if alive[u] {
							d++
						}
					}
					if alive[v] && d < k {
						alive[v], changed = false, true
					}
				}
			}
			for v := range alive {
				if alive[v] {
					want[v] = k
				}
			}
		}
		if !slices.Equal(deg, want) || degeneracy != slices.Max(append(want, 0)) {
			t.Fatalf("seed %d: cores %v degeneracy %d, want %v", seed, deg, degeneracy, want)
		}
		rank := make([]int, n)
		for i, v := range order {
			rank[v] = i
		}
		for v := 0; v < n; v++ {
			later := 0
			for _, u := range g.Neighbors(v) {
				if rank[u] > rank[v] {
					later++
				}
			}
			if later > deg[v] {
				t.Fatalf("seed %d: vertex %d has %d neighbours peeled after it, core %d", seed, v, later, deg[v])
			}
		}
	}
}

// TestMembers: in-range distinct vertices give their membership; the
// first vertex out of range or repeated is named.
func TestMembers(t *testing.T) {
	in, err := Members(4, []int{3, 0}, "vertex")
	if err != nil || !slices.Equal(in, []bool{true, false, false, true}) {
		t.Fatalf("members %v, %v", in, err)
	}
	for vs, want := range map[string][]int{
		"cover vertex 4 is outside [0,4)": {1, 4, 9},
		"cover vertex -1 is outside":      {-1},
		"cover vertex 2 is listed twice":  {2, 0, 2, 7},
	} {
		if _, err := Members(4, want, "cover vertex"); err == nil || !strings.HasPrefix(err.Error(), vs) {
			t.Errorf("%v: %v, want %q", want, err, vs)
		}
	}
}
