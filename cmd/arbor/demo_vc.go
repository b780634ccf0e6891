package main

import (
	"fmt"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/clique"
	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
)

// demoVC is the vertex cover part of 'arbor demo': a generated graph with a
// known optimum (a small Model RB instance: cliques with a planted
// independent set, one vertex per clique), solved and checked on the CPU.
func demoVC(e *cli.Env, _ backend.Device) error {
	const blocks, size = demoBlocks, demoBlockSize
	g, err := demoPlanted()
	if err != nil {
		return err
	}
	t0 := time.Now()
	res, err := vertexcover.Solve(e.Ctx, g, vertexcover.Options{LocalSearch: 20 * time.Millisecond})
	if err != nil {
		return err
	}
	if err := vertexcover.Verify(g, res.Cover); err != nil {
		return err
	}
	want := blocks * (size - 1)
	if res.Proven && len(res.Cover) != want {
		return fmt.Errorf("proven cover of %d, but the optimum is %d", len(res.Cover), want)
	}
	fmt.Fprintf(e.Stdout, "vertex cover (cpu): %d vertices, %d edges  cover %d (optimum %d)  proven %v  %d nodes  verified (%v)\n",
		g.N, g.Edges(), len(res.Cover), want, res.Proven, res.Nodes, time.Since(t0).Round(time.Microsecond))
	return nil
}

// demoClique is the clique part of 'arbor demo': a maximum clique of the
// complement of vertex cover's planted graph, whose clique number is
// known (one planted vertex per block: n − the minimum cover), found by
// the auto engine with the demo's device (a GPU joins; elsewhere the CPU
// engine runs) and checked.
func demoClique(e *cli.Env, dev backend.Device) error {
	const blocks = demoBlocks
	g, err := demoPlanted()
	if err != nil {
		return err
	}
	opts := clique.Options{Complement: true, Devices: []backend.Device{dev}}
	t0 := time.Now()
	res, err := clique.Maximum(e.Ctx, g, opts)
	if err != nil {
		return err
	}
	if err := clique.Verify(g, res.Clique, true); err != nil {
		return err
	}
	if len(res.Clique) < blocks || (res.Proven && len(res.Clique) != blocks) {
		return fmt.Errorf("clique of %d (proven %v) of the complement, but its clique number is %d", len(res.Clique), res.Proven, blocks)
	}
	fmt.Fprintf(e.Stdout, "clique (%s): complement of a graph of %d vertices, %d edges  clique %d (optimum %d)  proven %v  %d nodes  verified (%v)\n",
		res.Engine, g.N, g.Edges(), len(res.Clique), blocks, res.Proven, res.Nodes, time.Since(t0).Round(time.Microsecond))
	return nil
}

// demoBlocks and demoBlockSize shape the graph of the vertex cover and
// clique demos (plantedCliques).
const demoBlocks, demoBlockSize = 16, 6

// demoPlanted is the graph of the vertex cover and clique demos.
func demoPlanted() (*core.Graph, error) {
	return plantedCliques(demoBlocks, demoBlockSize, 0.35, 2026)
}

// plantedCliques makes blocks disjoint cliques of the given size plus
// random edges between blocks that never join the first vertices of two
// blocks: those form an independent set of one vertex per block, the most
// possible, so the minimum cover is blocks·(size−1).
func plantedCliques(blocks, size int, p float64, seed uint64) (*core.Graph, error) {
	n := blocks * size
	b := core.NewBuilder(n, false)
	x := seed | 1
	rnd := func() float64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return float64(x>>11) / (1 << 53)
	}
	// Shuffled labels, so that the blocks are not simply consecutive.
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := int(rnd() * float64(i+1))
		perm[i], perm[j] = perm[j], perm[i]
	}
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			switch {
			case u/size == v/size:
				b.AddEdge(perm[u], perm[v])
			case u%size == 0 && v%size == 0:
				// both planted: never adjacent
			case rnd() < p:
				b.AddEdge(perm[u], perm[v])
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		return nil, err
	}
	g.Name = fmt.Sprintf("planted %d×K%d", blocks, size)
	return g, nil
}
