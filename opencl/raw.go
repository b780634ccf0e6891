package opencl

// The raw binding: the OpenCL ICD loader's C entry points bound with purego,
// and thin wrappers that turn Go values into the pointers C expects. No
// decisions are made here; this is the only file of the backend that uses
// unsafe. Handles (cl_platform_id, cl_mem, ...) are C pointers the Go
// garbage collector never sees, kept as uintptr.

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Handle types. They are opaque C pointers.
type (
	clPlatform uintptr
	clDevice   uintptr
	clContext  uintptr
	clQueue    uintptr
	clMem      uintptr
	clProgram  uintptr
	clKernel   uintptr
	clEvent    uintptr
)

// api holds the bound entry points of one loaded library.
type api struct {
	path   string
	handle uintptr

	getPlatformIDs  func(num uint32, platforms []clPlatform, numOut *uint32) int32
	getPlatformInfo func(p clPlatform, param uint32, size uintptr, value []byte, sizeOut *uintptr) int32
	getDeviceIDs    func(p clPlatform, typ uint64, num uint32, devices []clDevice, numOut *uint32) int32
	getDeviceInfo   func(d clDevice, param uint32, size uintptr, value []byte, sizeOut *uintptr) int32

	createContext  func(props []uintptr, num uint32, devices *clDevice, notify, user uintptr, errOut *int32) clContext
	releaseContext func(c clContext) int32

	createCommandQueue  func(c clContext, d clDevice, props uint64, errOut *int32) clQueue
	releaseCommandQueue func(q clQueue) int32
	finish              func(q clQueue) int32
	flush               func(q clQueue) int32

	createBuffer     func(c clContext, flags uint64, size uintptr, host uintptr, errOut *int32) clMem
	releaseMemObject func(m clMem) int32

	createProgramWithSource func(c clContext, count uint32, strs unsafe.Pointer, lengths *uintptr, errOut *int32) clProgram
	createProgramWithBinary func(c clContext, num uint32, devices *clDevice, lengths *uintptr, bins unsafe.Pointer, status *int32, errOut *int32) clProgram
	buildProgram            func(p clProgram, num uint32, devices *clDevice, options string, notify, user uintptr) int32
	getProgramInfo          func(p clProgram, param uint32, size uintptr, value unsafe.Pointer, sizeOut *uintptr) int32
	getProgramBuildInfo     func(p clProgram, d clDevice, param uint32, size uintptr, value []byte, sizeOut *uintptr) int32
	releaseProgram          func(p clProgram) int32

	createKernel           func(p clProgram, name string, errOut *int32) clKernel
	releaseKernel          func(k clKernel) int32
	setKernelArg           func(k clKernel, index uint32, size uintptr, value unsafe.Pointer) int32
	getKernelWorkGroupInfo func(k clKernel, d clDevice, param uint32, size uintptr, value []byte, sizeOut *uintptr) int32
	// getKernelSubGroupInfo is OpenCL 2.1's; nil where the loader lacks it.
	getKernelSubGroupInfo func(k clKernel, d clDevice, param uint32, inSize uintptr, in unsafe.Pointer, size uintptr, value []byte, sizeOut *uintptr) int32

	enqueueNDRangeKernel func(q clQueue, k clKernel, dims uint32, offset, global, local *uintptr, numWait uint32, wait, event uintptr) int32
	enqueueReadBuffer    func(q clQueue, m clMem, blocking uint32, offset, size uintptr, ptr unsafe.Pointer, numWait uint32, wait, event uintptr) int32
	enqueueWriteBuffer   func(q clQueue, m clMem, blocking uint32, offset, size uintptr, ptr unsafe.Pointer, numWait uint32, wait, event uintptr) int32
	enqueueCopyBuffer    func(q clQueue, src, dst clMem, srcOff, dstOff, size uintptr, numWait uint32, wait, event uintptr) int32
	enqueueFillBuffer    func(q clQueue, m clMem, pattern unsafe.Pointer, patternSize, offset, size uintptr, numWait uint32, wait, event uintptr) int32
	enqueueMarker        func(q clQueue, numWait uint32, wait uintptr, event *clEvent) int32

	waitForEvents         func(num uint32, events *clEvent) int32
	getEventInfo          func(e clEvent, param uint32, size uintptr, value []byte, sizeOut *uintptr) int32
	getEventProfilingInfo func(e clEvent, param uint32, size uintptr, value *uint64, sizeOut *uintptr) int32
	releaseEvent          func(e clEvent) int32
}

