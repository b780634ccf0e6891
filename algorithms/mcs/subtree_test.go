package mcs

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/core"
)

// solveBySubtrees solves g, h the way a cluster does, in one process:
// expand the root, then solve subtasks one at a time under a small node
// budget, queueing what each leaves over, with the incumbent carried from
// task to task.
func solveBySubtrees(t *testing.T, pr *Prepared, budget int64, threads int) (size int, mapping [][2]int, splits int) {
	t.Helper()
	return solveBySubtreesWith(t, pr, budget, threads, pr.SolveSubtree)
}

// solveBySubtreesWith is solveBySubtrees with another subtree solver (a
// device's).
func solveBySubtreesWith(t *testing.T, pr *Prepared, budget int64, threads int,
	solve func(context.Context, []Step, SubtreeOptions) (SubtreeResult, error)) (size int, mapping [][2]int, splits int) {
	t.Helper()
	queue, err := pr.Expand(16, 4)
	if err != nil {
		t.Fatal(err)
	}
	for len(queue) > 0 {
		task := queue[0]
		queue = queue[1:]
		res, err := solve(context.Background(), task.Path, SubtreeOptions{Incumbent: size, NodeBudget: budget, Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		if res.Cancelled {
			t.Fatal("cancelled without a cancelled context")
		}
		if res.Size > size {
			size, mapping = res.Size, res.Mapping
		}
		for _, r := range res.Rest {
			if len(r.Path) <= len(task.Path) {
				t.Fatalf("subtask %v is not below its parent %v", r.Path, task.Path)
			}
		}
		if len(res.Rest) > 0 {
			splits++
		}
		queue = append(queue, res.Rest...)
	}
	return size, mapping, splits
}

func TestSubtreesCoverTheTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 21))
	total := 0
	for i := 0; i < 12; i++ {
		opts := Options{Connected: i%3 == 1, Directed: i%4 == 2, VertexLabels: i%5 == 3}
		vl := 0
		if opts.VertexLabels {
			vl = 2
		}
		g := randomGraph(t, rng, 14+i%5, 0.3, opts.Directed, vl, 0, 0)
		h := randomGraph(t, rng, 15+i%4, 0.35, opts.Directed, vl, 0, 0)
		want := solveChecked(t, g, h, Options{Threads: 1, Connected: opts.Connected, Directed: opts.Directed, VertexLabels: opts.VertexLabels})
		pr, err := Prepare(g, h, opts)
		if err != nil {
			t.Fatal(err)
		}
		size, mapping, splits := solveBySubtrees(t, pr, 1024, 1+i%2)
		checkSubtreesAnswer(t, i, g, h, opts, want.Size, size, mapping)
		total += splits
	}
	if total == 0 {
		t.Error("no task ran out of its node budget: splitting went untested")
	}
}

// checkSubtreesAnswer checks what solving pair i subtree by subtree
// found against Solve's size, and verifies the mapping.
func checkSubtreesAnswer(t *testing.T, i int, g, h *core.Graph, opts Options, want, size int, mapping [][2]int) {
	t.Helper()
	if size != want {
		t.Fatalf("graph pair %d: subtrees found %d, Solve %d", i, size, want)
	}
	if err := Verify(g, h, mapping, opts); err != nil {
		t.Fatalf("graph pair %d: %v", i, err)
	}
}

func TestSubtreeBadPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	g := randomGraph(t, rng, 10, 0.4, false, 0, 0, 0)
	h := randomGraph(t, rng, 10, 0.4, false, 0, 0, 0)
	pr, err := Prepare(g, h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range [][]Step{{{V: 99, W: 0}}, {{V: 0, W: 99}}, {{V: 0, W: -7}}, {{V: 0, W: -1}, {V: 0, W: 1}}, {{V: -3, W: 1}}} {
		if _, err := pr.SolveSubtree(context.Background(), path, SubtreeOptions{}); err == nil {
			t.Errorf("path %v accepted", path)
		}
	}
}

