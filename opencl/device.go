package opencl

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/backend"
)

var errClosed = errors.New("device is closed")

// Device is an opened OpenCL device: one context on one device. Its methods
// are safe for concurrent use.
type Device struct {
	api *api
	dev found
	ctx clContext

	// mu is held shared by every call that uses ctx and exclusively by
	// Close, so the context is never released under a running call.
	mu      sync.RWMutex
	closed  bool
	cleanup runtime.Cleanup

	cache cacheCounters

	// phases records opening and the first uses (backend.Timed); the
	// flags spare the hot paths the clock once their first use is logged.
	phases                                backend.PhaseLog
	allocated, queued, launched, finished atomic.Bool
}

// Phases makes the device a backend.Timed: loading and enumeration, the
// context, each build, and the first allocation, queue, launch and wait.
func (d *Device) Phases() []backend.Phase { return d.phases.Phases() }

// first logs phase name as begun at start unless flag says it was logged.
func (d *Device) first(flag *atomic.Bool, name string, start time.Time) {
	if !flag.Swap(true) {
		d.phases.First(name, start)
	}
}

// cacheCounters count what the program cache did for this device.
type cacheCounters struct {
	hits, misses, stores, rejected atomic.Int64
}

// CacheStats is what the program binary cache did for one device.
type CacheStats struct {
	Hits     int64 // programs created from a cached binary
	Misses   int64 // programs built from source (cache on, no usable entry)
	Stores   int64 // binaries handed to the cache after a source build
	Rejected int64 // cached binaries the driver refused; rebuilt from source
}

func newDevice(a *api, f found, ctx clContext) *Device {
	d := &Device{api: a, dev: f, ctx: ctx}
	d.cleanup = runtime.AddCleanup(d, func(c clContext) { a.releaseContext(c) }, ctx)
	return d
}

// Info describes the device.
func (d *Device) Info() backend.Info { return d.dev.info }

// CacheStats reports the program cache's work on this device so far.
func (d *Device) CacheStats() CacheStats {
	return CacheStats{
		Hits:     d.cache.hits.Load(),
		Misses:   d.cache.misses.Load(),
		Stores:   d.cache.stores.Load(),
		Rejected: d.cache.rejected.Load(),
	}
}

// Close releases the device's context. Objects made from the device keep
// their own reference to it, so they stay valid until released.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return fmt.Errorf("opencl: %s: %w", d.dev.info, errClosed)
	}
	d.closed = true
	d.cleanup.Stop()
	if err := check("clReleaseContext", d.api.releaseContext(d.ctx)); err != nil {
		return fmt.Errorf("opencl: close %s: %w", d.dev.info, err)
	}
	return nil
}

// use holds the device open for a call that uses its context: it returns
// the function that ends the use, or an error once the device is closed.
func (d *Device) use() (func(), error) {
	d.mu.RLock()
	if d.closed {
		d.mu.RUnlock()
		return nil, fmt.Errorf("opencl: %s: %w", d.dev.info, errClosed)
	}
	return d.mu.RUnlock, nil
}

// Buffer is device memory.
type Buffer struct {
	api     *api
	dev     *Device
	mem     clMem
	size    int
	freed   atomic.Bool
	cleanup runtime.Cleanup
}

// Alloc returns a read-write buffer. Requests beyond the device's largest
// allocation, and allocation failures, wrap backend.ErrOutOfMemory. Some
// drivers (PoCL, NVIDIA) allocate lazily, so memory may also run out at the
// buffer's first use; that error matches ErrOutOfMemory too.
func (d *Device) Alloc(bytes int) (backend.Buffer, error) {
	done, err := d.use()
	if err != nil {
		return nil, err
	}
	defer done()
	if bytes <= 0 {
		return nil, fmt.Errorf("opencl: alloc of %d bytes on %s", bytes, d.dev.info)
	}
	if d.dev.maxAlloc > 0 && uint64(bytes) > d.dev.maxAlloc {
		return nil, fmt.Errorf("opencl: alloc of %d bytes on %s: %w: the device's largest allocation is %d bytes",
			bytes, d.dev.info, backend.ErrOutOfMemory, d.dev.maxAlloc)
	}
	start := time.Now()
	m, st := d.api.newBuffer(d.ctx, clMemReadWrite, bytes)
	d.first(&d.allocated, "first allocation (clCreateBuffer)", start)
	if st != 0 {
		return nil, fmt.Errorf("opencl: alloc of %d bytes on %s: %w", bytes, d.dev.info, allocFail("clCreateBuffer", st))
	}
	b := &Buffer{api: d.api, dev: d, mem: m, size: bytes}
	a := d.api
	b.cleanup = runtime.AddCleanup(b, func(m clMem) { a.releaseMemObject(m) }, m)
	return b, nil
}

// Size is the buffer's size in bytes.
func (b *Buffer) Size() int { return b.size }

// Free releases the buffer. OpenCL keeps the memory until commands already
// enqueued that use it have finished.
func (b *Buffer) Free() error {
	if !b.freed.CompareAndSwap(false, true) {
		return fmt.Errorf("opencl: buffer freed twice")
	}
	b.cleanup.Stop()
	if err := check("clReleaseMemObject", b.api.releaseMemObject(b.mem)); err != nil {
		return fmt.Errorf("opencl: free: %w", err)
	}
	return nil
}

// NewQueue returns an in-order queue with profiling enabled. Use it from
// one goroutine at a time.
func (d *Device) NewQueue() (backend.Queue, error) {
	done, err := d.use()
	if err != nil {
		return nil, err
	}
	defer done()
	start := time.Now()
	q, st := d.api.newQueue(d.ctx, d.dev.id, clQueueProfilingEnable)
	d.first(&d.queued, "first queue (clCreateCommandQueue)", start)
	if st != 0 {
		return nil, fmt.Errorf("opencl: new queue on %s: %w", d.dev.info, allocFail("clCreateCommandQueue", st))
	}
	out := &Queue{api: d.api, q: q, dev: d}
	a := d.api
	out.cleanup = runtime.AddCleanup(out, func(q clQueue) { a.releaseCommandQueue(q) }, q)
	return out, nil
}
