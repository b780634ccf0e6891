package mcs

import (
	"context"
	"fmt"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
)

// solveAuto is the auto engine while the devices are still opening
// (Options.Opening): nobody waits for a GPU.
//
//  1. The CPU engine starts at once on every thread. An instance it
//     settles before the devices are even chosen is answered without them
//     (opening a GPU takes a few tenths of a second, more than most
//     instances need).
//  2. Once the devices are chosen (for a GPU, when the driver has
//     initialised: about half of the opening), auto's rule (choose:
//     chooseOn) says whether the device will take part. If not, the CPU
//     engine goes on alone. If the hybrid will run, the CPU threads switch
//     to its CPU half at once, McSplit↓ from the CPU engine's incumbent,
//     so that they work for the hybrid while the context is created,
//     rather than after. (What the CPU engine explored of its own tree is
//     lost: at most the driver's initialisation's worth.)
//  3. Once the device is open it joins that McSplit↓ as in the hybrid: it
//     explores the McSplit tree from the incumbent found so far while the
//     CPU threads prove from above.
//
// With a fixed goal the device engine runs alone (its tree is the point),
// so the CPU engine runs until the device is open, then hands over.
func solveAuto(ctx context.Context, g, h *core.Graph, opts Options, start time.Time,
	choose func(infos []backend.Info, g, h *core.Graph, opts Options) (Engine, string, error)) (Result, error) {
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, start.Add(opts.Timeout))
		defer cancel()
	}
	opening := opts.Opening
	opts.Opening, opts.Timeout = nil, 0
	cpuOpts := opts
	cpuOpts.Engine = EngineCPU
	cpuCtx, stopCPU := context.WithCancel(ctx)
	defer stopCPU()
	type outcome struct {
		res Result
		err error
	}
	cpuDone := make(chan outcome, 1)
	go func() {
		res, err := solve(cpuCtx, g, h, cpuOpts)
		cpuDone <- outcome{res, err}
	}()
	finish := func(o outcome, why string) (Result, error) {
		if o.err != nil {
			return Result{}, o.err
		}
		o.res.Engine, o.res.Why = EngineCPU, why
		o.res.Elapsed = time.Since(start)
		return o.res, nil
	}
	// Devices chosen already (given open) decide first: select picks at
	// random among ready cases (clique's auto says more).
	select {
	case <-opening.Chosen():
	default:
		select {
		case o := <-cpuDone:
			return finish(o, "the CPU engine settled it before the device was chosen")
		case <-opening.Chosen():
		}
	}
	infos, chooseErr := opening.Infos()
	engine, why, err := choose(infos, g, h, opts)
	switch {
	case chooseErr != nil:
		return finish(<-cpuDone, fmt.Sprintf("no device (%v)", chooseErr))
	case err != nil:
		return finish(<-cpuDone, err.Error())
	case engine == EngineCPU:
		return finish(<-cpuDone, why)
	}
	var o outcome
	var down *downSearch
	var p *problem[uint8]
	if engine == EngineHybrid {
		// The CPU threads move to the hybrid's half now.
		stopCPU()
		if o = <-cpuDone; o.err != nil || o.res.Proven || ctx.Err() != nil {
			return finish(o, "the CPU engine settled it as the device was chosen")
		}
		if p, err = newDeviceProblem(g, h, opts); err != nil {
			return Result{}, err
		}
		down = p.startDown(opts, o.res.Size)
		stopDown := context.AfterFunc(ctx, down.sh.halt)
		defer stopDown()
		select {
		case n := <-down.done:
			// McSplit↓ settled it before the device was open.
			return downResult(p, down, n, o.res, start, ctx.Err() == nil)
		case <-opening.Ready():
		}
	} else {
		select {
		case o := <-cpuDone:
			return finish(o, "the CPU engine settled it before the device was open")
		case <-opening.Ready():
		}
		stopCPU()
		if o = <-cpuDone; o.err != nil || o.res.Proven || ctx.Err() != nil {
			return finish(o, "the CPU engine settled it as the device opened")
		}
	}
	devs, openErr := opening.Wait()
	if openErr == nil && len(devs) == 0 {
		openErr = fmt.Errorf("the rule gave the engine none of them")
	}
	if openErr != nil {
		if down == nil {
			// The CPU engine stopped for nothing: it runs again, alone.
			res, err := solve(ctx, g, h, cpuOpts)
			return finish(outcome{res, err}, fmt.Sprintf("the device did not open (%v)", openErr))
		}
		res, err := downResult(p, down, <-down.done, o.res, start, ctx.Err() == nil)
		res.Why = fmt.Sprintf("the device did not open (%v): McSplit↓ alone", openErr)
		return res, err
	}
	opts.Devices = devs
	var res Result
	if down != nil {
		res, err = runDevice(ctx, p, opts, down, start, nil, o.res.Mapping)
	} else {
		res, err = solveDevice(ctx, g, h, opts, false, start, nil, o.res.Mapping)
	}
	if err != nil {
		return Result{}, err
	}
	res.Nodes += o.res.Nodes
	res.Engine = engine
	res.Why = fmt.Sprintf("%s, joined after the CPU engine's first %v (the device's opening)", why, opening.Took().Round(time.Millisecond))
	res.Elapsed = time.Since(start)
	return res, nil
}

// downResult is the answer of a McSplit↓ that returned (nodes: its count)
// before the device joined: its solution or, when it only proved the CPU
// engine's (cpu) optimal, that one. proven: it ran to its end.
func downResult(p *problem[uint8], down *downSearch, nodes int64, cpu Result, start time.Time, proven bool) (Result, error) {
	res := cpu
	res.Nodes += nodes
	res.Proven = proven && !down.sh.stop.Load()
	if len(down.sh.inc) > res.Size {
		res.Size, res.Mapping = len(down.sh.inc), p.mapping(down.sh.inc)
	}
	if len(res.Mapping) < p.opts.Floor {
		res.Size, res.Mapping = 0, nil
	}
	res.Engine = EngineCPU
	res.Why = "McSplit↓ (the hybrid's CPU half) settled it before the device was open"
	res.Elapsed = time.Since(start)
	return res, nil
}
