package vccmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/cluster"
	"github.com/arbor-gpu/arbor/core"
)

// runVCCluster is 'arbor vc GRAPH --cluster ...': a minimum vertex cover,
// through the contract of a local run (output.go).
func runVCCluster(e *cli.Env, cf cli.ClusterFlags, workers, threads int, name string, g *core.Graph, timeout time.Duration, sf cli.SolverFlags) error {
	cfg, closeCluster, err := cf.Coordinator(e, workers, threads, sf.JSON || !sf.Verbose)
	if err != nil {
		return err
	}
	defer closeCluster()
	ctx := e.Ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	prog := cli.NewProgress(e)
	cfg.Progress = func(p cluster.Progress) {
		prog.Update(cli.ClusterProgress("best", "bound ≥", p))
	}
	cres, err := cluster.SolveVC(ctx, cfg, g)
	prog.Done()
	if err != nil && !(ctx.Err() != nil && errors.Is(err, ctx.Err())) {
		return err
	}
	// Every vertex is a cover, so there is always one to report.
	status := core.StatusFeasible
	if cres.Proven {
		status = core.StatusOptimal
	}
	res := vertexcover.Result{Cover: cres.Cover, Proven: cres.Proven, Status: status}
	if err := GuardVC(g, res, -1); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	v := cli.NewVerdict(res.Status, false, 0, false)
	base := sf.Base(g)
	if sf.Out != "" {
		if err := writePACE(sf.Out, g.N, res.Cover, paceComments(v)); err != nil {
			return err
		}
	}
	// The coordinator knows no bound beyond a maximal matching's until
	// the job is proven.
	lower := MaximalMatching(g)
	if res.Proven {
		lower = len(res.Cover)
	}
	why := cli.ClusterWhy(cf, cres)
	if sf.JSON {
		type jsonResult struct {
			Files []string `json:"files"`
			N     int      `json:"vertices"`
			M     int      `json:"edges"`
			Base  int      `json:"base"`
			Size  int      `json:"size"`
			cli.Verdict
			LowerBound int              `json:"lower_bound"`
			Nodes      int64            `json:"nodes"`
			Engine     string           `json:"engine"`
			Why        string           `json:"why"`
			Seconds    float64          `json:"seconds"`
			Threads    *int             `json:"threads,omitempty"`
			Verified   bool             `json:"verified"`
			Cover      []int            `json:"cover"`
			Cluster    *cli.ClusterJSON `json:"cluster"`
		}
		if err := json.NewEncoder(e.Stdout).Encode(jsonResult{Files: []string{name}, N: g.N, M: g.Edges(), Base: base, Size: len(res.Cover), Verdict: v,
			LowerBound: lower, Nodes: cres.Nodes, Engine: "cluster", Why: why, Seconds: cres.Elapsed.Seconds(), Threads: cli.ClusterThreads(cf),
			Verified: sf.Verify, Cover: cli.Shifted(res.Cover, base), Cluster: cli.NewClusterJSON(cres)}); err != nil {
			return err
		}
		return v.Require(sf.RequireOptimal)
	}
	text := cli.StatusText(v, "minimum", "")
	if sf.Verify {
		text += ", cover verified"
	}
	fmt.Fprintf(e.Stdout, "%s: %d vertices, %d edges  cover %d  %s  lower bound %d  nodes %d  %v  engine cluster (%s)\n",
		name, g.N, g.Edges(), len(res.Cover), text, lower, cres.Nodes, cres.Elapsed.Round(time.Millisecond), why)
	return v.Require(sf.RequireOptimal)
}
