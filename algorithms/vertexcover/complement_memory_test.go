package vertexcover

import (
	"errors"
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
