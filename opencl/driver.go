// Package opencl is Arbor's OpenCL backend. It binds the OpenCL ICD loader
// (libOpenCL) at run time with purego, so a CGO_ENABLED=0 binary uses
// whatever OpenCL platforms a machine has (NVIDIA, AMD, Intel, PoCL) and
// runs without one.
//
// Three layers, as in the cuda package: raw*.go binds the C entry points
// (the only code with unsafe), errors.go names OpenCL status codes and turns
// them into Go errors, and the rest implements backend.Driver, Device,
// Buffer, Program, Kernel, Queue and Event.
//
// Concurrency: a Device and its Programs may be used from any number of
// goroutines; kernels serialise their own argument setting and launch. A
// Queue, like an OpenCL command queue, is for one goroutine at a time:
// give each goroutine its own.
//
// Ownership: every object is released by its Release/Free/Close method.
// A cleanup attached to each object releases it should the caller forget,
// but that is a safety net, not a way to manage resources.
//
// Environment: ARBOR_OPENCL_LIBRARY names the ICD loader to try first;
// ARBOR_CACHE_DIR and ARBOR_CACHE=off control the program binary cache
// (package backend/cache).
package opencl

import (
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/arbor-gpu/arbor/backend"
)

// Name is the backend's registered name.
const Name = "opencl"

// EnvLibrary names a library to try before the standard names.
const EnvLibrary = "ARBOR_OPENCL_LIBRARY"

func init() { backend.Register(Name, backend.PriorityOpenCL, &Driver{}) }

// Driver loads the ICD loader on first use, once.
type Driver struct {
	// candidates overrides the library search (tests); nil means
	// ARBOR_OPENCL_LIBRARY, then the standard names.
	candidates []string

	once sync.Once
	api  *api
	err  error

	// The phases of loading the ICD loader (once), then those of the
	// first enumeration (platforms, then each platform's devices): the
	// driver is a backend.Timed.
	backend.DriverPhases
}

// libraries lists the paths to try, in order.
func (d *Driver) libraries() []string {
	if d.candidates != nil {
		return d.candidates
	}
	var out []string
	if p := os.Getenv(EnvLibrary); p != "" {
		out = append(out, p)
	}
	switch runtime.GOOS {
	case "darwin":
		out = append(out, "/System/Library/Frameworks/OpenCL.framework/OpenCL")
	case "windows":
		out = append(out, "OpenCL.dll")
	default:
		out = append(out, "libOpenCL.so.1", "libOpenCL.so")
	}
	return out
}

func (d *Driver) load() (*api, error) {
	d.once.Do(func() {
		defer d.Load.Since("load libOpenCL (ICD loader: dlopen + symbols)", time.Now())
		var tried []string
		for _, p := range d.libraries() {
			a, err := openLibrary(p)
			if err == nil {
				d.api = a
				return
			}
			tried = append(tried, fmt.Sprintf("%s (%v)", p, err))
		}
		d.err = fmt.Errorf("opencl: %w: no OpenCL ICD loader could be loaded; tried %s. Install one "+
			"(ocl-icd-libopencl1 and a driver such as pocl-opencl-icd) or set %s",
			backend.ErrUnavailable, strings.Join(tried, "; "), EnvLibrary)
	})
	return d.api, d.err
}

// found is one enumerated device with what the backend needs beyond Info.
type found struct {
	info            backend.Info
	platform        clPlatform
	id              clDevice
	platformVersion string
	maxAlloc        uint64
}

// Probe lists every device of every platform; a device's index is its
// position in that flattened list.
func (d *Driver) Probe() ([]backend.Info, error) {
	devs, err := d.enumerate()
	if err != nil {
		return nil, err
	}
	out := make([]backend.Info, len(devs))
	for i, f := range devs {
		out[i] = f.info
	}
	return out, nil
}

// enumerating serialises enumerations, process-wide: the ICD loader's
// first clGetPlatformIDs (ocl-icd with PoCL 3.1 here) crashes when two
// threads run it at once, as when a device opens in the background while
// another goroutine probes (TestConcurrentFirstProbe: most processes
// crashed), and the loader is one per process, whatever the Driver.
var enumerating sync.Mutex

