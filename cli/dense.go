package cli

import (
	"github.com/arbor-gpu/arbor/core"
)

// The dense structures an algorithm builds from a graph grow as n², which
// a header alone sets: the algorithms check each against their
// Options.MaxMemory before they build it (a *core.MemoryError), as the
// readers check a header's per-vertex structures. A command passes
// MaxMemory (--max-memory) and checks the graph it has just read with the
// algorithm's own check, to name the file in the error.

// MaxMemory is --max-memory (0: unset, the algorithms then read
// $ARBOR_MAX_MEMORY or half the available memory, as the readers do).
func (e *Env) MaxMemory() int64 {
	return e.WithLimits(core.ReadOptions{}).MaxMemory
}
