package cuda

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cuda/internal/raw"
	"github.com/arbor-gpu/arbor/internal/par"
)

// Transfers larger than stagingThreshold go through pinned staging buffers
// in chunks, several in flight: the copy of one chunk between Go memory and
// pinned memory overlaps the DMA of the others, and is itself spread over
// several goroutines, because one core copies more slowly than the PCIe
// link moves data. Smaller transfers are copied straight from Go memory
// (the driver stages those itself).
const (
	stagingThreshold = 1 << 20
	copyPiece        = 1 << 20 // the least each copying goroutine takes
)

// staging is the pinned staging set of a device: its shape and, once
// allocated (executor thread only), its buffers and their events.
type staging struct {
	chunk   int // bytes per buffer
	copiers int // goroutines that copy one chunk
	bufs    []raw.HostMem
	events  []raw.Event
}

// defaultStaging is the shape measured best on the H100 machine (PCIe Gen5,
// 16 cores; TestStagingSweep, 2 GiB each way): two 64 MiB buffers filled by
// up to 16 goroutines move 43 GB/s both ways, against 28 GB/s for two of 16
// MiB with 8 (the link itself: 55 GB/s). Four buffers were slower than two
// at every chunk size.
func defaultStaging() staging {
	return staging{chunk: 64 << 20, copiers: min(runtime.GOMAXPROCS(0), 16), bufs: make([]raw.HostMem, 2),
		events: make([]raw.Event, 2)}
}

