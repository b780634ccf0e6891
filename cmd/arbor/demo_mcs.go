package main

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
)

// demoMCS is the mcs part of 'arbor demo': a maximum common induced
// subgraph of a generated pair (McSplit runs on the CPU whatever the device).
func demoMCS(e *cli.Env, _ backend.Device) error {
	g, h, planted, err := demoMCSPair()
	if err != nil {
		return err
	}
	res, err := mcs.Solve(e.Ctx, g, h, mcs.Options{})
	if err != nil {
		return err
	}
	if err := mcs.Verify(g, h, res.Mapping, mcs.Options{}); err != nil {
		return err
	}
	if res.Proven && res.Size < planted {
		return fmt.Errorf("size %d, but a common subgraph of %d was planted", res.Size, planted)
	}
	status := "proven"
	if !res.Proven {
		status = "unproven"
	}
	fmt.Fprintf(e.Stdout, "mcs: graphs of %d and %d vertices: common induced subgraph of size %d (%s, verified), %d nodes, %v, %d threads\n",
		g.N, h.N, res.Size, status, res.Nodes, res.Elapsed.Round(time.Microsecond), res.Threads)
	return nil
}

// demoMCSPair generates, from a fixed seed, a random graph g and a graph h
// holding a shuffled copy of the subgraph induced by 20 of g's vertices
// plus 4 vertices of its own, so the answer is at least 20.
func demoMCSPair() (g, h *core.Graph, planted int, err error) {
	const n, keep, extra, p = 26, 20, 4, 0.3
	rng := rand.New(rand.NewPCG(2017, 8))
	bg := core.NewBuilder(n, false)
	adj := make([][]bool, n)
	for u := range adj {
		adj[u] = make([]bool, n)
	}
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < p {
				bg.AddEdge(u, v)
				adj[u][v], adj[v][u] = true, true
			}
		}
	}
	// h's vertex perm[i] is g's vertex pick[i] for i < keep.
	pick := rng.Perm(n)[:keep]
	perm := rng.Perm(keep + extra)
	bh := core.NewBuilder(keep+extra, false)
	for i := 0; i < keep; i++ {
		for j := i + 1; j < keep; j++ {
			if adj[pick[i]][pick[j]] {
				bh.AddEdge(perm[i], perm[j])
			}
		}
	}
	for i := keep; i < keep+extra; i++ {
		for j := 0; j < keep+extra; j++ {
			if j != i && (j < keep || j > i) && rng.Float64() < p {
				bh.AddEdge(perm[i], perm[j])
			}
		}
	}
	if g, err = bg.Build(); err != nil {
		return nil, nil, 0, err
	}
	if h, err = bh.Build(); err != nil {
		return nil, nil, 0, err
	}
	return g, h, keep, nil
}
