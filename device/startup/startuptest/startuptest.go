// Package startuptest makes device openings that behave as a test needs
// (never done, failed, done after a delay), for the algorithms' tests of
// their auto engines.
package startuptest

import (
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/startup"
)

// Stuck is an opening started in the background that does not finish
// before the test ends (it then opens nothing).
func Stuck(tb testing.TB) *startup.Opening {
	gate := make(chan struct{})
	tb.Cleanup(func() { close(gate) })
	return startup.OpenInBackground(func() ([]backend.Device, func(), error) {
		<-gate
		return nil, nil, nil
	})
}

// Failed is an opening that has failed with err.
func Failed(err error) *startup.Opening {
	o := startup.OpenInBackground(func() ([]backend.Device, func(), error) { return nil, nil, err })
	o.Wait()
	return o
}

// After is an opening started in the background that opens dev after d.
func After(d time.Duration, dev backend.Device) *startup.Opening {
	return startup.OpenInBackground(func() ([]backend.Device, func(), error) {
		time.Sleep(d)
		return []backend.Device{dev}, nil, nil
	})
}
