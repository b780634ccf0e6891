package mcs

import (
	"errors"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cpu"
)

// gpuInfo is a device that says it is a GPU: Place looks at Info only.
type gpuInfo struct{ backend.Device }

func (gpuInfo) Info() backend.Info {
	return backend.Info{Backend: "cuda", Name: "H100", Type: backend.TypeGPU}
}

// TestPlace: the command line's device rules, as mcs states them.
func TestPlace(t *testing.T) {
	host, gpu := []backend.Device{cpu.New(1)}, []backend.Device{gpuInfo{}}
	noDev := errors.New("no GPU here")
	for _, c := range []struct {
		engine         Engine
		opened         []backend.Device
		openErr        error
		named          bool
		devices        int
		fallback, note string // substrings; "" means none
		err            bool
	}{
		{engine: EngineGPU, openErr: noDev, err: true},
		{engine: EngineHybrid, openErr: noDev, fallback: "no device (no GPU here): the CPU engine runs"},
		{engine: EngineAuto, openErr: noDev, fallback: "the CPU engine runs"},
		{engine: EnginePortfolio, openErr: noDev, fallback: "the portfolio runs on the CPU only"},
		{engine: EnginePortfolio, opened: host, note: "leaves"},
		{engine: EnginePortfolio, opened: host, named: true, devices: 1},
		{engine: EnginePortfolio, opened: gpu, devices: 1},
		{engine: EngineAuto, opened: host, devices: 1},
		{engine: EngineGPU, opened: append(gpu, gpuInfo{}), devices: 2},
	} {
		p, err := Place(c.engine, c.opened, c.openErr, c.named)
		if (err != nil) != c.err || len(p.Devices) != c.devices ||
			(c.fallback == "") != (p.Fallback == "") || !strings.Contains(p.Fallback, c.fallback) ||
			(c.note == "") != (p.Note == "") || !strings.Contains(p.Note, c.note) {
			t.Errorf("%s, %d opened, error %v, named %v: %d devices, fallback %q, note %q, error %v",
				c.engine, len(c.opened), c.openErr, c.named, len(p.Devices), p.Fallback, p.Note, err)
		}
	}
	if EngineCPU.OpensDevice() || !EngineAuto.OpensDevice() || !EnginePortfolio.OpensDevice() {
		t.Error("OpensDevice: every engine but cpu opens a device")
	}
}
