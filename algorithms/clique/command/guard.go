package cliquecmd

import (
	"fmt"

	"github.com/arbor-gpu/arbor/algorithms/clique"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
)

// GuardClique checks a clique result: the checker accepts it, and a
// proven maximum is at least the trivial bound (1 in a graph with a
// vertex, 2 with an edge, of the complement with a non-adjacent pair) and
// at most its own upper bound.
func GuardClique(g *core.Graph, res clique.Result, opts clique.Options) error {
	if err := clique.Verify(g, res.Clique, opts.Complement); err != nil {
		return cli.Internalf("the clique fails the checker: %w", err)
	}
	if len(res.Clique) != res.Size {
		return cli.Internalf("size %d but %d vertices", res.Size, len(res.Clique))
	}
	if res.Proven && res.Status == core.StatusOptimal && res.UpperBound < res.Size {
		return cli.Internalf("clique of %d above its proven upper bound %d", res.Size, res.UpperBound)
	}
	return cli.GuardMax(res.Status, res.Proven, res.Size, opts.Goal, cliqueLowerBound(g, opts.Complement), "clique")
}

// cliqueLowerBound is the clique number's trivial lower bound: 0 for no
// vertex, 2 when some pair is adjacent (not adjacent, for the
// complement), else 1. Self-loops are ignored, as in clique.Maximum; for
// the complement of a directed graph (adjacent when either arc exists)
// the bound stays at 1 rather than pay for in-neighbour lists.
func cliqueLowerBound(g *core.Graph, complement bool) int {
	if g.N == 0 {
		return 0
	}
	if complement && g.Directed {
		return 1
	}
	for u := range g.N {
		others := 0 // distinct neighbours other than u (rows are distinct)
		for _, v := range g.Neighbors(u) {
			if int(v) != u {
				others++
			}
		}
		if (!complement && others > 0) || (complement && others < g.N-1) {
			return 2
		}
	}
	return 1
}

// checkCliqueMatrix refuses the clique engine's bit matrices for g.
func checkCliqueMatrix(e *cli.Env, file string, g *core.Graph) error {
	if err := clique.CheckMemory(g.N, e.MaxMemory()); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}
