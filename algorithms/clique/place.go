package clique

import (
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/search"
)

// OpensDevice reports whether the engine may run on a device, so that a
// caller opens the selected ones before Maximum: every engine but cpu.
func (e Engine) OpensDevice() bool { return e != EngineCPU }

// Place decides which of the devices a caller opened the engine gets
// (opened and openErr: what opening the selected devices gave). Without
// a device, gpu and hybrid fail (neither runs without one) and auto falls
// back to the CPU engine; otherwise the engine gets every opened device
// and chooseEngine decides what auto runs on them.
func Place(engine Engine, opened []backend.Device, openErr error) (search.Placement, error) {
	if openErr != nil {
		if engine == EngineGPU || engine == EngineHybrid {
			return search.Placement{}, openErr
		}
		return search.Placement{Fallback: fmt.Sprintf("no device (%v): the CPU engine runs", openErr)}, nil
	}
	return search.Placement{Devices: opened}, nil
}
