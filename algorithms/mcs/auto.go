package mcs

import (
	"context"
	"fmt"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// solveAuto is the auto engine while the devices are still opening
// (Options.Opening): nobody waits for a GPU. The CPU engine starts at once
// on every thread; an instance it settles before the device is open is
// answered without the device (opening a GPU takes a few tenths of a
// second, more than most instances need). Once the device is open and
// auto's rules give it the search (chooseEngine), the CPU engine stops and
// the hybrid takes over, starting from the CPU engine's incumbent: the
// device then explores the McSplit tree while the CPU threads prove from
// above (McSplit↓), the division of labour that wins on long searches.
// What the CPU engine explored of its own tree is lost, at most the
// opening time's worth, while its incumbent carries over. choose is
// auto's rule (chooseEngine; tests pass their own to make a CPU device
// join).
func solveAuto(ctx context.Context, g, h *core.Graph, opts Options, start time.Time,
	choose func(g, h *core.Graph, opts Options) (Engine, string, error)) (Result, error) {
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
	select {
	case o := <-cpuDone:
		return finish(o, "the CPU engine settled it before the device was open")
	case <-opening.Ready():
	}
	devs, openErr := opening.Wait()
	opts.Devices = devs
	engine, why, err := choose(g, h, opts)
	switch {
	case openErr != nil:
		return finish(<-cpuDone, fmt.Sprintf("no device (%v)", openErr))
	case err != nil:
		return finish(<-cpuDone, err.Error())
	case engine == EngineCPU:
		return finish(<-cpuDone, why)
	}
	stopCPU()
	o := <-cpuDone
	if o.err != nil || o.res.Proven || ctx.Err() != nil {
		return finish(o, fmt.Sprintf("the CPU engine settled it as the device opened (%v)", opening.Took().Round(time.Millisecond)))
	}
	res, err := solveDevice(ctx, g, h, opts, engine == EngineHybrid, start, nil, o.res.Mapping)
	if err != nil {
		return Result{}, err
	}
	res.Nodes += o.res.Nodes
	res.Engine = engine
	res.Why = fmt.Sprintf("%s, joined after the CPU engine's first %v (the device's opening)", why, opening.Took().Round(time.Millisecond))
	res.Elapsed = time.Since(start)
	return res, nil
}
