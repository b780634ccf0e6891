package search

import (
	"runtime"

	"github.com/arbor-gpu/arbor/backend"
)

// DefaultWorkers is the number of workers a search gets on a device unless
// told otherwise: enough work-groups of one warp to fill a GPU's
// multiprocessors (16 per SM), a couple per core on a CPU device.
func DefaultWorkers(info backend.Info) int {
	cu := max(info.ComputeUnits, 1)
	if info.Type == backend.TypeGPU || info.Type == backend.TypeAccelerator {
		return cu * 16
	}
	return cu * 2
}

// Fit sizes a search for a device: workers (≤ 0: DefaultWorkers) and a
// ring of at least four tasks per worker (a power of two, at least 64),
// then, while bytes(workers, capacity) — the search's device memory —
// exceeds half of the device's, half as many workers and a ring half as
// large. The rest of the memory is left to other searches and the driver.
func Fit(info backend.Info, workers int, bytes func(workers, capacity int) int64) (int, int) {
	if workers <= 0 {
		workers = DefaultWorkers(info)
	}
	capacity := 64
	for capacity < 4*workers {
		capacity *= 2
	}
	if limit := int64(info.GlobalMemory / 2); limit > 0 {
		for workers > 1 && bytes(workers, capacity) > limit {
			workers /= 2
			capacity = max(64, capacity/2)
		}
	}
	return workers, capacity
}

// Shape is a search's size as a kernel package describes it (McSplit's,
// clique's, vertex cover's shapes): its device memory, and itself with
// another worker count and ring capacity.
type Shape[S any] interface {
	Bytes() int64
	Resize(workers, capacity int) S
}

// FitShape is Fit for a shape: s resized to workers (≤ 0: DefaultWorkers)
// and a ring of four tasks per worker, both halved while s's Bytes exceed
// half of the device's memory.
func FitShape[S Shape[S]](info backend.Info, s S, workers int) S {
	w, c := Fit(info, workers, func(w, c int) int64 { return s.Resize(w, c).Bytes() })
	return s.Resize(w, c)
}

// ThreadsBeside is the number of CPU threads an engine running beside a
// device search takes when the caller set none: every core but one. The
// device's host loop (launches, waits, ring moves) must find a free core:
// a wake-up of a goroutine that finds every core busy waits for a
// preemption (up to 10 ms), and an epoch has several (measured on the
// H200, vertex cover's cop_hat500-3: 68 epochs over 8.3 s beside a CPU
// engine on every core, 11 in 1.0 s with cores to spare). threads > 0 is
// the caller's own choice and is kept.
func ThreadsBeside(threads int) int {
	if threads > 0 {
		return threads
	}
	return max(1, runtime.GOMAXPROCS(0)-1)
}
