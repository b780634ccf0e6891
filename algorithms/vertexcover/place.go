package vertexcover

import (
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/search"
)

// OpensDevice reports whether the engine runs on a device, so that a
// caller opens the selected ones before Solve: gpu and hybrid only. Auto
// stays on the CPU engine until the device engine is measured to win
// (autoDevice), and opening a device costs (a CUDA context: about a
// second) for nothing then.
func (e Engine) OpensDevice() bool { return e == EngineGPU || e == EngineHybrid }

// Place decides which of the devices a caller opened the engine gets
// (opened and openErr: what opening the selected devices gave): the
// device engines run nowhere else, so no device is an error naming the
// engine; otherwise they get every opened device.
func Place(engine Engine, opened []backend.Device, openErr error) (search.Placement, error) {
	if openErr != nil {
		return search.Placement{}, fmt.Errorf("--engine %s: %w", engine, openErr)
	}
	return search.Placement{Devices: opened}, nil
}
