package cluster

import (
	"context"
	"flag"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
)

var measurePair = flag.String("measure", "", "TestMeasure: the MIVIA pair to time the cluster on")

// TestMeasure times the cluster against the local engine on one MIVIA
// pair over a range of node budgets and root task counts, for docs/results/cluster.md.
// Run it with -measure PAIR (it takes about a minute):
// go test ./cluster -run TestMeasure -measure mcs10_r01_s25.A00 -v.
func TestMeasure(t *testing.T) {
	pair := *measurePair
	if pair == "" {
		t.Skip("-measure PAIR (e.g. mcs10_r01_s25.A00) runs it")
	}
	c := miviaPairs(t, pair)[0]
	local := func(threads int) (time.Duration, int64) {
		best := time.Duration(1 << 62)
		var nodes int64
		for i := 0; i < 3; i++ {
			res, err := mcs.Solve(context.Background(), c.g, c.h, mcs.Options{Threads: threads})
			if err != nil || res.Size != c.size {
				t.Fatalf("local: %v size %d", err, res.Size)
			}
			if res.Elapsed < best {
				best, nodes = res.Elapsed, res.Nodes
			}
		}
		return best, nodes
	}
	t1, n1 := local(1)
	t2, n2 := local(2)
	t.Logf("%s: local 1 thread %v (%d nodes, %.2f M/s); 2 threads %v (%d nodes)", pair, t1, n1, float64(n1)/t1.Seconds()/1e6, t2, n2)
	rate := float64(n1) / t1.Seconds() // nodes per second of one core

	// A job's fixed cost: a tiny instance, one root task.
	srv := startServer(t)
	inProcessWorkers(t, srv, 2, nil)
	tiny := generatedPairs(t, 1)[0]
	for i := 0; i < 3; i++ {
		res, err := SolveMCS(deadline(t), CoordinatorConfig{URL: srv.URL(), Token: srv.Token, Tasks: 1, MaxDepth: 1, Budget: 1 << 40}, tiny.g, tiny.h, mcs.Options{Connected: i > 0, Heuristic: mcs.Heuristic(i % 2)})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("tiny job (%d tasks, %d nodes): %v", res.Tasks, res.Nodes, res.Elapsed)
	}
	t.Logf("2 in-process workers of 1 thread; overhead/task = (wall − nodes/(2·rate)) / tasks")
	t.Logf("%8s %6s %7s %10s %9s %12s", "budget", "roots", "tasks", "nodes", "wall", "overhead/task")
	for _, budget := range []int64{100_000_000, 1_000_000, 100_000, 20_000, 5_000, 1_000} {
		for _, roots := range []int{4, 64, 256} {
			// A job is resumed if run twice: a fresh server per run.
			s, err := StartServer(t.TempDir(), "m")
			if err != nil {
				t.Fatal(err)
			}
			inProcessWorkers(t, s, 2, nil)
			cfg := CoordinatorConfig{URL: s.URL(), Token: "m", Tasks: roots, Budget: budget}
			res, err := SolveMCS(deadline(t), cfg, c.g, c.h, mcs.Options{})
			checkResult(t, c, res, err)
			ideal := time.Duration(float64(res.Nodes) / (2 * rate) * float64(time.Second))
			over := (res.Elapsed - ideal) / time.Duration(res.Tasks)
			t.Logf("%8d %6d %7d %10d %9v %12v", budget, res.Roots, res.Tasks, res.Nodes, res.Elapsed.Round(time.Millisecond), over.Round(time.Microsecond))
		}
	}
}
