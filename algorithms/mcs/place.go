package mcs

import (
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/search"
)

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
func Place(engine Engine, opened []backend.Device, openErr error, named bool) (search.Placement, error) {
	if openErr != nil {
		switch engine {
		case EngineGPU:
			return search.Placement{}, openErr
		case EnginePortfolio:
			return search.Placement{Fallback: fmt.Sprintf("no device (%v): the portfolio runs on the CPU only", openErr)}, nil
		}
		return search.Placement{Fallback: fmt.Sprintf("no device (%v): the CPU engine runs", openErr)}, nil
	}
	if engine == EnginePortfolio && len(opened) > 0 && opened[0].Info().Type != backend.TypeGPU && !named {
		return search.Placement{Note: fmt.Sprintf("the portfolio leaves %s out: not a GPU (name its backend with --backend to include it)",
			opened[0].Info())}, nil
	}
	return search.Placement{Devices: opened}, nil
}
