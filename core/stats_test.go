package core

import (
	"slices"
	"testing"
)

func TestStats(t *testing.T) {
	// Triangle 0-1-2, edge 3-4, isolated 5, weighted.
	g := parse(t, "s.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n6 6 4\n2 1 3\n3 2 -1\n3 1 8\n5 4 2\n", ReadOptions{})
	s := g.Stats()
	want := Stats{Vertices: 6, Edges: 4, Arcs: 8, MinDegree: 0, MaxDegree: 2, AvgDegree: 8.0 / 6, Isolated: 1,
		Components: 3, Largest: 3, VertexLabels: -1, EdgeLabels: -1, Weights: "integer", MinWeight: -1, MaxWeight: 8}
	if s != want {
		t.Fatalf("Stats() = %+v\nwant      %+v", s, want)
	}
	comp, n := g.Components()
	if n != 3 || !slices.Equal(comp, []int32{0, 0, 0, 1, 1, 2}) {
		t.Fatalf("Components() = %v, %d", comp, n)
	}
	// Directed: weak components; a sink is not isolated.
	d := parse(t, "d.lad", "3\n1 1\n0\n0\n", ReadOptions{Directed: true})
	if s := d.Stats(); s.Components != 2 || s.Isolated != 1 || s.MinDegree != 0 || s.MaxDegree != 1 || s.Edges != 1 {
		t.Fatalf("directed stats %+v", s)
	}
	l := parse(t, "l.lad", "2\n2 0 1 0\n", ReadOptions{})
	if s := l.Stats(); s.SelfLoops != 1 || s.Edges != 2 {
		t.Fatalf("loop stats %+v", s)
	}
}
