package vccmd

import (
	"context"
	"fmt"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/startup"
	"github.com/arbor-gpu/arbor/internal/batch"
)

// runVCBatch is 'arbor vc --batch LIST'.
func runVCBatch(e *cli.Env, sr *cli.SearchFlags, bf *cli.BatchFlags, pos []string, opts vertexcover.Options, complement bool) error {
	sf := &sr.SolverFlags
	b, err := cli.NewOneFileBatch(e, "vc", sr, bf, pos, opts.Threads, opts.Engine.OpensDevice(), opts.Engine == vertexcover.EngineAuto, complement,
		func(opened []backend.Device, err error) (startup.Placement, error) {
			return vertexcover.Place(opts.Engine, opened, err)
		})
	if err != nil {
		return err
	}
	defer b.CloseAll()
	r, jobs, skipped := b.R, b.Jobs, b.Skipped
	// A CPU slot runs auto: its choice among the CPU engines.
	kit := cli.SlotKit[vertexcover.Engine]{Devs: b.Devs, Workers: b.Workers, CPU: vertexcover.EngineAuto,
		DeviceEngines: []vertexcover.Engine{vertexcover.EngineAuto, vertexcover.EngineGPU, vertexcover.EngineHybrid}}
	timeout := *sr.Timeout
	r.Solve = func(ctx context.Context, j *cli.BatchJob, gs []*core.Graph, slot batch.Slot) (cli.BatchSolved, error) {
		g := gs[0]
		if g.Directed {
			return cli.BatchSolved{}, fmt.Errorf("%s: vertex cover needs an undirected graph", j.Files[0])
		}
		if complement {
			if err := checkComplement(e, j.Files[0], g); err != nil {
				return cli.BatchSolved{}, err
			}
			g = vertexcover.Complement(g)
		}
		o := opts
		o.Threads = 1
		kit.Apply(slot, &o.Engine, &o.Devices, &o.Workers)
		if timeout > 0 {
			var cancel func()
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		res, err := solveVC(ctx, j.Files, g, o)
		if err != nil {
			return cli.BatchSolved{}, err
		}
		res.Why = cli.SlotWhy(slot, res.Why)
		k := -1
		if o.Parameterized {
			k = o.K
		}
		v := cli.NewVerdict(res.Status, k >= 0, k, k >= 0 && res.Cover != nil)
		size := "none"
		if res.Cover != nil {
			size = fmt.Sprint(len(res.Cover))
		}
		text := fmt.Sprintf("%d vertices, %d edges  cover %s  %s  nodes %d  %v  engine %s%s", g.N, g.Edges(), size,
			cli.StatusText(v, "minimum", fmt.Sprintf("cover of size ≤ %d", k)), res.Nodes, res.Elapsed.Round(time.Microsecond), res.Engine, cli.DeviceSuffix(res.Device))
		return cli.BatchSolved{Obj: vcObject(sf, j.Files, g, o, res, v, 1), Text: text, V: v, Size: len(res.Cover)}, nil
	}
	r.Prepare(jobs)
	return r.Run(jobs, skipped)
}
