package backend

import (
	"errors"
	"strings"
	"testing"
)

type fakeDriver struct {
	infos []Info
	err   error
}

func (f fakeDriver) Probe() ([]Info, error) { return f.infos, f.err }
func (f fakeDriver) Open(int) (Device, error) {
	return nil, errors.New("fake drivers do not open")
}

// withRegistry swaps in a registry of fakes for one test.
func withRegistry(t *testing.T, regs ...registered) {
	t.Helper()
	regMu.Lock()
	saved := registry
	registry = map[string]registered{}
	for _, r := range regs {
		registry[r.name] = r
	}
	regMu.Unlock()
	t.Cleanup(func() { regMu.Lock(); registry = saved; regMu.Unlock() })
}

func TestChooseAutoOrder(t *testing.T) {
	pocl := Info{Backend: "opencl", Index: 0, Name: "pthread-EPYC", Type: TypeCPU, Platform: "Portable Computing Language"}
	nvcl := Info{Backend: "opencl", Index: 1, Name: "NVIDIA H100", Type: TypeGPU, Platform: "NVIDIA CUDA"}
	cpuInfo := Info{Backend: "cpu", Index: 0, Name: "EPYC", Type: TypeCPU}
	cudaMissing := errors.New("libcuda.so.1: not found (tried libcuda.so.1, libcuda.so)")

	cases := []struct {
		name    string
		regs    []registered
		sel     Selection
		want    string
		wantErr string
	}{
		{"cuda absent, opencl gpu wins", []registered{
			{"cuda", PriorityCUDA, fakeDriver{err: cudaMissing}},
			{"opencl", PriorityOpenCL, fakeDriver{infos: []Info{pocl, nvcl}}},
			{"cpu", PriorityCPU, fakeDriver{infos: []Info{cpuInfo}}}}, Selection{}, "opencl:1", ""},
		{"pocl only: auto falls to cpu", []registered{
			{"cuda", PriorityCUDA, fakeDriver{err: cudaMissing}},
			{"opencl", PriorityOpenCL, fakeDriver{infos: []Info{pocl}}},
			{"cpu", PriorityCPU, fakeDriver{infos: []Info{cpuInfo}}}}, Selection{}, "cpu:0", ""},
		{"require opencl accepts pocl", []registered{
			{"cuda", PriorityCUDA, fakeDriver{err: cudaMissing}},
			{"opencl", PriorityOpenCL, fakeDriver{infos: []Info{pocl}}},
			{"cpu", PriorityCPU, fakeDriver{infos: []Info{cpuInfo}}}}, Selection{Require: "opencl"}, "opencl:0", ""},
		{"require cuda fails with the reason", []registered{
			{"cuda", PriorityCUDA, fakeDriver{err: cudaMissing}},
			{"cpu", PriorityCPU, fakeDriver{infos: []Info{cpuInfo}}}}, Selection{Require: "cuda"}, "", "libcuda.so.1: not found"},
		{"device by name", []registered{
			{"opencl", PriorityOpenCL, fakeDriver{infos: []Info{pocl, nvcl}}}}, Selection{Backend: "opencl", Device: "h100"}, "opencl:1", ""},
		{"device by index", []registered{
			{"opencl", PriorityOpenCL, fakeDriver{infos: []Info{pocl, nvcl}}}}, Selection{Backend: "opencl", Device: "0"}, "opencl:0", ""},
		{"device missing", []registered{
			{"opencl", PriorityOpenCL, fakeDriver{infos: []Info{pocl}}}}, Selection{Backend: "opencl", Device: "amd"}, "", "no device name matches"},
		{"unknown backend", []registered{
			{"cpu", PriorityCPU, fakeDriver{infos: []Info{cpuInfo}}}}, Selection{Backend: "vulkan"}, "", "unknown backend"},
		{"explicit backend is not a fallback", []registered{
			{"cpu", PriorityCPU, fakeDriver{infos: []Info{cpuInfo}}},
			{"opencl", PriorityOpenCL, fakeDriver{infos: []Info{pocl}}}}, Selection{Backend: "cpu", Require: "opencl"}, "cpu:0", ""},
		// PoCL lists its CPU device before NVIDIA's GPU (the H200 machine):
		// every default takes the GPU.
		{"--backend opencl takes the GPU before PoCL's CPU device", []registered{
			{"opencl", PriorityOpenCL, fakeDriver{infos: []Info{pocl, nvcl}}}}, Selection{Backend: "opencl"}, "opencl:1", ""},
		{"require opencl takes the GPU before PoCL's CPU device", []registered{
			{"cuda", PriorityCUDA, fakeDriver{err: cudaMissing}},
			{"opencl", PriorityOpenCL, fakeDriver{infos: []Info{pocl, nvcl}}},
			{"cpu", PriorityCPU, fakeDriver{infos: []Info{cpuInfo}}}}, Selection{Require: "opencl"}, "opencl:1", ""},
		{"an accelerator before a CPU device, a GPU before both", []registered{
			{"opencl", PriorityOpenCL, fakeDriver{infos: []Info{pocl, {Backend: "opencl", Index: 2, Name: "FPGA", Type: TypeAccelerator}}}}},
			Selection{Backend: "opencl"}, "opencl:2", ""},
		{"a name matching a CPU and a GPU device takes the GPU", []registered{
			{"opencl", PriorityOpenCL, fakeDriver{infos: []Info{pocl, nvcl}}}}, Selection{Backend: "opencl", Device: "n"}, "opencl:1", ""},
		{"require passes over a present cuda", []registered{
			{"cuda", PriorityCUDA, fakeDriver{infos: []Info{{Backend: "cuda", Name: "H100", Type: TypeGPU}}}},
			{"opencl", PriorityOpenCL, fakeDriver{infos: []Info{pocl}}},
			{"cpu", PriorityCPU, fakeDriver{infos: []Info{cpuInfo}}}}, Selection{Require: "opencl"}, "opencl:0", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			withRegistry(t, tc.regs...)
			c, err := Choose(tc.sel)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Info.Backend + ":" + string(rune('0'+c.Info.Index)); got != tc.want {
				t.Fatalf("chose %s, want %s (why: %s)", got, tc.want, c.Why)
			}
		})
	}
}

