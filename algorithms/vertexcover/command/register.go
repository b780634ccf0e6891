// Package vccmd is the arbor vc command: minimum vertex cover (package
// vertexcover), single runs, batches and the cluster, registered with the
// CLI (package cli).
package vccmd

import (
	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/internal/bench"
)

func init() {
	engines := make([]cli.Engine, len(vertexcover.Engines))
	names := make([]string, len(vertexcover.Engines))
	for i, en := range vertexcover.Engines {
		engines[i] = cli.Engine{Name: string(en), Help: "see --engine", Device: en.OpensDevice()}
		names[i] = string(en)
	}
	cli.Register(&cli.Algorithm{
		Name:        "vc",
		Summary:     "minimum vertex cover",
		Synopsis:    vcSynopsis,
		Engines:     engines,
		Schema:      "vc.json",
		ReadsGraphs: true,
		Threads:     true,
		Run:         runVC,
		Cluster:     "vc",
		Bench:       &bench.Problem{Aliases: []string{"vertex-cover", "vertexcover"}, Minimise: true, Engines: names, CPUThreads: true},
	})
}
