package raw

import (
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

// C types of the driver API, as Go types of the same size.
type (
	Result    int32   // CUresult
	Device    int32   // CUdevice
	Context   uintptr // CUcontext
	Module    uintptr // CUmodule
	Function  uintptr // CUfunction
	Stream    uintptr // CUstream
	Event     uintptr // CUevent
	DevicePtr uint64  // CUdeviceptr
)

// Success is CUDA_SUCCESS.
const Success Result = 0

// Result codes the layers above act on.
const (
	ErrInvalidValue   Result = 1
	ErrOutOfMemory    Result = 2
	ErrNotInitialized Result = 3
	ErrStubLibrary    Result = 34
	ErrNoDevice       Result = 100
	ErrNotReady       Result = 600
)

// Device attributes (CUdevice_attribute) Arbor reads.
const (
	AttrMaxThreadsPerBlock       = 1
	AttrMaxBlockDimX             = 2
	AttrMaxBlockDimY             = 3
	AttrMaxBlockDimZ             = 4
	AttrMaxGridDimX              = 5
	AttrMaxGridDimY              = 6
	AttrMaxGridDimZ              = 7
	AttrMaxSharedMemoryPerBlock  = 8
	AttrWarpSize                 = 10
	AttrClockRate                = 13
	AttrMultiprocessorCount      = 16
	AttrPCIBusID                 = 33
	AttrPCIDeviceID              = 34
	AttrMemoryClockRate          = 36
	AttrGlobalMemoryBusWidth     = 37
	AttrL2CacheSize              = 38
	AttrMaxThreadsPerSM          = 39
	AttrComputeCapabilityMajor   = 75
	AttrComputeCapabilityMinor   = 76
	AttrMaxSharedMemoryPerSM     = 81
	AttrMaxSharedPerBlockOptin   = 97
	AttrPCIDomainID              = 50
	AttrIntegrated               = 18
	AttrConcurrentKernels        = 31
	AttrAsyncEngineCount         = 40
	AttrUnifiedAddressing        = 41
	AttrComputePreemptionSupport = 90
)

// Function attributes (CUfunction_attribute).
const (
	FuncMaxThreadsPerBlock        = 0
	FuncSharedSizeBytes           = 1
	FuncNumRegs                   = 4
	FuncMaxDynamicSharedSizeBytes = 8
)

// JIT options (CUjit_option) for cuModuleLoadDataEx.
const (
	jitInfoLogBuffer      = 3
	jitInfoLogBufferSize  = 4
	jitErrorLogBuffer     = 5
	jitErrorLogBufferSize = 6
)

// Driver is the loaded libcuda with its entry points.
type Driver struct {
	Path  string
	Tried []Attempt

	cuInit, cuDriverGetVersion, cuDeviceGetCount, cuDeviceGet, cuDeviceGetName           uintptr
	cuDeviceGetAttribute, cuDeviceTotalMem                                               uintptr
	cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease, cuCtxSetCurrent                 uintptr
	cuCtxPushCurrent, cuCtxPopCurrent                                                    uintptr
	cuCtxSynchronize, cuMemGetInfo                                                       uintptr
	cuMemAlloc, cuMemFree, cuMemAllocHost, cuMemFreeHost                                 uintptr
	cuMemcpyHtoDAsync, cuMemcpyDtoHAsync, cuMemcpyDtoDAsync, cuMemsetD32Async            uintptr
	cuModuleLoadDataEx, cuModuleGetFunction, cuModuleUnload                              uintptr
	cuFuncGetAttribute, cuFuncSetAttribute, cuLaunchKernel                               uintptr
	cuStreamCreate, cuStreamDestroy, cuStreamSynchronize, cuStreamQuery, cuEventQuery    uintptr
	cuEventCreate, cuEventRecord, cuEventSynchronize, cuEventElapsedTime, cuEventDestroy uintptr
	cuGetErrorName, cuGetErrorString                                                     uintptr
}

// LoadDriver opens the first of candidates that loads and resolves the
// driver API. The attempts are returned (and kept in Driver.Tried) so that
// "not found" can say where it looked.
func LoadDriver(candidates []string) (*Driver, []Attempt, error) {
	lib, tried, err := openFirst(candidates)
	if err != nil {
		return nil, tried, err
	}
	d := &Driver{Path: lib.path, Tried: tried}
	err = lib.symbols([]symbol{
		need(&d.cuInit, "cuInit"),
		need(&d.cuDriverGetVersion, "cuDriverGetVersion"),
		need(&d.cuDeviceGetCount, "cuDeviceGetCount"),
		need(&d.cuDeviceGet, "cuDeviceGet"),
		need(&d.cuDeviceGetName, "cuDeviceGetName"),
		need(&d.cuDeviceGetAttribute, "cuDeviceGetAttribute"),
		need(&d.cuDeviceTotalMem, "cuDeviceTotalMem_v2"),
		need(&d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
		need(&d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
		need(&d.cuCtxSetCurrent, "cuCtxSetCurrent"),
		need(&d.cuCtxPushCurrent, "cuCtxPushCurrent_v2", "cuCtxPushCurrent"),
		need(&d.cuCtxPopCurrent, "cuCtxPopCurrent_v2", "cuCtxPopCurrent"),
		need(&d.cuCtxSynchronize, "cuCtxSynchronize"),
		need(&d.cuMemGetInfo, "cuMemGetInfo_v2"),
		need(&d.cuMemAlloc, "cuMemAlloc_v2"),
		need(&d.cuMemFree, "cuMemFree_v2"),
		need(&d.cuMemAllocHost, "cuMemAllocHost_v2"),
		need(&d.cuMemFreeHost, "cuMemFreeHost"),
		need(&d.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
		need(&d.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
		need(&d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
		need(&d.cuMemsetD32Async, "cuMemsetD32Async"),
		need(&d.cuModuleLoadDataEx, "cuModuleLoadDataEx"),
		need(&d.cuModuleGetFunction, "cuModuleGetFunction"),
		need(&d.cuModuleUnload, "cuModuleUnload"),
		need(&d.cuFuncGetAttribute, "cuFuncGetAttribute"),
		need(&d.cuFuncSetAttribute, "cuFuncSetAttribute"),
		need(&d.cuLaunchKernel, "cuLaunchKernel"),
		need(&d.cuStreamCreate, "cuStreamCreate"),
		need(&d.cuStreamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy"),
		need(&d.cuStreamSynchronize, "cuStreamSynchronize"),
		need(&d.cuStreamQuery, "cuStreamQuery"),
		need(&d.cuEventQuery, "cuEventQuery"),
		need(&d.cuEventCreate, "cuEventCreate"),
		need(&d.cuEventRecord, "cuEventRecord"),
		need(&d.cuEventSynchronize, "cuEventSynchronize"),
		need(&d.cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
		need(&d.cuEventDestroy, "cuEventDestroy_v2", "cuEventDestroy"),
		maybe(&d.cuGetErrorName, "cuGetErrorName"),
		maybe(&d.cuGetErrorString, "cuGetErrorString"),
	})
	if err != nil {
		return nil, tried, err
	}
	return d, tried, nil
}

// call invokes a C function returning a CUresult. uintptrescapes keeps
// every pointer converted to uintptr in the call alive and on the heap for
// the duration of the call, as purego.SyscallN itself does.
//
//go:uintptrescapes
func call(fn uintptr, args ...uintptr) Result {
	r, _, _ := purego.SyscallN(fn, args...)
	return Result(int32(r))
}

func (d *Driver) Init() Result { return call(d.cuInit, 0) }

// DriverVersion returns the version as 1000*major + 10*minor (13000 = 13.0).
func (d *Driver) DriverVersion() (int, Result) {
	var v int32
	r := call(d.cuDriverGetVersion, uintptr(unsafe.Pointer(&v)))
	return int(v), r
}

func (d *Driver) DeviceCount() (int, Result) {
	var n int32
	r := call(d.cuDeviceGetCount, uintptr(unsafe.Pointer(&n)))
	return int(n), r
}

func (d *Driver) DeviceGet(ordinal int) (Device, Result) {
	var dev Device
	r := call(d.cuDeviceGet, uintptr(unsafe.Pointer(&dev)), uintptr(ordinal))
	return dev, r
}

func (d *Driver) DeviceName(dev Device) (string, Result) {
	buf := make([]byte, 256)
	r := call(d.cuDeviceGetName, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(dev))
	if r != Success {
		return "", r
	}
	n := 0
	for n < len(buf) && buf[n] != 0 {
		n++
	}
	return string(buf[:n]), r
}

func (d *Driver) DeviceAttribute(dev Device, attr int) (int, Result) {
	var v int32
	r := call(d.cuDeviceGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(attr), uintptr(dev))
	return int(v), r
}

func (d *Driver) DeviceTotalMem(dev Device) (uint64, Result) {
	var v uint64
	r := call(d.cuDeviceTotalMem, uintptr(unsafe.Pointer(&v)), uintptr(dev))
	return v, r
}

func (d *Driver) PrimaryCtxRetain(dev Device) (Context, Result) {
	var c Context
	r := call(d.cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&c)), uintptr(dev))
	return c, r
}

func (d *Driver) PrimaryCtxRelease(dev Device) Result {
	return call(d.cuDevicePrimaryCtxRelease, uintptr(dev))
}

func (d *Driver) CtxSetCurrent(c Context) Result { return call(d.cuCtxSetCurrent, uintptr(c)) }
func (d *Driver) CtxSynchronize() Result         { return call(d.cuCtxSynchronize) }

// CtxPushCurrent makes c current on the calling thread above whatever was
// current; CtxPopCurrent restores that.
func (d *Driver) CtxPushCurrent(c Context) Result { return call(d.cuCtxPushCurrent, uintptr(c)) }

func (d *Driver) CtxPopCurrent() Result {
	var c Context
	return call(d.cuCtxPopCurrent, uintptr(unsafe.Pointer(&c)))
}

// MemGetInfo returns free and total device memory of the current context.
func (d *Driver) MemGetInfo() (free, total uint64, r Result) {
	r = call(d.cuMemGetInfo, uintptr(unsafe.Pointer(&free)), uintptr(unsafe.Pointer(&total)))
	return free, total, r
}

func (d *Driver) MemAlloc(bytes int) (DevicePtr, Result) {
	var p DevicePtr
	r := call(d.cuMemAlloc, uintptr(unsafe.Pointer(&p)), uintptr(bytes))
	return p, r
}

func (d *Driver) MemFree(p DevicePtr) Result { return call(d.cuMemFree, uintptr(p)) }

// HostMem is page-locked host memory from cuMemAllocHost: C memory the
// device can DMA from and to, which the Go collector never moves.
type HostMem struct {
	p unsafe.Pointer
	n int
}

// Bytes views the pinned memory as a byte slice.
func (h HostMem) Bytes() []byte {
	if h.p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(h.p), h.n)
}

func (h HostMem) Len() int { return h.n }

func (d *Driver) MemAllocHost(bytes int) (HostMem, Result) {
	var p unsafe.Pointer
	r := call(d.cuMemAllocHost, uintptr(unsafe.Pointer(&p)), uintptr(bytes))
	if r != Success {
		return HostMem{}, r
	}
	return HostMem{p: p, n: bytes}, r
}

func (d *Driver) MemFreeHost(h HostMem) Result {
	if h.p == nil {
		return Success
	}
	return call(d.cuMemFreeHost, uintptr(h.p))
}

// MemcpyHtoDAsync copies src into device memory on a stream. src must stay
// alive and unchanged until the stream has passed the copy; the caller
// synchronizes before returning it to its owner.
func (d *Driver) MemcpyHtoDAsync(dst DevicePtr, src []byte, s Stream) Result {
	if len(src) == 0 {
		return Success
	}
	r := call(d.cuMemcpyHtoDAsync, uintptr(dst), uintptr(unsafe.Pointer(&src[0])), uintptr(len(src)), uintptr(s))
	runtime.KeepAlive(src)
	return r
}

// MemcpyDtoHAsync copies device memory into dst on a stream (see MemcpyHtoDAsync).
func (d *Driver) MemcpyDtoHAsync(dst []byte, src DevicePtr, s Stream) Result {
	if len(dst) == 0 {
		return Success
	}
	r := call(d.cuMemcpyDtoHAsync, uintptr(unsafe.Pointer(&dst[0])), uintptr(src), uintptr(len(dst)), uintptr(s))
	runtime.KeepAlive(dst)
	return r
}

func (d *Driver) MemcpyDtoDAsync(dst, src DevicePtr, bytes int, s Stream) Result {
	return call(d.cuMemcpyDtoDAsync, uintptr(dst), uintptr(src), uintptr(bytes), uintptr(s))
}

// MemsetD32Async sets words 32-bit words at dst to value.
func (d *Driver) MemsetD32Async(dst DevicePtr, value uint32, words int, s Stream) Result {
	return call(d.cuMemsetD32Async, uintptr(dst), uintptr(value), uintptr(words), uintptr(s))
}

// ModuleLoadData loads a cubin or a NUL-terminated PTX image. On failure the
// JIT's error log is returned too (it says which PTX line it rejected).
func (d *Driver) ModuleLoadData(image []byte) (Module, string, Result) {
	if len(image) == 0 || image[len(image)-1] != 0 {
		// PTX must be NUL-terminated; a cubin is unaffected by a trailing NUL.
		image = append(image[:len(image):len(image)], 0)
	}
	logBuf := make([]byte, 8192)
	opts := []int32{jitErrorLogBuffer, jitErrorLogBufferSize}
	vals := []uintptr{uintptr(unsafe.Pointer(&logBuf[0])), uintptr(len(logBuf) - 1)}
	var m Module
	r := call(d.cuModuleLoadDataEx, uintptr(unsafe.Pointer(&m)), uintptr(unsafe.Pointer(&image[0])),
		uintptr(len(opts)), uintptr(unsafe.Pointer(&opts[0])), uintptr(unsafe.Pointer(&vals[0])))
	runtime.KeepAlive(image)
	runtime.KeepAlive(logBuf)
	runtime.KeepAlive(opts)
	runtime.KeepAlive(vals)
	if r != Success {
		n := 0
		for n < len(logBuf) && logBuf[n] != 0 {
			n++
		}
		return 0, string(logBuf[:n]), r
	}
	return m, "", r
}

func (d *Driver) ModuleGetFunction(m Module, name string) (Function, Result) {
	var f Function
	cname := cString(name)
	r := call(d.cuModuleGetFunction, uintptr(unsafe.Pointer(&f)), uintptr(m), uintptr(unsafe.Pointer(cname)))
	runtime.KeepAlive(cname)
	return f, r
}

func (d *Driver) ModuleUnload(m Module) Result { return call(d.cuModuleUnload, uintptr(m)) }

func (d *Driver) FuncGetAttribute(f Function, attr int) (int, Result) {
	var v int32
	r := call(d.cuFuncGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(attr), uintptr(f))
	return int(v), r
}

func (d *Driver) FuncSetAttribute(f Function, attr, value int) Result {
	return call(d.cuFuncSetAttribute, uintptr(f), uintptr(attr), uintptr(value))
}

// Params is a kernel's argument block: one 8-byte slot per parameter and
// the array of pointers to the slots that cuLaunchKernel reads. The driver
// copies the values during the call, so one block is reused for every
// launch on the executor's thread; it is pinned so that the collector can
// never move it while C holds its address.
type Params struct {
	vals []uint64
	ptrs []uintptr
	pin  runtime.Pinner
}

// NewParams returns a block for up to n parameters.
func NewParams(n int) *Params {
	p := &Params{vals: make([]uint64, n), ptrs: make([]uintptr, n)}
	p.pin.Pin(&p.vals[0])
	p.pin.Pin(&p.ptrs[0])
	for i := range p.vals {
		p.ptrs[i] = uintptr(unsafe.Pointer(&p.vals[i]))
	}
	return p
}

// Cap is the number of parameters the block holds.
func (p *Params) Cap() int { return len(p.vals) }

// Set stores parameter i's bit pattern. A 4-byte parameter reads the low
// half of its slot, which on little-endian hosts is its first 4 bytes.
func (p *Params) Set(i int, bits uint64) { p.vals[i] = bits }

// Free unpins the block.
func (p *Params) Free() { p.pin.Unpin() }

// LaunchKernel launches f with the first n parameters of p.
func (d *Driver) LaunchKernel(f Function, grid, block [3]uint32, sharedBytes uint32, s Stream, p *Params, n int) Result {
	var kp uintptr
	if n > 0 {
		kp = uintptr(unsafe.Pointer(&p.ptrs[0]))
	}
	r := call(d.cuLaunchKernel, uintptr(f),
		uintptr(grid[0]), uintptr(grid[1]), uintptr(grid[2]),
		uintptr(block[0]), uintptr(block[1]), uintptr(block[2]),
		uintptr(sharedBytes), uintptr(s), kp, 0)
	runtime.KeepAlive(p)
	return r
}

func (d *Driver) StreamCreate() (Stream, Result) {
	var s Stream
	r := call(d.cuStreamCreate, uintptr(unsafe.Pointer(&s)), 0)
	return s, r
}

func (d *Driver) StreamDestroy(s Stream) Result     { return call(d.cuStreamDestroy, uintptr(s)) }
func (d *Driver) StreamSynchronize(s Stream) Result { return call(d.cuStreamSynchronize, uintptr(s)) }

// StreamQuery returns Success when the stream is idle, ErrNotReady if not.
func (d *Driver) StreamQuery(s Stream) Result { return call(d.cuStreamQuery, uintptr(s)) }

// EventQuery returns Success when the event has completed, ErrNotReady if not.
func (d *Driver) EventQuery(e Event) Result { return call(d.cuEventQuery, uintptr(e)) }

// EventCreate makes an event with default flags, so that it records time.
func (d *Driver) EventCreate() (Event, Result) {
	var e Event
	r := call(d.cuEventCreate, uintptr(unsafe.Pointer(&e)), 0)
	return e, r
}

func (d *Driver) EventRecord(e Event, s Stream) Result {
	return call(d.cuEventRecord, uintptr(e), uintptr(s))
}
func (d *Driver) EventSynchronize(e Event) Result { return call(d.cuEventSynchronize, uintptr(e)) }
func (d *Driver) EventDestroy(e Event) Result     { return call(d.cuEventDestroy, uintptr(e)) }

// EventElapsed returns the milliseconds between two recorded events.
func (d *Driver) EventElapsed(start, end Event) (float32, Result) {
	var ms float32
	r := call(d.cuEventElapsedTime, uintptr(unsafe.Pointer(&ms)), uintptr(start), uintptr(end))
	return ms, r
}

// ErrorName returns the driver's name for a result (CUDA_ERROR_ILLEGAL_ADDRESS)
// and its description, or empty strings when the driver does not know it.
func (d *Driver) ErrorName(r Result) (name, desc string) {
	if d == nil {
		return "", ""
	}
	if d.cuGetErrorName != 0 {
		var p unsafe.Pointer
		if call(d.cuGetErrorName, uintptr(r), uintptr(unsafe.Pointer(&p))) == Success {
			name = goString(p)
		}
	}
	if d.cuGetErrorString != 0 {
		var p unsafe.Pointer
		if call(d.cuGetErrorString, uintptr(r), uintptr(unsafe.Pointer(&p))) == Success {
			desc = goString(p)
		}
	}
	return name, desc
}