func TestDetectReportsReasons(t *testing.T) {
	withRegistry(t,
		registered{"cuda", PriorityCUDA, fakeDriver{err: errors.New("no libcuda")}},
		registered{"opencl", PriorityOpenCL, fakeDriver{}},
		registered{"cpu", PriorityCPU, fakeDriver{infos: []Info{{Backend: "cpu", Name: "x"}}}})
	dets := Detect()
	if len(dets) != 3 || dets[0].Backend != "cuda" || dets[1].Backend != "opencl" || dets[2].Backend != "cpu" {
		t.Fatalf("order: %+v", dets)
	}
	if dets[0].Reason != "no libcuda" {
		t.Errorf("cuda reason %q", dets[0].Reason)
	}
	if dets[1].Available() || !errors.Is(dets[1].Err, ErrNoDevice) {
		t.Errorf("opencl with zero devices should be unavailable with ErrNoDevice, got %v", dets[1].Err)
	}
	if !dets[2].Available() {
		t.Errorf("cpu should be available")
	}
}

func TestRangeNormalize(t *testing.T) {
	cases := []struct {
		in     Range
		max    int
		global [3]int
		local  [3]int
		groups [3]int
		err    bool
	}{
		{R1(1000, 256), 1024, [3]int{1024, 1, 1}, [3]int{256, 1, 1}, [3]int{4, 1, 1}, false},
		{R1(1, 0), 1024, [3]int{32, 1, 1}, [3]int{32, 1, 1}, [3]int{1, 1, 1}, false},
		{R1(5000, 0), 128, [3]int{5120, 1, 1}, [3]int{128, 1, 1}, [3]int{40, 1, 1}, false},
		{R2(10, 10, 4, 4), 1024, [3]int{12, 12, 1}, [3]int{4, 4, 1}, [3]int{3, 3, 1}, false},
		{R3(2, 3, 4, 2, 2, 2), 1024, [3]int{2, 4, 4}, [3]int{2, 2, 2}, [3]int{1, 2, 2}, false},
		{R2(64, 64, 64, 64), 1024, [3]int{}, [3]int{}, [3]int{}, true},
		{R1(0, 0), 1024, [3]int{0, 1, 1}, [3]int{256, 1, 1}, [3]int{0, 1, 1}, false},
	}
	for i, tc := range cases {
		r, g, err := tc.in.Normalize(tc.max)
		if tc.err {
			if err == nil {
				t.Errorf("case %d: want an error", i)
			}
			continue
		}
		if err != nil || r.Global != tc.global || r.Local != tc.local || g != tc.groups {
			t.Errorf("case %d: got %v %v groups %v err %v; want %v %v %v", i, r.Global, r.Local, g, err, tc.global, tc.local, tc.groups)
		}
	}
}

