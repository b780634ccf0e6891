package core_test

import (
	"fmt"
	"strings"

	"github.com/arbor-gpu/arbor/core"
)

// Read a graph from any reader: the format is detected from the content
// (here a PACE .gr header), and Base says the file numbers vertices from 1.
func ExampleParseGraph() {
	const pace = "c a path of three vertices\np td 3 2\n1 2\n2 3\n"
	g, err := core.ParseGraph(strings.NewReader(pace), "path.gr", core.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Format, g.N, g.Edges(), g.Base)
	// Vertex ids are 0-based in memory; print v+Base for the file's own.
	for v := 0; v < g.N; v++ {
		fmt.Println(v+g.Base, "has degree", g.Degree(v))
	}
	// Output:
	// pace 3 2 1
	// 1 has degree 1
	// 2 has degree 2
	// 3 has degree 1
}

// A malformed file is an error naming the file, the line and what was
// expected; no partial graph is returned.
func ExampleParseGraph_error() {
	_, err := core.ParseGraph(strings.NewReader("p td 3 1\n1 4\n"), "bad.gr", core.ReadOptions{})
	fmt.Println(err != nil && strings.Contains(err.Error(), "bad.gr:2:"))
	// Output: true
}

// Build a graph in memory.
func ExampleNewBuilder() {
	b := core.NewBuilder(4, false)
	b.AddEdge(0, 1)
	b.AddEdge(1, 2)
	b.AddEdge(2, 0)
	g, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	s := g.Stats()
	fmt.Println(s.Vertices, s.Edges, s.Components, s.Isolated)
	// Output: 4 3 2 1
}

// MaxStatus says what a maximisation result answers; with a goal K, a
// complete search that found nothing of K is a proof that none exists.
func ExampleMaxStatus() {
	fmt.Println(core.MaxStatus(true, 17, 0))  // complete, no goal
	fmt.Println(core.MaxStatus(true, 17, 17)) // complete, goal reached
	fmt.Println(core.MaxStatus(true, 0, 18))  // complete, goal not reached
	fmt.Println(core.MaxStatus(false, 17, 0)) // stopped early
	fmt.Println(core.StatusInfeasible.Proven(), core.StatusFeasible.Proven())
	// Output:
	// optimal
	// optimal
	// infeasible
	// feasible
	// true false
}
