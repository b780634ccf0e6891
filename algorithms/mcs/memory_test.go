package mcs

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/core"
)

// TestMemoryLimit: Solve, SolveMany and Prepare refuse graphs whose
// adjacency matrices pass Options.MaxMemory with a *core.MemoryError,
// before they allocate them.
func TestMemoryLimit(t *testing.T) {
	empty := func(n int, name string) *core.Graph {
		return &core.Graph{N: n, Offsets: make([]int, n+1), Name: name}
	}
	g, h := empty(30_000, "g"), empty(20_000, "h") // 2.6 GB of matrices
	opts := Options{MaxMemory: 1 << 20, Threads: 1}
	calls := map[string]func() error{
		"Solve":     func() error { _, err := Solve(context.Background(), g, h, opts); return err },
		"SolveMany": func() error { _, err := SolveMany(context.Background(), []*core.Graph{g, h, h}, opts); return err },
		"Prepare":   func() error { _, err := Prepare(g, h, opts); return err },
	}
	for name, call := range calls {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := call()
		runtime.ReadMemStats(&after)
		var me *core.MemoryError
		if !errors.As(err, &me) {
			t.Errorf("%s over the limit: %v, want a *core.MemoryError", name, err)
			continue
		}
		if me.Limit != 1<<20 || !strings.Contains(err.Error(), "(largest g, 30000 vertices)") {
			t.Errorf("%s: %q", name, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("%s: refusing took %d bytes of allocations", name, grew)
		}
	}
	// Directed graphs take 4 bytes a cell: the check follows the search.
	small := Options{MaxMemory: 3 * int64(MatrixBytes(100, Options{})), Threads: 1}
	if err := CheckMemory([]*core.Graph{empty(100, "a"), empty(100, "b")}, small); err != nil {
		t.Errorf("undirected pair under the limit: %v", err)
	}
	small.Directed = true
	if err := CheckMemory([]*core.Graph{empty(100, "a"), empty(100, "b")}, small); err == nil {
		t.Errorf("directed pair of 4-byte cells passed a limit of 3 one-byte matrices")
	}
	res, err := Solve(context.Background(), empty(50, "a"), empty(40, "b"), Options{MaxMemory: 1 << 20, Threads: 1})
	if err != nil || res.Size != 40 {
		t.Errorf("under the limit: size %d, %v; want 40", res.Size, err)
	}
}
