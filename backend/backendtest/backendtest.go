// Package backendtest runs one test body on every device of every registered
// backend: the Kokkos/ArrayFire pattern of one test source instantiated per
// backend. A backend that is absent is skipped with its reason, unless
// ARBOR_REQUIRE names it: then its absence fails the test.
package backendtest

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

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
