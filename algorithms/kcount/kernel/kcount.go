package kernel

import (
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/search"
)

// KCount counts the k-cliques of a graph on one device: the porting
// guide's one-page example of a search kernel on the device search-tree
// layer (kcount.cl). One work-item per worker. Not safe for concurrent use.
type KCount struct {
	N, K, Workers, Capacity int
	Ring                    *search.Ring
	sk                      search.SearchKernel
	shape, adj              backend.Buffer
	frames, counts          backend.Buffer
}

// NewKCount builds the kernel and uploads the adjacency bit rows (row v is
// adj[v*W : (v+1)*W], W = ⌈n/64⌉, symmetric, no self-loops), with an empty
// ring: the caller seeds it (Ring.Push, or search.Options.Pool).
func NewKCount(dev backend.Device, q backend.Queue, n, k, workers int, adj []uint64) (*KCount, error) {
	w := (n + 63) / 64
	if n < 1 || k < 2 || k > n || workers < 1 || len(adj) != n*w {
		return nil, fmt.Errorf("kcount: n %d, k %d, %d workers, %d adjacency words: want 2 ≤ k ≤ n, n·⌈n/64⌉ words", n, k, workers, len(adj))
	}
	capacity := 64
	for capacity < 4*workers {
		capacity *= 2
	}
	sk, err := search.NewSearchKernel(dev, q, kcountParams, map[string]string{"W": fmt.Sprint(w)}, workers, 1)
	if err != nil {
		return nil, err
	}
	c := &KCount{N: n, K: k, Workers: workers, Capacity: capacity, sk: sk}
	bs := sk.Buffers
	c.shape = backend.Upload(bs, []int32{int32(w), int32(k), int32(capacity)})
	c.adj = backend.Upload(bs, adj)
	c.sk.WState = backend.AllocIn[int64](bs, workers*search.DSWWords)
	c.frames = backend.AllocIn[uint64](bs, workers*k*w)
	c.counts = backend.AllocIn[int64](bs, workers)
	if c.Ring, err = c.sk.NewRing(capacity, 1+w, Bytes(n, k, workers, capacity)); err != nil {
		c.Release()
		return nil, err
	}
	if err := c.Reset(q, 0); err != nil {
		c.Release()
		return nil, err
	}
	return c, nil
}

// Epoch runs one launch (search.GoalKernel). kcount has no incumbent, so
// goal and frozen change nothing: its tree is the same however scheduled.
func (c *KCount) Epoch(q backend.Queue, budget int64, idleLimit int32, goal int32, frozen bool) error {
	return c.sk.Launch(q, map[string]backend.Buffer{"shape": c.shape, "adj": c.adj, "frames": c.frames, "counts": c.counts},
		c.Ring, budget, idleLimit, 0, false)
}

// WorkerStatus reads every worker's status words (search.Kernel).
func (c *KCount) WorkerStatus(q backend.Queue) ([]int64, error) {
	return c.sk.Status(q)
}

// TaskRing is the kernel's task ring (search.Kernel).
func (c *KCount) TaskRing() *search.Ring { return c.Ring }

// Reset empties the ring and zeroes the workers' status words and counts
// (search.Resettable; buffers start undefined). kcount has no incumbent.
func (c *KCount) Reset(q backend.Queue, incumbent int) error {
	if err := backend.WriteSlice(q, c.counts, make([]int64, c.Workers)); err != nil {
		return err
	}
	return c.sk.ResetWorkers(q, c.Ring, 0)
}

// Task is the task for a node whose clique has size vertices and whose
// candidates are p (W words): the layout kcount.cl reads.
func Task(size int, p []uint64) []uint64 {
	return append([]uint64{uint64(size)}, p...)
}

// Bytes is the device memory of a search on n vertices for k with this
// many workers and ring slots: the adjacency rows, each worker's status
// words, frames and count, and each slot's task and sequence word (for
// search.Fit, and what NewKCount asks the ring for).
func Bytes(n, k, workers, capacity int) int64 {
	w := int64((n + 63) / 64)
	return 8*(int64(n)*w+int64(workers)*(search.DSWWords+int64(k)*w+1)) + int64(capacity)*(8*(1+w)+4)
}

// Count is the number of k-cliques counted so far, all workers together.
func (c *KCount) Count(q backend.Queue) (int64, error) {
	counts := make([]int64, c.Workers)
	if err := backend.ReadSlice(q, c.counts, counts); err != nil {
		return 0, err
	}
	var sum int64
	for _, x := range counts {
		sum += x
	}
	return sum, nil
}

// Release frees the kernel, program and buffers.
func (c *KCount) Release() error {
	err := c.sk.Free()
	*c = KCount{}
	return err
}

// CountKCliques counts the k-cliques of a graph on dev and returns the
// count and the search nodes (both independent of scheduling).
func CountKCliques(dev backend.Device, n, k, workers int, adj []uint64) (count, nodes int64, err error) {
	q, err := dev.NewQueue()
	if err != nil {
		return 0, 0, err
	}
	defer q.Release()
	w := (n + 63) / 64
	c, err := NewKCount(dev, q, n, k, workers, adj)
	if err != nil {
		return 0, 0, err
	}
	defer c.Release()
	root := make([]uint64, w)
	for v := 0; v < n; v++ {
		root[v/64] |= 1 << (v % 64)
	}
	if _, err := c.Ring.Push(q, [][]uint64{Task(0, root)}); err != nil {
		return 0, 0, err
	}
	tot, err := search.RunToEnd(q, &search.WithGoal{K: c}, workers, 1<<12)
	if err != nil {
		return 0, 0, fmt.Errorf("kcount: %w", err)
	}
	count, err = c.Count(q)
	return count, tot.Nodes, err
}

// kcountChecks: the count and the node count equal the twin's on every device.
func kcountChecks() []device.Check {
	var out []device.Check
	for i, c := range []struct {
		n, k int
		p    float64
	}{{40, 4, 0.5}, {130, 5, 0.3}} {
		out = append(out, device.Check{Kernel: "kcount_epoch", Case: fmt.Sprintf("G(%d,%.2f), k %d", c.n, c.p, c.k), Size: c.n,
			Run: func(dev backend.Device) ([]device.Output, error) {
				adj := device.RandomBitRows(device.NewCheckRand(uint64(i)+31), c.n, c.p)
				count, nodes, err := CountKCliques(dev, c.n, c.k, 5, adj)
				return []device.Output{{Name: "count", Values: []int64{count}}, {Name: "nodes", Values: []int64{nodes}}}, err
			}})
	}
	return out
}
