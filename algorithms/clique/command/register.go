// Package cliquecmd is the arbor clique command: maximum clique (package
// clique), single runs and batches, registered with the CLI (package
// cli).
package cliquecmd

import (
	"github.com/arbor-gpu/arbor/algorithms/clique"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/internal/bench"
)

func init() {
	engines := make([]cli.Engine, len(clique.Engines))
	for i, en := range clique.Engines {
		engines[i] = cli.Engine{Name: string(en), Help: "see --engine", Device: en.OpensDevice()}
	}
	cli.Register(&cli.Algorithm{
		Name:        "clique",
		Summary:     "maximum clique (bitset branch and bound), or of the complement",
		Synopsis:    cliqueSynopsis,
		Engines:     engines,
		Schema:      "clique.json",
		ReadsGraphs: true,
		Threads:     true,
		Run:         runClique,
		// bench names clique's CPU engine bbmc (run without --engine).
		Bench: &bench.Problem{Aliases: []string{"max-clique", "maxclique"}, Engines: []string{"bbmc", "gpu", "hybrid"}, CPUThreads: true},
	})
}
