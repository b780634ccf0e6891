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
