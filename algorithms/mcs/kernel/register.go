package kernel

import (
	"embed"

	"github.com/arbor-gpu/arbor/device"
)

//go:embed *.cl
var files embed.FS

// init registers the package's kernel sources and conformance checks with
// the device toolkit (its twins register with backend in their own files):
// `arbor kernels`, `arbor verify` and the conformance tests find them there.
func init() {
	device.RegisterSources("algorithms/mcs/kernel", files)
	device.RegisterChecks("algorithms/mcs/kernel", func(string) []device.Check { return mcsplitChecks() })
}
