package mcs_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	_ "github.com/arbor-gpu/arbor/cpu" // the CPU backend (backend/all registers every backend)
)

func read(s string) *core.Graph {
	g, err := core.ParseGraph(strings.NewReader(s), "example.gr", core.ReadOptions{})
	if err != nil {
		panic(err)
	}
	return g
}

// A maximum common induced subgraph of a 4-cycle and a path of four
// vertices is a path of three; Verify checks the mapping independently.
func ExampleSolve_pair() {
	cycle := read("p td 4 4\n1 2\n2 3\n3 4\n4 1\n")
	path := read("p td 4 3\n1 2\n2 3\n3 4\n")
	res, err := mcs.Solve(context.Background(), cycle, path, mcs.Options{Threads: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Size, res.Status, mcs.Verify(cycle, path, res.Mapping, mcs.Options{}))
	// Output: 3 optimal <nil>
}

// A goal run answers "is there a common subgraph of at least K
// vertices?": above the optimum the answer is a proof that none exists.
func ExampleSolve_goal() {
	cycle := read("p td 4 4\n1 2\n2 3\n3 4\n4 1\n")
	path := read("p td 4 3\n1 2\n2 3\n3 4\n")
	for _, k := range []int{3, 4} {
		res, err := mcs.Solve(context.Background(), cycle, path, mcs.Options{Threads: 1, Goal: k})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(k, res.Status, res.Size)
	}
	// Output:
	// 3 optimal 3
	// 4 infeasible 0
}

// Verify rejects a mapping that is not an induced-subgraph isomorphism.
func ExampleVerify() {
	cycle := read("p td 4 4\n1 2\n2 3\n3 4\n4 1\n")
	path := read("p td 4 3\n1 2\n2 3\n3 4\n")
	// Cycle vertices 0 and 2 are not adjacent; path vertices 0 and 1 are.
	err := mcs.Verify(cycle, path, [][2]int{{0, 0}, {2, 1}}, mcs.Options{})
	fmt.Println(err != nil)
	// Output: true
}

// Pick a device (here the CPU backend, which runs the device kernels' Go
// twins; "auto" takes a GPU where there is one) and run the device engine.
func ExampleSolve_device() {
	dev, choice, err := backend.Select(backend.Selection{Backend: "cpu"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	cycle := read("p td 4 4\n1 2\n2 3\n3 4\n4 1\n")
	path := read("p td 4 3\n1 2\n2 3\n3 4\n")
	res, err := mcs.Solve(context.Background(), cycle, path, mcs.Options{Engine: mcs.EngineGPU, Devices: []backend.Device{dev}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(choice.Info.Backend, res.Engine, res.Size, res.Status)
	// Output: cpu gpu 3 optimal
}

// Three graphs: one exact search over all of them.
func ExampleSolveMany() {
	graphs := []*core.Graph{
		read("p td 4 4\n1 2\n2 3\n3 4\n4 1\n"),
		read("p td 4 3\n1 2\n2 3\n3 4\n"),
		read("p td 3 3\n1 2\n2 3\n3 1\n"),
	}
	res, err := mcs.SolveMany(context.Background(), graphs, mcs.Options{Threads: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Size, res.Status, mcs.VerifyMany(graphs, res.Tuples, mcs.Options{}))
	// Output: 2 optimal <nil>
}
