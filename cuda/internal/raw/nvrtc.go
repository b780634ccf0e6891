package raw

import (
	"path/filepath"
	"runtime"
	"sort"
	"unsafe"

	"github.com/ebitengine/purego"
)

// NVRTCResult is an nvrtcResult code.
type NVRTCResult int32

// NVRTCSuccess is NVRTC_SUCCESS; NVRTCCompilation is NVRTC_ERROR_COMPILATION.
const (
	NVRTCSuccess     NVRTCResult = 0
	NVRTCCompilation NVRTCResult = 6
)

// NVRTC is the loaded runtime compiler.
type NVRTC struct {
	Path  string
	Tried []Attempt

	nvrtcVersion, nvrtcGetNumSupportedArchs, nvrtcGetSupportedArchs uintptr
	nvrtcCreateProgram, nvrtcCompileProgram, nvrtcDestroyProgram    uintptr
	nvrtcGetProgramLogSize, nvrtcGetProgramLog                      uintptr
	nvrtcGetCUBINSize, nvrtcGetCUBIN, nvrtcGetPTXSize, nvrtcGetPTX  uintptr
	nvrtcGetErrorString                                             uintptr
}

// LoadNVRTC opens the first of candidates that loads and resolves NVRTC.
// Before an absolute path is opened, the NVRTC builtins library beside it is
// preloaded, because libnvrtc finds it by name and its folder is often not
// on the loader's search path.
func LoadNVRTC(candidates []string) (*NVRTC, []Attempt, error) {
	var tried []Attempt
	for _, c := range candidates {
		if filepath.IsAbs(c) {
			preloadBuiltins(filepath.Dir(c))
		}
		lib, t, err := openFirst([]string{c})
		tried = append(tried, t...)
		if err != nil {
			continue
		}
		n := &NVRTC{Path: lib.path}
		err = lib.symbols([]symbol{
			need(&n.nvrtcVersion, "nvrtcVersion"),
			maybe(&n.nvrtcGetNumSupportedArchs, "nvrtcGetNumSupportedArchs"),
			maybe(&n.nvrtcGetSupportedArchs, "nvrtcGetSupportedArchs"),
			need(&n.nvrtcCreateProgram, "nvrtcCreateProgram"),
			need(&n.nvrtcCompileProgram, "nvrtcCompileProgram"),
			need(&n.nvrtcDestroyProgram, "nvrtcDestroyProgram"),
			need(&n.nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize"),
			need(&n.nvrtcGetProgramLog, "nvrtcGetProgramLog"),
			maybe(&n.nvrtcGetCUBINSize, "nvrtcGetCUBINSize"),
			maybe(&n.nvrtcGetCUBIN, "nvrtcGetCUBIN"),
			need(&n.nvrtcGetPTXSize, "nvrtcGetPTXSize"),
			need(&n.nvrtcGetPTX, "nvrtcGetPTX"),
			need(&n.nvrtcGetErrorString, "nvrtcGetErrorString"),
		})
		if err != nil {
			tried[len(tried)-1].Err = err.Error()
			continue
		}
		n.Tried = tried
		return n, tried, nil
	}
	return nil, tried, errNoneLoaded
}

type loadError string

func (e loadError) Error() string { return string(e) }

const errNoneLoaded = loadError("no candidate loaded")

func preloadBuiltins(dir string) {
	matches, _ := filepath.Glob(filepath.Join(dir, "libnvrtc-builtins.so*"))
	sort.Sort(sort.Reverse(sort.StringSlice(matches)))
	for _, m := range matches {
		if _, err := purego.Dlopen(m, purego.RTLD_NOW|purego.RTLD_GLOBAL); err == nil {
			return
		}
	}
}

//go:uintptrescapes
func callN(fn uintptr, args ...uintptr) NVRTCResult {
	r, _, _ := purego.SyscallN(fn, args...)
	return NVRTCResult(int32(r))
}

// Version returns NVRTC's major and minor version.
func (n *NVRTC) Version() (major, minor int, r NVRTCResult) {
	var ma, mi int32
	r = callN(n.nvrtcVersion, uintptr(unsafe.Pointer(&ma)), uintptr(unsafe.Pointer(&mi)))
	return int(ma), int(mi), r
}

// SupportedArchs lists the sm_XY this NVRTC compiles for, as 10*X+Y, or
// nil when it is too old to say.
func (n *NVRTC) SupportedArchs() ([]int, NVRTCResult) {
	if n.nvrtcGetNumSupportedArchs == 0 || n.nvrtcGetSupportedArchs == 0 {
		return nil, NVRTCSuccess
	}
	var cnt int32
	if r := callN(n.nvrtcGetNumSupportedArchs, uintptr(unsafe.Pointer(&cnt))); r != NVRTCSuccess || cnt <= 0 {
		return nil, r
	}
	archs := make([]int32, cnt)
	r := callN(n.nvrtcGetSupportedArchs, uintptr(unsafe.Pointer(&archs[0])))
	runtime.KeepAlive(archs)
	out := make([]int, len(archs))
	for i, a := range archs {
		out[i] = int(a)
	}
	return out, r
}

// HasCUBIN reports whether this NVRTC can emit cubin (NVRTC 11.1 and later).
func (n *NVRTC) HasCUBIN() bool { return n.nvrtcGetCUBINSize != 0 && n.nvrtcGetCUBIN != 0 }

// ErrorString is NVRTC's name for a result (NVRTC_ERROR_COMPILATION).
func (n *NVRTC) ErrorString(r NVRTCResult) string {
	p, _, _ := purego.SyscallN(n.nvrtcGetErrorString, uintptr(r))
	return goString(cPointer(p))
}

// Output is what one compilation produced.
type Output struct {
	Log   string
	Image []byte // cubin or PTX (with its trailing NUL)
}

// Compile compiles src (named name in diagnostics) with options and
// returns the cubin (cubin true) or the PTX, plus the log. The log is
// returned on failure too; the result says which step failed.
func (n *NVRTC) Compile(src, name string, options []string, cubin bool) (Output, string, NVRTCResult) {
	var prog uintptr
	csrc, cname := cString(src), cString(name)
	r := callN(n.nvrtcCreateProgram, uintptr(unsafe.Pointer(&prog)), uintptr(unsafe.Pointer(csrc)),
		uintptr(unsafe.Pointer(cname)), 0, 0, 0)
	runtime.KeepAlive(csrc)
	runtime.KeepAlive(cname)
	if r != NVRTCSuccess {
		return Output{}, "nvrtcCreateProgram", r
	}
	defer callN(n.nvrtcDestroyProgram, uintptr(unsafe.Pointer(&prog)))

	copts := make([]*byte, len(options))
	for i, o := range options {
		copts[i] = cString(o)
	}
	var optp uintptr
	if len(copts) > 0 {
		optp = uintptr(unsafe.Pointer(&copts[0]))
	}
	cr := callN(n.nvrtcCompileProgram, prog, uintptr(len(copts)), optp)
	runtime.KeepAlive(copts)

	var out Output
	var logSize uintptr
	if callN(n.nvrtcGetProgramLogSize, prog, uintptr(unsafe.Pointer(&logSize))) == NVRTCSuccess && logSize > 1 {
		buf := make([]byte, logSize)
		if callN(n.nvrtcGetProgramLog, prog, uintptr(unsafe.Pointer(&buf[0]))) == NVRTCSuccess {
			out.Log = string(buf[:logSize-1])
		}
	}
	if cr != NVRTCSuccess {
		return out, "nvrtcCompileProgram", cr
	}
	sizeFn, getFn, what := n.nvrtcGetPTXSize, n.nvrtcGetPTX, "nvrtcGetPTX"
	if cubin {
		sizeFn, getFn, what = n.nvrtcGetCUBINSize, n.nvrtcGetCUBIN, "nvrtcGetCUBIN"
	}
	var size uintptr
	if r := callN(sizeFn, prog, uintptr(unsafe.Pointer(&size))); r != NVRTCSuccess {
		return out, what + "Size", r
	}
	if size == 0 {
		return out, what + "Size", NVRTCResult(11) // NVRTC_ERROR_INTERNAL_ERROR: an empty image
	}
	img := make([]byte, size)
	if r := callN(getFn, prog, uintptr(unsafe.Pointer(&img[0]))); r != NVRTCSuccess {
		return out, what, r
	}
	out.Image = img
	return out, "", NVRTCSuccess
}
