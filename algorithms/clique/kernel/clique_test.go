package kernel

import (
	"math/bits"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/cpu"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/checktest"
	"github.com/arbor-gpu/arbor/device/search"
)

// omegaOf is the clique number of a small graph by plain recursion, the
// reference the twin is checked against.
func omegaOf(n int, adj []uint64) int {
	w := (n + 63) / 64
	var rec func(p []uint64, size int) int
	rec = func(p []uint64, size int) int {
		best := size
		for v := 0; v < n; v++ {
			if p[v/64]>>(v%64)&1 == 0 {
				continue
			}
			p[v/64] &^= 1 << (v % 64)
			q := make([]uint64, w)
			c := 0
			for j := range q {
				q[j] = p[j] & adj[v*w+j]
				c += bits.OnesCount64(q[j])
			}
			if size+1+c > best {
				best = max(best, rec(q, size+1))
			}
		}
		return best
	}
	p := make([]uint64, w)
	for v := 0; v < n; v++ {
		p[v/64] |= 1 << (v % 64)
	}
	return rec(p, 0)
}

// TestCliqueChecks runs the clique_epoch checks on the CPU twin (checked
// against plain recursion: a frozen goal of ω finds ω, one of ω+1 finds
// nothing, and the twin's node count does not depend on the number of
// workers) and then on every other device, where the node counts and
// sizes must equal the twin's.
func TestCliqueChecks(t *testing.T) {
	ref := cpu.New(0)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5; i++ {
		n := 20 + 13*i
		p := 0.2 + 0.12*float64(i)
		adj := device.RandomBitRows(rng, n, p)
		omega := omegaOf(n, adj)
		for _, goal := range []int32{int32(omega), int32(omega) + 1} {
			n1, f1, err := CliqueFixedGoal(ref, n, adj, goal, 1)
			if err != nil {
				t.Fatal(err)
			}
			n5, f5, err := CliqueFixedGoal(ref, n, adj, goal, 5)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if goal == int32(omega) {
				want = omega
			}
			if f1 != want || f5 != want || n1 != n5 {
				t.Fatalf("G(%d,%.2f) ω %d goal %d: found %d/%d (want %d), nodes %d with 1 worker, %d with 5", n, p, omega, goal, f1, f5, want, n1, n5)
			}
		}
	}
	checks := cliqueChecks()
	want := checktest.Twin(t, checks)
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) { checktest.Match(t, dev, checks, want) })
}

// TestCliqueLanes runs the multi-lane forms of clique_epoch (the GPU's:
// barriers, lane 0's broadcasts, the lanes sharing a bitset's words; and
// the sub-group colouring, emulated) on OpenCL devices with 4 lanes per
// worker, 3 words per set, and compares
// node counts and sizes with the twin. (PoCL compiles 4 lanes in seconds;
// 32 lanes take much longer, and CUDA's 32 use warp shuffles anyway.)
func TestCliqueLanes(t *testing.T) {
	ref := cpu.New(0)
	rng := rand.New(rand.NewPCG(7, 8))
	n := 150
	adj := device.RandomBitRows(rng, n, 0.35)
	wantN, wantF, err := CliqueFixedGoal(ref, n, adj, 7, 1)
	if err != nil {
		t.Fatal(err)
	}
	backendtest.ForBackend(t, "opencl", func(t *testing.T, dev backend.Device) {
		// The work-group route (fallback) and the sub-group route through
		// the prelude's local-memory emulation of ballot, any and shuffle
		// (local: a sub-group of 4 lanes, one word per lane), which runs
		// the code the khr and PTX paths compile on a device without
		// sub-groups.
		for _, p := range []device.Path{device.PathFallback, device.PathLocal} {
			t0 := time.Now()
			nodes, found, err := cliqueFixedGoalLanes(device.OnPath(dev, p), n, adj, 7, 5, 4)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if nodes != wantN || found != wantF {
				t.Fatalf("4 lanes, %s: %d nodes, largest %d; the twin %d, %d", p, nodes, found, wantN, wantF)
			}
			t.Logf("4 lanes on %s, %s: %d nodes, largest %d, %v", dev.Info(), p, nodes, found, time.Since(t0).Round(time.Millisecond))
		}
	})
}

