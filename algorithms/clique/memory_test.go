package clique

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/core"
)

// emptyGraph is a graph of n vertices and no edge: a few bytes a vertex,
// whose n² structures would take gigabytes.
func emptyGraph(n int) *core.Graph {
	return &core.Graph{N: n, Offsets: make([]int, n+1), Name: "big"}
}

// TestMaximumMemoryLimit: a library call whose bit matrices pass
// Options.MaxMemory returns a *core.MemoryError naming them, before it
// allocates them (and before any device opens).
func TestMaximumMemoryLimit(t *testing.T) {
	g := emptyGraph(60_000) // 900 MB of bit matrices
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Maximum(context.Background(), g, Options{MaxMemory: 1 << 20, Threads: 1})
	runtime.ReadMemStats(&after)
	var me *core.MemoryError
	if !errors.As(err, &me) {
		t.Fatalf("Maximum over the limit: %v, want a *core.MemoryError", err)
	}
	if me.Limit != 1<<20 || me.Need != MatrixBytes(g.N) || !strings.Contains(err.Error(), "bit matrices (60000 vertices)") || !strings.HasPrefix(err.Error(), "clique: big: ") {
		t.Errorf("error %q (%+v)", err, me)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("refusing took %d bytes of allocations", grew)
	}
	// Under the limit it runs: every vertex alone is a maximum clique.
	res, err := Maximum(context.Background(), emptyGraph(100), Options{MaxMemory: 1 << 20, Threads: 1})
	if err != nil || res.Size != 1 || !res.Proven {
		t.Errorf("under the limit: %+v, %v", res, err)
	}
	// The environment's limit when the option is unset.
	t.Setenv(core.EnvMaxMemory, "1M")
	if _, err := Maximum(context.Background(), g, Options{Threads: 1}); !errors.As(err, &me) || !strings.Contains(me.From, core.EnvMaxMemory) {
		t.Errorf("with %s=1M: %v", core.EnvMaxMemory, err)
	}
}
