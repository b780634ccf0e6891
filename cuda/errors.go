package cuda

import (
	"errors"
	"fmt"
	"strings"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cuda/internal/raw"
)

// Error is a failed driver call: which call, its CUresult and the driver's
// name for it. An out-of-memory result matches backend.ErrOutOfMemory under
// errors.Is, so that callers can split work or fall back.
type Error struct {
	Op   string     // the driver call, e.g. "cuMemAlloc"
	Code raw.Result // the CUresult
	Name string     // CUDA_ERROR_ILLEGAL_ADDRESS
	Desc string     // the driver's description, when it gave one
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s (%d)", e.Op, e.Name, int(e.Code))
	if e.Desc != "" {
		s += ": " + e.Desc
	}
	if sticky(e.Code) {
		s += " (a kernel faulted: the device's context is now unusable, and CUDA allows no recovery within this process)"
	}
	return s
}

// Is makes errors.Is(err, backend.ErrOutOfMemory) true for CUDA_ERROR_OUT_OF_MEMORY.
func (e *Error) Is(target error) bool {
	return target == backend.ErrOutOfMemory && e.Code == raw.ErrOutOfMemory
}

// errorNames covers the results Arbor can meet, so that messages name them
// even when the driver cannot be asked (it failed to load, or is too old).
var errorNames = map[raw.Result]string{
	0:   "CUDA_SUCCESS",
	1:   "CUDA_ERROR_INVALID_VALUE",
	2:   "CUDA_ERROR_OUT_OF_MEMORY",
	3:   "CUDA_ERROR_NOT_INITIALIZED",
	4:   "CUDA_ERROR_DEINITIALIZED",
	34:  "CUDA_ERROR_STUB_LIBRARY",
	35:  "CUDA_ERROR_INSUFFICIENT_DRIVER",
	46:  "CUDA_ERROR_DEVICE_UNAVAILABLE",
	100: "CUDA_ERROR_NO_DEVICE",
	101: "CUDA_ERROR_INVALID_DEVICE",
	200: "CUDA_ERROR_INVALID_IMAGE",
	201: "CUDA_ERROR_INVALID_CONTEXT",
	209: "CUDA_ERROR_NO_BINARY_FOR_GPU",
	218: "CUDA_ERROR_INVALID_PTX",
	221: "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
	222: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
	300: "CUDA_ERROR_INVALID_SOURCE",
	400: "CUDA_ERROR_INVALID_HANDLE",
	500: "CUDA_ERROR_NOT_FOUND",
	600: "CUDA_ERROR_NOT_READY",
	700: "CUDA_ERROR_ILLEGAL_ADDRESS",
	701: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	702: "CUDA_ERROR_LAUNCH_TIMEOUT",
	714: "CUDA_ERROR_MISALIGNED_ADDRESS",
	715: "CUDA_ERROR_INVALID_ADDRESS_SPACE",
	716: "CUDA_ERROR_INVALID_PC",
	719: "CUDA_ERROR_LAUNCH_FAILED",
	999: "CUDA_ERROR_UNKNOWN",
}

// sticky reports results after which the context is corrupt (a kernel
// faulted): every later call on the device fails, and, as measured on the
// H100 with driver 13.0, even a reopened primary context reports the same
// error: only a new process can use the device again.
func sticky(r raw.Result) bool {
	switch r {
	case 700, 702, 714, 715, 716, 719:
		return true
	}
	return false
}

// resultName names r, asking the driver first.
func resultName(api *raw.Driver, r raw.Result) (name, desc string) {
	name, desc = api.ErrorName(r)
	if name == "" {
		name = errorNames[r]
	}
	if name == "" {
		name = "CUDA_ERROR_" + fmt.Sprint(int(r))
	}
	return name, desc
}

// check turns a result into nil or an *Error.
func check(api *raw.Driver, op string, r raw.Result) error {
	if r == raw.Success {
		return nil
	}
	name, desc := resultName(api, r)
	return &Error{Op: op, Code: r, Name: name, Desc: desc}
}

// CompileError is a failed NVRTC compilation: the log, and the source lines
// around each line the log reports.
type CompileError struct {
	Program string // Source.Name
	Device  string // device name, target and NVRTC version
	Result  string // the failing step and NVRTC's result name
	Options string
	Log     string
	Excerpt string // numbered source lines around each reported line
}

// Error reads
//
//	cuda: build "scan" on NVIDIA H100 (sm_90, NVRTC 13.0): nvrtcCompileProgram: NVRTC_ERROR_COMPILATION: scan.cl(42): error: …
//	options: …
//	build log:
//	  …
//	source:
//	scan.cl:42:
//	     39 | …
//	  >  42 | …
func (e *CompileError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "cuda: build %q on %s: %s", e.Program, e.Device, e.Result)
	if first := firstError(e.Log); first != "" {
		sb.WriteString(": " + first)
	}
	if e.Options != "" {
		sb.WriteString("\noptions: " + e.Options)
	}
	if log := strings.TrimRight(e.Log, "\n\t "); log != "" {
		sb.WriteString("\nbuild log:")
		for _, l := range strings.Split(log, "\n") {
			sb.WriteString("\n  " + l)
		}
	}
	if e.Excerpt != "" {
		sb.WriteString("\nsource:\n" + e.Excerpt)
	}
	return sb.String()
}

// firstError is the log's first error line, else its first non-empty line.
func firstError(log string) string {
	lines := strings.Split(log, "\n")
	for _, l := range lines {
		if m := logRef.FindStringSubmatch(l); m != nil && strings.HasSuffix(m[3], "error") {
			return strings.TrimSpace(l)
		}
	}
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// IsCompileError reports whether err is (or wraps) a kernel compile error.
func IsCompileError(err error) bool {
	var ce *CompileError
	return errors.As(err, &ce)
}
