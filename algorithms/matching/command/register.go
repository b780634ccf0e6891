// Package matchcmd is the arbor match command: handshaking weighted
// matching (package matching) registered with the CLI (package cli).
package matchcmd

import (
	"github.com/arbor-gpu/arbor/algorithms/matching"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/internal/bench"
)

func init() {
	cli.Register(&cli.Algorithm{
		Name:     "match",
		Summary:  "handshaking weighted matching",
		Synopsis: matchSynopsis,
		Engines: []cli.Engine{
			{Name: string(matching.EngineFast), Help: "the fused kernels: one launch per pass", Device: true},
			{Name: string(matching.EngineSpec), Help: "the CS314 kernels, stride by stride", Device: true},
		},
		Schema:      "match.json",
		ReadsGraphs: true,
		Run:         runMatch,
		Bench: &bench.Problem{
			Aliases: []string{"matching"},
			Engines: []string{string(matching.EngineFast), string(matching.EngineSpec)},
		},
	})
}