// parallelCopy copies src into dst (same length) with up to copiers
// goroutines, each taking at least copyPiece bytes. The executor's thread
// waits for them; they run elsewhere.
func parallelCopy(dst, src []byte, copiers int) {
	k := min(copiers, par.Workers(len(src), copyPiece))
	par.Pieces(len(src), k, func(_, lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}

// queue is a CUDA stream. Launch, Copy and Fill are posted to the executor
// without waiting for the driver's answer, as the driver itself queues
// them: the caller goes on preparing the next command while the executor
// issues this one. Their arguments are checked before they are posted; an
// error the driver still reports is kept and returned by the queue's next
// waiting call (Read, Write, Record, Finish), like a kernel's own faults.
type queue struct {
	d        *Device
	stream   raw.Stream
	released atomic.Bool
	cleanup  runtime.Cleanup

	mu       sync.Mutex
	deferred error // the first error of a posted command, not yet returned
}

// keep records the first error of a posted command (executor thread).
func (q *queue) keep(err error) {
	q.mu.Lock()
	if q.deferred == nil {
		q.deferred = err
	}
	q.mu.Unlock()
}

// takeDeferred returns and clears the kept error. Called after a d.do, it
// sees every command posted before that call.
func (q *queue) takeDeferred() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	err := q.deferred
	q.deferred = nil
	return err
}

// wait runs f on the executor and returns the first error: an earlier
// posted command's, else f's.
func (q *queue) wait(f func() error) error {
	err := q.d.do(f)
	if d := q.takeDeferred(); d != nil {
		return fmt.Errorf("an earlier command failed: %w", d)
	}
	return err
}

// post queues f; its error is kept for the next waiting call.
func (q *queue) post(f func() error) error {
	return q.d.exec.post(func() error {
		if err := f(); err != nil {
			q.keep(err)
		}
		return nil
	})
}

// NewQueue creates a stream. Commands on it run in order; Read and Write
// return once the data has moved.
func (d *Device) NewQueue() (backend.Queue, error) {
	var s raw.Stream
	start := time.Now()
	err := d.do(func() error {
		var r raw.Result
		s, r = d.api.StreamCreate()
		return check(d.api, "cuStreamCreate", r)
	})
	d.phases.First("first stream (cuStreamCreate)", start)
	if err != nil {
		return nil, fmt.Errorf("cuda: new queue on %s: %w", d.info.Name, err)
	}
	q := &queue{d: d, stream: s}
	api := d.api
	q.cleanup = runtime.AddCleanup(q, func(s raw.Stream) { d.release(func() { api.StreamDestroy(s) }) }, s)
	return q, nil
}

func (q *queue) live() error {
	if q.released.Load() {
		return fmt.Errorf("cuda: use of a released queue")
	}
	return nil
}

// span checks [off, off+n) against a buffer.
func span(b *buffer, off, n int, what string) error {
	return backend.CheckSpan("cuda", what, off, n, b.size)
}

// transfer checks a host transfer of n bytes at off in buffer bb (what:
// "read" or "write") and runs move on the device's pointer there, on the
// context's thread.
func (q *queue) transfer(bb backend.Buffer, off, n int, what string, move func(ptr raw.DevicePtr) error) error {
	if err := q.live(); err != nil {
		return err
	}
	d := q.d
	b, err := d.buf(bb)
	if err != nil {
		return err
	}
	if err := span(b, off, n, what); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	// A copy to or from Go (pageable) memory waits, inside the driver, for
	// every command queued on the stream before it: issued on the
	// executor, it would hold the executor, and with it every other
	// queue of the device, for as long as this stream's kernels run. The
	// stream is therefore drained from the caller's thread first (settle),
	// and the executor holds only the copy itself.
	if err := q.settle(); err != nil {
		return fmt.Errorf("cuda: %s %d bytes on %s: %w", what, n, d.info.Name, err)
	}
	if err := q.wait(func() error { return move(b.ptr + raw.DevicePtr(off)) }); err != nil {
		return fmt.Errorf("cuda: %s %d bytes on %s: %w", what, n, d.info.Name, err)
	}
	return nil
}

func (q *queue) Write(dst backend.Buffer, off int, src []byte) error {
	d := q.d
	return q.transfer(dst, off, len(src), "write", func(ptr raw.DevicePtr) error {
		if len(src) > stagingThreshold {
			return d.stagedWrite(ptr, src, q.stream)
		}
		if err := check(d.api, "cuMemcpyHtoDAsync", d.api.MemcpyHtoDAsync(ptr, src, q.stream)); err != nil {
			return err
		}
		return d.syncStream(q.stream)
	})
}

func (q *queue) Read(src backend.Buffer, off int, dst []byte) error {
	d := q.d
	return q.transfer(src, off, len(dst), "read", func(ptr raw.DevicePtr) error {
		if len(dst) > stagingThreshold {
			return d.stagedRead(dst, ptr, q.stream)
		}
		if err := check(d.api, "cuMemcpyDtoHAsync", d.api.MemcpyDtoHAsync(dst, ptr, q.stream)); err != nil {
			return err
		}
		return d.syncStream(q.stream)
	})
}

// waitFor polls query (cuStreamQuery, cuEventQuery) for a short while, then
// falls back to block (cuStreamSynchronize, cuEventSynchronize). Polling
// answers a short wait sooner: a blocking driver call that lasts more than
// about 20 µs can lose its Go processor (P) to the scheduler, and getting
// one back on return costs about as much again (measured on the H100
// machine: Launch+Finish 13-24 µs blocking, against 10 µs for the bare
// driver calls).
//
// On the executor's thread (outside false) the context is current. With
// outside true it runs on the caller's goroutine instead, each batch of
// queries with the context pushed on its (locked) thread and popped after
// (current), so that waiting for one stream does not hold the executor:
// queues of one device wait side by side, and one queue's long kernel no
// longer delays another queue's launches and copies. Between batches the
// caller yields, as executor.do's callers do: on a machine with few cores
// a waiting caller must not starve the CPU workers of a hybrid search.
func (d *Device) waitFor(op string, query func() raw.Result, block func() raw.Result, outside bool) error {
	const batch = 16
	in := func(f func() raw.Result) raw.Result { return f() }
	if outside {
		in = d.current
	}
	poll := func() raw.Result {
		for i := 0; i < batch; i++ {
			if r := query(); r != raw.ErrNotReady {
				return r
			}
		}
		return raw.ErrNotReady
	}
	var deadline time.Time
	for {
		switch r := in(poll); r {
		case raw.Success:
			return nil
		case raw.ErrNotReady:
		default:
			return check(d.api, op, r)
		}
		now := time.Now()
		if deadline.IsZero() {
			deadline = now.Add(d.pollWindow())
		} else if now.After(deadline) {
			return check(d.api, op, in(block))
		}
		if outside {
			runtime.Gosched()
		}
	}
}

// current runs f on the calling goroutine's thread with the device's
// context current: pushed on the thread's context stack for the call and
// popped after, so the thread is left as it was (a Go thread serves other
// goroutines afterwards, and must not keep a context that Close may
// destroy). The CUDA driver API is thread-safe; only the current context
// is per thread, and cuStreamSynchronize's documented results include
// CUDA_ERROR_INVALID_CONTEXT, so the context is made current rather than
// assumed unnecessary. Pushing and popping are thread-local
// bookkeeping, well under a microsecond.
func (d *Device) current(f func() raw.Result) raw.Result {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if r := d.api.CtxPushCurrent(d.ctx); r != raw.Success {
		return r
	}
	r := f()
	d.api.CtxPopCurrent()
	return r
}

// pollWait is how long waitFor polls before it blocks when the executor
// has no longer window.
const pollWait = 100 * time.Microsecond

// pollWindow is how long waitFor polls before it blocks: the executor's
// spin window (spinWindow, 1 ms) when that is longer. A
// blocking cuStreamSynchronize on this VM-hosted H100 took about 1.1 ms to
// return after the stream drained (measured by the matching benchmark's
// per-pass count reads), so waits shorter than the window are polled.
func (d *Device) pollWindow() time.Duration {
	if d.exec != nil && d.exec.spinFor > pollWait {
		return d.exec.spinFor
	}
	return pollWait
}

// syncStream waits for everything queued on s (executor thread only).
func (d *Device) syncStream(s raw.Stream) error {
	return d.waitFor("cuStreamSynchronize", func() raw.Result { return d.api.StreamQuery(s) },
		func() raw.Result { return d.api.StreamSynchronize(s) }, false)
}

// awaitEvent waits for e on the caller's thread (see waitFor), never on
// the executor's.
func (d *Device) awaitEvent(e raw.Event) error {
	return d.waitFor("cuEventSynchronize", func() raw.Result { return d.api.EventQuery(e) },
		func() raw.Result { return d.api.EventSynchronize(e) }, true)
}

// settle returns once every command queued on q so far has finished. The
// executor is held only for the round trip that issues the commands
// posted before (and returns their deferred errors); the wait for the
// device runs on the caller's thread (waitFor), so other queues' calls
// go on meanwhile. Before, Finish ran cuStreamSynchronize on the
// executor: while one stream's kernel ran, every other queue of the
// device waited, and two searches on one device could not overlap.
func (q *queue) settle() error {
	d := q.d
	start := time.Now()
	if err := q.wait(func() error { return nil }); err != nil {
		return err
	}
	err := d.waitFor("cuStreamSynchronize", func() raw.Result { return d.api.StreamQuery(q.stream) },
		func() raw.Result { return d.api.StreamSynchronize(q.stream) }, true)
	if err == nil {
		d.first(&d.sync, "first wait for the device (the first commands run)", start)
	}
	return err
}

// ensureStaging allocates the pinned staging buffers (executor thread only).
func (d *Device) ensureStaging() error {
	st := &d.stage
	for i := range st.bufs {
		if st.bufs[i].Len() == 0 {
			h, r := d.api.MemAllocHost(st.chunk)
			if err := check(d.api, "cuMemAllocHost", r); err != nil {
				return err
			}
			st.bufs[i] = h
		}
		if st.events[i] == 0 {
			e, r := d.api.EventCreate()
			if err := check(d.api, "cuEventCreate", r); err != nil {
				return err
			}
			st.events[i] = e
		}
	}
	return nil
}

// freeStaging frees the staging buffers and events (executor thread only).
func (d *Device) freeStaging() []error {
	var errs []error
	st := &d.stage
	for i := range st.bufs {
		if st.events[i] != 0 {
			if err := check(d.api, "cuEventDestroy", d.api.EventDestroy(st.events[i])); err != nil {
				errs = append(errs, err)
			}
			st.events[i] = 0
		}
		if st.bufs[i].Len() != 0 {
			if err := check(d.api, "cuMemFreeHost", d.api.MemFreeHost(st.bufs[i])); err != nil {
				errs = append(errs, err)
			}
			st.bufs[i] = raw.HostMem{}
		}
	}
	return errs
}

// stagedWrite copies src to dst through the staging buffers (executor
// thread only): fill one buffer while the others' DMAs run.
func (d *Device) stagedWrite(dst raw.DevicePtr, src []byte, s raw.Stream) error {
	if err := d.ensureStaging(); err != nil {
		return err
	}
	api, st := d.api, &d.stage
	nb := len(st.bufs)
	for i, off := 0, 0; off < len(src); i, off = i+1, off+st.chunk {
		n := min(st.chunk, len(src)-off)
		k := i % nb
		if i >= nb {
			// The buffer's previous DMA must be done before it is refilled.
			if err := check(api, "cuEventSynchronize", api.EventSynchronize(st.events[k])); err != nil {
				return err
			}
		}
		stage := st.bufs[k].Bytes()[:n]
		parallelCopy(stage, src[off:off+n], st.copiers)
		if err := check(api, "cuMemcpyHtoDAsync", api.MemcpyHtoDAsync(dst+raw.DevicePtr(off), stage, s)); err != nil {
			return err
		}
		if err := check(api, "cuEventRecord", api.EventRecord(st.events[k], s)); err != nil {
			return err
		}
	}
	return check(api, "cuStreamSynchronize", api.StreamSynchronize(s))
}

// stagedRead copies src to dst through the staging buffers (executor thread
// only): the DMAs of the next chunks run while a chunk is copied out.
func (d *Device) stagedRead(dst []byte, src raw.DevicePtr, s raw.Stream) error {
	if err := d.ensureStaging(); err != nil {
		return err
	}
	api, st := d.api, &d.stage
	nb := len(st.bufs)
	drain := func(i int) error {
		k, off := i%nb, i*st.chunk
		n := min(st.chunk, len(dst)-off)
		if err := check(api, "cuEventSynchronize", api.EventSynchronize(st.events[k])); err != nil {
			return err
		}
		parallelCopy(dst[off:off+n], st.bufs[k].Bytes()[:n], st.copiers)
		return nil
	}
	chunks := (len(dst) + st.chunk - 1) / st.chunk
	for i := 0; i < chunks; i++ {
		k, off := i%nb, i*st.chunk
		n := min(st.chunk, len(dst)-off)
		// Buffer k last held chunk i-nb: copy it out before the DMA refills it.
		if i >= nb {
			if err := drain(i - nb); err != nil {
				return err
			}
		}
		if err := check(api, "cuMemcpyDtoHAsync", api.MemcpyDtoHAsync(st.bufs[k].Bytes()[:n], src+raw.DevicePtr(off), s)); err != nil {
			return err
		}
		if err := check(api, "cuEventRecord", api.EventRecord(st.events[k], s)); err != nil {
			return err
		}
	}
	for i := max(0, chunks-nb); i < chunks; i++ {
		if err := drain(i); err != nil {
			return err
		}
	}
	return nil
}

// Copy copies between device buffers; it is posted, not waited for.
func (q *queue) Copy(dst backend.Buffer, doff int, src backend.Buffer, soff, n int) error {
	if err := q.live(); err != nil {
		return err
	}
	d := q.d
	db, err := d.buf(dst)
	if err != nil {
		return err
	}
	sb, err := d.buf(src)
	if err != nil {
		return err
	}
	if err := backend.CheckCopy("cuda", soff, sb.size, doff, db.size, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	return q.post(func() error {
		if err := check(d.api, "cuMemcpyDtoDAsync", d.api.MemcpyDtoDAsync(db.ptr+raw.DevicePtr(doff), sb.ptr+raw.DevicePtr(soff), n, q.stream)); err != nil {
			return fmt.Errorf("cuda: copy %d bytes on %s: %w", n, d.info.Name, err)
		}
		return nil
	})
}

// Fill sets [off, off+n) to a repeated 4-byte value; it is posted.
func (q *queue) Fill(dst backend.Buffer, off, n int, value uint32) error {
	if err := q.live(); err != nil {
		return err
	}
	d := q.d
	b, err := d.buf(dst)
	if err != nil {
		return err
	}
	if err := backend.CheckFill("cuda", off, n, b.size); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	return q.post(func() error {
		if err := check(d.api, "cuMemsetD32Async", d.api.MemsetD32Async(b.ptr+raw.DevicePtr(off), value, n/4, q.stream)); err != nil {
			return fmt.Errorf("cuda: fill %d bytes on %s: %w", n, d.info.Name, err)
		}
		return nil
	})
}

// localAlign is the alignment of each local-memory argument's slice.
const localAlign = 16

// Launch queues k over r (see queue: posted, not waited for). Each backend.ArgLocal argument gets Size bytes
// (rounded up to 16) of the launch's dynamic shared memory, and the kernel
// parameter receives that slice's byte offset as a uint32 (the prelude's
// LOCAL_PTR/LOCAL_BIND turn it into a pointer into arbor_dynamic_local).
func (q *queue) Launch(k backend.Kernel, r backend.Range, args ...backend.Arg) error {
	if err := q.live(); err != nil {
		return err
	}
	d := q.d
	kk, ok := k.(*kernel)
	if !ok || kk == nil {
		return fmt.Errorf("cuda: kernel %T is not from the CUDA backend", k)
	}
	if kk.p.d != d {
		return fmt.Errorf("cuda: kernel %s belongs to %s, not %s", kk.name, kk.p.d.info, d.info)
	}
	maxThreads := min(d.lim.maxThreads, kk.maxThreads)
	nr, groups, err := r.Normalize(maxThreads)
	if err != nil {
		return fmt.Errorf("cuda: launch %s: %w (this kernel allows %d threads per block, %d registers each)", kk.name, err, maxThreads, kk.regs)
	}
	if nr.Empty() {
		return nil
	}
	var grid, block [3]uint32
	for i := 0; i < 3; i++ {
		if nr.Local[i] > d.lim.maxBlock[i] {
			return fmt.Errorf("cuda: launch %s: work-group %v exceeds the block limit %v", kk.name, nr.Local, d.lim.maxBlock)
		}
		if groups[i] > d.lim.maxGrid[i] {
			return fmt.Errorf("cuda: launch %s: %d work-groups in dimension %d exceed the grid limit %d", kk.name, groups[i], i, d.lim.maxGrid[i])
		}
		grid[i], block[i] = uint32(groups[i]), uint32(nr.Local[i])
	}
	if len(args) > maxParams {
		return fmt.Errorf("cuda: launch %s: %d arguments, at most %d", kk.name, len(args), maxParams)
	}
	bits := make([]uint64, len(args))
	shared := 0
	for i, a := range args {
		switch a.Kind {
		case backend.ArgBuffer:
			b, err := d.buf(a.Buf)
			if err != nil {
				return fmt.Errorf("cuda: launch %s: argument %d: %w", kk.name, i, err)
			}
			bits[i] = uint64(b.ptr)
		case backend.ArgLocal:
			if a.Size <= 0 {
				return fmt.Errorf("cuda: launch %s: argument %d: local memory of %d bytes", kk.name, i, a.Size)
			}
			bits[i] = uint64(shared)
			shared += (a.Size + localAlign - 1) / localAlign * localAlign
		case backend.ArgInt32, backend.ArgUint32, backend.ArgFloat32:
			bits[i] = a.Bits & math.MaxUint32
		case backend.ArgInt64, backend.ArgUint64, backend.ArgFloat64:
			bits[i] = a.Bits
		default:
			return fmt.Errorf("cuda: launch %s: argument %d has unknown kind %v", kk.name, i, a.Kind)
		}
	}
	if shared+kk.staticShared > d.lim.sharedOptin {
		return fmt.Errorf("cuda: launch %s: %d bytes of local memory (+%d static) exceed the device's %d bytes per block",
			kk.name, shared, kk.staticShared, d.lim.sharedOptin)
	}
	return q.post(func() error {
		if shared > kk.maxDynamic {
			// Beyond 48 KiB a kernel must opt in to more dynamic shared memory.
			if err := check(d.api, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
				d.api.FuncSetAttribute(kk.fn, raw.FuncMaxDynamicSharedSizeBytes, shared)); err != nil {
				return fmt.Errorf("cuda: launch %s with %d bytes of local memory on %s: %w", kk.name, shared, d.info.Name, err)
			}
			kk.maxDynamic = shared
		}
		for i, v := range bits {
			d.params.Set(i, v)
		}
		var start time.Time
		if !d.launched.Load() {
			start = time.Now()
		}
		err := check(d.api, "cuLaunchKernel", d.api.LaunchKernel(kk.fn, grid, block, uint32(shared), q.stream, d.params, len(bits)))
		if !start.IsZero() {
			// With lazy module loading (the default from CUDA 12.2) the
			// first launch of a kernel is where the driver loads it.
			d.first(&d.launched, "first launch (cuLaunchKernel, issue only)", start)
		}
		if err != nil {
			return fmt.Errorf("cuda: launch %s grid %v block %v shared %d on %s: %w", kk.name, grid, block, shared, d.info.Name, err)
		}
		return nil
	})
}

// Record places an event after the commands queued so far.
func (q *queue) Record() (backend.Event, error) {
	if err := q.live(); err != nil {
		return nil, err
	}
	d := q.d
	var ev raw.Event
	err := q.wait(func() error {
		var r raw.Result
		ev, r = d.api.EventCreate()
		if err := check(d.api, "cuEventCreate", r); err != nil {
			return err
		}
		if err := check(d.api, "cuEventRecord", d.api.EventRecord(ev, q.stream)); err != nil {
			d.api.EventDestroy(ev)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cuda: record on %s: %w", d.info.Name, err)
	}
	e := &event{d: d, ev: ev}
	api := d.api
	e.cleanup = runtime.AddCleanup(e, func(ev raw.Event) { d.release(func() { api.EventDestroy(ev) }) }, ev)
	return e, nil
}

// Finish waits for every command queued so far; errors of earlier launches
// (a kernel that faulted) surface here.
func (q *queue) Finish() error {
	if err := q.live(); err != nil {
		return err
	}
	d := q.d
	if err := q.settle(); err != nil {
		return fmt.Errorf("cuda: finish on %s: %w", d.info.Name, err)
	}
	return nil
}

// Release destroys the stream; work already queued still completes.
func (q *queue) Release() error {
	if q.released.Swap(true) {
		return nil
	}
	q.cleanup.Stop()
	d := q.d
	err := d.do(func() error { return check(d.api, "cuStreamDestroy", d.api.StreamDestroy(q.stream)) })
	if err != nil {
		return fmt.Errorf("cuda: release queue on %s: %w", d.info.Name, err)
	}
	return nil
}

// event is a recorded CUDA event (created with timing enabled).
type event struct {
	d        *Device
	ev       raw.Event
	released atomic.Bool
	cleanup  runtime.Cleanup
}

func (e *event) Wait() error {
	if e.released.Load() {
		return fmt.Errorf("cuda: wait on a released event")
	}
	// Record issued the event on the executor, so it can be waited for
	// from here at once.
	if err := e.d.awaitEvent(e.ev); err != nil {
		return fmt.Errorf("cuda: wait on %s: %w", e.d.info.Name, err)
	}
	return nil
}

// Elapsed is the device time between start and e; it waits for e.
func (e *event) Elapsed(start backend.Event) (time.Duration, error) {
	s, ok := start.(*event)
	if !ok || s == nil {
		return 0, fmt.Errorf("cuda: event %T is not from the CUDA backend", start)
	}
	if s.d != e.d {
		return 0, fmt.Errorf("cuda: events of different devices")
	}
	if e.released.Load() || s.released.Load() {
		return 0, fmt.Errorf("cuda: elapsed time of a released event")
	}
	var ms float32
	if err := e.d.awaitEvent(e.ev); err != nil {
		return 0, fmt.Errorf("cuda: elapsed on %s: %w", e.d.info.Name, err)
	}
	err := e.d.do(func() error {
		var r raw.Result
		ms, r = e.d.api.EventElapsed(s.ev, e.ev)
		return check(e.d.api, "cuEventElapsedTime", r)
	})
	if err != nil {
		return 0, fmt.Errorf("cuda: elapsed on %s: %w", e.d.info.Name, err)
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}

func (e *event) Release() error {
	if e.released.Swap(true) {
		return nil
	}
	e.cleanup.Stop()
	err := e.d.do(func() error { return check(e.d.api, "cuEventDestroy", e.d.api.EventDestroy(e.ev)) })
	if err != nil {
		return fmt.Errorf("cuda: release event on %s: %w", e.d.info.Name, err)
	}
	return nil
}
