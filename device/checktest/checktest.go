// Package checktest runs conformance checks (device.Check) in tests: first
// on the CPU backend's Go twins, whose outputs are the reference, then on
// a device, which must give them bit for bit.
package checktest

import (
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cpu"
	"github.com/arbor-gpu/arbor/device"
)

// Twin runs every check on the CPU backend's twins and returns their
// outputs, the reference; a check that fails there fails the test.
func Twin(tb testing.TB, checks []device.Check) [][]device.Output {
	tb.Helper()
	ref := cpu.New(0)
	want := make([][]device.Output, len(checks))
	for i, c := range checks {
		t0 := time.Now()
		out, err := c.Run(ref)
		if err != nil {
			tb.Fatalf("%s %s: CPU twin: %v", c.Kernel, c.Case, err)
		}
		tb.Logf("%s %s: twin %d outputs in %v", c.Kernel, c.Case, len(out), time.Since(t0).Round(time.Millisecond))
		want[i] = out
	}
	return want
}

// Match runs every check on dev and fails the test unless it gives the
// twins' outputs want exactly (a check that cannot run stops the test;
// each mismatch is reported). On the CPU backend it does nothing: those
// are the twins themselves.
func Match(tb testing.TB, dev backend.Device, checks []device.Check, want [][]device.Output) {
	tb.Helper()
	if dev.Info().Backend == cpu.Name {
		return
	}
	for i, c := range checks {
		t0 := time.Now()
		got, err := c.Run(dev)
		if err != nil {
			tb.Fatalf("%s %s: %v", c.Kernel, c.Case, err)
		}
		if err := device.Compare(got, want[i]); err != nil {
			tb.Errorf("%s %s: %v", c.Kernel, c.Case, err)
		}
		tb.Logf("%s %s on %s: %v", c.Kernel, c.Case, dev.Info(), time.Since(t0).Round(time.Millisecond))
	}
}
