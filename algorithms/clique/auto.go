package clique

import (
	"context"
	"fmt"
	"time"

	"github.com/arbor-gpu/arbor/device/startup"
)

// solveAuto is the auto engine with a device open or still opening: nobody
// waits for a GPU. The CPU engine starts at once on every thread; an
// instance it settles before the device is open is answered without the
// device (opening a GPU takes a few tenths of a second, more than most
// instances need). Once the device is open, auto's head start has passed
// (headStart, autoHeadStart but in tests, from the CPU engine's start) and auto's rule gives the
// device the search (chooseEngine), the CPU engine stops and the hybrid
// takes over, starting from the CPU engine's best clique. What the CPU
// engine explored of its tree is lost, at most the opening's worth, while
// its clique carries over. choose is auto's rule (chooseEngine; tests pass
// their own to make a CPU device join).
func solveAuto(ctx context.Context, p *problem, opening *startup.Opening, threads int, start time.Time, headStart time.Duration,
	choose func(n int, opts Options) (Engine, string, error)) (Result, error) {
	cpuCtx, stopCPU := context.WithCancel(ctx)
	defer stopCPU()
	cpuDone := make(chan Result, 1)
	cpuStart := time.Now()
	go func() { cpuDone <- p.run(cpuCtx, threads, start) }()
	onCPU := func(res Result, why string) (Result, error) {
		res.Engine, res.Why = EngineCPU, why
		return res, nil
	}
	// A device that is open already (given open, or opened meanwhile)
	// decides first: select picks at random among ready cases, and an
	// instance the CPU engine settles at once would otherwise be answered
	// now for one reason, now for the other.
	select {
	case <-opening.Ready():
	default:
		select {
		case res := <-cpuDone:
			return onCPU(res, "the CPU engine settled it before the device was open")
		case <-opening.Ready():
		}
	}
	devs, openErr := opening.Wait()
	opts := p.opts
	opts.Devices = devs
	engine, why, err := choose(p.n, opts)
	switch {
	case openErr != nil:
		return onCPU(<-cpuDone, fmt.Sprintf("no device (%v)", openErr))
	case err != nil:
		return onCPU(<-cpuDone, err.Error())
	case engine == EngineCPU:
		return onCPU(<-cpuDone, why)
	}
	// The device is open and the rule gives it the search: the CPU engine
	// keeps it for the rest of its head start.
	head := time.NewTimer(headStart - time.Since(cpuStart))
	defer head.Stop()
	var res Result
	settled := false
	select {
	case res = <-cpuDone:
		settled = true
	case <-head.C:
		stopCPU()
		res = <-cpuDone
		settled = res.Proven || ctx.Err() != nil
	}
	opened := ""
	if took := opening.Took(); took > 0 {
		opened = fmt.Sprintf(" (the device opened in %v)", took.Round(time.Millisecond))
	}
	switch {
	case settled && !res.Proven:
		return onCPU(res, "stopped before the device joined"+opened)
	case settled:
		return onCPU(res, fmt.Sprintf("the CPU engine settled it within auto's head start of %v%s", headStart, opened))
	}
	nodes := res.Nodes
	if len(res.Clique) > len(p.init) {
		// The hybrid starts from the best clique the CPU engine found.
		pos := make([]int32, p.n)
		for i, v := range p.order {
			pos[v] = int32(i)
		}
		p.init = p.init[:0]
		for _, v := range res.Clique {
			p.init = append(p.init, pos[v])
		}
	}
	p.opts.Devices = devs
	res, err = p.solveDevice(ctx, engine == EngineHybrid, start)
	if err != nil {
		return Result{}, err
	}
	res.Nodes += nodes
	res.Engine = engine
	res.Why = fmt.Sprintf("%s; took over from the CPU engine after %v%s", why,
		time.Since(cpuStart).Round(time.Millisecond), opened)
	return res, nil
}
