package bench

import (
	"slices"
	"testing"
)

// TestVCDeviceEngines: bench offers vertex cover's device engines (the
// list comes from vertexcover.Engines) and runs them on the backends asked
// for, with --backend on the command line.
func TestVCDeviceEngines(t *testing.T) {
	for _, e := range []string{"gpu", "hybrid", "branch"} {
		if !slices.Contains(kindEngines[KindVC], e) {
			t.Errorf("vc engines %v lack %s", kindEngines[KindVC], e)
		}
	}
	got := configs(KindVC, Config{Engines: []string{"gpu", "branch"}, Backends: []string{"opencl"}, Threads: []int{2}})
	want := []runConfig{{"gpu", "opencl", 0}, {"branch", "cpu", 2}}
	if !slices.Equal(got, want) {
		t.Fatalf("configs %v, want %v", got, want)
	}
	args := arborArgs(Config{}, Instance{Kind: KindVC, Files: []string{"g.gr"}}, got[0])
	if !slices.Contains(args, "--backend") || !slices.Contains(args, "gpu") {
		t.Fatalf("arguments %v", args)
	}
}

// TestBenchDevice: --device reaches every run on a device, and no run on
// the CPU engine or backend.
func TestBenchDevice(t *testing.T) {
	c := Config{Engines: []string{"gpu", "branch"}, Backends: []string{"opencl"}, Threads: []int{2}, Device: "nvidia"}
	got := configs(KindVC, c)
	dev := arborArgs(c, Instance{Kind: KindVC, Files: []string{"g.gr"}}, got[0])
	if i := slices.Index(dev, "--device"); i < 0 || dev[i+1] != "nvidia" {
		t.Errorf("device run's arguments %v lack --device nvidia", dev)
	}
	if cpu := arborArgs(c, Instance{Kind: KindVC, Files: []string{"g.gr"}}, got[1]); slices.Contains(cpu, "--device") {
		t.Errorf("CPU run's arguments %v name a device", cpu)
	}
}
