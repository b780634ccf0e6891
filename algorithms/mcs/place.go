package mcs

import (
	"fmt"

	"github.com/arbor-gpu/arbor/algorithms/mcs/kernel"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/startup"
)

// DeviceMaxVertices bounds the graphs the device engine takes (gpu, and
// the device side of hybrid, auto and the portfolio).
const DeviceMaxVertices = kernel.MCSplitMaxVertices

// OpenDevices starts opening opts.Select's devices as the engine's start-up
// policy says, under Place's rule: auto after startup.HeadStart (an
// instance the CPU engine settles within it never touches the driver), gpu,
// hybrid and the portfolio at once. Nil when there is nothing to open: no
// Select, Devices or an Opening given, the cpu engine, or Approximate.
// Solve calls it; a caller that wants the devices opening while it reads
// its graphs calls it first and passes the result as Options.Opening (and
// Releases it when done; its Report says what it decided).
func OpenDevices(opts Options) *startup.Opening {
	if opts.Select == nil || len(opts.Devices) > 0 || opts.Opening != nil || !opts.Engine.OpensDevice() || opts.Approximate {
		return nil
	}
	when := startup.AtOnce
	if opts.Engine == "" || opts.Engine == EngineAuto {
		when = startup.AfterHeadStart
	}
	engine, named := opts.Engine, opts.Select.Named
	return startup.Open(*opts.Select, when, func(opened []backend.Device, err error) (startup.Placement, error) {
		return Place(engine, opened, err, named)
	})
}

// OpensDevice reports whether the engine may run on a device, so that a
// caller opens the selected ones before Solve: every engine but cpu.
func (e Engine) OpensDevice() bool { return e != EngineCPU }

// Place decides which of the devices a caller opened the engine gets:
// opened and openErr are what opening the selected devices gave, named
// whether the user named the backend. The rules:
//   - no device: gpu fails (it runs nowhere else); auto and hybrid fall
//     back to the CPU engine, the portfolio to its CPU configurations;
//   - a CPU device (the CPU backend, PoCL) runs the kernel's Go twin on
//     the very cores the portfolio's CPU searches use, so the portfolio
//     leaves it out unless its backend was named;
//   - otherwise the engine gets every opened device (chooseEngine then
//     decides what auto runs on them).
func Place(engine Engine, opened []backend.Device, openErr error, named bool) (startup.Placement, error) {
	if openErr != nil {
		switch engine {
		case EngineGPU:
			return startup.Placement{}, openErr
		case EnginePortfolio:
			return startup.Placement{Fallback: fmt.Sprintf("no device (%v): the portfolio runs on the CPU only", openErr)}, nil
		}
		return startup.Placement{Fallback: fmt.Sprintf("no device (%v): the CPU engine runs", openErr)}, nil
	}
	if engine == EnginePortfolio && len(opened) > 0 && opened[0].Info().Type != backend.TypeGPU && !named {
		return startup.Placement{Note: fmt.Sprintf("the portfolio leaves %s out: not a GPU (name its backend with --backend to include it)",
			opened[0].Info())}, nil
	}
	return startup.Placement{Devices: opened}, nil
}
