package opencl

import (
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
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
	var names []string
	for _, p := range backend.PhasesOf(dev) {
		names = append(names, p.Name)
		t.Logf("%-70s %v", p.Name, p.Took)
		if p.Took < 0 || p.Took > 10*time.Minute {
			t.Errorf("phase %q took %v", p.Name, p.Took)
		}
	}
	all := strings.Join(names, "\n")
	last := -1
	for _, want := range []string{"clGetPlatformIDs", "platform ", "context", "build vecadd", "first queue", "first allocation", "first launch", "first finish"} {
		i := strings.Index(all, want)
		if i < 0 {
			t.Errorf("no phase %q in %q", want, names)
			continue
		}
		if i < last {
			t.Errorf("phase %q out of order in %q", want, names)
		}
		last = i
	}
}
