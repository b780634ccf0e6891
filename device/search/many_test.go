package search

import (
	"context"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/backend/backendtest"
)

// treeKernel is a host-side stand-in for a search kernel over a complete
// binary tree: a task is a depth d, a node of depth d > 0 has two children
// of depth d − 1. One worker with a stack; it takes tasks from the ring,
// and it honours the demand protocol as device workers do: while the
// hungry word exceeds the tasks queued, it gives its oldest node away.
type treeKernel struct {
	ring    *Ring
	stack   []uint64
	nodes   int64
	given   int64
	budgets map[int64]bool // the budgets launches got
	idles   map[int32]bool // the idle limits launches got
}

func newTreeKernel(t *testing.T, dev backend.Device, q backend.Queue) *treeKernel {
	bs := backend.NewBuffers(dev, q)
	t.Cleanup(bs.Free)
	r, err := NewRing(bs, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Reset(q, 0); err != nil {
		t.Fatal(err)
	}
	return &treeKernel{ring: r, budgets: map[int64]bool{}, idles: map[int32]bool{}}
}

func (k *treeKernel) Epoch(q backend.Queue, budget int64, idle int32) error {
	k.budgets[budget], k.idles[idle] = true, true
	// A launch takes time on a device; without it the units waiting for
	// work would rarely get the lock before the busy one is back.
	time.Sleep(200 * time.Microsecond)
	if len(k.stack) == 0 {
		ts, err := k.ring.Drain(q, 1)
		if err != nil {
			return err
		}
		for _, t := range ts {
			k.stack = append(k.stack, t[0])
		}
	}
	for i := int64(0); i < budget && len(k.stack) > 0; i++ {
		d := k.stack[len(k.stack)-1]
		k.stack = k.stack[:len(k.stack)-1]
		k.nodes++
		if d > 0 {
			k.stack = append(k.stack, d-1, d-1)
		}
		ctrl, err := k.ring.Control(q)
		if err != nil {
			return err
		}
		if hungry := int(int32(ctrl[DSHungry])); len(k.stack) > 1 && Queued(ctrl) < hungry {
			n, err := k.ring.Push(q, [][]uint64{{k.stack[0]}})
			if err != nil {
				return err
			}
			if n == 1 {
				k.stack = k.stack[1:]
				k.given++
			}
		}
	}
	return nil
}

func (k *treeKernel) WorkerStatus(backend.Queue) ([]int64, error) {
	ws := make([]int64, DSWWords)
	ws[DSWNodes], ws[DSWDonated] = k.nodes, k.given
	if len(k.stack) > 0 {
		ws[DSWActive] = 1
	}
	return ws, nil
}

func (k *treeKernel) TaskRing() *Ring { return k.ring }

func treeUnits(t *testing.T, n int) ([]Unit, []*treeKernel) {
	dev := backendtest.Open(t, "cpu")
	var units []Unit
	var ks []*treeKernel
	for i := 0; i < n; i++ {
		q, err := dev.NewQueue()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Release() })
		k := newTreeKernel(t, dev, q)
		units = append(units, Unit{Queue: q, Kernel: k, Workers: 1})
		ks = append(ks, k)
	}
	return units, ks
}

// TestRunManyCountsEveryNode: a tree of 2¹⁴ − 1 nodes started on one of
// three units is searched to the end, every node exactly once, with tasks
// moved to the two that start idle.
func TestRunManyCountsEveryNode(t *testing.T) {
	units, ks := treeUnits(t, 3)
	st, proven, err := RunMany(context.Background(), units, Options{Pool: [][]uint64{{13}}, Epoch: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !proven || st.Nodes != 1<<14-1 {
		t.Fatalf("proven %v, %d nodes; want the whole tree, %d", proven, st.Nodes, 1<<14-1)
	}
	if st.Moved == 0 || st.Devices != 3 {
		t.Fatalf("%d tasks moved over %d devices", st.Moved, st.Devices)
	}
	for i, k := range ks {
		if k.nodes == 0 {
			t.Errorf("unit %d searched nothing (moved %d, nodes %v)", i, st.Moved, []int64{ks[0].nodes, ks[1].nodes, ks[2].nodes})
		}
	}
}

// TestRunManyStops: a node limit ends the search unproven, and Between
// ending it counts as proven (settled elsewhere).
func TestRunManyStops(t *testing.T) {
	units, _ := treeUnits(t, 2)
	st, proven, err := RunMany(context.Background(), units, Options{Pool: [][]uint64{{40}}, NodeLimit: 5000})
	if err != nil || proven || st.Nodes < 5000 {
		t.Fatalf("node limit: proven %v, %d nodes, %v", proven, st.Nodes, err)
	}
	units, _ = treeUnits(t, 2)
	calls := 0
	_, proven, err = RunMany(context.Background(), units, Options{Pool: [][]uint64{{40}},
		Between: func(int) (int, bool) { calls++; return 0, calls == 3 }})
	if err != nil || !proven || calls != 3 {
		t.Fatalf("Between: proven %v after %d calls, %v", proven, calls, err)
	}
	units, _ = treeUnits(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, proven, err = RunMany(ctx, units, Options{Pool: [][]uint64{{60}}}); err != nil || proven {
		t.Fatalf("cancelled: proven %v, %v", proven, err)
	}
}
