package clique

import (
	"errors"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cpu"
)

// TestPlace: gpu and hybrid need a device, auto falls back to the CPU
// engine, and an engine gets every device opened.
func TestPlace(t *testing.T) {
	noDev := errors.New("no GPU here")
	for _, e := range []Engine{EngineGPU, EngineHybrid} {
		if _, err := Place(e, nil, noDev); !errors.Is(err, noDev) {
			t.Errorf("%s without a device: %v", e, err)
		}
	}
	if p, err := Place(EngineAuto, nil, noDev); err != nil || p.Devices != nil || p.Fallback != "no device (no GPU here): the CPU engine runs" {
		t.Errorf("auto without a device: %+v, %v", p, err)
	}
	two := []backend.Device{cpu.New(1), cpu.New(1)}
	if p, err := Place(EngineHybrid, two, nil); err != nil || len(p.Devices) != 2 || p.Fallback != "" || p.Note != "" {
		t.Errorf("hybrid on two devices: %+v, %v", p, err)
	}
	if EngineCPU.OpensDevice() || !EngineAuto.OpensDevice() {
		t.Error("OpensDevice: every engine but cpu opens a device")
	}
}
