package kernel

import (
	"fmt"
	"math/rand/v2"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/search"
)

// mcsplitChecks run whole McSplit searches in the fixed-goal mode, where
// the tree does not depend on the order the workers take it in: the node
// count and the largest solution found must equal the Go twin's on every
// device. One pair takes one word per set, one two words (over 64
// vertices), one the min-product heuristic.
func mcsplitChecks() []device.Check {
	cases := []struct {
		n0, n1     int
		p          float64
		goal       int32
		minProduct bool
	}{
		{18, 20, 0.4, 11, false},
		{70, 66, 0.08, 63, false},
		{20, 18, 0.5, 11, true},
	}
	var out []device.Check
	for i, c := range cases {
		name := fmt.Sprintf("G(%d,%.2f) vs G(%d,%.2f), goal %d", c.n0, c.p, c.n1, c.p, c.goal)
		if c.minProduct {
			name += ", min_product"
		}
		out = append(out, device.Check{Kernel: "mcsplit_epoch", Case: name, Size: c.n0 + c.n1,
			Run: func(dev backend.Device) ([]device.Output, error) {
				rng := rand.New(rand.NewPCG(uint64(i)+11, 3))
				g, h := device.RandomBitRows(rng, c.n0, c.p), device.RandomBitRows(rng, c.n1, c.p)
				nodes, found, err := mcsplitFixedGoal(dev, c.n0, c.n1, g, h, c.goal, c.minProduct)
				return []device.Output{{Name: "nodes", Values: []int64{nodes}}, {Name: "largest", Values: []int64{int64(found)}}}, err
			}})
	}
	return out
}

// mcsplitFixedGoal searches the pair from a root with one bidomain (every
// vertex on both sides) with the incumbent frozen at goal−1, and returns
// the nodes counted and the size of the largest solution found. It runs
// its own short epoch loop: kernels cannot import device/search,
// which drives the real searches.
func mcsplitFixedGoal(dev backend.Device, n0, n1 int, g, h []uint64, goal int32, minProduct bool) (int64, int, error) {
	lanes := 0
	if dev.Info().Type == backend.TypeCPU {
		lanes = 1
	}
	return mcsplitFixedGoalLanes(dev, n0, n1, g, h, goal, minProduct, lanes)
}

// mcsplitFixedGoalLanes is mcsplitFixedGoal with lanes work-items per
// worker (0: MCSplitLanes).
func mcsplitFixedGoalLanes(dev backend.Device, n0, n1 int, g, h []uint64, goal int32, minProduct bool, lanes int) (int64, int, error) {
	q, err := dev.NewQueue()
	if err != nil {
		return 0, 0, err
	}
	defer q.Release()
	s := MCSplitShape{N0: n0, N1: n1, Workers: 6, Capacity: 64, MinProduct: minProduct, Lanes: lanes}
	k, err := NewMCSplit(dev, q, s, g, h, MCSplitTwins{})
	if err != nil {
		return 0, 0, err
	}
	defer k.Release()
	if err := k.Reset(q, int(goal)-1); err != nil {
		return 0, 0, err
	}
	w := s.Words()
	root := make([]uint64, s.TaskWords())
	doms := root[4+w+s.NMin():]
	for v := 0; v < n0; v++ {
		doms[v/64] |= 1 << (v % 64)
	}
	for v := 0; v < n1; v++ {
		doms[w+v/64] |= 1 << (v % 64)
	}
	root[0] = 1 << 32
	if _, err := k.Ring.Push(q, [][]uint64{root}); err != nil {
		return 0, 0, err
	}
	for epoch := 0; epoch < 1<<16; epoch++ {
		if err := k.Epoch(q, 1<<14, 1<<10, goal, true); err != nil {
			return 0, 0, err
		}
		st, err := k.WorkerStatus(q)
		if err != nil {
			return 0, 0, err
		}
		ctrl, err := k.Ring.Control(q)
		if err != nil {
			return 0, 0, err
		}
		if tot := search.SumWorkers(st, s.Workers); tot.Active == 0 && search.Queued(ctrl) == 0 {
			best, err := k.Best(q)
			return tot.Nodes, len(best), err
		}
	}
	return 0, 0, fmt.Errorf("mcsplit check: not finished after %d launches", 1<<16)
}
