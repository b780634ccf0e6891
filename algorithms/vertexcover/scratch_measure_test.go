//go:build measure

package vertexcover

import (
	"path/filepath"
	"testing"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

func TestScratchPart(t *testing.T) {
	dir := dataset.Require(t, "")
	for _, f := range []string{"169", "175", "177", "185", "187", "189", "191", "193", "131", "157", "089", "109", "173", "161", "183", "153"} {
		g, _ := core.ReadGraph(filepath.Join(dir, "vc/pace2019/vc-exact_"+f+".gr"), core.ReadOptions{})
		_, k0 := bestPartition(g)
		s := newState(g)
		s.rootReductions(func() int { return g.N })
		kg, _ := s.extract(nil)
		_, k := bestPartition(kg)
		t.Logf("%s: n %d orig partition bound %d; kernel %d, cover %d, kernel partition bound %d", f, g.N, g.N-k0, kg.N, s.cover, s.cover+kg.N-k)
	}
}
