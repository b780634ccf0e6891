package opencl

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/internal/testrole"
)

func TestRegistered(t *testing.T) {
	if !slices.Contains(backend.Names(), Name) {
		t.Fatalf("backend %q not registered (have %v)", Name, backend.Names())
	}
}

// TestProbe checks what every device reports: the fields arbor devices
// shows must be filled and consistent.
func TestProbe(t *testing.T) {
	det := backend.ProbeBackend(Name)
	if !det.Available() {
		if backend.Required() == Name {
			t.Fatalf("ARBOR_REQUIRE=%s but it is unavailable: %v", Name, det.Err)
		}
		t.Skipf("opencl unavailable: %v", det.Err)
	}
	for i, info := range det.Devices {
		t.Logf("%s: %s %s, %s, driver %s, %s, %d CUs, %d MiB, local %d KiB, group %d %v, atomics64 %v, %v",
			info, info.Vendor, info.Platform, info.Version, info.DriverVersion, info.Type, info.ComputeUnits,
			info.GlobalMemory>>20, info.LocalMemory>>10, info.MaxWorkGroup, info.MaxWorkItems, info.Atomics64, info.Features)
		if info.Index != i || info.Backend != Name {
			t.Errorf("device %d: index %d backend %q", i, info.Index, info.Backend)
		}
		if info.Name == "" || info.Vendor == "" || info.Platform == "" || info.DriverVersion == "" {
			t.Errorf("%s: missing name, vendor, platform or driver version: %+v", info, info)
		}
		if !strings.HasPrefix(info.Version, "OpenCL ") {
			t.Errorf("%s: version %q does not start with \"OpenCL \"", info, info.Version)
		}
		if info.Type == backend.TypeOther {
			t.Errorf("%s: type unknown", info)
		}
		if info.ComputeUnits <= 0 || info.GlobalMemory == 0 || info.LocalMemory == 0 || info.MaxWorkGroup <= 0 {
			t.Errorf("%s: implausible sizes %+v", info, info)
		}
		if info.MaxWorkItems[0] <= 0 || info.MaxWorkItems[1] <= 0 || info.MaxWorkItems[2] <= 0 {
			t.Errorf("%s: max work-items %v", info, info.MaxWorkItems)
		}
		hasBase := slices.Contains(info.Features, "cl_khr_int64_base_atomics")
		hasExt := slices.Contains(info.Features, "cl_khr_int64_extended_atomics")
		if info.Atomics64 != (hasBase && hasExt) {
			t.Errorf("%s: Atomics64 %v but features %v", info, info.Atomics64, info.Features)
		}
		if !slices.ContainsFunc(info.Features, func(f string) bool { return strings.HasPrefix(f, "OpenCL-C-") }) {
			t.Errorf("%s: no OpenCL C version in features %v", info, info.Features)
		}
	}
	// Open rejects an index past the list.
	if _, err := backend.OpenBackend(Name, len(det.Devices)); !errors.Is(err, backend.ErrNoDevice) {
		t.Errorf("open index %d: %v, want ErrNoDevice", len(det.Devices), err)
	}
}

// TestLoadFailure: when no library loads, the error lists every path tried
// with its own reason.
func TestLoadFailure(t *testing.T) {
	d := &Driver{candidates: []string{"/nonexistent/libOpenCL-a.so", "libarbor-no-such-opencl.so.7"}}
	_, err := d.Probe()
	if err == nil {
		t.Fatal("Probe succeeded with no loadable library")
	}
	if !errors.Is(err, backend.ErrUnavailable) {
		t.Errorf("error %v does not wrap ErrUnavailable", err)
	}
	for _, want := range []string{"/nonexistent/libOpenCL-a.so (", "libarbor-no-such-opencl.so.7 (", EnvLibrary} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	// The failure is remembered: loading is done once.
	if _, err2 := d.Probe(); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("second Probe: %v", err2)
	}
	if _, err := d.Open(0); err == nil {
		t.Error("Open succeeded with no library")
	}
}

