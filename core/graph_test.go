package core

import (
	"slices"
	"testing"
)

func TestBuilder(t *testing.T) {
	b := NewBuilder(4, false)
	b.HasWeights, b.HasEdgeLabels = true, true
	b.Add(Edge{U: 0, V: 1, Weight: 5, Label: 1})
	b.Add(Edge{U: 1, V: 0, Weight: 9, Label: 2}) // repeat: the first wins
	b.Add(Edge{U: 2, V: 2, Weight: 3})           // self-loop: dropped
	b.Add(Edge{U: 3, V: 1, Weight: 7, Label: 4})
	if b.Len() != 4 {
		t.Fatalf("Len %d", b.Len())
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	checkCSR(t, g)
	if !slices.Equal(edgeSet(g), []string{"0-1:5/1", "1-3:7/4"}) {
		t.Fatalf("edges %q", edgeSet(g))
	}
	if g.Edges() != 2 || g.Arcs() != 4 || g.Degree(1) != 2 || !g.HasEdge(3, 1) || g.HasEdge(2, 2) {
		t.Fatal("queries wrong")
	}

	b = NewBuilder(3, true)
	b.AllowSelfLoops = true
	b.AddEdge(0, 1)
	b.AddEdge(2, 2)
	b.AddEdge(1, 0)
	g, err = b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(edgeSet(g), []string{"0-1", "1-0", "2-2"}) || g.Edges() != 3 || g.Weights != nil {
		t.Fatalf("directed edges %q", edgeSet(g))
	}
	m := g.AdjacencyMatrix()
	if !m[0].Has(1) || !m[1].Has(0) || !m[2].Has(2) || m[0].Has(2) || m[0].Count() != 1 {
		t.Fatal("adjacency matrix wrong")
	}

	b = NewBuilder(2, false)
	b.AddEdge(0, 2)
	if _, err := b.Build(); err == nil {
		t.Fatal("endpoint out of range accepted")
	}
	if _, err := NewBuilder(-1, false).Build(); err == nil {
		t.Fatal("negative N accepted")
	}
}
