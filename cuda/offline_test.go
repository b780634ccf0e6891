package cuda

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cuda/internal/raw"
)

// These tests need no GPU: they run everywhere, CI included.

func TestNVRTCCandidates(t *testing.T) {
	fs := map[string][]string{
		"/usr/local/cuda*/targets/x86_64-linux/lib":                  {"/usr/local/cuda-12.4/targets/x86_64-linux/lib", "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/local/cuda-13.0/targets/x86_64-linux/lib"},
		"/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so*":      {"/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so.13", "/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so"},
		"/usr/local/cuda-13.0/targets/x86_64-linux/lib/libnvrtc.so*": {"/usr/local/cuda-13.0/targets/x86_64-linux/lib/libnvrtc.so.13.0.48", "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libnvrtc.so.13"},
		"/usr/local/cuda-12.4/targets/x86_64-linux/lib/libnvrtc.so*": {"/usr/local/cuda-12.4/targets/x86_64-linux/lib/libnvrtc.so.12"},
	}
	glob := func(p string) ([]string, error) { return slices.Clone(fs[p]), nil }
	got := nvrtcCandidates("/opt/my/libnvrtc.so", glob)
	want := []string{
		"/opt/my/libnvrtc.so",
		"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2",
		"/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so",
		"/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so.13",
		"/usr/local/cuda-13.0/targets/x86_64-linux/lib/libnvrtc.so.13", // the soname link before the full version
		"/usr/local/cuda-13.0/targets/x86_64-linux/lib/libnvrtc.so.13.0.48",
		"/usr/local/cuda-12.4/targets/x86_64-linux/lib/libnvrtc.so.12",
		"/usr/local/cuda*/lib64/libnvrtc.so*", // searched, nothing there: still reported
	}
	if !slices.Equal(got, want) {
		t.Errorf("candidates:\n got %q\nwant %q", got, want)
	}
	// Without the variable, the list starts with the sonames.
	if got := nvrtcCandidates("", glob); got[0] != "libnvrtc.so" {
		t.Errorf("without %s the first candidate is %q", EnvNVRTC, got[0])
	}
}

// TestNVRTCMissingMessage loads NVRTC from paths that do not exist: the
// error must list every one of them.
func TestNVRTCMissingMessage(t *testing.T) {
	dir := t.TempDir()
	cands := []string{filepath.Join(dir, "libnvrtc.so"), filepath.Join(dir, "libnvrtc.so.13")}
	_, tried, err := raw.LoadNVRTC(cands)
	if err == nil {
		t.Fatal("loading NVRTC from an empty folder succeeded")
	}
	msg := raw.FormatAttempts(tried)
	for _, c := range cands {
		if !strings.Contains(msg, c) {
			t.Errorf("attempts %q do not mention %s", msg, c)
		}
	}
}

