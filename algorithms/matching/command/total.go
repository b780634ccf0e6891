package matchcmd

import (
	"fmt"
	"math"

	"github.com/arbor-gpu/arbor/core"
)

// weightHeadroom keeps the bound below the largest float64 by far more
// than the rounding of adding a matching's weights in any order could add.
const weightHeadroom = 1 - 0x1p-40

// checkMatchTotal refuses, before the search, a graph whose matching could
// weigh more than the largest float64: the total would print as +Inf
// (and JSON has no infinity). The readers accept any finite weight, so
// two edges of 1.7e308 are a valid file whose matching cannot be summed.
//
// The bound: an edge uv weighs at most (M(u) + M(v)) / 2, where M(x) is
// the heaviest |weight| at x, so a matching weighs at most Σ M(x) / 2,
// summed here as halves so the sum itself stays finite. It passes only
// with weights near the float64 range, never for a real instance.
func checkMatchTotal(file string, g *core.Graph) error {
	if g.Weights == nil {
		return nil
	}
	limit := math.MaxFloat64 * weightHeadroom
	bound := 0.0
	for v := 0; v < g.N; v++ {
		heaviest, at := 0.0, -1
		for i := g.Offsets[v]; i < g.Offsets[v+1]; i++ {
			if w := math.Abs(g.Weights[i]); w > heaviest {
				heaviest, at = w, int(g.Adj[i])
			}
		}
		if bound += heaviest / 2; bound > limit {
			return fmt.Errorf("%s: the weights are too large to add up: a matching may weigh more than the largest float64 (%.4g), "+
				"passed at vertex %d's edge to %d (weight %.4g); scale the weights down",
				file, math.MaxFloat64, v+g.Base, at+g.Base, heaviest)
		}
	}
	return nil
}
