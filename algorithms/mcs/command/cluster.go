package mcscmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/cluster"
	"github.com/arbor-gpu/arbor/core"
)

// runMCSCluster is 'arbor mcs G H --cluster ...'. Its result goes through
// the contract of a local run (output.go): the checker and guard, the
// status, the files' own numbering, -o and --require-optimal.
func runMCSCluster(e *cli.Env, cf cli.ClusterFlags, workers, threads int, pos []string, g, h *core.Graph, opts mcs.Options, sf cli.SolverFlags) error {
	cfg, closeCluster, err := cf.Coordinator(e, workers, threads, sf.JSON || !sf.Verbose)
	if err != nil {
		return err
	}
	defer closeCluster()
	ctx := e.Ctx
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	prog := cli.NewProgress(e)
	cfg.Progress = func(p cluster.Progress) {
		prog.Update(cli.ClusterProgress("incumbent", "bound ≤", p))
	}
	cres, err := cluster.SolveMCS(ctx, cfg, g, h, opts)
	prog.Done()
	if err != nil && !(ctx.Err() != nil && errors.Is(err, ctx.Err())) {
		return err
	}
	// Stopped by --timeout or Ctrl-C: the best found, unproven, as Solve does.
	res := mcs.Result{Mapping: cres.Mapping, Size: cres.Size, Proven: cres.Proven, Status: core.MaxStatus(cres.Proven, cres.Size, 0)}
	if res.Mapping == nil {
		res.Mapping = [][2]int{}
	}
	if err := GuardMCS(g, h, res, opts); err != nil {
		return fmt.Errorf("%s, %s: %w", pos[0], pos[1], err)
	}
	v := cli.NewVerdict(res.Status, false, 0, false)
	m, err := outPairs(&sf, pos, v, g, h, res.Mapping, res.Size)
	if err != nil {
		return err
	}
	why := cli.ClusterWhy(cf, cres)
	if sf.JSON {
		type jsonResult struct {
			graphsJSON
			Size int `json:"size"`
			cli.Verdict
			Nodes   int64   `json:"nodes"`
			Seconds float64 `json:"seconds"`
			Threads *int    `json:"threads,omitempty"`
			Engine  string  `json:"engine"`
			Why     string  `json:"why"`
			answerJSON
			Cluster *cli.ClusterJSON `json:"cluster"`
		}
		if err := json.NewEncoder(e.Stdout).Encode(jsonResult{graphsJSON: pairJSON(&sf, pos, g, h), Size: res.Size, Verdict: v,
			Nodes: cres.Nodes, Seconds: cres.Elapsed.Seconds(), Threads: cli.ClusterThreads(cf), Engine: "cluster", Why: why,
			answerJSON: newAnswerJSON(mcs.SubtreePrune(opts), sf.Verify, m, pairColumns(m)), Cluster: cli.NewClusterJSON(cres)}); err != nil {
			return err
		}
		return v.Require(sf.RequireOptimal)
	}
	status := sf.Verified(cli.StatusText(v, "maximum", ""))
	w := e.Stdout
	fmt.Fprintf(w, "size %d  %s\n", res.Size, status)
	// A resumed job's nodes were searched before this run too: no rate.
	speed := cli.Rate(cres.Nodes, cres.Elapsed)
	if cres.Resumed {
		speed = "(resumed: nodes of the whole job)"
	}
	fmt.Fprintf(w, "nodes %d  time %v  %s  %s\n", cres.Nodes, cres.Elapsed.Round(time.Microsecond), cli.Plural(cres.Workers, "worker"), speed)
	fmt.Fprintf(w, "engine cluster (%s)\n", why)
	WriteMapping(w, m)
	return v.Require(sf.RequireOptimal)
}
