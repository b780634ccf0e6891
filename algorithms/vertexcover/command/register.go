// Package vccmd is the arbor vc command: minimum vertex cover (package
// vertexcover), single runs, batches and the cluster, registered with the
// CLI (package cli).
package vccmd

import (
	"fmt"

	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/internal/bench"
)

func init() {
	engines, names := cli.EnginesOf(vertexcover.Engines, vertexcover.Engine.OpensDevice)
	cli.Register(&cli.Algorithm{
		Name:     "vc",
		Summary:  "minimum vertex cover",
		Synopsis: "GRAPH [-k K] [--threads N] [--timeout D] [--complement] [--engine auto|cpu|branch|clique|gpu|hybrid] [--ls-device auto|on|off] [--workers N] [--backend B] [--device D] [--format F] [--verify] [--json] [--require-optimal] [--zero-based] [-o FILE] [-v] [--cluster URL|embedded [--workers N] [--cluster-token T] [--task-nodes B] [--tasks N] [--ack-wait D] [--fresh]] | --batch LIST [--device-slots D] …",
		Search: &cli.SearchHelp{
			What:    "cover",
			Out:     "write the cover to `FILE` (atomically) in PACE solution format: 'c' lines saying the status, 's vc n k', then one vertex per line, numbered from 1 as PACE requires",
			Threads: "worker threads (default: all cores)",
			Timeout: "stop after `D` (e.g. 30s) and report the best cover found, unproven",
			Engine:  "where and how the kernel is solved: auto (the CPU engine at once: clique route on the complement from density " + fmt.Sprint(vertexcover.DenseThreshold) + ", else branch and reduce; a dense kernel opens the device in the background and, on a GPU with warp-level operations, the clique engine's device search joins if the CPU engine has not settled it by then), cpu (the CPU engine alone, no device), branch, clique, gpu (the device search on --backend/--device; the CPU backend runs its Go twin) or hybrid (the device and the CPU engine side by side, one incumbent)",
			Engines: string(vertexcover.EngineAuto),
			Workers: "device engine workers (work-groups; 0 sizes it from the device). With --cluster embedded: local worker processes (0: one per core)",
		},
		Engines:     engines,
		Schema:      "vc.json",
		ReadsGraphs: true,
		Threads:     true,
		Run:         runVC,
		Cluster:     "vc",
		Bench:       &bench.Problem{Aliases: []string{"vertex-cover", "vertexcover"}, Minimise: true, Engines: names, CPUThreads: true},
	})
}
