package search

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
)

// TestRunToEnd: the checks' form of the loop launches with their fixed
// budget and idle limit, starts from what the caller pushed (Seeded), runs
// to the end, and fails instead of looping when EpochLimit is reached.
func TestRunToEnd(t *testing.T) {
	units, ks := treeUnits(t, 1)
	q, k := units[0].Queue, ks[0]
	if _, err := k.ring.Push(q, [][]uint64{{10}}); err != nil {
		t.Fatal(err)
	}
	tot, err := RunToEnd(q, k, 1, 7)
	if err != nil || tot.Nodes != 1<<11-1 || tot.Active != 0 {
		t.Fatalf("%+v, %v; want %d nodes", tot, err, 1<<11-1)
	}
	if len(k.budgets) != 1 || !k.budgets[7] || len(k.idles) != 1 || !k.idles[1<<10] {
		t.Fatalf("budgets %v idle limits %v; want 7 and 1024 only", k.budgets, k.idles)
	}
	units, ks = treeUnits(t, 1)
	if _, err := ks[0].ring.Push(units[0].Queue, [][]uint64{{20}}); err != nil {
		t.Fatal(err)
	}
	_, _, err = Run(context.Background(), units[0].Queue, ks[0], 1, Options{Budget: 3, EpochLimit: 5, Seeded: true})
	if err == nil || !strings.Contains(err.Error(), "not finished after 5 launches") {
		t.Fatalf("epoch limit: %v", err)
	}
}

// goalTree is treeKernel as a device solve drives it.
type goalTree struct {
	*treeKernel
	goal     int32
	frozen   bool
	released *int
}

func (g *goalTree) Epoch(q backend.Queue, budget int64, idle int32, goal int32, frozen bool) error {
	g.goal, g.frozen = goal, frozen
	return g.treeKernel.Epoch(q, budget, idle)
}
func (g *goalTree) Reset(q backend.Queue, incumbent int) error {
	return g.ring.Reset(q, int32(incumbent))
}
func (g *goalTree) Release() error { *g.released++; return nil }

// TestDevicesSolve: Open builds a kernel per device and leaves nothing open
// when one fails; Run resets each to the incumbent word and binds the goal;
// the search spans the devices; Collect and Close see every kernel.
func TestDevicesSolve(t *testing.T) {
	dev := backendtest.Open(t, "cpu")
	released := 0
	build := func(fail int) func(backend.Device, backend.Queue) (*goalTree, int, error) {
		n := 0
		return func(d backend.Device, q backend.Queue) (*goalTree, int, error) {
			if n++; n == fail {
				return nil, 0, errors.New("no room")
			}
			return &goalTree{treeKernel: newTreeKernel(t, d, q), released: &released}, 1, nil
		}
	}
	if _, err := Open([]backend.Device{dev, dev}, build(2)); err == nil || !strings.Contains(err.Error(), dev.Info().String()+": no room") {
		t.Fatalf("a failing build: %v", err)
	}
	if released != 1 {
		t.Fatalf("%d kernels released after a failed Open, want 1", released)
	}
	released = 0
	ds, err := Open([]backend.Device{dev, dev}, build(0))
	if err != nil {
		t.Fatal(err)
	}
	st, proven, err := ds.Run(context.Background(), 5, 9, true, Options{Pool: [][]uint64{{12}}})
	if err != nil || !proven || st.Nodes != 1<<13-1 || st.Devices != 2 {
		t.Fatalf("proven %v, %d nodes on %d devices, %v", proven, st.Nodes, st.Devices, err)
	}
	incs, err := Collect(ds, "the incumbent", func(k *goalTree, q backend.Queue) (int32, error) {
		if k.goal != 9 || !k.frozen {
			t.Errorf("goal %d frozen %v, want 9 and frozen", k.goal, k.frozen)
		}
		c, err := k.ring.Control(q)
		return int32(c[DSInc]), err
	})
	if err != nil || len(incs) != 2 || incs[0] != 5 || incs[1] != 5 {
		t.Fatalf("incumbent words %v, %v; want 5 on both", incs, err)
	}
	if ds.Workers() != 2 || ds.Device() != dev.Info().String()+", "+dev.Info().String() {
		t.Fatalf("workers %d, device %q", ds.Workers(), ds.Device())
	}
	ds.Close()
	if released != 2 {
		t.Fatalf("%d kernels released by Close, want 2", released)
	}
}
