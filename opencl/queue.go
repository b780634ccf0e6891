package opencl

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/backend"
)

// Queue is an in-order OpenCL command queue with profiling enabled. Like
// the OpenCL object it wraps, it is for one goroutine at a time. Read and
// Write block; Copy, Fill and Launch are asynchronous, their errors may
// surface at a later Read, Write, Finish or Event.Wait.
type Queue struct {
	api      *api
	q        clQueue
	dev      *Device
	released atomic.Bool
	cleanup  runtime.Cleanup
}

func (q *Queue) buffer(b backend.Buffer, what string) (*Buffer, error) {
	if q.released.Load() {
		return nil, fmt.Errorf("opencl: %s on a released queue", what)
	}
	ob, ok := b.(*Buffer)
	if !ok || ob == nil {
		return nil, fmt.Errorf("opencl: %s: buffer %T is not from the OpenCL backend", what, b)
	}
	if ob.freed.Load() {
		return nil, fmt.Errorf("opencl: %s: use of a freed buffer", what)
	}
	if ob.dev != q.dev {
		return nil, fmt.Errorf("opencl: %s: buffer of %s used on a queue of %s", what, ob.dev.dev.info, q.dev.dev.info)
	}
	return ob, nil
}

func span(b *Buffer, off, n int, what string) error {
	return backend.CheckSpan("opencl", what, off, n, b.size)
}

// Write copies src into dst at offset and waits until it is done.
func (q *Queue) Write(dst backend.Buffer, offset int, src []byte) error {
	return q.transfer(dst, offset, src, "write", "clEnqueueWriteBuffer", q.api.write)
}

// Read copies from src at offset into dst and waits until it is done.
func (q *Queue) Read(src backend.Buffer, offset int, dst []byte) error {
	return q.transfer(src, offset, dst, "read", "clEnqueueReadBuffer", q.api.read)
}

// transfer checks a blocking host transfer of len(host) bytes at offset
// in buf (what: "read" or "write") and makes it with move, the OpenCL
// call named call.
func (q *Queue) transfer(buf backend.Buffer, offset int, host []byte, what, call string, move func(clQueue, clMem, int, []byte) int32) error {
	b, err := q.buffer(buf, what)
	if err != nil {
		return err
	}
	if err := span(b, offset, len(host), what); err != nil {
		return err
	}
	if len(host) == 0 {
		return nil
	}
	// The handles are used after their owners' last mention: keep the
	// owners (and so their cleanups) alive until the call returns.
	defer runtime.KeepAlive(b)
	defer runtime.KeepAlive(q)
	if err := check(call, move(q.q, b.mem, offset, host)); err != nil {
		return fmt.Errorf("opencl: %s %d bytes: %w", what, len(host), err)
	}
	return nil
}

// Copy copies bytes between buffers (overlapping ranges of one buffer are
// an error, as in OpenCL).
func (q *Queue) Copy(dst backend.Buffer, dstOffset int, src backend.Buffer, srcOffset int, bytes int) error {
	d, err := q.buffer(dst, "copy destination")
	if err != nil {
		return err
	}
	s, err := q.buffer(src, "copy source")
	if err != nil {
		return err
	}
	if err := backend.CheckCopy("opencl", srcOffset, s.size, dstOffset, d.size, bytes); err != nil {
		return err
	}
	if bytes == 0 {
		return nil
	}
	if d == s && srcOffset < dstOffset+bytes && dstOffset < srcOffset+bytes {
		return fmt.Errorf("opencl: copy [%d, %d) onto [%d, %d) of the same buffer overlaps",
			srcOffset, srcOffset+bytes, dstOffset, dstOffset+bytes)
	}
	defer runtime.KeepAlive(d)
	defer runtime.KeepAlive(s)
	defer runtime.KeepAlive(q)
	if err := check("clEnqueueCopyBuffer", q.api.copyBuffer(q.q, s.mem, d.mem, srcOffset, dstOffset, bytes)); err != nil {
		return fmt.Errorf("opencl: copy %d bytes: %w", bytes, err)
	}
	return nil
}

