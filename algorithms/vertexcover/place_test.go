package vertexcover

import (
	"errors"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cpu"
)

// TestPlace: only gpu and hybrid open a device, and fail without one,
// naming the engine.
func TestPlace(t *testing.T) {
	noDev := errors.New("no GPU here")
	if _, err := Place(EngineHybrid, nil, noDev); !errors.Is(err, noDev) || !strings.HasPrefix(err.Error(), "--engine hybrid: ") {
		t.Errorf("hybrid without a device: %v", err)
	}
	if p, err := Place(EngineGPU, []backend.Device{cpu.New(1)}, nil); err != nil || len(p.Devices) != 1 {
		t.Errorf("gpu on a device: %+v, %v", p, err)
	}
	for _, e := range Engines {
		if want := e == EngineGPU || e == EngineHybrid; e.OpensDevice() != want {
			t.Errorf("%s.OpensDevice() = %v", e, !want)
		}
	}
}
