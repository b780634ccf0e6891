package vccmd

import (
	"errors"
	"fmt"

	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/device/startup"
)

// OpeningLSDevice is the opener of vertexcover.Options.LSDevice on the opening's
// first device, under mode's rule (vertexcover.LSMode.Opener), said on
// stderr once accepted unless quiet: the search's own context, lent, not a
// second one (the solver's Close leaves it open; Release closes it).
func OpeningLSDevice(e *cli.Env, d *startup.Opening, mode vertexcover.LSMode, quiet bool) func() (backend.Device, error) {
	open := mode.Opener(func() (backend.Device, error) {
		devs, err := d.Wait()
		if err != nil {
			return nil, err
		}
		if len(devs) == 0 {
			return nil, errors.New("no device opened")
		}
		return LentDevice{devs[0]}, nil
	})
	if open == nil {
		return nil
	}
	return func() (backend.Device, error) {
		dev, err := open()
		if err == nil && !quiet {
			fmt.Fprintf(e.Stderr, "arbor: local search also on %s\n", dev.Info())
		}
		return dev, err
	}
}

// LentDevice is a device lent to a user that closes what it is given: its
// owner closes it.
type LentDevice struct{ backend.Device }

func (LentDevice) Close() error { return nil }

// LSDevice is the opener of vertexcover.Options.LSDevice: the device of
// --backend/--device under mode's rule (vertexcover.LSMode.Opener), said
// on stderr once accepted unless quiet. The solver calls it only when a
// kernel needs it, so an easy instance never pays for a CUDA context.
func LSDevice(d *cli.DeviceFlags, e *cli.Env, mode vertexcover.LSMode, quiet bool) func() (backend.Device, error) {
	var c backend.Choice
	open := mode.Opener(func() (dev backend.Device, err error) {
		dev, c, err = d.Open(e, true)
		return dev, err
	})
	if open == nil {
		return nil
	}
	return func() (backend.Device, error) {
		dev, err := open()
		if err == nil && !quiet {
			fmt.Fprintf(e.Stderr, "arbor: local search also on %s (%s)\n", c.Info, c.Why)
		}
		return dev, err
	}
}
