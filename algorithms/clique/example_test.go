package clique_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/arbor-gpu/arbor/algorithms/clique"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	_ "github.com/arbor-gpu/arbor/cpu" // the CPU backend (backend/all registers every backend)
)

// A 5-cycle with one chord: its largest clique is the triangle the chord
// closes. Vertices are 0-based; add g.Base for the file's numbering.
func ExampleMaximum() {
	g, err := core.ParseGraph(strings.NewReader("p edge 5 6\ne 1 2\ne 2 3\ne 3 4\ne 4 5\ne 5 1\ne 1 3\n"), "c5.clq", core.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := clique.Maximum(context.Background(), g, clique.Options{Threads: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Size, res.Status, res.Clique, clique.Verify(g, res.Clique, false))
	// Output: 3 optimal [0 1 2] <nil>
}

// The complement: a maximum independent set.
func ExampleMaximum_complement() {
	g, err := core.ParseGraph(strings.NewReader("p edge 5 5\ne 1 2\ne 2 3\ne 3 4\ne 4 5\ne 5 1\n"), "c5.clq", core.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := clique.Maximum(context.Background(), g, clique.Options{Threads: 1, Complement: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Size, clique.Verify(g, res.Clique, true))
	// Output: 2 <nil>
}

// Verify rejects a set with a non-adjacent pair.
func ExampleVerify() {
	b := core.NewBuilder(3, false)
	b.AddEdge(0, 1)
	g, _ := b.Build()
	fmt.Println(clique.Verify(g, []int{0, 2}, false))
	// Output: vertices 0 and 2 are not adjacent
}

// The device engine with a goal, on a device picked by backend.Select
// (the CPU backend runs the kernel's Go twin).
func ExampleMaximum_device() {
	dev, _, err := backend.Select(backend.Selection{Backend: "cpu"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	g, err := core.ParseGraph(strings.NewReader("p edge 5 6\ne 1 2\ne 2 3\ne 3 4\ne 4 5\ne 5 1\ne 1 3\n"), "c5.clq", core.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range []int{3, 4} {
		res, err := clique.Maximum(context.Background(), g, clique.Options{Engine: clique.EngineGPU, Devices: []backend.Device{dev}, Goal: k})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(k, res.Status)
	}
	// Output:
	// 3 optimal
	// 4 infeasible
}