// Fill sets [offset, offset+bytes) to the repeated 4-byte value; both must
// be multiples of 4.
func (q *Queue) Fill(buf backend.Buffer, offset, bytes int, value uint32) error {
	b, err := q.buffer(buf, "fill")
	if err != nil {
		return err
	}
	if err := backend.CheckFill("opencl", offset, bytes, b.size); err != nil {
		return err
	}
	if bytes == 0 {
		return nil
	}
	defer runtime.KeepAlive(b)
	defer runtime.KeepAlive(q)
	if err := check("clEnqueueFillBuffer", q.api.fill(q.q, b.mem, value, offset, bytes)); err != nil {
		return fmt.Errorf("opencl: fill %d bytes: %w", bytes, err)
	}
	return nil
}

// dims is the number of dimensions a range uses.
func dims(r backend.Range) int {
	switch {
	case r.Global[2] > 1 || r.Local[2] > 1:
		return 3
	case r.Global[1] > 1 || r.Local[1] > 1:
		return 2
	}
	return 1
}

// Launch enqueues k over r, the global size rounded up to whole
// work-groups (OpenCL 1.2 needs uniform groups), the default group clamped
// to what the kernel can run.
func (q *Queue) Launch(k backend.Kernel, r backend.Range, args ...backend.Arg) error {
	if q.released.Load() {
		return fmt.Errorf("opencl: launch on a released queue")
	}
	kk, ok := k.(*Kernel)
	if !ok || kk == nil {
		return fmt.Errorf("opencl: kernel %T is not from the OpenCL backend", k)
	}
	if kk.released.Load() {
		return fmt.Errorf("opencl: launch of released kernel %q", kk.name)
	}
	if kk.dev != q.dev {
		return fmt.Errorf("opencl: kernel %s of %s launched on a queue of %s", kk.name, kk.dev.dev.info, q.dev.dev.info)
	}
	info := q.dev.dev.info
	nd, _, err := r.Normalize(kk.maxGroup)
	if err != nil {
		return fmt.Errorf("opencl: launch %s on %s: %w", kk.name, info.Name, err)
	}
	if nd.Empty() {
		return nil
	}
	for d := range 3 {
		if m := info.MaxWorkItems[d]; m > 0 && nd.Local[d] > m {
			return fmt.Errorf("opencl: launch %s on %s: work-group %v exceeds the device's %v items per dimension",
				kk.name, info.Name, nd.Local, info.MaxWorkItems)
		}
	}
	kk.mu.Lock()
	defer kk.mu.Unlock()
	// clSetKernelArg does not retain buffers: keep every argument's owner
	// alive until the launch is enqueued (which does retain them).
	defer runtime.KeepAlive(args)
	defer runtime.KeepAlive(kk)
	defer runtime.KeepAlive(q)
	local := 0
	for i, a := range args {
		var st int32
		switch a.Kind {
		case backend.ArgBuffer:
			b, err := q.buffer(a.Buf, fmt.Sprintf("launch %s argument %d", kk.name, i))
			if err != nil {
				return err
			}
			st = q.api.setArgMem(kk.k, i, b.mem)
		case backend.ArgLocal:
			if a.Size <= 0 {
				return fmt.Errorf("opencl: launch %s: argument %d: local memory of %d bytes", kk.name, i, a.Size)
			}
			local += a.Size
			st = q.api.setArgLocal(kk.k, i, a.Size)
		case backend.ArgInt32, backend.ArgUint32, backend.ArgFloat32:
			st = q.api.setArg32(kk.k, i, uint32(a.Bits))
		case backend.ArgInt64, backend.ArgUint64, backend.ArgFloat64:
			st = q.api.setArg64(kk.k, i, a.Bits)
		default:
			return fmt.Errorf("opencl: launch %s: argument %d has unknown kind %d", kk.name, i, a.Kind)
		}
		if st != 0 {
			return fmt.Errorf("opencl: launch %s: argument %d (%s): %w", kk.name, i, a, check("clSetKernelArg", st))
		}
	}
	if info.LocalMemory > 0 && uint64(local) > info.LocalMemory {
		return fmt.Errorf("opencl: launch %s: %d bytes of local memory, device has %d", kk.name, local, info.LocalMemory)
	}
	var start time.Time
	if !q.dev.launched.Load() {
		start = time.Now()
	}
	st := q.api.launch(q.q, kk.k, dims(nd), nd.Global, nd.Local)
	if !start.IsZero() {
		q.dev.first(&q.dev.launched, "first launch (clEnqueueNDRangeKernel, issue only)", start)
	}
	if st != 0 {
		return fmt.Errorf("opencl: launch %s global %v local %v on %s: %w",
			kk.name, nd.Global, nd.Local, info.Name, check("clEnqueueNDRangeKernel", st))
	}
	return nil
}

