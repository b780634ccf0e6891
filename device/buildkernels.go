package device

import (
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
)

// BuildKernels compiles source name for dev (as Build) and looks up each
// of the kernels it names, the start of every host wrapper. A kernel that
// cannot be had is an error naming the source; on any error nothing stays
// held.
func BuildKernels(dev backend.Device, name string, defines map[string]string, kernelNames ...string) (backend.Program, map[string]backend.Kernel, error) {
	prog, err := Build(dev, name, defines, kernelNames...)
	if err != nil {
		return nil, nil, err
	}
	ks := make(map[string]backend.Kernel, len(kernelNames))
	for _, kn := range kernelNames {
		k, err := prog.Kernel(kn)
		if err != nil {
			for _, held := range ks {
				held.Release()
			}
			prog.Release()
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		ks[kn] = k
	}
	return prog, ks, nil
}
