package kernel

import (
	"embed"

	"github.com/arbor-gpu/arbor/device"
)

//go:embed *.cl
var files embed.FS

// init registers the package's kernel sources and conformance checks with
// the device toolkit (its twins register with backend in their own files).
func init() { device.RegisterKernels("algorithms/matching/kernel", files, cs314Checks) }
