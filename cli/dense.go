package cli

import (
	"github.com/arbor-gpu/arbor/core"
)

// The dense structures a command builds from a graph grow as n², which a
// header alone sets: each is checked against --max-memory before it is
// built, as the readers check a header's per-vertex structures.

func (e *Env) CheckDense(what string, need float64) error {
	return e.WithLimits(core.ReadOptions{}).CheckMemory(what, need)
}
