package device

import (
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
)

type timedDevice struct{ backend.Device }

func (timedDevice) Phases() []backend.Phase {
	return []backend.Phase{{Name: "cuInit", Took: time.Second}}
}

type untimedDevice struct{ backend.Device }

// TestWrappersPassPhases: the wrappers verify and the tests put around a
// device still report its start-up phases, and report none for a device
// that records none.
func TestWrappersPassPhases(t *testing.T) {
	ps := backend.PhasesOf(CacheBuilds(OnPath(timedDevice{}, PathFallback)))
	if len(ps) != 1 || ps[0].Name != "cuInit" || ps[0].Took != time.Second {
		t.Errorf("phases through the wrappers: %v", ps)
	}
	if ps := backend.PhasesOf(CacheBuilds(OnPath(untimedDevice{}, PathFallback))); ps != nil {
		t.Errorf("phases of an untimed device: %v", ps)
	}
}
