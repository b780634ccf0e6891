package opencl

import (
	"github.com/arbor-gpu/arbor/internal/testrole"
	"os"
	"os/exec"
	"sync"
	"testing"
)

// TestConcurrentFirstProbe: several goroutines probing at once, in a
// fresh process (the ICD loader's first enumeration is the fragile one),
// neither crash nor fail. Devices open in the background now (an auto
// engine's device while the command reads its input), so two probes can
// meet; without the lock in enumerate, 15 of 20 such processes crashed in
// clGetDeviceInfo on PoCL 3.1.
func TestConcurrentFirstProbe(t *testing.T) {
	if testrole.Is("concurrent-probe") {
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := (&Driver{}).Probe(); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		return
	}
	if _, err := (&Driver{}).Probe(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	for i := 0; i < 5; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentFirstProbe$", "-test.count=1")
		cmd.Env = append(os.Environ(), testrole.Env("concurrent-probe"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, out)
		}
	}
}