// openLibrary dlopens path and binds every entry point Arbor uses.
func openLibrary(path string) (*api, error) {
	h, err := dlopen(path)
	if err != nil {
		return nil, err
	}
	a := &api{path: path, handle: h}
	for _, s := range []struct {
		name string
		fn   any
	}{
		{"clGetPlatformIDs", &a.getPlatformIDs},
		{"clGetPlatformInfo", &a.getPlatformInfo},
		{"clGetDeviceIDs", &a.getDeviceIDs},
		{"clGetDeviceInfo", &a.getDeviceInfo},
		{"clCreateContext", &a.createContext},
		{"clReleaseContext", &a.releaseContext},
		{"clCreateCommandQueue", &a.createCommandQueue},
		{"clReleaseCommandQueue", &a.releaseCommandQueue},
		{"clFinish", &a.finish},
		{"clFlush", &a.flush},
		{"clCreateBuffer", &a.createBuffer},
		{"clReleaseMemObject", &a.releaseMemObject},
		{"clCreateProgramWithSource", &a.createProgramWithSource},
		{"clCreateProgramWithBinary", &a.createProgramWithBinary},
		{"clBuildProgram", &a.buildProgram},
		{"clGetProgramInfo", &a.getProgramInfo},
		{"clGetProgramBuildInfo", &a.getProgramBuildInfo},
		{"clReleaseProgram", &a.releaseProgram},
		{"clCreateKernel", &a.createKernel},
		{"clReleaseKernel", &a.releaseKernel},
		{"clSetKernelArg", &a.setKernelArg},
		{"clGetKernelWorkGroupInfo", &a.getKernelWorkGroupInfo},
		{"clEnqueueNDRangeKernel", &a.enqueueNDRangeKernel},
		{"clEnqueueReadBuffer", &a.enqueueReadBuffer},
		{"clEnqueueWriteBuffer", &a.enqueueWriteBuffer},
		{"clEnqueueCopyBuffer", &a.enqueueCopyBuffer},
		{"clEnqueueFillBuffer", &a.enqueueFillBuffer},
		{"clEnqueueMarkerWithWaitList", &a.enqueueMarker},
		{"clWaitForEvents", &a.waitForEvents},
		{"clGetEventInfo", &a.getEventInfo},
		{"clGetEventProfilingInfo", &a.getEventProfilingInfo},
		{"clReleaseEvent", &a.releaseEvent},
	} {
		sym, err := dlsym(h, s.name)
		if err != nil {
			dlclose(h)
			return nil, fmt.Errorf("%s lacks %s (an OpenCL 1.2 ICD loader is needed): %v", path, s.name, err)
		}
		purego.RegisterFunc(s.fn, sym)
	}
	if sym, err := dlsym(h, "clGetKernelSubGroupInfo"); err == nil {
		purego.RegisterFunc(&a.getKernelSubGroupInfo, sym)
	}
	return a, nil
}

// query runs the usual two-call size-then-value protocol of clGet*Info.
func query(get func(size uintptr, value []byte, sizeOut *uintptr) int32) ([]byte, int32) {
	var n uintptr
	if st := get(0, nil, &n); st != 0 {
		return nil, st
	}
	if n == 0 {
		return nil, 0
	}
	buf := make([]byte, n)
	if st := get(n, buf, nil); st != 0 {
		return nil, st
	}
	return buf, 0
}

func (a *api) platforms() ([]clPlatform, int32) {
	var n uint32
	if st := a.getPlatformIDs(0, nil, &n); st != 0 || n == 0 {
		return nil, st
	}
	ps := make([]clPlatform, n)
	if st := a.getPlatformIDs(n, ps, &n); st != 0 {
		return nil, st
	}
	return ps[:n], 0
}

func (a *api) platformInfo(p clPlatform, param uint32) ([]byte, int32) {
	return query(func(size uintptr, v []byte, out *uintptr) int32 { return a.getPlatformInfo(p, param, size, v, out) })
}

