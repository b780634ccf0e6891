package kcount

import (
	"context"
	"fmt"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/kcount/kernel"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/search"
)

// matrix is the oriented graph as the kernel takes it: one symmetric bit
// row of n bits per vertex, vertices numbered by rank. The kernel's child
// candidates are the parent's candidates above the chosen vertex that are
// adjacent to it, so in rank order a start vertex's subtree holds at most
// degeneracy vertices, as on the CPU.
func (d *dag) matrix() []uint64 {
	w := (d.n + 63) / 64
	adj := make([]uint64, d.n*w)
	for i := 0; i < d.n; i++ {
		for _, u := range d.outs(i) {
			adj[i*w+int(u)>>6] |= 1 << (uint(u) & 63)
			adj[int(u)*w+i>>6] |= 1 << (uint(i) & 63)
		}
	}
	return adj
}

// startTasks is one task per start vertex that could begin a k-clique: the
// node {i} with its out-neighbours as candidates (the children of the
// kernel's root that its bound keeps), in rank order.
func (d *dag) startTasks(k int) [][]uint64 {
	w := (d.n + 63) / 64
	var tasks [][]uint64
	for i := 0; i < d.n; i++ {
		outs := d.outs(i)
		if 1+len(outs) < k {
			continue
		}
		p := make([]uint64, w)
		for _, u := range outs {
			p[u>>6] |= 1 << (uint(u) & 63)
		}
		tasks = append(tasks, kernel.Task(1, p))
	}
	return tasks
}

// countDevice is the gpu engine: the kernel on opts.Devices through the
// device search layer (search.Open, Run, Collect), 3 ≤ k ≤ degeneracy + 1.
func (d *dag) countDevice(ctx context.Context, k int, opts Options, start time.Time, res *Result) error {
	adj := d.matrix()
	ds, err := search.Open(opts.Devices, func(dev backend.Device, q backend.Queue) (*kernel.KCount, int, error) {
		workers, _ := search.Fit(dev.Info(), opts.Workers, func(w, c int) int64 { return kernel.Bytes(d.n, k, w, c) })
		c, err := kernel.NewKCount(dev, q, d.n, k, workers, adj)
		return c, workers, err
	})
	if err != nil {
		return fmt.Errorf("kcount: %w", err)
	}
	defer ds.Close()
	res.Device = ds.Device()
	dopt := search.Options{Pool: d.startTasks(k)}
	if dl, ok := ctx.Deadline(); ok {
		dopt.Deadline = dl
	}
	if opts.Progress != nil {
		dopt.ProgressInterval = opts.ProgressInterval
		dopt.Progress = func(s search.Status) {
			opts.Progress(Progress{Nodes: s.Nodes, Elapsed: time.Since(start)})
		}
	}
	st, proven, err := ds.Run(ctx, 0, 0, false, dopt)
	if err != nil {
		return fmt.Errorf("kcount: %w", err)
	}
	counts, err := search.Collect(ds, "the count", (*kernel.KCount).Count)
	if err != nil {
		return fmt.Errorf("kcount: %w", err)
	}
	res.Count = 0
	for _, c := range counts {
		res.Count += uint64(c)
	}
	res.Proven, res.Nodes, res.Epochs, res.Shared, res.Threads = proven, st.Nodes, st.Epochs, st.Donated, ds.Workers()
	return nil
}
