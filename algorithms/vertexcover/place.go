package vertexcover

import (
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/search"
)

// OpensDevice reports whether the engine may run on a device, so that a
// caller opens the selected ones (in the background: Options.Opening):
// gpu and hybrid, which wait for it, and auto, which starts on the CPU at
// once and lets the device join a dense kernel where it is measured to win
// (auto.go). cpu, branch and clique never use one.
func (e Engine) OpensDevice() bool { return e == EngineAuto || e == EngineGPU || e == EngineHybrid }

// Place decides which of the devices a caller opened the engine gets
// (opened and openErr: what opening the selected devices gave). The
// device engines run nowhere else, so no device is an error naming the
// engine; auto falls back to the CPU engine. Otherwise the engine gets
// every opened device (auto's rule, autoJoinRule, decides whether they
// join).
func Place(engine Engine, opened []backend.Device, openErr error) (search.Placement, error) {
	if openErr != nil {
		if engine == EngineAuto {
			return search.Placement{Fallback: fmt.Sprintf("no device (%v): the CPU engine runs", openErr)}, nil
		}
		return search.Placement{}, fmt.Errorf("--engine %s: %w", engine, openErr)
	}
	return search.Placement{Devices: opened}, nil
}

// LSMode says where the partition local search may also run on a device
// (Options.LSDevice): LSAuto on a GPU only, LSOn on any device, LSOff
// nowhere. A CPU device (the CPU backend, PoCL) runs the chains on the
// very cores the CPU's own local searches use, so auto leaves it out.
type LSMode string

const (
	LSAuto LSMode = "auto"
	LSOn   LSMode = "on"
	LSOff  LSMode = "off"
)

// ParseLSMode reads auto, on or off.
func ParseLSMode(s string) (LSMode, error) {
	switch m := LSMode(s); m {
	case LSAuto, LSOn, LSOff:
		return m, nil
	}
	return "", fmt.Errorf("--ls-device must be auto, on or off (got %q)", s)
}

// Opener applies the mode to open, the caller's way of opening the
// selected device: nil for off (Options.LSDevice then opens nothing), and
// for auto an opener that closes and refuses a device that is not a GPU.
func (m LSMode) Opener(open func() (backend.Device, error)) func() (backend.Device, error) {
	if m == LSOff {
		return nil
	}
	return func() (backend.Device, error) {
		dev, err := open()
		if err != nil {
			return nil, err
		}
		if info := dev.Info(); m == LSAuto && info.Type != backend.TypeGPU {
			dev.Close()
			return nil, fmt.Errorf("%s is not a GPU (--ls-device on uses it anyway)", info)
		}
		return dev, nil
	}
}
