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
	engines, _ := cli.EnginesOf(clique.Engines, clique.Engine.OpensDevice)
	cli.Register(&cli.Algorithm{
		Name:     "clique",
		Summary:  "maximum clique (bitset branch and bound), or of the complement",
		Synopsis: "GRAPH [--threads N] [--timeout D] [--complement] [--format F] [--json] [--verify] [--require-optimal] [--zero-based] [-o FILE] [-v] [--plain-colouring] [--engine auto|cpu|gpu|hybrid] [--goal K] [--workers N] [--backend B] [--device D] | --batch LIST [--device-slots D] …",
		Search: &cli.SearchHelp{
			What:    "clique",
			Out:     "write the clique to `FILE` (atomically): '#' lines saying the status, then one vertex per line",
			Threads: "worker threads: 1 runs the sequential engine; 0 uses every core",
			Timeout: "stop after `D` (e.g. 30s) and report the best clique found, unproven",
			Engine:  "where to search: cpu, gpu (the device search on --backend/--device, plain colouring bound; the CPU backend runs its Go twin), hybrid (the device and the CPU engine side by side, sharing the incumbent) or auto (the CPU engine at once while the device opens; on a GPU with warp-level operations the hybrid takes over what the CPU engine has not settled once the device is open and a 50 ms head start has passed)",
			Engines: string(clique.EngineAuto),
			Workers: "device engine workers (work-groups); 0 sizes it from the device",
			Goal:    "fixed-incumbent mode (gpu engine): prune as if a clique of K−1 vertices were known, never raising it (the same tree on every device: node counts compare); reports a clique of ≥ K if there is one",
		},
		Engines:     engines,
		Schema:      "clique.json",
		ReadsGraphs: true,
		Threads:     true,
		Run:         runClique,
		// bench names clique's CPU engine bbmc (run without --engine).
		Bench: &bench.Problem{Aliases: []string{"max-clique", "maxclique"}, Engines: []string{"bbmc", "gpu", "hybrid"}, CPUThreads: true},
	})
}
