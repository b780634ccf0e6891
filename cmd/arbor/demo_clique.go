package main

import (
	"fmt"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/clique"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"
)

// demoClique is the clique part of 'arbor demo': a maximum clique of the
// complement of vertex cover's planted graph, whose clique number is
// known (one planted vertex per block: n − the minimum cover), found by
// the auto engine with the demo's device (a GPU joins; elsewhere the CPU
// engine runs) and checked.
func demoClique() func(e *cli.Env, dev backend.Device) error {
	return func(e *cli.Env, dev backend.Device) error {
		const blocks, size = 16, 6
		g, err := plantedCliques(blocks, size, 0.35, 2026)
		if err != nil {
			return fmt.Errorf("demo clique: %w", err)
		}
		opts := clique.Options{Complement: true, Devices: []backend.Device{dev}}
		t0 := time.Now()
		res, err := clique.Maximum(e.Ctx, g, opts)
		if err != nil {
			return fmt.Errorf("demo clique: %w", err)
		}
		if err := clique.Verify(g, res.Clique, true); err != nil {
			return fmt.Errorf("demo clique: %w", err)
		}
		if len(res.Clique) < blocks || (res.Proven && len(res.Clique) != blocks) {
			return fmt.Errorf("demo clique: clique of %d (proven %v) of the complement, but its clique number is %d", len(res.Clique), res.Proven, blocks)
		}
		fmt.Fprintf(e.Stdout, "clique (%s): complement of a graph of %d vertices, %d edges  clique %d (optimum %d)  proven %v  %d nodes  verified (%v)\n",
			res.Engine, g.N, g.Edges(), len(res.Clique), blocks, res.Proven, res.Nodes, time.Since(t0).Round(time.Microsecond))
		return nil
	}
}
