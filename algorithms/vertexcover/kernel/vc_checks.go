package kernel

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/search"
)

// vcChecks run whole vertex cover searches in the parameterized mode with
// the budget frozen at the optimum less one: no cover is found, the whole
// tree is explored, and it does not depend on the order the workers take
// it in, so the node count must equal the Go twin's on every device. One
// more case with the budget at the optimum checks that a cover is found
// (its size, not its node count, which depends on who finds it first).
// The optimum is the smallest budget at which the device finds a cover;
// TestVCTwinOptimum checks the twin's against brute force.
func vcChecks() []device.Check {
	cases := []struct {
		n    int
		p    float64
		seed uint64
	}{
		{24, 0.25, 1},
		{36, 0.15, 2},
		{40, 0.15, 3},
		{64, 0.3, 4},
		{90, 0.1, 5},
	}
	var out []device.Check
	for _, c := range cases {
		name := fmt.Sprintf("G(%d,%.2f) seed %d, k = opt−1", c.n, c.p, c.seed)
		out = append(out, device.Check{Kernel: "vc_epoch", Case: name, Size: c.n,
			Run: func(dev backend.Device) ([]device.Output, error) {
				off, adj := randomCSR(rand.New(rand.NewPCG(c.seed, 17)), c.n, c.p)
				opt, err := vcOptimum(dev, c.n, off, adj)
				if err != nil {
					return nil, err
				}
				nodes, found, err := vcFixedBudget(dev, c.n, off, adj, int32(opt-1))
				if err != nil {
					return nil, err
				}
				_, atOpt, err := vcFixedBudget(dev, c.n, off, adj, int32(opt))
				return []device.Output{{Name: "nodes", Values: []int64{nodes}}, {Name: "found below opt", Values: []int64{int64(found)}},
					{Name: "found at opt", Values: []int64{int64(atOpt)}}}, err
			}})
	}
	return out
}

// vcOptimum is the smallest budget at which the device finds a cover
// (budgets from 0 up; those far below the optimum fail at the root).
func vcOptimum(dev backend.Device, n int, off, adj []int32) (int, error) {
	for k := 0; k <= n; k++ {
		_, found, err := vcRun(dev, n, off, adj, int32(k), 6, 0)
		if err != nil || found >= 0 {
			return found, err
		}
	}
	return 0, fmt.Errorf("vc check: no cover of at most %d vertices", n)
}

// randomCSR is a G(n, p) graph in CSR form, lists sorted.
func randomCSR(rng *rand.Rand, n int, p float64) (off, adj []int32) {
	lists := make([][]int32, n)
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < p {
				lists[u] = append(lists[u], int32(v))
				lists[v] = append(lists[v], int32(u))
			}
		}
	}
	off = make([]int32, n+1)
	for u, l := range lists {
		slices.Sort(l)
		off[u+1] = off[u] + int32(len(l))
		adj = append(adj, l...)
	}
	return off, adj
}

// vcBruteMin is the minimum cover size by plain branching on an edge's
// endpoints (small graphs only): the checks' independent reference.
func vcBruteMin(n int, off, adj []int32) int {
	in := make([]bool, n)
	best := n
	var rec func(size int)
	rec = func(size int) {
		if size >= best {
			return
		}
		for u := 0; u < n; u++ {
			if in[u] {
				continue
			}
			for _, v := range adj[off[u]:off[u+1]] {
				if !in[v] {
					in[u] = true
					rec(size + 1)
					in[u] = false
					in[v] = true
					rec(size + 1)
					in[v] = false
					return
				}
			}
		}
		best = size
	}
	rec(0)
	return best
}

// vcFixedBudget searches the graph for a cover of at most k vertices with
// the budget frozen, and returns the nodes counted and the size of the
// cover found (-1: none), in launches of 1024 nodes per worker (so that
// workers donate).
func vcFixedBudget(dev backend.Device, n int, off, adj []int32, k int32) (int64, int, error) {
	return vcRun(dev, n, off, adj, k, 6, 0)
}

// vcRun is vcFixedBudget with a worker count and lanes per worker (0: one
// on CPU devices, VCLanes elsewhere).
func vcRun(dev backend.Device, n int, off, adj []int32, k int32, workers, lanes int) (int64, int, error) {
	if k < 0 {
		return 1, -1, nil // no cover of negative size: the root alone
	}
	q, err := dev.NewQueue()
	if err != nil {
		return 0, 0, err
	}
	defer q.Release()
	s := VCShape{N: n, MaxCover: int(k), Workers: workers, Capacity: 64}
	if s.Lanes = lanes; lanes == 0 && dev.Info().Type == backend.TypeCPU {
		s.Lanes = 1
	}
	kn, err := NewVC(dev, q, s, off, adj)
	if err != nil {
		return 0, 0, err
	}
	defer kn.Release()
	if err := kn.Reset(q, n-int(k)-1); err != nil {
		return 0, 0, err
	}
	if _, err := kn.Ring.Push(q, [][]uint64{kn.RootTask(off)}); err != nil {
		return 0, 0, err
	}
	tot, err := search.RunToEnd(q, &search.WithGoal{K: kn, Goal: k, Frozen: true}, s.Workers, 1<<10)
	if err != nil {
		return 0, 0, fmt.Errorf("vc check: %w", err)
	}
	best, err := kn.Best(q)
	if err != nil || best == nil {
		return tot.Nodes, -1, err
	}
	if err := checkCover(n, off, adj, best); err != nil {
		return 0, 0, err
	}
	return tot.Nodes, len(best), nil
}

// checkCover fails unless cover (ascending) covers every edge.
func checkCover(n int, off, adj []int32, cover []int) error {
	in := make([]bool, n)
	for _, v := range cover {
		in[v] = true
	}
	for u := 0; u < n; u++ {
		for _, v := range adj[off[u]:off[u+1]] {
			if !in[u] && !in[v] {
				return fmt.Errorf("vc check: edge {%d,%d} not covered", u, v)
			}
		}
	}
	return nil
}