func TestChooseTarget(t *testing.T) {
	archs := []int{75, 80, 86, 87, 89, 90, 100, 120}
	for _, tc := range []struct {
		device   int
		archs    []int
		cubin    bool
		forcePTX bool
		want     string
		err      bool
	}{
		{90, archs, true, false, "sm_90", false},
		{86, archs, true, false, "sm_86", false},
		{88, archs, true, false, "sm_87", false},        // same major: a cubin for 8.7 runs on 8.8
		{130, archs, true, false, "compute_120", false}, // newer than NVRTC knows: PTX, JIT by the driver
		{91, []int{75, 80}, true, false, "compute_80", false},
		{90, archs, true, true, "compute_90", false}, // forced PTX
		{90, archs, false, false, "compute_90", false},
		{61, archs, true, false, "", true}, // older than NVRTC supports
		{70, nil, true, false, "sm_70", false},
	} {
		got, err := chooseTarget(tc.device, tc.archs, tc.cubin, tc.forcePTX)
		if tc.err {
			if err == nil {
				t.Errorf("device %d: got %s, want an error", tc.device, got)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("device %d archs %v cubin %v ptx %v: got %v, %v; want %s", tc.device, tc.archs, tc.cubin, tc.forcePTX, got, err, tc.want)
		}
	}
}

func TestCompileOptions(t *testing.T) {
	src := backend.Source{Options: []string{"-lineinfo"}, Defines: map[string]string{"B": "2", "A": "1", "C": "x y"}}
	got := compileOptions(target{arch: 90, cubin: true}, src)
	want := []string{"--gpu-architecture=sm_90", "-default-device", "-lineinfo", "-DA=1", "-DB=2", "-DC=x y"}
	if !slices.Equal(got, want) {
		t.Errorf("options %q, want %q", got, want)
	}
}

// TestExcerpts checks the numbered source shown with a compile error: NVRTC
// reports lines of the kernel file (after `#line 1 "k.cl"`) and of the
// assembled text (before it, under the program's name).
func TestExcerpts(t *testing.T) {
	code := strings.Join([]string{
		"#define A 1",          // k.cu 1
		"/* prelude */",        // k.cu 2
		"#line 1 \"k.cl\"",     // k.cu 3
		"KERNEL void f() {",    // k.cl 1
		"  int x = 1;",         // k.cl 2
		"  int y = undefined;", // k.cl 3
		"  x += y;",            // k.cl 4
		"}",                    // k.cl 5
	}, "\n")
	log := "k.cl(3): error: identifier \"undefined\" is undefined\n" +
		"k.cu(2): warning #177-D: something in the prelude\n" +
		"k.cl(3): error: again the same line\n\n1 error detected in the compilation of \"k.cu\".\n"
	got := excerpts(code, "k.cu", log)
	want := strings.Join([]string{
		"k.cl:3:",
		"        1 | KERNEL void f() {",
		"        2 |   int x = 1;",
		"  >     3 |   int y = undefined;",
		"        4 |   x += y;",
		"        5 | }",
		"k.cu:2:",
		"        1 | #define A 1",
		"  >     2 | /* prelude */",
		"        3 | #line 1 \"k.cl\"",
	}, "\n")
	if got != want {
		t.Errorf("excerpts:\n%s\nwant:\n%s", got, want)
	}
	ce := &CompileError{Program: "k", Device: "GPU (sm_90, NVRTC 13.0)", Result: "nvrtcCompileProgram: NVRTC_ERROR_COMPILATION",
		Options: "--gpu-architecture=sm_90", Log: log, Excerpt: got}
	msg := ce.Error()
	for _, w := range []string{`cuda: build "k" on GPU (sm_90, NVRTC 13.0): nvrtcCompileProgram: NVRTC_ERROR_COMPILATION: k.cl(3): error: identifier "undefined" is undefined`,
		"build log:\n  k.cl(3): error", "source:\nk.cl:3:", ">     3 |   int y = undefined;"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error text lacks %q:\n%s", w, msg)
		}
	}
	if !IsCompileError(fmt.Errorf("wrapped: %w", ce)) {
		t.Error("IsCompileError does not see through wrapping")
	}
}

func TestErrorNames(t *testing.T) {
	err := check(nil, "cuMemAlloc", raw.ErrOutOfMemory)
	if !errors.Is(err, backend.ErrOutOfMemory) {
		t.Errorf("%v does not wrap backend.ErrOutOfMemory", err)
	}
	if !strings.Contains(err.Error(), "CUDA_ERROR_OUT_OF_MEMORY") {
		t.Errorf("%v does not name the result", err)
	}
	ill := check(nil, "cuStreamSynchronize", 700)
	if errors.Is(ill, backend.ErrOutOfMemory) || !strings.Contains(ill.Error(), "CUDA_ERROR_ILLEGAL_ADDRESS") ||
		!strings.Contains(ill.Error(), "unusable") {
		t.Errorf("illegal address reads %q", ill)
	}
	if check(nil, "x", raw.Success) != nil {
		t.Error("success is an error")
	}
	if got := check(nil, "x", 12345).Error(); !strings.Contains(got, "CUDA_ERROR_12345") {
		t.Errorf("unknown result reads %q", got)
	}
}

