package clique

import (
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/startup"
)

// OpensDevice reports whether the engine may run on a device, so that a
// caller opens the selected ones before Maximum: every engine but cpu.
func (e Engine) OpensDevice() bool { return e != EngineCPU }

// OpenDevices starts opening opts.Select's devices as the engine's start-up
// policy says, under Place's rule: auto after startup.HeadStart (an
// instance the CPU engine settles within it never touches the driver), gpu
// and hybrid at once. Nil when there is nothing to open: no Select, Devices
// or an Opening given, or the cpu engine. Maximum calls it; a caller that
// wants the devices opening while it reads its graph calls it first and
// passes the result as Options.Opening (and Releases it when done; its
// Report says what it decided).
func OpenDevices(opts Options) *startup.Opening {
	if opts.Select == nil || len(opts.Devices) > 0 || opts.Opening != nil || !opts.Engine.OpensDevice() {
		return nil
	}
	when := startup.AtOnce
	if opts.Engine == "" || opts.Engine == EngineAuto {
		when = startup.AfterHeadStart
	}
	engine := opts.Engine
	return startup.Open(*opts.Select, when, func(opened []backend.Device, err error) (startup.Placement, error) {
		return Place(engine, opened, err)
	})
}

// Place decides which of the devices a caller opened the engine gets
// (opened and openErr: what opening the selected devices gave). Without
// a device, gpu and hybrid fail (neither runs without one) and auto falls
// back to the CPU engine; otherwise the engine gets every opened device
// and chooseEngine decides what auto runs on them.
func Place(engine Engine, opened []backend.Device, openErr error) (startup.Placement, error) {
	if openErr != nil {
		if engine == EngineGPU || engine == EngineHybrid {
			return startup.Placement{}, openErr
		}
		return startup.Placement{Fallback: fmt.Sprintf("no device (%v): the CPU engine runs", openErr)}, nil
	}
	return startup.Placement{Devices: opened}, nil
}
