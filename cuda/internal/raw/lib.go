// Package raw binds the CUDA driver API (libcuda.so.1) and NVRTC with purego:
// symbols, C types and calls, no policy. It is the only place in the cuda
// backend that uses unsafe; the layers above see Go types and Result codes.
package raw

import (
	"fmt"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Attempt records one library path tried and why it failed ("" when it loaded).
type Attempt struct {
	Path string
	Err  string
}

func (a Attempt) String() string {
	if a.Err == "" {
		return a.Path + " (loaded)"
	}
	return a.Path + " (" + a.Err + ")"
}

// FormatAttempts lists attempts for an error message.
func FormatAttempts(as []Attempt) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = a.String()
	}
	return strings.Join(parts, "; ")
}

// library is a dlopen'ed shared object.
type library struct {
	handle uintptr
	path   string
}

// openFirst dlopens the first candidate that loads. Every attempt is
// returned so that a failure can say where it looked.
func openFirst(candidates []string) (library, []Attempt, error) {
	var tried []Attempt
	for _, c := range candidates {
		h, err := purego.Dlopen(c, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			tried = append(tried, Attempt{Path: c, Err: shortDlerror(c, err)})
			continue
		}
		tried = append(tried, Attempt{Path: c})
		return library{handle: h, path: c}, tried, nil
	}
	return library{}, tried, fmt.Errorf("none of %d paths loaded", len(candidates))
}

// shortDlerror trims dlerror's text, which repeats the path.
func shortDlerror(path string, err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, path+": ")
	if s == "" {
		s = "dlopen failed"
	}
	return s
}

// sym resolves the first of names that the library exports, so versioned
// entry points (cuMemAlloc_v2) win over their legacy names.
func (l library) sym(names ...string) (uintptr, error) {
	for _, n := range names {
		if p, err := purego.Dlsym(l.handle, n); err == nil && p != 0 {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%s has no symbol %s", filepath.Base(l.path), strings.Join(names, " or "))
}

// symbols resolves a table of function pointers.
func (l library) symbols(table []symbol) error {
	var missing []string
	for _, s := range table {
		p, err := l.sym(s.names...)
		if err != nil {
			if s.optional {
				continue
			}
			missing = append(missing, s.names[0])
			continue
		}
		*s.fn = p
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s lacks %s (too old?)", l.path, strings.Join(missing, ", "))
	}
	return nil
}

type symbol struct {
	fn       *uintptr
	optional bool
	names    []string
}

func need(fn *uintptr, names ...string) symbol { return symbol{fn: fn, names: names} }
func maybe(fn *uintptr, names ...string) symbol {
	return symbol{fn: fn, optional: true, names: names}
}

// goString copies a NUL-terminated C string.
func goString(p unsafe.Pointer) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}

// cPointer reinterprets a pointer-sized C return value as a pointer without
// the uintptr-to-pointer conversion vet warns about: the value is C memory,
// which the Go collector neither moves nor frees.
func cPointer(r uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&r)) }

// cString returns a NUL-terminated copy of s for a C call.
func cString(s string) *byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return &b[0]
}