func (a *api) devices(p clPlatform, typ uint64) ([]clDevice, int32) {
	var n uint32
	if st := a.getDeviceIDs(p, typ, 0, nil, &n); st != 0 || n == 0 {
		return nil, st
	}
	ds := make([]clDevice, n)
	if st := a.getDeviceIDs(p, typ, n, ds, &n); st != 0 {
		return nil, st
	}
	return ds[:n], 0
}

func (a *api) deviceInfo(d clDevice, param uint32) ([]byte, int32) {
	return query(func(size uintptr, v []byte, out *uintptr) int32 { return a.getDeviceInfo(d, param, size, v, out) })
}

func (a *api) newContext(p clPlatform, d clDevice) (clContext, int32) {
	props := []uintptr{clContextPlatform, uintptr(p), 0}
	var st int32
	c := a.createContext(props, 1, &d, 0, 0, &st)
	return c, st
}

func (a *api) newQueue(c clContext, d clDevice, props uint64) (clQueue, int32) {
	var st int32
	q := a.createCommandQueue(c, d, props, &st)
	return q, st
}

func (a *api) newBuffer(c clContext, flags uint64, size int) (clMem, int32) {
	var st int32
	m := a.createBuffer(c, flags, uintptr(size), 0, &st)
	return m, st
}

func (a *api) programFromSource(c clContext, src string) (clProgram, int32) {
	if src == "" {
		src = " "
	}
	// One string with its length: Go memory, pinned so the array of
	// pointers handed to C may point into it.
	var pin runtime.Pinner
	defer pin.Unpin()
	data := unsafe.StringData(src)
	pin.Pin(data)
	strs := []*byte{data}
	length := uintptr(len(src))
	var st int32
	p := a.createProgramWithSource(c, 1, unsafe.Pointer(&strs[0]), &length, &st)
	runtime.KeepAlive(strs)
	return p, st
}

// programFromBinary returns the program, the per-device binary status and
// the call's status.
func (a *api) programFromBinary(c clContext, d clDevice, bin []byte) (clProgram, int32, int32) {
	if len(bin) == 0 {
		return 0, clInvalidBinary, clInvalidBinary
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&bin[0])
	bins := []*byte{&bin[0]}
	length := uintptr(len(bin))
	var status, st int32
	p := a.createProgramWithBinary(c, 1, &d, &length, unsafe.Pointer(&bins[0]), &status, &st)
	runtime.KeepAlive(bins)
	runtime.KeepAlive(bin)
	return p, status, st
}

func (a *api) build(p clProgram, d clDevice, options string) int32 {
	return a.buildProgram(p, 1, &d, options, 0, 0)
}

func (a *api) programBuildInfo(p clProgram, d clDevice, param uint32) ([]byte, int32) {
	return query(func(size uintptr, v []byte, out *uintptr) int32 {
		return a.getProgramBuildInfo(p, d, param, size, v, out)
	})
}

func (a *api) programInfo(p clProgram, param uint32) ([]byte, int32) {
	return query(func(size uintptr, v []byte, out *uintptr) int32 {
		var ptr unsafe.Pointer
		if len(v) > 0 {
			ptr = unsafe.Pointer(&v[0])
		}
		return a.getProgramInfo(p, param, size, ptr, out)
	})
}

// programBinary returns the binary of a program built for one device.
func (a *api) programBinary(p clProgram) ([]byte, int32) {
	var size uintptr
	if st := a.getProgramInfo(p, clProgramBinarySizes, unsafe.Sizeof(size), unsafe.Pointer(&size), nil); st != 0 {
		return nil, st
	}
	if size == 0 {
		return nil, 0
	}
	bin := make([]byte, size)
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&bin[0])
	ptrs := []*byte{&bin[0]}
	st := a.getProgramInfo(p, clProgramBinaries, unsafe.Sizeof(ptrs[0]), unsafe.Pointer(&ptrs[0]), nil)
	runtime.KeepAlive(ptrs)
	if st != 0 {
		return nil, st
	}
	return bin, 0
}

func (a *api) newKernel(p clProgram, name string) (clKernel, int32) {
	var st int32
	k := a.createKernel(p, name, &st)
	return k, st
}

func (a *api) kernelWorkGroupInfo(k clKernel, d clDevice, param uint32) ([]byte, int32) {
	return query(func(size uintptr, v []byte, out *uintptr) int32 {
		return a.getKernelWorkGroupInfo(k, d, param, size, v, out)
	})
}

