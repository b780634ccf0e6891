package vertexcover

import (
	"errors"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cpu"
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
