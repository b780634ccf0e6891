package kernel

import (
	"fmt"
	"math/rand/v2"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/search"
)

// cliqueChecks run whole maximum clique searches with the incumbent frozen
// at goal−1, where the tree does not depend on the order the workers take
// it in: the node count and the largest clique found must equal the Go
// twin's on every device. One graph takes one word per set, one three
// (over 128 vertices), one is dense (deep stacks, long colour lists).
func cliqueChecks() []device.Check {
	cases := []struct {
		n    int
		p    float64
		goal int32
	}{
		{60, 0.5, 8},
		{150, 0.3, 6},
		{90, 0.75, 14},
	}
	var out []device.Check
	for i, c := range cases {
		out = append(out, device.Check{Kernel: "clique_epoch", Case: fmt.Sprintf("G(%d,%.2f), goal %d", c.n, c.p, c.goal), Size: c.n,
			Run: func(dev backend.Device) ([]device.Output, error) {
				rng := rand.New(rand.NewPCG(uint64(i)+21, 5))
				adj := device.RandomBitRows(rng, c.n, c.p)
				nodes, found, err := CliqueFixedGoal(dev, c.n, adj, c.goal, 6)
				return []device.Output{{Name: "nodes", Values: []int64{nodes}}, {Name: "largest", Values: []int64{int64(found)}}}, err
			}})
	}
	return out
}

// CliqueFixedGoal searches the graph (adjacency bit rows, n vertices) from
// the root with the incumbent frozen at goal−1 on workers workers, and
// returns the nodes counted and the size of the largest clique found (0 if
// none reaches goal). It runs its own short epoch loop: kernels cannot
// import device/search, which drives the real searches.
func CliqueFixedGoal(dev backend.Device, n int, adj []uint64, goal int32, workers int) (int64, int, error) {
	lanes := 0
	if dev.Info().Type == backend.TypeCPU {
		lanes = 1
	}
	return cliqueFixedGoalLanes(dev, n, adj, goal, workers, lanes)
}

// cliqueFixedGoalLanes is CliqueFixedGoal with lanes work-items per worker
// (0: CliqueLanes).
func cliqueFixedGoalLanes(dev backend.Device, n int, adj []uint64, goal int32, workers, lanes int) (int64, int, error) {
	q, err := dev.NewQueue()
	if err != nil {
		return 0, 0, err
	}
	defer q.Release()
	s := CliqueShape{N: n, MaxDepth: n + 1, Workers: workers, Capacity: 64, Lanes: lanes}
	k, err := NewClique(dev, q, s, adj)
	if err != nil {
		return 0, 0, err
	}
	defer k.Release()
	if err := k.Reset(q, int(goal)-1); err != nil {
		return 0, 0, err
	}
	if _, err := k.Ring.Push(q, [][]uint64{s.RootTask()}); err != nil {
		return 0, 0, err
	}
	tot, err := search.RunToEnd(q, &search.WithGoal{K: k, Goal: goal, Frozen: true}, s.Workers, 1<<10)
	if err != nil {
		return 0, 0, fmt.Errorf("clique check: %w", err)
	}
	best, err := k.Best(q)
	return tot.Nodes, len(best), err
}