func (d *Driver) enumerate() ([]found, error) {
	enumerating.Lock()
	defer enumerating.Unlock()
	a, err := d.load()
	if err != nil {
		return nil, err
	}
	var phases []backend.Phase
	defer func() {
		// The first enumeration is kept: it is the one that paid for
		// loading the ICDs; later ones (Open enumerates again) cost
		// microseconds.
		d.FirstProbe(phases)
	}()
	start := time.Now()
	plats, st := a.platforms()
	// The first clGetPlatformIDs is where the ICD loader opens every
	// vendor library (NVIDIA's, PoCL's with its LLVM) and asks each for
	// its platforms: the bulk of OpenCL's start-up.
	phases = append(phases, backend.Phase{Name: "clGetPlatformIDs (the ICD loader opens every vendor library)", Took: time.Since(start)})
	if st == clPlatformNotFoundKHR || (st == 0 && len(plats) == 0) {
		return nil, fmt.Errorf("opencl: %w: the loader %s found no OpenCL platform (%s); install a vendor "+
			"driver, or pocl-opencl-icd for a CPU device", backend.ErrNoDevice, a.path, CodeName(clPlatformNotFoundKHR))
	}
	if st != 0 {
		return nil, fmt.Errorf("opencl: list platforms: %w", check("clGetPlatformIDs", st))
	}
	var out []found
	var problems []string
	for _, p := range plats {
		start := time.Now()
		pname := infoString(a.platformInfo(p, clPlatformName))
		pversion := infoString(a.platformInfo(p, clPlatformVersion))
		ids, st := a.devices(p, clDeviceTypeAll)
		if st == clDeviceNotFound {
			phases = append(phases, backend.Phase{Name: "platform " + pname + ": no devices", Took: time.Since(start)})
			continue
		}
		if st != 0 {
			problems = append(problems, fmt.Sprintf("platform %q: %v", pname, check("clGetDeviceIDs", st)))
			continue
		}
		for _, id := range ids {
			f := describe(a, id)
			f.platform, f.id, f.platformVersion = p, id, pversion
			f.info.Platform = pname
			f.info.Index = len(out)
			out = append(out, f)
		}
		phases = append(phases, backend.Phase{Name: fmt.Sprintf("platform %s: %d device(s), their attributes", pname, len(ids)), Took: time.Since(start)})
	}
	if len(out) == 0 && len(problems) > 0 {
		return nil, fmt.Errorf("opencl: %w: %s", backend.ErrNoDevice, strings.Join(problems, "; "))
	}
	return out, nil
}

// selectedExtensions are the extensions worth showing in Features.
var selectedExtensions = []string{
	"cl_khr_fp64", "cl_khr_fp16", "cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics",
	"cl_khr_subgroups", "cl_khr_subgroup_ballot", "cl_khr_subgroup_shuffle", "cl_intel_subgroups", "cl_nv_device_attribute_query", "cl_amd_device_attribute_query",
	"cl_khr_il_program",
}