// TestDeviceSubtrees solves random pairs subtree by subtree on every
// device, with budgets small enough that subtrees overrun them and split,
// and compares with the CPU engine.
func TestDeviceSubtrees(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		rng := rand.New(rand.NewPCG(9, 4))
		total := 0
		for i := 0; i < 6; i++ {
			opts := Options{VertexLabels: i%3 == 2, Heuristic: []Heuristic{MinMax, MinProduct}[i%2]}
			vl := 0
			if opts.VertexLabels {
				vl = 2
			}
			g := randomGraph(t, rng, 16+i%4, 0.3, false, vl, 0, 0)
			h := randomGraph(t, rng, 17+i%3, 0.35, false, vl, 0, 0)
			want, pr, ds := prepareOnDevice(t, dev, g, h, opts, 3)
			size, mapping, splits := solveOnDevice(t, pr, ds, i, 200, 5, 600)
			if _, err := ds.SolveSubtree(context.Background(), []Step{{V: 0, W: 99}}, SubtreeOptions{}); err == nil {
				t.Error("a bad path was accepted")
			}
			ds.Release()
			checkSubtreesAnswer(t, i, g, h, opts, want.Size, size, mapping)
			total += splits
		}
		if total == 0 {
			t.Error("no task ran out of its node budget: splitting went untested")
		}
	})
}

// prepareOnDevice is the CPU engine's answer for a pair (one thread, the
// reference) and the pair prepared for a device search with workers.
func prepareOnDevice(t *testing.T, dev backend.Device, g, h *core.Graph, opts Options, workers int) (Result, *Prepared, *DeviceSubtrees) {
	t.Helper()
	want := solveChecked(t, g, h, Options{Threads: 1, VertexLabels: opts.VertexLabels, Heuristic: opts.Heuristic})
	pr, err := Prepare(g, h, opts)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := pr.OnDevice(dev, workers)
	if err != nil {
		t.Fatal(err)
	}
	return want, pr, ds
}

// solveOnDevice solves the pair on ds subtree by subtree with budget
// (case i even) or in batches of batch tasks with batchBudget (odd).
func solveOnDevice(t *testing.T, pr *Prepared, ds *DeviceSubtrees, i int, budget int64, batch int, batchBudget int64) (size int, mapping [][2]int, splits int) {
	t.Helper()
	if i%2 == 0 {
		return solveBySubtreesWith(t, pr, budget, 1, ds.SolveSubtree)
	}
	return solveInBatches(t, pr, ds, batch, batchBudget)
}

func TestDeviceSubtreesRefuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	g := randomGraph(t, rng, 8, 0.4, true, 0, 0, 0)
	h := randomGraph(t, rng, 8, 0.4, true, 0, 0, 0)
	pr, err := Prepare(g, h, Options{Directed: true})
	if err != nil {
		t.Fatal(err)
	}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		if _, err := pr.OnDevice(dev, 0); err == nil || !strings.Contains(err.Error(), "directed") {
			t.Fatalf("directed graphs: err %v, want a refusal naming them", err)
		}
	})
}

// solveInBatches is solveBySubtrees with up to k subtrees per device
// search (DeviceSubtrees.SolveBatch).
func solveInBatches(t *testing.T, pr *Prepared, ds *DeviceSubtrees, k int, budget int64) (size int, mapping [][2]int, splits int) {
	t.Helper()
	queue, err := pr.Expand(16, 4)
	if err != nil {
		t.Fatal(err)
	}
	for len(queue) > 0 {
		n := min(k, len(queue))
		var paths [][]Step
		for _, q := range queue[:n] {
			paths = append(paths, q.Path)
		}
		queue = queue[n:]
		res, err := ds.SolveBatch(context.Background(), paths, SubtreeOptions{Incumbent: size, NodeBudget: budget})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != n {
			t.Fatalf("%d results for %d subtrees", len(res), n)
		}
		for i, r := range res {
			if r.Size > size {
				size, mapping = r.Size, r.Mapping
			}
			// The first result carries the whole batch's open work, as
			// paths that name nodes below the batch's but need not
			// start with any of them.
			if i > 0 && len(r.Rest) > 0 {
				t.Fatalf("result %d of a batch has open work; only the first should", i)
			}
			if len(r.Rest) > 0 {
				splits++
			}
			queue = append(queue, r.Rest...)
		}
	}
	_, err = ds.SolveBatch(context.Background(), [][]Step{nil, {{V: 0, W: 99}}}, SubtreeOptions{})
	var pe *PathError
	if !errors.As(err, &pe) || pe.Index != 1 {
		t.Errorf("a batch with a bad second path: %v, want a PathError naming index 1", err)
	}
	return size, mapping, splits
}
