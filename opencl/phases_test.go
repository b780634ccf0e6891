package opencl

import (
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/device"
)

// TestOpenPhases: an opened device (PoCL here) reports where its start-up
// went, in order, and the probe reports the platforms it enumerated.
func TestOpenPhases(t *testing.T) {
	det := backend.ProbeBackend(Name)
	if !det.Available() {
		if backend.Required() == Name {
			t.Fatalf("ARBOR_REQUIRE=%s but it is unavailable: %v", Name, det.Err)
		}
		t.Skipf("opencl unavailable: %v", det.Err)
	}
	if det.Seconds <= 0 || len(det.Phases) == 0 || !strings.Contains(det.Phases[0].Name, "libOpenCL") {
		t.Errorf("probe: %v s, phases %v", det.Seconds, det.Phases)
	}
	dev, err := backend.OpenBackend(Name, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	got, err := device.VecAdd(dev, []int32{1, 2, 3}, []int32{10, 20, 30}, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got[2] != 3+2*30 {
		t.Fatalf("vecadd %v", got)
	}
	backendtest.CheckPhases(t, backend.PhasesOf(dev), 10*time.Minute,
		"clGetPlatformIDs", "platform ", "context", "build vecadd", "first queue", "first allocation", "first launch", "first finish")
}
