package cliquecmd

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/clique"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/startup"
	"github.com/arbor-gpu/arbor/internal/batch"
)

// deviceEngines are the engines that search on a device: a CPU slot of a
// batch runs the CPU engine instead.
var deviceEngines = []clique.Engine{clique.EngineGPU, clique.EngineHybrid}

// runCliqueBatch is 'arbor clique --batch LIST'.
func runCliqueBatch(e *cli.Env, sr *cli.SearchFlags, bf *cli.BatchFlags, pos []string, opts clique.Options) error {
	sf := &sr.SolverFlags
	b, err := cli.NewOneFileBatch(e, "clique", sr, bf, pos, opts.Threads, opts.Engine.OpensDevice(), opts.Engine == clique.EngineAuto, opts.Complement,
		func(opened []backend.Device, err error) (startup.Placement, error) {
			return clique.Place(opts.Engine, opened, err)
		})
	if err != nil {
		return err
	}
	defer b.CloseAll()
	r, jobs, skipped := b.R, b.Jobs, b.Skipped
	kit := cli.SlotKit[clique.Engine]{Devs: b.Devs, Workers: b.Workers, CPU: clique.EngineCPU, DeviceEngines: deviceEngines}
	if opts.Goal > 0 && r.Devs > 0 {
		r.CPU = 0 // the fixed goal is the device engine's alone
	}
	if slices.Contains(deviceEngines, opts.Engine) {
		r.Fits = func(st []cli.GraphStat) error {
			if st[0].N > clique.DeviceMaxVertices {
				return fmt.Errorf("too large for the device engine (--engine %s): %d vertices, over its %d; use --engine auto or cpu", opts.Engine, st[0].N, clique.DeviceMaxVertices)
			}
			return nil
		}
	}
	r.Solve = func(ctx context.Context, j *cli.BatchJob, gs []*core.Graph, slot batch.Slot) (cli.BatchSolved, error) {
		g := gs[0]
		o := opts
		o.Threads = 1
		kit.Apply(slot, &o.Engine, &o.Devices, &o.Workers)
		if err := checkCliqueMatrix(e, j.Files[0], g); err != nil {
			return cli.BatchSolved{}, err
		}
		res, err := solveClique(ctx, j.Files, g, o)
		if err != nil {
			return cli.BatchSolved{}, err
		}
		res.Why = cli.SlotWhy(slot, res.Why)
		v := cli.NewVerdict(res.Status, o.Goal > 0, o.Goal, o.Goal > 0 && res.Size >= o.Goal)
		shown := cli.Shifted(res.Clique, sf.Base(g))
		text := fmt.Sprintf("%d vertices, %d edges  clique %s  %s  nodes %d  %v  engine %s%s", g.N, g.Edges(), cli.SizeText(v.Size(res.Size)),
			cli.StatusText(v, "maximum", fmt.Sprintf("clique of ≥ %d vertices", o.Goal)), res.Nodes, res.Elapsed.Round(time.Microsecond), res.Engine, cli.DeviceSuffix(res.Device))
		return cli.BatchSolved{Obj: cliqueObject(sf, j.Files, g, o, res, v, shown, o.Complement), Text: text, V: v, Size: res.Size}, nil
	}
	r.Prepare(jobs)
	return r.Run(jobs, skipped)
}