// TestCliqueDonates: on the CPU twin, workers give work to each other (so
// the equal node counts above cover donation), and the frozen tree's node
// count is the same with one worker and with six.
func TestCliqueDonates(t *testing.T) {
	dev := cpu.New(0)
	adj := device.RandomBitRows(rand.New(rand.NewPCG(23, 5)), 90, 0.75)
	run := func(workers int) search.WorkerTotals {
		q, err := dev.NewQueue()
		if err != nil {
			t.Fatal(err)
		}
		defer q.Release()
		s := CliqueShape{N: 90, MaxDepth: 91, Workers: workers, Capacity: 64, Lanes: 1}
		k, err := NewClique(dev, q, s, adj)
		if err != nil {
			t.Fatal(err)
		}
		defer k.Release()
		if err := k.Reset(q, 13); err != nil {
			t.Fatal(err)
		}
		if _, err := k.Ring.Push(q, [][]uint64{s.RootTask()}); err != nil {
			t.Fatal(err)
		}
		// A demand of two tasks (as a multi-device search sets it): the
		// busy worker gives even when the scheduler lets the idle ones
		// give up before it sees them waiting.
		if workers > 1 {
			if err := k.Ring.SetDemand(q, 2); err != nil {
				t.Fatal(err)
			}
		}
		// Short launches: every one restarts the idle workers, which then
		// wait and ask for work.
		tot, err := search.RunToEnd(q, &search.WithGoal{K: k, Goal: 14, Frozen: true}, workers, 1<<9)
		if err != nil {
			t.Fatal(err)
		}
		return tot
	}
	// Whether a worker is seen waiting depends on the Go scheduler: a few
	// tries, each of which must count the same nodes.
	one := run(1)
	for try := 1; ; try++ {
		six := run(6)
		if one.Nodes != six.Nodes {
			t.Fatalf("1 worker: %d nodes; 6 workers: %d nodes, %d donations", one.Nodes, six.Nodes, six.Donated)
		}
		if six.Donated > 0 {
			t.Logf("%d nodes, %d donations among 6 workers (try %d)", six.Nodes, six.Donated, try)
			break
		}
		if try == 10 {
			t.Fatalf("no donation in %d tries", try)
		}
	}
}

// TestCliqueTwinLanes runs the twin with workers of 1, 32 and 64 lanes.
// With more than one lane and W ≤ lanes the twin colours through its
// sub-group model (ballot, shuffle, one word per lane), as the kernel does
// on a sub-group path; otherwise through the work-group route. A frozen
// goal makes the tree fixed, so the node counts must be equal: for 3
// words (sub-group at 32 and 64 lanes) and for 41 (more words than a warp
// has lanes: the work-group route at 32, the sub-group route at 64, the
// layout an AMD wavefront takes).
func TestCliqueTwinLanes(t *testing.T) {
	ref := cpu.New(0)
	rng := rand.New(rand.NewPCG(41, 64))
	for _, c := range []struct {
		n    int
		p    float64
		goal int32
	}{{150, 0.35, 7}, {2600, 0.012, 5}} {
		adj := device.RandomBitRows(rng, c.n, c.p)
		var want [2]int64
		for i, lanes := range []int{1, 32, 64} {
			nodes, found, err := cliqueFixedGoalLanes(ref, c.n, adj, c.goal, 4, lanes)
			if err != nil {
				t.Fatalf("n=%d, %d lanes: %v", c.n, lanes, err)
			}
			if i == 0 {
				want = [2]int64{nodes, int64(found)}
				if nodes < 10 {
					t.Fatalf("n=%d: a tree of %d nodes tests nothing", c.n, nodes)
				}
				continue
			}
			if nodes != want[0] || int64(found) != want[1] {
				t.Errorf("n=%d (W=%d), %d lanes: %d nodes, largest %d; one lane: %d, %d",
					c.n, (c.n+63)/64, lanes, nodes, found, want[0], want[1])
			}
		}
		t.Logf("n=%d (W=%d): %d nodes, largest %d at 1, 32 and 64 lanes", c.n, (c.n+63)/64, want[0], want[1])
	}
}