// kernelSubGroupCount is the number of sub-groups a work-group of local
// work-items forms for kernel k (CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE);
// ok is false where the loader or the device cannot say.
func (a *api) kernelSubGroupCount(k clKernel, d clDevice, local int) (count int, ok bool) {
	if a.getKernelSubGroupInfo == nil {
		return 0, false
	}
	in := uintptr(local)
	v := make([]byte, sizeT)
	st := a.getKernelSubGroupInfo(k, d, clKernelSubGroupCountForNDRange, unsafe.Sizeof(in), unsafe.Pointer(&in), uintptr(len(v)), v, nil)
	runtime.KeepAlive(&in)
	if st != 0 {
		return 0, false
	}
	return int(infoUint(v, 0)), true
}

// setArgMem passes a buffer: clSetKernelArg wants a pointer to the cl_mem.
func (a *api) setArgMem(k clKernel, index int, m clMem) int32 {
	st := a.setKernelArg(k, uint32(index), unsafe.Sizeof(m), unsafe.Pointer(&m))
	runtime.KeepAlive(&m)
	return st
}

// setArg32 and setArg64 pass a scalar by value through a pointer to it.
func (a *api) setArg32(k clKernel, index int, v uint32) int32 {
	st := a.setKernelArg(k, uint32(index), 4, unsafe.Pointer(&v))
	runtime.KeepAlive(&v)
	return st
}

func (a *api) setArg64(k clKernel, index int, v uint64) int32 {
	st := a.setKernelArg(k, uint32(index), 8, unsafe.Pointer(&v))
	runtime.KeepAlive(&v)
	return st
}

// setArgLocal reserves size bytes of local memory: a NULL value.
func (a *api) setArgLocal(k clKernel, index int, size int) int32 {
	return a.setKernelArg(k, uint32(index), uintptr(size), nil)
}

func (a *api) launch(q clQueue, k clKernel, dims int, global, local [3]int) int32 {
	var g, l [3]uintptr
	for d := range 3 {
		g[d], l[d] = uintptr(global[d]), uintptr(local[d])
	}
	return a.enqueueNDRangeKernel(q, k, uint32(dims), nil, &g[0], &l[0], 0, 0, 0)
}

func (a *api) read(q clQueue, m clMem, offset int, dst []byte) int32 {
	st := a.enqueueReadBuffer(q, m, 1, uintptr(offset), uintptr(len(dst)), unsafe.Pointer(&dst[0]), 0, 0, 0)
	runtime.KeepAlive(dst)
	return st
}

func (a *api) write(q clQueue, m clMem, offset int, src []byte) int32 {
	st := a.enqueueWriteBuffer(q, m, 1, uintptr(offset), uintptr(len(src)), unsafe.Pointer(&src[0]), 0, 0, 0)
	runtime.KeepAlive(src)
	return st
}

func (a *api) copyBuffer(q clQueue, src, dst clMem, srcOff, dstOff, n int) int32 {
	return a.enqueueCopyBuffer(q, src, dst, uintptr(srcOff), uintptr(dstOff), uintptr(n), 0, 0, 0)
}

// fill repeats a 4-byte pattern; OpenCL copies the pattern before returning.
func (a *api) fill(q clQueue, m clMem, value uint32, offset, n int) int32 {
	st := a.enqueueFillBuffer(q, m, unsafe.Pointer(&value), 4, uintptr(offset), uintptr(n), 0, 0, 0)
	runtime.KeepAlive(&value)
	return st
}

func (a *api) marker(q clQueue) (clEvent, int32) {
	var e clEvent
	st := a.enqueueMarker(q, 0, 0, &e)
	return e, st
}

func (a *api) wait(e clEvent) int32 { return a.waitForEvents(1, &e) }

func (a *api) eventInfo(e clEvent, param uint32) ([]byte, int32) {
	return query(func(size uintptr, v []byte, out *uintptr) int32 { return a.getEventInfo(e, param, size, v, out) })
}

func (a *api) profiling(e clEvent, param uint32) (uint64, int32) {
	var v uint64
	st := a.getEventProfilingInfo(e, param, 8, &v, nil)
	return v, st
}
