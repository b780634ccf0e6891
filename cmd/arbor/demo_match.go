package main

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/matching"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
)

// demoMATCH is the match part of 'arbor demo': both engines on a generated
// weighted graph, each result checked by the independent checker and against
// sequential greedy matching, and the engines against each other.
func demoMATCH(e *cli.Env, dev backend.Device) error {
	g, err := demoMatchGraph(3000, 12000, 50)
	if err != nil {
		return err
	}
	want := matching.Greedy(g, matching.TieIndex)
	var line string
	for _, eng := range []matching.Engine{matching.EngineSpec, matching.EngineFast} {
		t0 := time.Now()
		res, err := matching.Handshake(dev, g, matching.Options{Engine: eng})
		if err != nil {
			return err
		}
		if err := res.Mate.Verify(g); err != nil {
			return fmt.Errorf("%s engine: not a matching: %w", eng, err)
		}
		for v := range want {
			if res.Mate[v] != want[v] {
				return fmt.Errorf("%s engine: vertex %d matched to %d, sequential greedy says %d", eng, v, res.Mate[v], want[v])
			}
		}
		line += fmt.Sprintf("%s %d pairs, weight %g, %d passes (%v); ", eng, res.Pairs, res.Weight, res.Passes,
			time.Since(t0).Round(time.Microsecond))
	}
	fmt.Fprintf(e.Stdout, "match: %d vertices, %d edges: %sboth verified, equal to sequential greedy\n", g.N, g.Edges(), line)
	return nil
}

// demoMatchGraph generates a random graph with integer weights in [1, maxW].
func demoMatchGraph(n, m, maxW int) (*core.Graph, error) {
	rng := rand.New(rand.NewPCG(314, 2020))
	b := core.NewBuilder(n, false)
	b.HasWeights = true
	for i := 0; i < m; i++ {
		b.Add(core.Edge{U: int32(rng.IntN(n)), V: int32(rng.IntN(n)), Weight: float64(1 + rng.IntN(maxW))})
	}
	g, err := b.Build()
	if err != nil {
		return nil, err
	}
	g.Name = fmt.Sprintf("random(n=%d, m=%d, weights 1..%d)", n, m, maxW)
	return g, nil
}
