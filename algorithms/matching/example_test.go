package matching_test

import (
	"fmt"
	"strings"

	"github.com/arbor-gpu/arbor/algorithms/matching"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	_ "github.com/arbor-gpu/arbor/cpu" // the CPU backend (backend/all registers every backend)
)

// Pick a device with backend.Select ("cpu" here; "auto" takes a GPU where
// there is one), run the handshaking matching on it and check the result
// independently, and against sequential greedy.
func ExampleHandshake() {
	dev, _, err := backend.Select(backend.Selection{Backend: "cpu"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	const mtx = "%%MatrixMarket matrix coordinate real symmetric\n4 4 3\n2 1 5\n3 2 1\n4 3 5\n"
	g, err := core.ParseGraph(strings.NewReader(mtx), "path.mtx", core.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := matching.Handshake(dev, g, matching.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Pairs, res.Weight, res.Mate)
	fmt.Println(res.Mate.Verify(g), fmt.Sprint(matching.Greedy(g, matching.TieIndex)) == fmt.Sprint(res.Mate))
	// Output:
	// 2 10 [1 0 3 2]
	// <nil> true
}
