package vertexcover

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/vertexcover/kernel"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
)

// The partition search (partition.go) on a device: where it applies
// (a clique partition's bound is the target, BHOSLIB), the time to the
// optimum is close to exponentially distributed, so independent chains
// add up: on the GPU machine one CPU core runs about 0.5 M steps/s, and
// the misses of issue #17 (frb53-24-1, frb59-26-2, -4) each had no hit
// in 560 core-seconds of it. A device runs a thousand chains at once
// (kernels.PartitionLS, one work-group each) beside the CPU's.

// deviceLS is the device of Options.LSDevice and what it did.
type deviceLS struct {
	open  func() (backend.Device, error)
	delay time.Duration // deviceLSDelay (tests: 0)
	once  sync.Once

	mu     sync.Mutex
	report string // for Result.LSDevice
}

func (d *deviceLS) set(s string) {
	d.mu.Lock()
	d.report = s
	d.mu.Unlock()
}

func (d *deviceLS) get() string {
	if d == nil {
		return ""
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.report
}

// deviceLSLaunch is the wall time aimed at per launch: long enough that
// the gaps between launches are small, short enough that a stop or a
// solution found on the CPU ends the device's part soon (Solve waits for
// the launch in flight). With the 16 CPU cores busy, the host thread that
// drives the device waits for a core between launches: on the H100
// machine frb59-26-2 took 12.5–15.4 s with 100 ms launches and 10.0 s with
// 400 ms (the same 1.63 G steps: 120–140 against 178 M steps/s).
const deviceLSLaunch = 400 * time.Millisecond

// deviceLSDelay is how long the CPU's local searches run alone before the
// device is opened (frb30–frb45, up to 945 vertices, are closed within it
// on 16 cores, 0.2–1.1 s in all), unless the kernel has deviceLSEager
// vertices or more (frb50-23 and up took 3–14 s with the device, 1–2 s of
// it opening the device and waiting out the delay).
const (
	deviceLSDelay = time.Second
	deviceLSEager = 1000
)

// run runs the partition search's chains on the device until one
// of them (or anything else) closes the gap: found gets the cover (every
// vertex but the chosen ones) after an independent check. It runs at most
// once per Solve (the top engine's root), and says in d.report what ran.
func (d *deviceLS) run(kg *core.Graph, part []int32, k int, seed uint64, stop *atomic.Bool, found func(cover []bool)) {
	ran := false
	d.once.Do(func() { ran = true })
	if !ran {
		return
	}
	// Easy instances are closed by the CPU within the delay; a CUDA
	// context takes about a second to create, which they should not wait
	// for. Kernels of deviceLSEager vertices or more open it at once.
	delay := d.delay
	if kg.N >= deviceLSEager {
		delay = 0
	}
	for t0 := time.Now(); time.Since(t0) < delay; time.Sleep(5 * time.Millisecond) {
		if stop.Load() {
			return
		}
	}
	if stop.Load() {
		return
	}
	dev, err := d.open()
	if err != nil {
		d.set("not used: " + err.Error())
		return
	}
	defer dev.Close()
	start := time.Now()
	why, err := d.search(dev, kg, part, k, seed, stop, found)
	if err != nil {
		d.set(fmt.Sprintf("%s: %v", dev.Info(), err))
		return
	}
	d.set(fmt.Sprintf("%s: %s in %.1f s", dev.Info(), why, time.Since(start).Seconds()))
}

func (d *deviceLS) search(dev backend.Device, kg *core.Graph, part []int32, k int, seed uint64, stop *atomic.Bool, found func(cover []bool)) (string, error) {
	q, err := dev.NewQueue()
	if err != nil {
		return "", err
	}
	defer q.Release()
	off, adj := interCliqueCSR(kg, part)
	p := kernel.PartitionProblem{K: k, Part: part, Off: off, Adj: adj}
	chains := kernel.PartitionChains(dev, p)
	ls, err := kernel.NewPartitionLS(dev, q, p, chains, seed)
	if err != nil {
		return "", err
	}
	defer ls.Release()
	steps := int64(256)
	outcome := "stopped"
	for !stop.Load() {
		t0 := time.Now()
		solved, err := ls.Run(q, steps, true)
		if err != nil {
			return "", err
		}
		if solved {
			sol, err := ls.Solution(q)
			if err != nil {
				return "", err
			}
			cover, err := transversalCover(kg, part, k, sol)
			if err != nil {
				return "", fmt.Errorf("internal error, the device's solution is wrong: %w", err)
			}
			found(cover)
			outcome = "solved"
			break
		}
		// Aim each launch at deviceLSLaunch (steps per chain grow or
		// shrink by at most 2× a launch).
		if el := time.Since(t0); el < deviceLSLaunch/2 {
			steps *= 2
		} else if el > 2*deviceLSLaunch && steps > 256 {
			steps /= 2
		}
	}
	total, err := ls.Steps(q)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s, %d chains, %d steps", outcome, chains, total), nil
}

// transversalCover checks that sol picks one vertex of each clique of
// part, pairwise non-adjacent in kg, and returns the cover of the other
// vertices.
func transversalCover(kg *core.Graph, part []int32, k int, sol []int32) ([]bool, error) {
	if len(sol) != k {
		return nil, fmt.Errorf("%d vertices for %d cliques", len(sol), k)
	}
	cover := make([]bool, kg.N)
	for i := range cover {
		cover[i] = true
	}
	for q, v := range sol {
		if v < 0 || int(v) >= kg.N || part[v] != int32(q) {
			return nil, fmt.Errorf("clique %d: vertex %d is not one of its members", q, v)
		}
		cover[v] = false
	}
	for _, v := range sol {
		for _, u := range kg.Neighbors(int(v)) {
			if !cover[u] {
				return nil, fmt.Errorf("chosen vertices %d and %d are adjacent", v, u)
			}
		}
	}
	return cover, nil
}