func describe(a *api, id clDevice) found {
	str := func(param uint32) string { return infoString(a.deviceInfo(id, param)) }
	num := func(param uint32) uint64 { return infoUint(a.deviceInfo(id, param)) }
	exts := map[string]bool{}
	for _, e := range strings.Fields(str(clDeviceExtensions)) {
		exts[e] = true
	}
	info := backend.Info{
		Backend:       Name,
		Name:          str(clDeviceName),
		Vendor:        str(clDeviceVendor),
		Version:       str(clDeviceVersion),
		DriverVersion: str(clDriverVersion),
		ComputeUnits:  int(num(clDeviceMaxComputeUnits)),
		GlobalMemory:  num(clDeviceGlobalMemSize),
		LocalMemory:   num(clDeviceLocalMemSize),
		MaxWorkGroup:  int(num(clDeviceMaxWorkGroupSize)),
		Atomics64:     exts["cl_khr_int64_base_atomics"] && exts["cl_khr_int64_extended_atomics"],
	}
	t := num(clDeviceType)
	switch {
	case t&clDeviceTypeGPU != 0:
		info.Type = backend.TypeGPU
	case t&clDeviceTypeAccelerator != 0:
		info.Type = backend.TypeAccelerator
	case t&clDeviceTypeCPU != 0:
		info.Type = backend.TypeCPU
	}
	if sizes, st := a.deviceInfo(id, clDeviceMaxWorkItemSizes); st == 0 {
		for i, v := range infoSizes(sizes) {
			if i < 3 {
				info.MaxWorkItems[i] = int(v)
			}
		}
	}
	maxAlloc := num(clDeviceMaxMemAllocSize)
	if c := str(clDeviceOpenCLCVersion); c != "" {
		info.Features = append(info.Features, strings.ReplaceAll(c, " ", "-"))
	}
	if maxAlloc > 0 {
		info.Features = append(info.Features, fmt.Sprintf("max-alloc=%dMiB", maxAlloc>>20))
	}
	for _, e := range selectedExtensions {
		if exts[e] {
			info.Features = append(info.Features, e)
		}
	}
	info.Extensions = slices.Sorted(maps.Keys(exts))
	info.SubGroupSizes = subGroupSizes(a, id, exts)
	return found{info: info, maxAlloc: maxAlloc}
}

// subGroupSizes asks the device for its sub-group widths through the
// extension queries that report them: Intel's list of sizes, AMD's
// wavefront width, NVIDIA's warp size. Core OpenCL reports a width only
// per compiled kernel (clGetKernelSubGroupInfo), so a device with none of
// these extensions reports nothing here.
func subGroupSizes(a *api, id clDevice, exts map[string]bool) []int {
	var out []int
	if exts["cl_intel_subgroups"] || exts["cl_intel_required_subgroup_size"] {
		if b, st := a.deviceInfo(id, clDeviceSubGroupSizesIntel); st == 0 {
			for _, v := range infoSizes(b) {
				out = append(out, int(v))
			}
		}
	}
	if exts["cl_amd_device_attribute_query"] {
		if v := infoUint(a.deviceInfo(id, clDeviceWavefrontWidthAMD)); v > 0 {
			out = append(out, int(v))
		}
	}
	if exts["cl_nv_device_attribute_query"] {
		if v := infoUint(a.deviceInfo(id, clDeviceWarpSizeNV)); v > 0 {
			out = append(out, int(v))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// infoString decodes a char[] info value (NUL-terminated).
func infoString(b []byte, st int32) string {
	if st != 0 {
		return ""
	}
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}

// infoUint decodes a cl_uint, cl_ulong, size_t or cl_bitfield info value.
func infoUint(b []byte, st int32) uint64 {
	if st != 0 {
		return 0
	}
	switch len(b) {
	case 4:
		return uint64(binary.NativeEndian.Uint32(b))
	case 8:
		return binary.NativeEndian.Uint64(b)
	}
	return 0
}

// sizeT is sizeof(size_t): a pointer's size, which is int's in Go.
const sizeT = strconv.IntSize / 8

// infoSizes decodes a size_t[] info value.
func infoSizes(b []byte) []uint64 {
	var out []uint64
	for len(b) >= sizeT {
		if sizeT == 4 {
			out = append(out, uint64(binary.NativeEndian.Uint32(b)))
		} else {
			out = append(out, binary.NativeEndian.Uint64(b))
		}
		b = b[sizeT:]
	}
	return out
}

// Open opens device index of Probe's list: a context and nothing else.
func (d *Driver) Open(index int) (backend.Device, error) {
	devs, err := d.enumerate()
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= len(devs) {
		return nil, fmt.Errorf("opencl: %w: index %d (have %d device(s))", backend.ErrNoDevice, index, len(devs))
	}
	f := devs[index]
	start := time.Now()
	ctx, st := d.api.newContext(f.platform, f.id)
	if st != 0 {
		return nil, fmt.Errorf("opencl: open %s: %w", f.info, check("clCreateContext", st))
	}
	dev := newDevice(d.api, f, ctx)
	for _, p := range d.Phases() {
		dev.phases.Add(p.Name, p.Took)
	}
	dev.phases.Since("context (clCreateContext)", start)
	return dev, nil
}