func TestChooseAll(t *testing.T) {
	gpu := func(i int) Info {
		return Info{Backend: "cuda", Index: i, Name: "H200", Type: TypeGPU}
	}
	pocl := Info{Backend: "opencl", Index: 0, Name: "pthread-EPYC", Type: TypeCPU}
	nvcl := Info{Backend: "opencl", Index: 1, Name: "NVIDIA H200", Type: TypeGPU}
	regs := []registered{
		{"cuda", PriorityCUDA, fakeDriver{infos: []Info{gpu(0), gpu(1)}}},
		{"opencl", PriorityOpenCL, fakeDriver{infos: []Info{pocl, nvcl}}},
		{"cpu", PriorityCPU, fakeDriver{infos: []Info{{Backend: "cpu", Name: "EPYC", Type: TypeCPU}}}},
	}
	cases := []struct {
		sel     Selection
		want    string
		wantErr string
	}{
		{Selection{Device: "all"}, "cuda:0 cuda:1", ""},
		{Selection{Device: "ALL", Backend: "opencl"}, "opencl:1", ""}, // the GPU is the first pick, though PoCL is listed first: GPUs only
		{Selection{Device: "all", Require: "opencl"}, "opencl:1", ""},
		{Selection{Device: "1, 0"}, "cuda:1 cuda:0", ""},
		{Selection{Device: "0"}, "cuda:0", ""},
		{Selection{Device: "0,0"}, "", "listed twice"},
		{Selection{Device: "0,7"}, "", `device "7"`},
	}
	withRegistry(t, regs...)
	for _, tc := range cases {
		cs, err := ChooseAll(tc.sel)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%+v: err = %v, want one containing %q", tc.sel, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", tc.sel, err)
			continue
		}
		var got []string
		for _, c := range cs {
			got = append(got, c.Info.Backend+":"+string(rune('0'+c.Info.Index)))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%+v: chose %v, want %s", tc.sel, got, tc.want)
		}
	}
}

// TestSelectionErrors: naming what does not exist is ErrSelection (a usage
// error to the command line), with the cause first and what exists after;
// a missing driver is not.
func TestSelectionErrors(t *testing.T) {
	cpuInfo := Info{Backend: "cpu", Index: 0, Name: "host", Type: TypeCPU}
	pocl := Info{Backend: "opencl", Index: 0, Name: "pthread", Type: TypeCPU}
	withRegistry(t,
		registered{"cuda", PriorityCUDA, fakeDriver{err: errors.New(strings.Repeat("libcuda.so.1: not found; ", 40))}},
		registered{"opencl", PriorityOpenCL, fakeDriver{infos: []Info{pocl}}},
		registered{"cpu", PriorityCPU, fakeDriver{infos: []Info{cpuInfo}}})
	cases := []struct {
		sel  Selection
		want string // "" : no selection error
	}{
		{Selection{Backend: "vulkan"}, `unknown backend "vulkan" (have auto, cuda, opencl, cpu)`},
		{Selection{Require: "vulkan"}, "ARBOR_REQUIRE=vulkan names no backend"},
		{Selection{Device: "99"}, `device "99" matches no device; there are opencl:0 pthread (only with --backend opencl), cpu:0 host (cuda unavailable`},
		{Selection{Backend: "cpu", Device: "1"}, "no device with index 1; cpu has cpu:0 host"},
		{Selection{Backend: "opencl", Device: "nvidia"}, `no device name matches "nvidia"; opencl has opencl:0 pthread`},
		{Selection{Device: "0,0"}, "listed twice"},
		{Selection{Device: "0,7"}, `device "7"`},
		{Selection{Device: "5", Require: "opencl"}, "no device with index 5 (ARBOR_REQUIRE=opencl has opencl:0 pthread)"},
		{Selection{}, ""},
		{Selection{Device: "0"}, ""},
		{Selection{Device: "host"}, ""},
		{Selection{Backend: "cuda"}, ""},              // unavailable: a failure, not a usage error
		{Selection{Backend: "cuda", Device: "3"}, ""}, // the same
	}
	for _, tc := range cases {
		err := tc.sel.Check()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%+v: Check = %v, want nil", tc.sel, err)
			}
			continue
		}
		if !errors.Is(err, ErrSelection) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: Check = %v, want ErrSelection containing %q", tc.sel, err, tc.want)
		}
		if _, err := ChooseAll(tc.sel); !errors.Is(err, ErrSelection) || len(err.Error()) > 300 {
			t.Errorf("%+v: ChooseAll = %v, want a short ErrSelection", tc.sel, err)
		}
	}
}

// TestOpenWorkersUnsized: a backend without a worker pool, or none
// registered under the name, is an error, never a device of another size.
func TestOpenWorkersUnsized(t *testing.T) {
	withRegistry(t, registered{"opencl", PriorityOpenCL, fakeDriver{}})
	if _, err := OpenWorkers("opencl", 0, 1); err == nil || !strings.Contains(err.Error(), "no worker pool") {
		t.Fatalf("opencl: %v", err)
	}
	if _, err := OpenWorkers("vulkan", 0, 1); err == nil || !strings.Contains(err.Error(), "not registered") {
		t.Fatalf("vulkan: %v", err)
	}
}
