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
	engines, names := cli.EnginesOf(mcs.Engines, func(en mcs.Engine) bool { return en != mcs.EngineCPU })
	cli.Register(&cli.Algorithm{
		Name:     "mcs",
		Summary:  "maximum common induced subgraph (McSplit)",
		Synopsis: "G1 G2 [G3 …] [--plain-order] [--approximate [--keep K]] [--threads N] [--connected] [--directed] [--vertex-labels] [--edge-labels] [--big-first] [--heuristic min_max|min_product] [--prune rr|none|rr2] [--block-order] [--dead-end N [--double-raise]] [--restarts [--seed S]] [--engine auto|cpu|gpu|hybrid|portfolio] [--goal K] [--workers N] [--backend B] [--device D] [--timeout D] [--format F] [--json] [--verify] [--require-optimal] [--zero-based] [-o FILE] [-v] [--cluster URL|embedded [--cluster-token T] [--task-nodes B] [--tasks N] [--ack-wait D] [--fresh]] | --batch LIST | QUERY --against LIST|DIR (--min-size K | --top N) [--device-slots D] …",
		Search: &cli.SearchHelp{
			What:    "mapping",
			Out:     "write the mapping to `FILE` (atomically): '#' lines saying the status, then one line per matched vertex, its number in each graph",
			Threads: "worker threads: 1 runs the sequential engine (node counts equal the original McSplit's); 0 uses every core",
			Timeout: "stop after `D` (e.g. 30s) and report the best found, unproven",
			Engine:  "where to search: cpu, gpu (the device search on --backend/--device; the CPU backend runs its Go twin), hybrid, portfolio (several CPU configurations and the device at once, sharing the incumbent; the first proof wins) or auto (the CPU engine at once; the hybrid once a GPU that supports the options is open, never waiting for it)",
			Engines: string(mcs.EngineAuto),
			Workers: "device engine workers (work-groups); 0 sizes it from the device. With --cluster embedded: local worker processes (0: one per core)",
			Goal:    "fixed-incumbent mode: prune as if a solution of K−1 vertices were known, never raising it (the same tree on every engine and device: node counts compare); reports a solution of ≥ K or none",
		},
		Engines:     engines,
		Schema:      "mcs.json",
		ReadsGraphs: true,
		Threads:     true,
		Run:         runMCS,
		Cluster:     "mcs",
		Bench:       &bench.Problem{Aliases: []string{"mcsplit", "mcis"}, Files: 2, Engines: names, CPUThreads: true},
	})
}
