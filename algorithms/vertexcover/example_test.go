package vertexcover_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/core"
)

// vc is a 5-cycle with a pendant vertex: its minimum cover has 3 vertices.
const vc = "p td 6 6\n1 2\n2 3\n3 4\n4 5\n5 1\n5 6\n"

// Parameterized mode answers "is there a cover of at most K vertices?".
func ExampleSolve_parameterized() {
	g, err := core.ParseGraph(strings.NewReader(vc), "vc.gr", core.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range []int{2, 3} {
		res, err := vertexcover.Solve(context.Background(), g, vertexcover.Options{Parameterized: true, K: k, Threads: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(k, res.Status, res.Cover != nil)
	}
	// Output:
	// 2 infeasible false
	// 3 optimal true
}

// Verify checks a cover independently; WriteSolution writes the PACE
// solution format (vertices from 1).
func ExampleVerify() {
	g, err := core.ParseGraph(strings.NewReader(vc), "vc.gr", core.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(vertexcover.Verify(g, []int{0, 2, 3}))
	cover := []int{0, 2, 4}
	fmt.Println(vertexcover.Verify(g, cover))
	if err := vertexcover.WriteSolution(os.Stdout, g.N, cover); err != nil {
		fmt.Println(err)
	}
	// Output:
	// edge {4,5} is not covered
	// <nil>
	// s vc 6 3
	// 1
	// 3
	// 5
}
