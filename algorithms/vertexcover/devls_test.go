package vertexcover

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
)

// borrowed is a device the test owns: the local search's Close leaves it
// open for the next subtest.
type borrowed struct{ backend.Device }

func (borrowed) Close() error { return nil }

// TestDeviceLSPlanted: on every device (the CPU twin, PoCL here) the
// device chains find the planted one-per-clique independent set of
// model-RB-style graphs, and the cover handed over is the right one.
func TestDeviceLSPlanted(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		for seed := uint64(1); seed <= 3; seed++ {
			k, q := 12+int(seed), 6
			g, part := plantedParts(t, k, q, 0.35, seed)
			opened := 0
			d := &deviceLS{open: func() (backend.Device, error) { opened++; return borrowed{dev}, nil }}
			var stop atomic.Bool
			var cover []bool
			d.run(g, part, k, seed, &stop, func(c []bool) { cover = c })
			if opened != 1 || cover == nil {
				t.Fatalf("seed %d: opened %d times, cover %v; report %q", seed, opened, cover != nil, d.get())
			}
			var list []int
			for v, c := range cover {
				if c {
					list = append(list, v)
				}
			}
			if err := Verify(g, list); err != nil || len(list) != g.N-k {
				t.Fatalf("seed %d: cover of %d (want %d): %v", seed, len(list), g.N-k, err)
			}
			if r := d.get(); !strings.Contains(r, "solved") || !strings.Contains(r, dev.Info().String()) {
				t.Fatalf("seed %d: report %q", seed, r)
			}
			// Once per Solve: a second call does nothing.
			d.run(g, part, k, seed, &stop, func([]bool) { t.Fatal("second run searched") })
			if opened != 1 {
				t.Fatalf("seed %d: opened again", seed)
			}
		}
	})
}

// TestDeviceLSNotUsed: a stop before the delay ends opens nothing; an
// opener's error is reported, not fatal.
func TestDeviceLSNotUsed(t *testing.T) {
	g := plantedRB(t, 8, 5, 0.3, 1)
	part, k := bestPartition(g)
	var stop atomic.Bool
	stop.Store(true)
	d := &deviceLS{open: func() (backend.Device, error) { t.Fatal("opened after the stop"); return nil, nil }, delay: deviceLSDelay}
	d.run(g, part, k, 1, &stop, func([]bool) { t.Fatal("found after the stop") })
	if d.get() != "" {
		t.Fatalf("report %q", d.get())
	}
	stop.Store(false)
	d = &deviceLS{open: func() (backend.Device, error) { return nil, errors.New("no GPU here") }}
	d.run(g, part, k, 1, &stop, func([]bool) { t.Fatal("found without a device") })
	if r := d.get(); r != "not used: no GPU here" {
		t.Fatalf("report %q", r)
	}
}

// TestTransversalCover refuses a solution that is not one: wrong count,
// a vertex outside its clique, adjacent choices.
func TestTransversalCover(t *testing.T) {
	g := plantedRB(t, 6, 4, 0.5, 3)
	part, k := bestPartition(g)
	var stop atomic.Bool
	var sol []int32
	if c := partitionSearch(g, part, k, 1, &stop, time.Now().Add(time.Minute), partDegBeta); c != nil {
		for v, in := range c {
			if !in {
				sol = append(sol, int32(v))
			}
		}
	}
	if len(sol) != k {
		t.Fatalf("the CPU search found %d of %d", len(sol), k)
	}
	// sol ascends and the cliques are consecutive blocks, so sol[q] is
	// in clique q.
	if _, err := transversalCover(g, part, k, sol); err != nil {
		t.Fatalf("a right solution refused: %v", err)
	}
	if _, err := transversalCover(g, part, k, sol[1:]); err == nil {
		t.Fatal("a short solution accepted")
	}
	bad := append([]int32(nil), sol...)
	bad[0] = sol[1]
	if _, err := transversalCover(g, part, k, bad); err == nil {
		t.Fatal("a vertex outside its clique accepted")
	}
	// Two adjacent vertices of different cliques.
	for q := 1; q < k; q++ {
		for _, u := range g.Neighbors(int(sol[0])) {
			if part[u] == int32(q) {
				bad := append([]int32(nil), sol...)
				bad[q] = u
				if _, err := transversalCover(g, part, k, bad); err == nil {
					t.Fatalf("adjacent choices %d, %d accepted", sol[0], u)
				}
				return
			}
		}
	}
	t.Fatal("no edge between cliques to test with")
}

// TestSolveLSDeviceOption: Solve with an LSDevice that cannot open still
// proves the optimum of a planted instance on the CPU.
func TestSolveLSDeviceOption(t *testing.T) {
	g := plantedRB(t, 40, 10, 0.3, 2)
	res, err := Solve(context.Background(), g, Options{Threads: 2, LSDevice: func() (backend.Device, error) {
		return nil, errors.New("no device")
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Proven || res.Size() != g.N-40 {
		t.Fatalf("size %d proven %v, want %d proven", res.Size(), res.Proven, g.N-40)
	}
	if res.LSDevice != "" && res.LSDevice != "not used: no device" {
		t.Fatalf("LSDevice %q", res.LSDevice)
	}
}
