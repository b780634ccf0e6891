package backend

import (
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestPhaseLog(t *testing.T) {
	var l PhaseLog
	l.Add("load", 3*time.Millisecond)
	start := time.Now().Add(-2 * time.Millisecond)
	l.First("first launch", start)
	l.First("first launch", time.Now().Add(-time.Hour)) // not the first: dropped
	ps := l.Phases()
	if len(ps) != 2 || ps[0].Name != "load" || ps[1].Name != "first launch" {
		t.Fatalf("phases %+v", ps)
	}
	if ps[1].Took < 2*time.Millisecond || ps[1].Took > time.Minute {
		t.Errorf("first launch took %v, want about 2ms", ps[1].Took)
	}
	if got := Total(ps); got != ps[0].Took+ps[1].Took {
		t.Errorf("Total = %v", got)
	}
	ps[0].Name = "changed"
	if l.Phases()[0].Name != "load" {
		t.Error("Phases returned the log's own slice")
	}
}

func TestPhaseJSON(t *testing.T) {
	b, err := json.Marshal([]Phase{{"cuInit", 1500 * time.Microsecond}})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `[{"name":"cuInit","seconds":0.0015}]` {
		t.Fatalf("JSON %s", b)
	}
	var back []Phase
	if err := json.Unmarshal(b, &back); err != nil || len(back) != 1 || back[0].Name != "cuInit" || back[0].Took != 1500*time.Microsecond {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
}

// countingDriver counts its probes and reports phases.
type countingDriver struct {
	fakeDriver
	probes *atomic.Int32
}

func (c countingDriver) Probe() ([]Info, error) {
	c.probes.Add(1)
	return c.fakeDriver.Probe()
}

func (c countingDriver) Phases() []Phase { return []Phase{{"load", time.Millisecond}} }

// TestChooseProbesLazily: auto stops probing at the first backend that
// offers an eligible device (CUDA present: OpenCL's ICDs are never
// loaded), goes on past one that has none, and Detect still probes all.
func TestChooseProbesLazily(t *testing.T) {
	var cudaN, clN, cpuN atomic.Int32
	gpu := Info{Backend: "cuda", Name: "H100", Type: TypeGPU}
	pocl := Info{Backend: "opencl", Name: "pthread", Type: TypeCPU}
	cpuInfo := Info{Backend: "cpu", Name: "EPYC", Type: TypeCPU}
	withRegistry(t,
		registered{"cuda", PriorityCUDA, countingDriver{fakeDriver{infos: []Info{gpu}}, &cudaN}},
		registered{"opencl", PriorityOpenCL, countingDriver{fakeDriver{infos: []Info{pocl}}, &clN}},
		registered{"cpu", PriorityCPU, countingDriver{fakeDriver{infos: []Info{cpuInfo}}, &cpuN}})
	c, err := Choose(Selection{})
	if err != nil || c.Info.Backend != "cuda" {
		t.Fatalf("Choose = %v, %v", c.Info, err)
	}
	if cudaN.Load() != 1 || clN.Load() != 0 || cpuN.Load() != 0 {
		t.Errorf("probes cuda %d opencl %d cpu %d, want 1 0 0", cudaN.Load(), clN.Load(), cpuN.Load())
	}
	if len(c.Report) != 1 || len(c.Report[0].Phases) != 1 || c.Report[0].Seconds < 0 {
		t.Errorf("report %+v", c.Report)
	}

	// CUDA absent, OpenCL has only a CPU device: auto goes on to cpu.
	withRegistry(t,
		registered{"cuda", PriorityCUDA, countingDriver{fakeDriver{err: errors.New("no libcuda")}, &cudaN}},
		registered{"opencl", PriorityOpenCL, countingDriver{fakeDriver{infos: []Info{pocl}}, &clN}},
		registered{"cpu", PriorityCPU, countingDriver{fakeDriver{infos: []Info{cpuInfo}}, &cpuN}})
	cudaN.Store(0)
	c, err = Choose(Selection{})
	if err != nil || c.Info.Backend != "cpu" || len(c.Report) != 3 {
		t.Fatalf("Choose = %v (%d reports), %v", c.Info, len(c.Report), err)
	}
	if cudaN.Load() != 1 || clN.Load() != 1 || cpuN.Load() != 1 {
		t.Errorf("probes cuda %d opencl %d cpu %d, want 1 1 1", cudaN.Load(), clN.Load(), cpuN.Load())
	}
	if n := len(Detect()); n != 3 {
		t.Errorf("Detect probed %d backends, want 3", n)
	}
}
