package cuda

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cuda/internal/raw"
)

// maxParams bounds a kernel's argument count (the parameter block's size).
const maxParams = 256

// Device is one opened CUDA device: its primary context, the executor that
// owns it, and per-device scratch used only on the executor's thread.
type Device struct {
	st   *state
	api  *raw.Driver
	info backend.Info
	lim  limits
	dev  raw.Device
	ctx  raw.Context
	exec *executor

	target target // what Build compiles for

	// Owned by the executor's thread: the kernel parameter block and the
	// pinned staging buffers with their events (allocated on first use).
	params   *raw.Params
	stage    staging
	closeErr error

	stats     buildStats
	closeOnce sync.Once

	// phases records opening and the first uses (backend.Timed); the
	// flags spare the hot paths the clock once their first use is logged.
	phases                    backend.PhaseLog
	allocated, launched, sync atomic.Bool
}

// Phases makes the device a backend.Timed: the driver's loading (once per
// process, on the first probe or open), then opening this device, each
// build, and the first allocation, stream, launch and wait.
func (d *Device) Phases() []backend.Phase { return d.phases.Phases() }

// first logs phase name as begun at start unless flag says it was logged.
func (d *Device) first(flag *atomic.Bool, name string, start time.Time) {
	if !flag.Swap(true) {
		d.phases.First(name, start)
	}
}

// buildStats counts what Build did, for tests and diagnostics.
type buildStats struct {
	compiles, cacheHits, cacheStores atomic.Int64
}

func openDevice(st *state, ordinal int, loading []backend.Phase) (*Device, error) {
	start := time.Now()
	info, lim, err := st.deviceInfo(ordinal)
	if err != nil {
		return nil, err
	}
	attrs := time.Since(start)
	t, err := chooseTarget(lim.arch, st.nvArchs, st.nvCubins, false)
	if err != nil {
		return nil, fmt.Errorf("cuda: %s: %w", info.Name, err)
	}
	d := &Device{st: st, api: st.api, info: info, lim: lim, target: t, params: raw.NewParams(maxParams),
		stage: defaultStaging()}
	for _, p := range loading {
		d.phases.Add(p.Name, p.Took)
	}
	d.phases.Add("device attributes", attrs)
	d.dev, _ = st.api.DeviceGet(ordinal)
	setup := func() error {
		// The primary context, not cuCtxCreate: it is the one the runtime
		// API and other libraries share, and retaining it is what costs
		// (the driver creates it on the first retain: memory mappings,
		// the device's firmware state).
		start := time.Now()
		defer d.phases.Since("primary context (retain + make current)", start)
		ctx, r := d.api.PrimaryCtxRetain(d.dev)
		if err := check(d.api, "cuDevicePrimaryCtxRetain", r); err != nil {
			return err
		}
		if err := check(d.api, "cuCtxSetCurrent", d.api.CtxSetCurrent(ctx)); err != nil {
			d.api.PrimaryCtxRelease(d.dev)
			return err
		}
		d.ctx = ctx
		return nil
	}
	d.exec, err = newExecutor(setup, d.teardown)
	if err != nil {
		d.params.Free()
		return nil, fmt.Errorf("cuda: open %s: %w", info.Name, err)
	}
	return d, nil
}

// teardown runs on the executor's thread when the device closes.
func (d *Device) teardown() {
	var errs []error
	keep := func(op string, r raw.Result) {
		if err := check(d.api, op, r); err != nil {
			errs = append(errs, err)
		}
	}
	keep("cuCtxSynchronize", d.api.CtxSynchronize())
	for _, err := range d.freeStaging() {
		errs = append(errs, err)
	}
	d.api.CtxSetCurrent(0)
	keep("cuDevicePrimaryCtxRelease", d.api.PrimaryCtxRelease(d.dev))
	d.params.Free()
	if len(errs) > 0 {
		d.closeErr = fmt.Errorf("cuda: close %s: %v", d.info.Name, errs[0])
	}
}

func (d *Device) Info() backend.Info { return d.info }

// Close releases the primary context (the last release destroys it, with
// every allocation, module and stream still in it).
func (d *Device) Close() error {
	d.closeOnce.Do(func() { d.exec.close() })
	return d.closeErr
}

// do runs f on the executor with the context current.
func (d *Device) do(f func() error) error { return d.exec.do(f) }

// release is the finalizer safety net: free a leaked object unless the
// device is already gone (its context took the object with it).
func (d *Device) release(f func()) {
	if d.exec.closed() {
		return
	}
	d.exec.do(func() error { f(); return nil })
}

// buffer is device memory.
type buffer struct {
	d       *Device
	ptr     raw.DevicePtr
	size    int
	freed   atomic.Bool
	cleanup runtime.Cleanup
}

func (b *buffer) Size() int { return b.size }

func (b *buffer) Free() error {
	if b.freed.Swap(true) {
		return fmt.Errorf("cuda: buffer of %d bytes freed twice", b.size)
	}
	b.cleanup.Stop()
	err := b.d.do(func() error { return check(b.d.api, "cuMemFree", b.d.api.MemFree(b.ptr)) })
	if err != nil {
		return fmt.Errorf("cuda: free %d bytes on %s: %w", b.size, b.d.info.Name, err)
	}
	return nil
}

// Alloc returns size bytes of device memory. CUDA_ERROR_OUT_OF_MEMORY comes
// back wrapping backend.ErrOutOfMemory; the context stays usable.
func (d *Device) Alloc(size int) (backend.Buffer, error) {
	if size <= 0 {
		return nil, fmt.Errorf("cuda: alloc of %d bytes", size)
	}
	var p raw.DevicePtr
	start := time.Now()
	err := d.do(func() error {
		var r raw.Result
		p, r = d.api.MemAlloc(size)
		return check(d.api, "cuMemAlloc", r)
	})
	d.first(&d.allocated, "first allocation ("+humanSize(size)+")", start)
	if err != nil {
		return nil, fmt.Errorf("cuda: alloc %d bytes on %s: %w", size, d.info.Name, err)
	}
	b := &buffer{d: d, ptr: p, size: size}
	api := d.api
	b.cleanup = runtime.AddCleanup(b, func(p raw.DevicePtr) { d.release(func() { api.MemFree(p) }) }, p)
	return b, nil
}

// buf checks that a buffer is a live one of this device.
func (d *Device) buf(b backend.Buffer) (*buffer, error) {
	cb, ok := b.(*buffer)
	if !ok || cb == nil {
		return nil, fmt.Errorf("cuda: buffer %T is not from the CUDA backend", b)
	}
	if cb.d != d {
		return nil, fmt.Errorf("cuda: buffer belongs to %s, not %s", cb.d.info, d.info)
	}
	if cb.freed.Load() {
		return nil, fmt.Errorf("cuda: use of a freed buffer (%d bytes)", cb.size)
	}
	return cb, nil
}

// MemInfo returns the free and total device memory.
func (d *Device) MemInfo() (free, total uint64, err error) {
	err = d.do(func() error {
		var r raw.Result
		free, total, r = d.api.MemGetInfo()
		return check(d.api, "cuMemGetInfo", r)
	})
	return free, total, err
}

// humanSize names a byte count for a phase's name.
func humanSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
