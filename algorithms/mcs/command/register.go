// Package mcscmd is the arbor mcs command: maximum common induced
// subgraph (package mcs), single runs, batches, screening and the cluster,
// registered with the CLI (package cli).
package mcscmd

import (
	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/internal/bench"
)

func init() {
	engines := make([]cli.Engine, len(mcs.Engines))
	names := make([]string, len(mcs.Engines))
	for i, en := range mcs.Engines {
		engines[i] = cli.Engine{Name: string(en), Help: "see --engine", Device: en != mcs.EngineCPU}
		names[i] = string(en)
	}
	cli.Register(&cli.Algorithm{
		Name:        "mcs",
		Summary:     "maximum common induced subgraph (McSplit)",
		Synopsis:    mcsSynopsis,
		Engines:     engines,
		Schema:      "mcs.json",
		ReadsGraphs: true,
		Threads:     true,
		Run:         runMCS,
		Cluster:     "mcs",
		Bench:       &bench.Problem{Aliases: []string{"mcsplit", "mcis"}, Files: 2, Engines: names, CPUThreads: true},
	})
}
