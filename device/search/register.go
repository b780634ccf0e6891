package search

import (
	"embed"

	"github.com/arbor-gpu/arbor/device"
)

//go:embed devsearch.cl
var files embed.FS

// init registers devsearch.cl as a library: the search kernels include it
// (#include "devsearch.cl"); it has no entry points of its own.
func init() { device.RegisterSources("device/search", files, "devsearch") }
