// Package cuda is Arbor's CUDA backend: the driver API (libcuda.so.1) and
// NVRTC, bound at run time with purego, so the binary needs neither cgo nor
// the CUDA toolkit to build, and runs without them (the backend then reports
// itself absent, with every path it tried).
//
// Layers: internal/raw is the binding (symbols, C types, the only unsafe
// code); errors.go turns CUresults into named Go errors; the rest implements
// backend.Device. Every driver call of a device's context runs on that
// device's executor goroutine, locked to one OS thread (executor.go),
// except the waits for a stream or an event: those poll from the waiting
// caller's thread with the context pushed on it (queue.go's waitFor), so
// that queues of one device do not wait for each other's kernels.
package cuda

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cuda/internal/raw"
)

// Name is the backend's registered name.
const Name = "cuda"

// Environment variables the backend reads.
const (
	// EnvLibrary names libcuda explicitly (tried first).
	EnvLibrary = "ARBOR_CUDA_LIBRARY"
	// EnvNVRTC names libnvrtc explicitly (tried first); "none" disables
	// NVRTC, to see what a machine without it does.
	EnvNVRTC = "ARBOR_NVRTC_LIBRARY"
	// EnvPTX=1 compiles PTX for the driver to JIT instead of cubin, the path
	// taken when a device is newer than NVRTC knows; tests use it to force it.
	EnvPTX = "ARBOR_CUDA_PTX"
)

func init() { backend.Register(Name, backend.PriorityCUDA, &driver{}) }

// driver is the registered backend. The libraries are loaded once per
// process (dlopen is process-wide anyway); Probe and Open share them.
type driver struct {
	once sync.Once
	st   *state
	err  error

	// The phases of loading (once per process), then those of the first
	// Probe's enumeration: the driver is a backend.Timed.
	backend.DriverPhases
}

// state is what loading found.
type state struct {
	api           *raw.Driver
	driverVersion int // 13000 = 13.0

	nv       *raw.NVRTC
	nvErr    error // why NVRTC is missing, when it is
	nvMajor  int
	nvMinor  int
	nvArchs  []int // sm_XY NVRTC compiles for, as 10*X+Y (nil: unknown)
	nvCubins bool  // NVRTC can emit cubin
}

func (s *state) nvrtcVersion() string { return fmt.Sprintf("%d.%d", s.nvMajor, s.nvMinor) }

// driverCandidates lists where libcuda is looked for, in order.
func driverCandidates() []string {
	var c []string
	if p := os.Getenv(EnvLibrary); p != "" {
		c = append(c, p)
	}
	return append(c,
		"libcuda.so.1", "libcuda.so",
		"/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1",
		"/usr/local/nvidia/lib64/libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1")
}

