package kernels_test

import (
	"os"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/kernels"
)

func TestDump(t *testing.T) {
	for _, be := range []string{"opencl", "cuda"} {
		for _, name := range kernels.Names() {
			src, err := kernels.Source(backend.Info{Backend: be, Name: "x", Atomics64: os.Getenv("A64") != "0", MaxWorkGroup: 1024, LocalMemory: 49152}, name, nil)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile("/tmp/clc/"+name+"."+be, []byte(src.Code), 0o644)
		}
	}
}
