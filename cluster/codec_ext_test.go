package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/cluster"
	"github.com/arbor-gpu/arbor/core"
)

// A problem from outside the package: minimum dominating set by plain
// branching, registered as a codec as any algorithm's folder would, with
// no edit of package cluster. A task fixes vertices 0, 1, … in order:
// path step (v, 1) puts v in the set, (v, 0) leaves it out; a task with
// more than dsLeaf vertices left splits into its two children, one with
// fewer enumerates them all.

const dsLeaf = 8

func init() { cluster.RegisterCodec("ds", dsCodec{}) }

type dsCodec struct{}

func (dsCodec) Minimize() bool { return true }

func (dsCodec) CheckInstance(graphs []*core.Graph) error {
	if len(graphs) != 1 || graphs[0].N > 24 {
		return errors.New("a dominating set instance is one graph of at most 24 vertices")
	}
	return nil
}

func (dsCodec) Open(graphs []*core.Graph, _ cluster.MCSOptions) (cluster.Job, error) {
	return &dsJob{g: graphs[0]}, nil
}

type dsJob struct{ g *core.Graph }

func (j *dsJob) Trivial() int { return j.g.N }

func (j *dsJob) Verify(r *cluster.Record) error {
	if !r.Found {
		return errors.New("not a set")
	}
	return dominates(j.g, r.Cover)
}

// dominates checks that every vertex is in set or next to one in it.
func dominates(g *core.Graph, set []int) error {
	in := make([]bool, g.N)
	for _, v := range set {
		if v < 0 || v >= g.N || in[v] {
			return fmt.Errorf("vertex %d twice or out of range", v)
		}
		in[v] = true
	}
	for v := range g.N {
		if in[v] || slices.ContainsFunc(g.Neighbors(v), func(u int32) bool { return in[u] }) {
			continue
		}
		return fmt.Errorf("vertex %d is not dominated", v)
	}
	return nil
}

func (j *dsJob) Solve(ctx context.Context, run *cluster.TaskRun) error {
	t := run.Task
	var fixed []int
	for i, st := range t.Path {
		if int(st[0]) != i || st[1] != 0 && st[1] != 1 || i >= j.g.N {
			return cluster.BadTask(fmt.Errorf("path step %d: %v", i, st))
		}
		if st[1] == 1 {
			fixed = append(fixed, i)
		}
	}
	d, best := len(t.Path), run.Best()
	if j.g.N-d > dsLeaf {
		var children []cluster.Task
		for b := range int32(2) {
			if len(fixed)+int(b) < best {
				children = append(children, t.Child(append(slices.Clone(t.Path), [2]int32{int32(d), b}), len(fixed)+int(b), best))
			}
		}
		return run.Complete(ctx, children, cluster.Record{Nodes: 1})
	}
	done := cluster.Record{}
	for mask := uint32(0); mask < 1<<(j.g.N-d); mask++ {
		done.Nodes++
		if len(fixed)+bits.OnesCount32(mask) >= best {
			continue
		}
		set := slices.Clone(fixed)
		for v := d; v < j.g.N; v++ {
			if mask>>(v-d)&1 == 1 {
				set = append(set, v)
			}
		}
		if dominates(j.g, set) == nil {
			done.Found, done.Size, done.Cover, best = true, len(set), set, len(set)
		}
	}
	if done.Found {
		run.Improved(cluster.Record{Found: true, Size: done.Size, Cover: done.Cover})
	}
	return run.Complete(ctx, nil, done)
}

// bruteDS is the domination number of g.
func bruteDS(g *core.Graph) int {
	best := g.N
	for mask := uint32(0); mask < 1<<g.N; mask++ {
		if bits.OnesCount32(mask) >= best {
			continue
		}
		var set []int
		for v := range g.N {
			if mask>>v&1 == 1 {
				set = append(set, v)
			}
		}
		if dominates(g, set) == nil {
			best = len(set)
		}
	}
	return best
}

// TestForeignCodec: a codec registered from outside the package runs on
// the cluster's coordinator and workers (Run, RegisterCodec) and proves
// the brute-force optimum on random graphs.
func TestForeignCodec(t *testing.T) {
	srv, err := cluster.StartServer(t.TempDir(), "secret-"+t.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	wctx, stopWorkers := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cluster.RunWorker(wctx, cluster.WorkerConfig{URL: srv.URL(), Token: srv.Token, Name: fmt.Sprintf("w%d", i), Threads: 1}); err != nil {
				t.Errorf("worker %d: %v", i, err)
			}
		}()
	}
	defer func() { stopWorkers(); wg.Wait() }()
	if !slices.Contains(cluster.Problems(), "ds") {
		t.Fatalf("problems %v without ds", cluster.Problems())
	}
	rng := rand.New(rand.NewPCG(41, 1))
	for k := range 4 {
		n := 10 + 2*k
		b := core.NewBuilder(n, false)
		for u := range n {
			for v := u + 1; v < n; v++ {
				if rng.Float64() < 0.2 {
					b.AddEdge(u, v)
				}
			}
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		all := make([]int, n)
		for v := range all {
			all[v] = v
		}
		job := &dsJob{g: g}
		res, err := cluster.Run(ctx, cluster.CoordinatorConfig{URL: srv.URL(), Token: srv.Token, AckWait: 2 * time.Second, Fresh: true}, cluster.JobSpec{
			Problem: "ds", Graphs: []*core.Graph{g},
			Start: &cluster.Record{Found: true, Size: n, Cover: all},
			Roots: func(_ cluster.CoordinatorConfig, root func([][2]int32, int, int) cluster.Task) ([]cluster.Task, error) {
				return []cluster.Task{root([][2]int32{}, 0, n)}, nil
			},
			Verify: job.Verify,
		})
		if err != nil {
			t.Fatalf("graph %d (n %d): %v", k, n, err)
		}
		if want := bruteDS(g); !res.Proven || !res.Found || res.Size != want || len(res.Cover) != want || dominates(g, res.Cover) != nil {
			t.Errorf("graph %d (n %d): proven %v, size %d, set %v; want the proven optimum %d", k, n, res.Proven, res.Size, res.Cover, want)
		}
		if res.Tasks < 2 {
			t.Errorf("graph %d: %d tasks: the job never split", k, res.Tasks)
		}
	}
}