// TestLibraryOrder: ARBOR_OPENCL_LIBRARY is tried first, then the standard
// names, so a wrong setting still falls back.
func TestLibraryOrder(t *testing.T) {
	t.Setenv(EnvLibrary, "/nonexistent/custom-libOpenCL.so")
	d := &Driver{}
	libs := d.libraries()
	if len(libs) < 2 || libs[0] != "/nonexistent/custom-libOpenCL.so" {
		t.Fatalf("libraries() = %v", libs)
	}
	if backend.ProbeBackend(Name).Available() {
		if _, err := d.Probe(); err != nil {
			t.Fatalf("no fallback past a bad %s: %v", EnvLibrary, err)
		}
	}
}

// TestRequireWithoutPlatform runs this test binary again with the ICD
// loader pointed at an empty vendor directory: no platform. There, Probe
// must say so with the install hint, and with ARBOR_REQUIRE=opencl a test
// using backendtest must fail, not skip.
func TestRequireWithoutPlatform(t *testing.T) {
	if testrole.Is("no-platform") { // the subprocess
		helperNoPlatform(t)
		return
	}
	if _, err := (&Driver{}).Probe(); err != nil && errors.Is(err, backend.ErrUnavailable) {
		t.Skipf("no ICD loader to point at an empty vendor directory: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	cmd := exec.Command(exe, "-test.run=^TestRequireWithoutPlatform$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), testrole.Env("no-platform"), "ARBOR_REQUIRE=opencl",
		"OCL_ICD_VENDORS="+empty, "OCL_ICD_FILENAMES=", "OPENCL_VENDOR_PATH="+empty)
	out, err := cmd.CombinedOutput()
	text := string(out)
	if strings.Contains(text, "LOADER-IGNORES-ENV") {
		t.Skip("this ICD loader ignores OCL_ICD_VENDORS; cannot hide the platforms")
	}
	if err == nil {
		t.Fatalf("with ARBOR_REQUIRE=opencl and no platform the test passed:\n%s", text)
	}
	for _, want := range []string{"ARBOR_REQUIRE=opencl but it is unavailable", "CL_PLATFORM_NOT_FOUND_KHR", "pocl-opencl-icd", "--- FAIL"} {
		if !strings.Contains(text, want) {
			t.Errorf("subprocess output lacks %q:\n%s", want, text)
		}
	}
}

func helperNoPlatform(t *testing.T) {
	if infos, err := (&Driver{}).Probe(); err == nil && len(infos) > 0 {
		t.Log("LOADER-IGNORES-ENV")
		return
	}
	backendtest.Open(t, Name) // must fail: ARBOR_REQUIRE=opencl
	t.Log("backendtest.Open returned without a device")
}

func TestErrors(t *testing.T) {
	if got := CodeName(-5); got != "CL_OUT_OF_RESOURCES" {
		t.Errorf("CodeName(-5) = %q", got)
	}
	if got := CodeName(-1001); got != "CL_PLATFORM_NOT_FOUND_KHR" {
		t.Errorf("CodeName(-1001) = %q", got)
	}
	if got := CodeName(-12345); got != "CL_ERROR(-12345)" {
		t.Errorf("CodeName(-12345) = %q", got)
	}
	err := allocFail("clCreateBuffer", clOutOfResources)
	if !errors.Is(err, backend.ErrOutOfMemory) || err.Error() != "clCreateBuffer: CL_OUT_OF_RESOURCES" {
		t.Errorf("allocation failure %v: ErrOutOfMemory %v", err, errors.Is(err, backend.ErrOutOfMemory))
	}
	if err := check("clEnqueueNDRangeKernel", clOutOfResources); errors.Is(err, backend.ErrOutOfMemory) {
		t.Errorf("a launch's CL_OUT_OF_RESOURCES (usually a fault) counted as out of memory: %v", err)
	}
	if err := check("clEnqueueWriteBuffer", clMemObjectAllocFailure); !errors.Is(err, backend.ErrOutOfMemory) {
		t.Errorf("lazy allocation failure %v does not match ErrOutOfMemory", err)
	}
	if c, ok := Code(check("x", -38)); !ok || c != -38 {
		t.Errorf("Code = %d, %v", c, ok)
	}
	if check("x", 0) != nil {
		t.Error("CL_SUCCESS is an error")
	}
}