// Record enqueues a marker. Its profiling end time is when every command
// before it has finished.
func (q *Queue) Record() (backend.Event, error) {
	if q.released.Load() {
		return nil, fmt.Errorf("opencl: record on a released queue")
	}
	defer runtime.KeepAlive(q)
	e, st := q.api.marker(q.q)
	if st != 0 {
		return nil, fmt.Errorf("opencl: record: %w", check("clEnqueueMarkerWithWaitList", st))
	}
	ev := &Event{api: q.api, e: e}
	a := q.api
	ev.cleanup = runtime.AddCleanup(ev, func(h clEvent) { a.releaseEvent(h) }, e)
	// Flush so the marker is submitted and a Wait on it cannot stall.
	q.api.flush(q.q)
	return ev, nil
}

// Finish waits for every command in the queue.
func (q *Queue) Finish() error {
	if q.released.Load() {
		return fmt.Errorf("opencl: finish on a released queue")
	}
	defer runtime.KeepAlive(q)
	start := time.Now()
	st := q.api.finish(q.q)
	q.dev.first(&q.dev.finished, "first finish (clFinish: the first commands run)", start)
	if err := check("clFinish", st); err != nil {
		return fmt.Errorf("opencl: finish on %s: %w", q.dev.dev.info.Name, err)
	}
	return nil
}

// Release waits for the queue's commands and frees it.
func (q *Queue) Release() error {
	if !q.released.CompareAndSwap(false, true) {
		return fmt.Errorf("opencl: queue released twice")
	}
	q.cleanup.Stop()
	ferr := check("clFinish", q.api.finish(q.q))
	if err := check("clReleaseCommandQueue", q.api.releaseCommandQueue(q.q)); err != nil {
		return fmt.Errorf("opencl: release queue: %w", err)
	}
	if ferr != nil {
		return fmt.Errorf("opencl: release queue: %w", ferr)
	}
	return nil
}

// Event is a marker in a queue.
type Event struct {
	api      *api
	e        clEvent
	released atomic.Bool
	cleanup  runtime.Cleanup
}

// Wait blocks until the commands before the marker have finished.
func (e *Event) Wait() error {
	if e.released.Load() {
		return fmt.Errorf("opencl: wait on a released event")
	}
	defer runtime.KeepAlive(e)
	if err := check("clWaitForEvents", e.api.wait(e.e)); err != nil {
		return fmt.Errorf("opencl: wait: %w", err)
	}
	return nil
}

// end waits for the marker and returns its profiling end time. A marker
// has no work, so its start and end coincide with the completion of the
// commands before it; end is the one every implementation fills.
func (e *Event) end() (uint64, error) {
	if err := e.Wait(); err != nil {
		return 0, err
	}
	defer runtime.KeepAlive(e)
	t, st := e.api.profiling(e.e, clProfilingCommandEnd)
	if err := check("clGetEventProfilingInfo", st); err != nil {
		return 0, fmt.Errorf("opencl: event time: %w", err)
	}
	return t, nil
}

// Elapsed is the device time from start to e, waiting for both.
func (e *Event) Elapsed(start backend.Event) (time.Duration, error) {
	s, ok := start.(*Event)
	if !ok || s == nil {
		return 0, fmt.Errorf("opencl: event %T is not from the OpenCL backend", start)
	}
	t0, err := s.end()
	if err != nil {
		return 0, err
	}
	t1, err := e.end()
	if err != nil {
		return 0, err
	}
	return time.Duration(int64(t1 - t0)), nil
}

// Release frees the event.
func (e *Event) Release() error {
	if !e.released.CompareAndSwap(false, true) {
		return fmt.Errorf("opencl: event released twice")
	}
	e.cleanup.Stop()
	return check("clReleaseEvent", e.api.releaseEvent(e.e))
}
