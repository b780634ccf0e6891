package mcs

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// TestCutLeafSameTree checks that cutting a child by its bound before its
// split is whole (childOrCut: on bit words when the graphs have at most 64
// vertices, else part way through the split) and the left split left to
// the first child not cut (ensureLeft) change nothing but the work: the
// same size and the same node count as splitting every child whole, in
// the trees none, rr and rr2 (whose learned branching is rewarded with a
// cut child's whole loss), with and without a goal, on the option sets of
// the simple split; with the bit words, the right ones only, the left
// ones only.
func TestCutLeafSameTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 7))
	cut, cases := 0, 0
	for _, os := range optionSets {
		if os.directed || os.el > 0 {
			continue // the multiway split never cuts early
		}
		for i := 0; i < 12; i++ {
			n0, n1 := 5+rng.IntN(10), 5+rng.IntN(10)
			p := 0.2 + 0.6*rng.Float64()
			g := randomGraph(t, rng, n0, p, false, os.vl, 0, os.loops)
			h := randomGraph(t, rng, n1, p, false, os.vl, 0, os.loops)
			for _, prune := range []Pruning{PruneNone, PruneRR, PruneRR2} {
				for _, goal := range []int{0, 1 + rng.IntN(min(n0, n1))} {
					if goal > 0 && os.opts.BigFirst {
						continue
					}
					o := os.opts
					o.Prune, o.Goal, o.Threads = prune, goal, 1
					whole := runCut(t, g, h, o, func(p *problem[uint8]) { p.splitAll = true })
					bitsRes := runCut(t, g, h, o, func(*problem[uint8]) {})
					part := runCut(t, g, h, o, func(p *problem[uint8]) { p.rows1 = nil })
					eager := runCut(t, g, h, o, func(p *problem[uint8]) { p.rows0 = nil })
					for _, r := range []Result{bitsRes, part, eager} {
						if r.Size != whole.Size || r.Nodes != whole.Nodes {
							t.Fatalf("%s case %d prune %v goal %d: size %d nodes %d, split whole: size %d nodes %d",
								os.name, i, prune, goal, r.Size, r.Nodes, whole.Size, whole.Nodes)
						}
						if err := Verify(g, h, r.Mapping, o); err != nil {
							t.Fatalf("%s case %d: %v", os.name, i, err)
						}
					}
					cases++
					if whole.Nodes > whole.Branched+1 {
						cut++
					}
				}
			}
		}
	}
	t.Logf("%d searches, %d with leaves cut by their bound", cases, cut)
}

func runCut(t *testing.T, g, h *core.Graph, opts Options, tweak func(*problem[uint8])) Result {
	t.Helper()
	p, err := newProblem[uint8](g, h, opts)
	if err != nil {
		t.Fatal(err)
	}
	tweak(p)
	return p.runPruned(context.Background(), 1, time.Now(), opts.Prune != PruneNone)
}
