package vertexcover

import (
	"errors"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cpu"
	"github.com/arbor-gpu/arbor/device/startup"
)

// TestPlace: auto, gpu and hybrid open a device; gpu and hybrid fail
// without one, naming the engine, and auto falls back to the CPU engine.
func TestPlace(t *testing.T) {
	noDev := errors.New("no GPU here")
	if _, err := Place(EngineHybrid, nil, noDev); !errors.Is(err, noDev) || !strings.HasPrefix(err.Error(), "--engine hybrid: ") {
		t.Errorf("hybrid without a device: %v", err)
	}
	if p, err := Place(EngineGPU, []backend.Device{cpu.New(1)}, nil); err != nil || len(p.Devices) != 1 {
		t.Errorf("gpu on a device: %+v, %v", p, err)
	}
	if p, err := Place(EngineAuto, nil, noDev); err != nil || p.Devices != nil || p.Fallback != "no device (no GPU here): the CPU engine runs" {
		t.Errorf("auto without a device: %+v, %v", p, err)
	}
	for _, e := range Engines {
		if want := e == EngineAuto || e == EngineGPU || e == EngineHybrid; e.OpensDevice() != want {
			t.Errorf("%s.OpensDevice() = %v", e, !want)
		}
	}
}

// TestLSMode: off opens nothing, auto refuses a device that is not a GPU,
// on takes any, and an opening error is passed on.
func TestLSMode(t *testing.T) {
	if _, err := ParseLSMode("sometimes"); err == nil {
		t.Error("ParseLSMode took \"sometimes\"")
	}
	host := func() (backend.Device, error) { return cpu.New(1), nil }
	if LSOff.Opener(host) != nil {
		t.Error("off gave an opener")
	}
	if dev, err := LSAuto.Opener(host)(); err == nil || dev != nil || !strings.Contains(err.Error(), "not a GPU") {
		t.Errorf("auto on the CPU backend: %v, %v", dev, err)
	}
	if dev, err := LSOn.Opener(host)(); err != nil || dev == nil {
		t.Errorf("on: %v, %v", dev, err)
	}
	noDev := errors.New("no device")
	if _, err := LSOn.Opener(func() (backend.Device, error) { return nil, noDev })(); !errors.Is(err, noDev) {
		t.Errorf("on without a device: %v", err)
	}
}

// TestLSModeDevice: the local search's opener under each mode, from a
// selection (opened only when asked) and from an opening (its very device,
// lent: one context for both, which the local search's Close leaves open).
// auto refuses a device that is not a GPU (the CPU backend here), on takes
// it, off gives no opener; the line said names the device.
func TestLSModeDevice(t *testing.T) {
	sel := backend.Selection{Backend: "cpu"}
	opening := OpenDevices(Options{Engine: EngineAuto, Select: &startup.Selection{Selection: sel}})
	defer opening.ReleaseNow()
	devs, err := opening.Wait()
	if err != nil || len(devs) != 1 {
		t.Fatalf("opening: %v, %d devices", err, len(devs))
	}
	for _, o := range []*startup.Opening{nil, opening} {
		var said []string
		say := func(line string) { said = append(said, line) }
		if LSOff.Device(o, sel, say) != nil {
			t.Fatal("off gave an opener")
		}
		if _, err := LSAuto.Device(o, sel, say)(); err == nil || !strings.Contains(err.Error(), "not a GPU") {
			t.Fatalf("auto on the CPU backend: %v, want 'not a GPU'", err)
		}
		dev, err := LSOn.Device(o, sel, say)()
		if err != nil {
			t.Fatalf("on: %v", err)
		}
		if dev.Info().Backend != "cpu" || len(said) != 1 || !strings.HasPrefix(said[0], "local search also on "+dev.Info().String()) {
			t.Fatalf("on opened %s, said %q", dev.Info(), said)
		}
		if o == nil {
			dev.Close()
			continue
		}
		if lent, ok := dev.(lentDevice); !ok || lent.Device != devs[0] {
			t.Fatalf("the local search got %T %v, not the opening's device", dev, dev.Info())
		}
		if err := dev.Close(); err != nil {
			t.Fatal(err)
		}
		q, err := devs[0].NewQueue()
		if err != nil {
			t.Fatalf("the opening's device after the local search closed its loan: %v", err)
		}
		q.Release()
	}
}
