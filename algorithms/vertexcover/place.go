package vertexcover

import (
	"errors"
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/startup"
)

// OpensDevice reports whether the engine may run on a device, so that a
// caller opens the selected ones (in the background: Options.Opening):
// gpu and hybrid, which wait for it, and auto, which starts on the CPU at
// once and lets the device join a dense kernel where it is measured to win
// (auto.go). cpu, branch and clique never use one.
func (e Engine) OpensDevice() bool { return e == EngineAuto || e == EngineGPU || e == EngineHybrid }

// OpenDevices prepares the opening of opts.Select's devices as the
// engine's start-up policy says, under Place's rule: gpu and hybrid, which
// search on the device, start opening at once; auto opens only when a
// dense root kernel asks for the device (auto.go), so that sparse kernels
// never pay for it, and not at all in the parameterized mode (its first
// cover within k is the CPU engine's to find). Nil when there is nothing to
// open: no Select, Devices or an Opening given, or an engine that uses no
// device. Solve calls it; a caller that wants the devices opening while it
// reads its graph calls it first and passes the result as Options.Opening
// (and Releases it when done; its Report says what it decided).
func OpenDevices(opts Options) *startup.Opening {
	engine := opts.Engine
	if engine == "" {
		engine = EngineAuto
	}
	onDevice := engine == EngineGPU || engine == EngineHybrid
	if opts.Select == nil || len(opts.Devices) > 0 || opts.Opening != nil || !engine.OpensDevice() || (!onDevice && opts.Parameterized) {
		return nil
	}
	when := startup.WhenAsked
	if onDevice {
		when = startup.AtOnce
	}
	return startup.Open(*opts.Select, when, func(opened []backend.Device, err error) (startup.Placement, error) {
		return Place(engine, opened, err)
	})
}

// Place decides which of the devices a caller opened the engine gets
// (opened and openErr: what opening the selected devices gave). The
// device engines run nowhere else, so no device is an error naming the
// engine; auto falls back to the CPU engine. Otherwise the engine gets
// every opened device (auto's rule, autoJoinRule, decides whether they
// join).
func Place(engine Engine, opened []backend.Device, openErr error) (startup.Placement, error) {
	if openErr != nil {
		if engine == EngineAuto {
			return startup.Placement{Fallback: fmt.Sprintf("no device (%v): the CPU engine runs", openErr)}, nil
		}
		return startup.Placement{}, fmt.Errorf("--engine %s: %w", engine, openErr)
	}
	return startup.Placement{Devices: opened}, nil
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

// Device is the opener of Options.LSDevice under m's rule (Opener) for a
// caller that opens devices by selection, as the command line does and
// Solve does with Options.Select: the first device of opening, lent (the
// search's own context, not a second one: Solve's Close leaves it open,
// the opening's Release closes it), or without an opening sel's device,
// opened only when the local search asks (an easy instance never pays for
// a CUDA context). said, when set, gets the line to tell the user once a
// device is accepted. Nil for LSOff.
func (m LSMode) Device(opening *startup.Opening, sel backend.Selection, said func(line string)) func() (backend.Device, error) {
	var line string
	open := m.Opener(func() (backend.Device, error) {
		if opening == nil {
			dev, c, err := backend.Select(sel)
			if err != nil {
				return nil, err
			}
			line = fmt.Sprintf("local search also on %s (%s)", c.Info, c.Why)
			return dev, nil
		}
		devs, err := opening.Wait()
		if err != nil {
			return nil, err
		}
		if len(devs) == 0 {
			return nil, errors.New("no device opened")
		}
		line = fmt.Sprintf("local search also on %s", devs[0].Info())
		return lentDevice{devs[0]}, nil
	})
	if open == nil {
		return nil
	}
	return func() (backend.Device, error) {
		dev, err := open()
		if err == nil && said != nil {
			said(line)
		}
		return dev, err
	}
}

// lentDevice is a device lent to a user that closes what it is given: its
// owner closes it.
type lentDevice struct{ backend.Device }

func (lentDevice) Close() error { return nil }
