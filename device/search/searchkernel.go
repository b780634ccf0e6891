package search

// SearchKernel: what every *_epoch kernel's wrapper holds, its launch
// arguments in the layer's order, and RunToEnd for the conformance checks.

import (
	"context"
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
)

// resetSearch clears a search's worker status words and its ring, and
// sets the incumbent word; each wrapper clears its own certificates.
func resetSearch(q backend.Queue, wstate backend.Buffer, workers int, r *Ring, incumbent int) error {
	if err := backend.WriteSlice(q, wstate, make([]int64, workers*DSWWords)); err != nil {
		return err
	}
	return r.Reset(q, int32(incumbent))
}

// ReleaseSearch frees what every search kernel's wrapper holds: its
// kernel, its buffers (the ring's included) and its program. It returns
// the first error.
func ReleaseSearch(k backend.Kernel, bs *backend.Buffers, prog backend.Program) error {
	var first error
	if k != nil {
		first = k.Release()
	}
	if bs != nil {
		bs.Free()
	}
	if prog != nil {
		if err := prog.Release(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// SearchKernel is what the wrappers of mcsplit_epoch, clique_epoch and
// vc_epoch hold alike: the device, the program and its epoch kernel, the
// buffers (the ring's included), the workers' status words, and the
// launch geometry (workers work-groups of lanes work-items).
type SearchKernel struct {
	params         Params
	name           string // the source, name.cl, whose kernel is name_epoch
	dev            backend.Device
	prog           backend.Program
	k              backend.Kernel
	Buffers        *backend.Buffers
	WState         backend.Buffer
	workers, lanes int
}

// NewSearchKernel builds the kernel p declares for dev with defines and
// starts the buffer set; the wrapper allocates into Buffers (WState
// included), then calls NewRing. On an error nothing is left held.
func NewSearchKernel(dev backend.Device, q backend.Queue, p Params, defines map[string]string, workers, lanes int) (SearchKernel, error) {
	name := p.Source
	prog, err := device.Build(dev, name, defines, p.Kernel())
	if err != nil {
		return SearchKernel{}, err
	}
	sk := SearchKernel{params: p, name: name, dev: dev, prog: prog, Buffers: backend.NewBuffers(dev, q), workers: workers, lanes: lanes}
	if sk.k, err = prog.Kernel(p.Kernel()); err != nil {
		sk.Free()
		return SearchKernel{}, fmt.Errorf("%s: %w", name, err)
	}
	if err := device.CheckSubgroupKernel(dev, sk.k, lanes); err != nil {
		sk.Free()
		return SearchKernel{}, err
	}
	return sk, nil
}

// NewRing checks the wrapper's allocations (bytes, the whole search's,
// names the size in the error) and adds the task ring to them.
func (sk *SearchKernel) NewRing(capacity, taskWords int, bytes int64) (*Ring, error) {
	if err := sk.Buffers.Err(); err != nil {
		return nil, fmt.Errorf("%s: %d workers, %d MiB: %w", sk.name, sk.workers, bytes>>20, err)
	}
	return NewRing(sk.Buffers, capacity, taskWords)
}

// Launch runs one epoch: bufs binds each of the kernel's own buffer
// parameters (its Params' In and State) by name; the ring's, the status
// words and the scalars take their places from the Params (goal and
// frozen only where it declares them).
func (sk *SearchKernel) Launch(q backend.Queue, bufs map[string]backend.Buffer, r *Ring, budget int64, idleLimit, goal int32, frozen bool) error {
	args, err := sk.params.launchArgs(bufs, r, sk.WState, budget, idleLimit, goal, frozen)
	if err != nil {
		return err
	}
	if err := q.Launch(sk.k, backend.R1(sk.workers*sk.lanes, sk.lanes), args...); err != nil {
		return fmt.Errorf("%s on %s: %w", sk.params.Kernel(), sk.dev.Info(), err)
	}
	return nil
}

// Status reads every worker's status words (DSW*).
func (sk *SearchKernel) Status(q backend.Queue) ([]int64, error) {
	return ReadWorkerStatus(q, sk.WState, sk.workers)
}

// ResetWorkers clears the workers' status words and the ring, and sets the
// incumbent word.
func (sk *SearchKernel) ResetWorkers(q backend.Queue, r *Ring, incumbent int) error {
	return resetSearch(q, sk.WState, sk.workers, r, incumbent)
}

// Free frees the kernel, the buffers and the program (the wrapper's
// Release calls it; an error path of NewSearchKernel too).
func (sk *SearchKernel) Free() error { return ReleaseSearch(sk.k, sk.Buffers, sk.prog) }

// RunToEnd drives k on one device until no worker holds a task and the
// ring is empty, with a fixed node budget per launch and no deadline: the
// form the conformance checks use. The caller has seeded the ring (Push).
// It is Run with Options.Budget, IdleLimit, EpochLimit and Seeded set, and
// returns the workers' totals.
func RunToEnd(q backend.Queue, k Kernel, workers int, budget int64) (WorkerTotals, error) {
	st, _, err := Run(context.Background(), q, k, workers, Options{Budget: budget, IdleLimit: 1 << 10, EpochLimit: 1 << 16, Seeded: true})
	return WorkerTotals{Nodes: st.Nodes, Active: st.Active, Donated: st.Donated}, err
}