// nvrtcCandidates lists where NVRTC is looked for, in order: $ARBOR_NVRTC_LIBRARY,
// the loader's search path by soname (newest first), then the CUDA
// toolkit's library folders. glob is filepath.Glob (a parameter so the
// list can be tested anywhere). Patterns that match nothing are kept, so
// the error can say they were searched.
func nvrtcCandidates(env string, glob func(string) ([]string, error)) []string {
	var c []string
	if env != "" {
		c = append(c, env)
	}
	c = append(c, "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2")
	target := "x86_64-linux"
	if runtime.GOARCH == "arm64" {
		target = "sbsa-linux"
	}
	for _, dirPattern := range []string{"/usr/local/cuda*/targets/" + target + "/lib", "/usr/local/cuda*/lib64"} {
		dirs, _ := glob(dirPattern)
		// /usr/local/cuda (the default link) first, then newest version first.
		sort.Slice(dirs, func(i, j int) bool { return dirOrder(dirs[i]) < dirOrder(dirs[j]) })
		found := false
		for _, d := range dirs {
			libs, _ := glob(filepath.Join(d, "libnvrtc.so*"))
			sort.Slice(libs, func(i, j int) bool { return libOrder(libs[i]) < libOrder(libs[j]) })
			for _, l := range libs {
				c = append(c, l)
				found = true
			}
		}
		if !found {
			c = append(c, filepath.Join(dirPattern, "libnvrtc.so*"))
		}
	}
	// Drop duplicates, keeping the first occurrence.
	seen := map[string]bool{}
	out := c[:0]
	for _, p := range c {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// dirOrder sorts /usr/local/cuda before /usr/local/cuda-13.0 before cuda-12.4.
func dirOrder(d string) string {
	if strings.HasPrefix(d, "/usr/local/cuda/") {
		return "0"
	}
	return "1" + invertVersion(d)
}

// libOrder puts libnvrtc.so first, then the highest version.
func libOrder(p string) string {
	if strings.HasSuffix(p, ".so") {
		return "0"
	}
	return "1" + invertVersion(p)
}

// invertVersion maps a path so that a plain string sort puts higher version
// numbers first: each digit d becomes 9-d and each run of digits is
// prefixed with its inverted length.
func invertVersion(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); {
		if s[i] < '0' || s[i] > '9' {
			sb.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		sb.WriteByte(byte('9' - (j - i)))
		for k := i; k < j; k++ {
			sb.WriteByte('9' - s[k] + '0')
		}
		i = j
	}
	return sb.String()
}

// loaded opens libcuda and NVRTC once.
func (d *driver) loaded() (*state, error) {
	d.once.Do(func() { d.st, d.err = loadState(&d.Load) })
	return d.st, d.err
}

// nvrtcLoad is what loading NVRTC found.
type nvrtcLoad struct {
	nv     *raw.NVRTC
	tried  []raw.Attempt
	err    error
	phases []backend.Phase
}

// loadNVRTC dlopens NVRTC and asks its version and architectures.
func loadNVRTC() nvrtcLoad {
	start := time.Now()
	nv, tried, err := raw.LoadNVRTC(nvrtcCandidates(os.Getenv(EnvNVRTC), filepath.Glob))
	return nvrtcLoad{nv: nv, tried: tried, err: err,
		phases: []backend.Phase{{Name: "load libnvrtc (dlopen + symbols, beside cuInit)", Took: time.Since(start)}}}
}

// loadState loads libcuda and NVRTC and initialises the driver, recording
// each phase in log.
//
// NVRTC is loaded on another goroutine while cuInit runs: dlopen of
// libnvrtc (a library of some 100 MB, relocated at load) and cuInit (the
// driver's own start-up, the larger cost) need nothing from each other,
// so the first is hidden behind the second. Skipping NVRTC altogether when
// every kernel comes from the disk cache would need its version and
// architectures (part of the cache key, and what picks the target) from
// somewhere other than the library: a memo that a toolkit upgrade must
// invalidate. Loading it beside cuInit wins the same wall time without
// that risk; the phase "wait for libnvrtc after cuInit" says whether
// anything is left to win (`arbor devices -v`).
func loadState(log *backend.PhaseLog) (*state, error) {
	nvc := make(chan nvrtcLoad, 1)
	start := time.Now()
	api, tried, err := raw.LoadDriver(driverCandidates())
	log.Since("load libcuda (dlopen + symbols)", start)
	if err == nil && os.Getenv(EnvNVRTC) != "none" {
		// Only once libcuda is there: a machine with the toolkit but no
		// driver must not pay for loading a compiler it cannot use.
		go func() { nvc <- loadNVRTC() }()
	}
	if err != nil {
		if len(tried) > 0 && tried[len(tried)-1].Err == "" {
			// It loaded but lacks entry points.
			return nil, fmt.Errorf("cuda: %w: %v", backend.ErrUnavailable, err)
		}
		return nil, fmt.Errorf("cuda: %w: NVIDIA driver library not found (no NVIDIA driver installed?); tried %s",
			backend.ErrUnavailable, raw.FormatAttempts(tried))
	}
	start = time.Now()
	r := api.Init()
	log.Since("cuInit", start)
	if r != raw.Success {
		e := check(api, "cuInit", r)
		hint := ""
		switch r {
		case raw.ErrNoDevice:
			hint = " (the driver sees no CUDA GPU)"
		case raw.ErrStubLibrary:
			hint = " (" + api.Path + " is the toolkit's stub, not a driver)"
		}
		return nil, fmt.Errorf("cuda: %w: %s loaded but %v%s", backend.ErrUnavailable, api.Path, e, hint)
	}
	st := &state{api: api}
	v, r := api.DriverVersion()
	if err := check(api, "cuDriverGetVersion", r); err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	st.driverVersion = v

	if os.Getenv(EnvNVRTC) == "none" {
		st.nvErr = fmt.Errorf("NVRTC (libnvrtc, the CUDA runtime compiler Arbor compiles its kernels with) is disabled by %s=none", EnvNVRTC)
		return st, nil
	}
	start = time.Now()
	nl := <-nvc
	log.Since("wait for libnvrtc after cuInit", start)
	for _, p := range nl.phases {
		log.Add(p.Name, p.Took)
	}
	nv, ntried, err := nl.nv, nl.tried, nl.err
	if err != nil {
		st.nvErr = fmt.Errorf("NVRTC (libnvrtc, the CUDA runtime compiler Arbor compiles its kernels with) not found; "+
			"install the CUDA toolkit's NVRTC or set %s to libnvrtc.so's path; tried %s", EnvNVRTC, raw.FormatAttempts(ntried))
		return st, nil
	}
	st.nv = nv
	start = time.Now()
	defer log.Since("NVRTC version and architectures", start)
	ma, mi, nr := nv.Version()
	if nr != raw.NVRTCSuccess {
		st.nvErr = fmt.Errorf("NVRTC at %s: nvrtcVersion failed: %s", nv.Path, nv.ErrorString(nr))
		st.nv = nil
		return st, nil
	}
	st.nvMajor, st.nvMinor = ma, mi
	archs, _ := nv.SupportedArchs()
	sort.Ints(archs)
	st.nvArchs = archs
	st.nvCubins = nv.HasCUBIN()
	return st, nil
}

// Probe lists the CUDA devices. A driver without NVRTC is reported as the
// backend being unavailable (with the devices it would have offered and
// every NVRTC path tried), not as devices that fail to build: every Arbor
// algorithm compiles kernels, so `auto` must move on to OpenCL, which
// compiles with the driver's own compiler.
func (d *driver) Probe() ([]backend.Info, error) {
	st, err := d.loaded()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	defer func() {
		d.FirstProbe([]backend.Phase{{Name: "enumerate devices (count, attributes)", Took: time.Since(start)}})
	}()
	n, r := st.api.DeviceCount()
	if err := check(st.api, "cuDeviceGetCount", r); err != nil {
		return nil, fmt.Errorf("cuda: %w: %v", backend.ErrUnavailable, err)
	}
	var infos []backend.Info
	for i := 0; i < n; i++ {
		info, _, err := st.deviceInfo(i)
		if err != nil {
			return nil, err
		}
		infos = append(infos, info)
	}
	if st.nvErr != nil {
		var names []string
		for _, i := range infos {
			names = append(names, i.Name+" ("+i.Version+")")
		}
		return nil, fmt.Errorf("cuda: %w: driver %s at %s sees %d device(s) [%s], but %v", backend.ErrUnavailable,
			versionString(st.driverVersion), st.api.Path, n, strings.Join(names, ", "), st.nvErr)
	}
	return infos, nil
}

func versionString(v int) string { return fmt.Sprintf("%d.%d", v/1000, v%1000/10) }

// limits are the device properties launches are checked against.
type limits struct {
	arch        int // compute capability as 10*major+minor
	maxThreads  int
	maxBlock    [3]int
	maxGrid     [3]int
	shared      int // bytes of shared memory per block without opt-in
	sharedOptin int // bytes a kernel may opt in to
}

// deviceInfo reads device ordinal's properties. It needs no context.
func (st *state) deviceInfo(ordinal int) (backend.Info, limits, error) {
	api := st.api
	var lim limits
	dev, r := api.DeviceGet(ordinal)
	if err := check(api, "cuDeviceGet", r); err != nil {
		return backend.Info{}, lim, fmt.Errorf("cuda: device %d: %w", ordinal, err)
	}
	name, r := api.DeviceName(dev)
	if err := check(api, "cuDeviceGetName", r); err != nil {
		return backend.Info{}, lim, fmt.Errorf("cuda: device %d: %w", ordinal, err)
	}
	var firstErr error
	attr := func(a int) int {
		v, r := api.DeviceAttribute(dev, a)
		if err := check(api, fmt.Sprintf("cuDeviceGetAttribute(%d)", a), r); err != nil && firstErr == nil {
			firstErr = err
		}
		return v
	}
	major, minor := attr(raw.AttrComputeCapabilityMajor), attr(raw.AttrComputeCapabilityMinor)
	lim = limits{
		arch:        10*major + minor,
		maxThreads:  attr(raw.AttrMaxThreadsPerBlock),
		maxBlock:    [3]int{attr(raw.AttrMaxBlockDimX), attr(raw.AttrMaxBlockDimY), attr(raw.AttrMaxBlockDimZ)},
		maxGrid:     [3]int{attr(raw.AttrMaxGridDimX), attr(raw.AttrMaxGridDimY), attr(raw.AttrMaxGridDimZ)},
		shared:      attr(raw.AttrMaxSharedMemoryPerBlock),
		sharedOptin: attr(raw.AttrMaxSharedPerBlockOptin),
	}
	sms := attr(raw.AttrMultiprocessorCount)
	l2 := attr(raw.AttrL2CacheSize)
	busWidth := attr(raw.AttrGlobalMemoryBusWidth)
	memClock := attr(raw.AttrMemoryClockRate) // kHz
	pci := fmt.Sprintf("%04x:%02x:%02x.0", attr(raw.AttrPCIDomainID), attr(raw.AttrPCIBusID), attr(raw.AttrPCIDeviceID))
	if firstErr != nil {
		return backend.Info{}, lim, fmt.Errorf("cuda: device %d (%s): %w", ordinal, name, firstErr)
	}
	if lim.sharedOptin < lim.shared {
		lim.sharedOptin = lim.shared
	}
	total, r := api.DeviceTotalMem(dev)
	if err := check(api, "cuDeviceTotalMem", r); err != nil {
		return backend.Info{}, lim, fmt.Errorf("cuda: device %d (%s): %w", ordinal, name, err)
	}
	feats := []string{
		fmt.Sprintf("cc=%d.%d", major, minor),
		fmt.Sprintf("shared-optin=%dKiB", lim.sharedOptin>>10),
		fmt.Sprintf("l2=%dMiB", l2>>20),
	}
	if busWidth > 0 && memClock > 0 {
		// Peak DRAM bandwidth: double data rate × clock × bus width.
		feats = append(feats, fmt.Sprintf("peak-dram=%.0fGB/s", 2*float64(memClock)*1e3*float64(busWidth)/8/1e9))
	}
	feats = append(feats, "pci="+pci)
	if st.nv != nil {
		t, err := chooseTarget(lim.arch, st.nvArchs, st.nvCubins, false)
		feats = append(feats, "nvrtc="+st.nvrtcVersion())
		if err != nil {
			feats = append(feats, "target=none")
		} else {
			feats = append(feats, "target="+t.String())
		}
	} else {
		feats = append(feats, "nvrtc=missing")
	}
	info := backend.Info{
		Backend:       Name,
		Index:         ordinal,
		Name:          name,
		Vendor:        "NVIDIA",
		Type:          backend.TypeGPU,
		SubGroupSizes: []int{32},
		Version:       fmt.Sprintf("sm_%d%d", major, minor),
		DriverVersion: "CUDA " + versionString(st.driverVersion),
		ComputeUnits:  sms,
		GlobalMemory:  total,
		// The per-block limit without opt-in: kernels size static LOCAL
		// arrays from it, and static shared memory cannot exceed it.
		// Dynamic local memory may go up to the opt-in limit (Features).
		LocalMemory:  uint64(lim.shared),
		MaxWorkGroup: lim.maxThreads,
		MaxWorkItems: lim.maxBlock,
		Atomics64:    true, // every GPU NVRTC still targets has 64-bit global atomics
		Features:     feats,
	}
	return info, lim, nil
}

// Open opens device index with its primary context.
func (d *driver) Open(index int) (backend.Device, error) {
	st, err := d.loaded()
	if err != nil {
		return nil, err
	}
	if st.nvErr != nil {
		return nil, fmt.Errorf("cuda: %w: %v", backend.ErrUnavailable, st.nvErr)
	}
	n, r := st.api.DeviceCount()
	if err := check(st.api, "cuDeviceGetCount", r); err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	if index < 0 || index >= n {
		return nil, fmt.Errorf("cuda: %w: index %d (have %d device(s))", backend.ErrNoDevice, index, n)
	}
	return openDevice(st, index, d.Load.Phases())
}
