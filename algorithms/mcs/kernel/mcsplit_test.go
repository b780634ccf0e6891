package kernel

import (
	"flag"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/cpu"
	"github.com/arbor-gpu/arbor/device"
)

var mcsplitLanes = flag.Bool("mcsplit.lanes", false, "run TestMCSplitLanes (minutes on PoCL)")

// TestMCSplitLanes runs the multi-lane form of mcsplit_epoch (the GPU's:
// barriers, lane 0's broadcasts, the scans and reductions over the lanes)
// on OpenCL devices with 4 lanes per worker and one word per set, and
// compares node counts and sizes with the twin. (One word: PoCL's
// work-item loops failed on mcsplit.cl's barriers for W > 1.) Skipped
// without -mcsplit.lanes: PoCL takes about four minutes to compile the
// 4-lane kernel (its own cache serves later runs).
func TestMCSplitLanes(t *testing.T) {
	if !*mcsplitLanes {
		t.Skip("-mcsplit.lanes runs it (PoCL compiles the 4-lane kernel in minutes)")
	}
	ref := cpu.New(0)
	rng := rand.New(rand.NewPCG(11, 3))
	n0, n1 := 16, 17
	g, h := device.RandomBitRows(rng, n0, 0.4), device.RandomBitRows(rng, n1, 0.4)
	wantN, wantF, err := mcsplitFixedGoal(ref, n0, n1, g, h, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	backendtest.ForBackend(t, "opencl", func(t *testing.T, dev backend.Device) {
		t0 := time.Now()
		nodes, found, err := mcsplitFixedGoalLanes(dev, n0, n1, g, h, 10, false, 4)
		if err != nil {
			t.Fatal(err)
		}
		if nodes != wantN || found != wantF {
			t.Fatalf("4 lanes: %d nodes, largest %d; the twin %d, %d", nodes, found, wantN, wantF)
		}
		t.Logf("4 lanes on %s: %d nodes, largest %d, %v", dev.Info(), nodes, found, time.Since(t0).Round(time.Millisecond))
	})
}

// TestMCSplitTwinLanes runs the twin with workers of 1, 32 and 64 lanes
// (a warp, an AMD wavefront): mcsplit_epoch's lane-level work (the scans,
// sums and minima over LANES, chunked loops) gives results that do not
// depend on the lane count, so with a frozen goal the node counts must be
// equal; 64 lanes is the launch geometry the wrapper accepts now.
func TestMCSplitTwinLanes(t *testing.T) {
	ref := cpu.New(0)
	rng := rand.New(rand.NewPCG(64, 32))
	n0, n1 := 18, 19
	g, h := device.RandomBitRows(rng, n0, 0.4), device.RandomBitRows(rng, n1, 0.4)
	wantN, wantF, err := mcsplitFixedGoalLanes(ref, n0, n1, g, h, 11, false, 1)
	if err != nil {
		t.Fatal(err)
	}
	if wantN < 100 {
		t.Fatalf("a tree of %d nodes tests nothing", wantN)
	}
	for _, lanes := range []int{32, 64} {
		nodes, found, err := mcsplitFixedGoalLanes(ref, n0, n1, g, h, 11, false, lanes)
		if err != nil {
			t.Fatalf("%d lanes: %v", lanes, err)
		}
		if nodes != wantN || found != wantF {
			t.Errorf("%d lanes: %d nodes, largest %d; one lane %d, %d", lanes, nodes, found, wantN, wantF)
		}
	}
	if _, _, err := mcsplitFixedGoalLanes(ref, n0, n1, g, h, 11, false, 128); err == nil {
		t.Error("128 lanes accepted (a ballot word holds 64)")
	}
	t.Logf("%d nodes, largest %d at 1, 32 and 64 lanes", wantN, wantF)
}
