// Package backendtest runs one test body on every device of every registered
// backend: the Kokkos/ArrayFire pattern of one test source instantiated per
// backend. A backend that is absent is skipped with its reason, unless
// ARBOR_REQUIRE names it: then its absence fails the test.
package backendtest

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
)

// EnvBackends, when set (comma-separated), limits the backends tested.
const EnvBackends = "ARBOR_TEST_BACKENDS"

// ForEach runs fn in a subtest per device ("cpu/0", "opencl/1", ...).
func ForEach(t *testing.T, fn func(t *testing.T, dev backend.Device)) {
	t.Helper()
	for _, name := range Backends() {
		ForBackend(t, name, fn)
	}
}

// Backends lists the backends a test should cover.
func Backends() []string {
	names := backend.Names()
	if only := os.Getenv(EnvBackends); only != "" {
		var keep []string
		for _, n := range names {
			for _, o := range strings.Split(only, ",") {
				if strings.TrimSpace(o) == n {
					keep = append(keep, n)
				}
			}
		}
		names = keep
	}
	return names
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// ForBackend runs fn on every device of one backend.
func ForBackend(t *testing.T, name string, fn func(t *testing.T, dev backend.Device)) {
	t.Helper()
	det := backend.ProbeBackend(name)
	if !det.Available() {
		t.Run(name, func(t *testing.T) {
			if backend.Required() == name {
				t.Fatalf("ARBOR_REQUIRE=%s but it is unavailable: %v", name, det.Err)
			}
			t.Skipf("%s unavailable: %v", name, det.Err)
		})
		return
	}
	for _, info := range det.Devices {
		sub := fmt.Sprintf("%s/%d-%s", name, info.Index, unsafeName.ReplaceAllString(info.Name, "_"))
		t.Run(sub, func(t *testing.T) {
			dev, err := backend.OpenBackend(name, info.Index)
			if err != nil {
				t.Fatalf("open %s: %v", info, err)
			}
			defer dev.Close()
			fn(t, dev)
		})
	}
}

// Open opens the first device of backend name, skipping (or, when required,
// failing) the test if there is none.
func Open(t *testing.T, name string) backend.Device {
	t.Helper()
	det := backend.ProbeBackend(name)
	if !det.Available() {
		if backend.Required() == name {
			t.Fatalf("ARBOR_REQUIRE=%s but it is unavailable: %v", name, det.Err)
		}
		t.Skipf("%s unavailable: %v", name, det.Err)
	}
	dev, err := backend.OpenBackend(name, det.Devices[0].Index)
	if err != nil {
		t.Fatalf("open %s: %v", det.Devices[0], err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev
}

// The helpers below take a resource for a test and give it back when the
// test ends; any failure to get it fails the test.

// Build compiles src on dev.
func Build(tb testing.TB, dev backend.Device, src backend.Source) backend.Program {
	tb.Helper()
	return keep(tb, backend.Program.Release)(dev.Build(src))
}

// Kernel is p's kernel name.
func Kernel(tb testing.TB, p backend.Program, name string) backend.Kernel {
	tb.Helper()
	return keep(tb, backend.Kernel.Release)(p.Kernel(name))
}

// Queue is a new queue on dev.
func Queue(tb testing.TB, dev backend.Device) backend.Queue {
	tb.Helper()
	return keep(tb, backend.Queue.Release)(dev.NewQueue())
}

// Alloc is a buffer of n bytes on dev.
func Alloc(tb testing.TB, dev backend.Device, n int) backend.Buffer {
	tb.Helper()
	return keep(tb, backend.Buffer.Free)(dev.Alloc(n))
}

// AllocN is a buffer of n Ts on dev.
func AllocN[T backend.Scalar](tb testing.TB, dev backend.Device, n int) backend.Buffer {
	tb.Helper()
	return keep(tb, backend.Buffer.Free)(backend.AllocN[T](dev, n))
}

// Upload is a buffer on dev holding a copy of s, written through q.
func Upload[T backend.Scalar](tb testing.TB, dev backend.Device, q backend.Queue, s []T) backend.Buffer {
	tb.Helper()
	return keep(tb, backend.Buffer.Free)(backend.AllocSlice(dev, q, s))
}

// keep takes what a call made, failing tb on its error, and gives it back
// with give when the test ends.
func keep[R any](tb testing.TB, give func(R) error) func(R, error) R {
	return func(r R, err error) R {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { give(r) })
		return r
	}
}

// CaptureWarnings routes slog's warnings to a buffer for the test's
// duration.
func CaptureWarnings(tb testing.TB) *bytes.Buffer {
	tb.Helper()
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn})))
	tb.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}

// CheckPhases logs a device's start-up phases and fails the test unless
// each took from 0 to most and the phases named want (substrings of the
// names) all appear, in that order.
func CheckPhases(tb testing.TB, phases []backend.Phase, most time.Duration, want ...string) {
	tb.Helper()
	var names []string
	for _, p := range phases {
		names = append(names, p.Name)
		tb.Logf("%-70s %v", p.Name, p.Took)
		if p.Took < 0 || p.Took > most {
			tb.Errorf("phase %q took %v", p.Name, p.Took)
		}
	}
	all := strings.Join(names, "\n")
	last := -1
	for _, w := range want {
		i := strings.Index(all, w)
		if i < 0 {
			tb.Errorf("no phase %q in %q", w, names)
			continue
		}
		if i < last {
			tb.Errorf("phase %q out of order in %q", w, names)
		}
		last = i
	}
}