// TestExecutorThread checks the property the backend relies on: every call
// runs on the same OS thread, whichever goroutine makes it, and calls after
// close fail instead of hanging.
func TestExecutorThread(t *testing.T) {
	var setupTID, teardownTID int
	e, err := newExecutor(func() error { setupTID = syscall.Gettid(); return nil }, func() { teardownTID = syscall.Gettid() })
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 200; i++ {
				var tid int
				if err := e.do(func() error { tid = syscall.Gettid(); return nil }); err != nil {
					done <- err
					return
				}
				if tid != setupTID {
					done <- fmt.Errorf("call ran on thread %d, setup on %d", tid, setupTID)
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	want := errors.New("boom")
	if got := e.do(func() error { return want }); got != want {
		t.Errorf("error not passed back: %v", got)
	}
	e.close()
	if teardownTID != setupTID {
		t.Errorf("teardown on thread %d, setup on %d", teardownTID, setupTID)
	}
	if err := e.do(func() error { return nil }); !errors.Is(err, errClosed) {
		t.Errorf("call after close: %v", err)
	}
	e.close() // idempotent

	// A failing setup is returned and leaves nothing running.
	if _, err := newExecutor(func() error { return want }, func() {}); err != want {
		t.Errorf("setup error: %v", err)
	}
}

func TestInvertVersionOrder(t *testing.T) {
	paths := []string{"/usr/local/cuda-9.2", "/usr/local/cuda-12.4", "/usr/local/cuda-13.0", "/usr/local/cuda-12.10"}
	slices.SortFunc(paths, func(a, b string) int { return strings.Compare(invertVersion(a), invertVersion(b)) })
	want := []string{"/usr/local/cuda-13.0", "/usr/local/cuda-12.10", "/usr/local/cuda-12.4", "/usr/local/cuda-9.2"}
	if !slices.Equal(paths, want) {
		t.Errorf("order %v, want %v", paths, want)
	}
}

func TestParallelCopy(t *testing.T) {
	for _, n := range []int{0, 1, copyPiece - 1, copyPiece + 1, 3*copyPiece + 17, 32 << 20} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(i*7 + i>>8)
		}
		dst := make([]byte, n)
		parallelCopy(dst, src, 5)
		if !slices.Equal(dst, src) {
			t.Fatalf("n=%d: copy differs", n)
		}
	}
}

// TestDeferredErrors: an error of a posted command (Launch, Copy, Fill) is
// returned by the queue's next waiting call, once, before that call's own.
func TestDeferredErrors(t *testing.T) {
	e, err := newExecutor(func() error { return nil }, func() {})
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	q := &queue{d: &Device{exec: e}}
	first, second := errors.New("first posted failure"), errors.New("second posted failure")
	var order []int
	for i, f := range []error{nil, first, second} {
		if err := q.post(func() error { order = append(order, i); return f }); err != nil {
			t.Fatal(err)
		}
	}
	err = q.wait(func() error { order = append(order, 3); return errors.New("own") })
	if !errors.Is(err, first) || errors.Is(err, second) {
		t.Errorf("wait returned %v, want the first posted failure", err)
	}
	if !slices.Equal(order, []int{0, 1, 2, 3}) {
		t.Errorf("ran in order %v", order)
	}
	if err := q.wait(func() error { return nil }); err != nil {
		t.Errorf("the failure was returned twice: %v", err)
	}
	e.close()
	if err := q.post(func() error { return nil }); !errors.Is(err, errClosed) {
		t.Errorf("post after close: %v", err)
	}
}

// TestNoSpin: with no polling at all, calls still complete: each side
// blocks at once.
func TestNoSpin(t *testing.T) {
	e, err := startExecutor(0, func() error { return nil }, func() {})
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	n := 0
	for i := 0; i < 100; i++ {
		if err := e.post(func() error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		if err := e.do(func() error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if n != 200 {
		t.Fatalf("%d calls ran, want 200", n)
	}
}
