package cli

import (
	"fmt"

	"github.com/arbor-gpu/arbor/algorithms/clique"
	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/core"
)

// The dense structures a command builds from a graph grow as n², which a
// header alone sets: each is checked against --max-memory before it is
// built, as the readers check a header's per-vertex structures.

// checkComplement refuses vc --complement's complement of g (of file)
// where it would pass the memory limit.
func (e *Env) CheckComplement(file string, g *core.Graph) error {
	return e.checkDense(fmt.Sprintf("%s: the complement (%d vertices)", file, g.N), vertexcover.ComplementBytes(g))
}

// checkCliqueMatrix refuses the clique engine's bit matrices for g.
func (e *Env) CheckCliqueMatrix(file string, g *core.Graph) error {
	return e.checkDense(fmt.Sprintf("%s: the clique engine's bit matrices (%d vertices)", file, g.N), clique.MatrixBytes(g.N))
}

// checkMCSMatrices refuses the mcs search's adjacency matrices of graphs.
func (e *Env) CheckMCSMatrices(graphs []*core.Graph, opts mcs.Options) error {
	if len(graphs) == 0 {
		return nil
	}
	need, big := 0.0, 0
	for i, g := range graphs {
		need += mcs.MatrixBytes(g.N, opts)
		if g.N > graphs[big].N {
			big = i
		}
	}
	what := fmt.Sprintf("the adjacency matrices of %d graphs (largest %s, %d vertices)", len(graphs), graphs[big].Name, graphs[big].N)
	return e.checkDense(what, need)
}

func (e *Env) checkDense(what string, need float64) error {
	return e.WithLimits(core.ReadOptions{}).CheckMemory(what, need)
}
