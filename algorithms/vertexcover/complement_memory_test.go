package vertexcover

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/core"
)

// TestCheckComplement: the complement of a sparse graph of many vertices
// is refused over the limit with a *core.MemoryError, and allowed under.
func TestCheckComplement(t *testing.T) {
	g := &core.Graph{N: 100_000, Offsets: make([]int, 100_001), Name: "sparse"}
	err := CheckComplement(g, 1<<30)
	var me *core.MemoryError
	if !errors.As(err, &me) || me.Need != ComplementBytes(g) || !strings.HasPrefix(err.Error(), "the complement (100000 vertices) would take ") {
		t.Fatalf("CheckComplement of 100000 vertices under 1 GiB: %v", err)
	}
	if err := CheckComplement(&core.Graph{N: 100, Offsets: make([]int, 101)}, 1<<20); err != nil {
		t.Errorf("100 vertices under 1 MiB: %v", err)
	}
}

// TestCliqueRouteMemoryLimit: a dense kernel goes to the clique route,
// unless its bit matrices pass Options.MaxMemory: then branch and reduce
// solves it, to the same optimum, and says why.
func TestCliqueRouteMemoryLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 2))
	b := core.NewBuilder(50, false)
	for u := range 50 {
		for v := u + 1; v < 50; v++ {
			if rng.Float64() < 0.5 {
				b.AddEdge(u, v)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	free, err := Solve(context.Background(), g, Options{Threads: 1, Engine: EngineClique})
	if err != nil || free.Engine != string(EngineClique) {
		t.Fatalf("without a limit: engine %q, %v; want the clique route", free.Engine, err)
	}
	capped, err := Solve(context.Background(), g, Options{Threads: 1, Engine: EngineClique, MaxMemory: 1})
	if err != nil {
		t.Fatal(err)
	}
	if capped.Engine != string(EngineBranch) || !strings.Contains(capped.Why, "memory limit") {
		t.Errorf("over the limit: engine %q, why %q; want branch and reduce, for the memory limit", capped.Engine, capped.Why)
	}
	if !capped.Proven || len(capped.Cover) != len(free.Cover) || Verify(g, capped.Cover) != nil {
		t.Errorf("over the limit: cover of %d (proven %v), the clique route's %d", len(capped.Cover), capped.Proven, len(free.Cover))
	}
}
