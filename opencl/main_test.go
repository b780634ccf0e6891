package opencl

import (
	"fmt"
	"os"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/backend/cache"
)

// TestMain keeps the package's tests out of the user's program cache: each
// run gets a fresh one unless ARBOR_CACHE_DIR is set.
func TestMain(m *testing.M) {
	if os.Getenv(cache.EnvDir) == "" {
		dir, err := os.MkdirTemp("", "arbor-opencl-test-cache-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Setenv(cache.EnvDir, dir)
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// forEachDevice opens every OpenCL device in turn (through the registry, so
// ARBOR_REQUIRE=opencl turns a missing device into a failure).
func forEachDevice(t *testing.T, fn func(t *testing.T, d *Device)) {
	t.Helper()
	backendtest.ForBackend(t, Name, func(t *testing.T, dev backend.Device) {
		d, ok := dev.(*Device)
		if !ok {
			t.Fatalf("the %q backend returned %T", Name, dev)
		}
		fn(t, d)
	})
}

// build compiles OpenCL C code (Arbor's prelude in front) or fails the test.
func build(t *testing.T, d *Device, name, code string, kernels ...string) *Program {
	t.Helper()
	return backendtest.Build(t, d, testSource(name, code, kernels...)).(*Program)
}

// kernel builds code and returns its kernel called name.
func kernel(t *testing.T, d *Device, name, code string) *Kernel {
	t.Helper()
	return backendtest.Kernel(t, build(t, d, name, code, name), name).(*Kernel)
}

func queue(t *testing.T, d *Device) *Queue {
	t.Helper()
	return backendtest.Queue(t, d).(*Queue)
}

func alloc(t *testing.T, d *Device, bytes int) backend.Buffer {
	t.Helper()
	return backendtest.Alloc(t, d, bytes)
}

// testSource is plain OpenCL C, numbered from 1 as name.cl, the way
// kernels.Source numbers the embedded kernels.
func testSource(name, code string, kernels ...string) backend.Source {
	return backend.Source{Name: name, Code: "/* test program */\n#line 1 \"" + name + ".cl\"\n" + code, Kernels: kernels}
}
