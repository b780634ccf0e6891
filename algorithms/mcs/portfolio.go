package mcs

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/ticker"
)

// portfolioConfig is one search of the portfolio.
type portfolioConfig struct {
	name   string
	opts   Options
	device bool
}

// portfolioConfigs lists the portfolio's searches for a CPU budget of
// threads: the degree order (with the spare threads), McSplit↓, the block
// order (h1), dead-end raising (h2) and restarts (h3), as many as the
// budget runs one per core, and at least the first two. They fail on
// different pairs (↓ wins on nearly isomorphic graphs, a different order
// on graphs whose degree order splits the bidomains late, restarts where
// the first subtree is a trap), which is what a portfolio is for.
func portfolioConfigs(base Options, threads int) []portfolioConfig {
	all := []portfolioConfig{
		{name: "degree order", opts: base},
		{name: "McSplit↓", opts: base},
		{name: "block order (h1)", opts: base},
		{name: "dead-end raising (h2)", opts: base},
		{name: "restarts (h3)", opts: base},
	}
	all[1].opts.BigFirst = true
	all[2].opts.BlockOrder = true
	all[3].opts.DeadEnd, all[3].opts.DoubleRaise = 1_000_000, true
	all[4].opts.Restarts, all[4].opts.Seed = true, 1
	n := min(len(all), max(2, threads))
	out := all[:n]
	for i := range out {
		out[i].opts.Threads = 1
	}
	out[0].opts.Threads = max(1, threads-(n-1))
	return out
}

// solvePortfolio runs the portfolio: every configuration on its own
// prepared problem (their vertex orders differ, so solutions are not
// traded, only sizes). A bridge raises every search's incumbent size to
// the best any has found, every millisecond, and the device engine trades
// sizes after each epoch. Why the answer is right: a search that ends
// unstopped has proven that nothing beats its final incumbent size; that
// size was found by itself or by another search (sizes only travel from
// where a solution was found), and every search returns its own best
// solution, so the largest returned has exactly that size.
func solvePortfolio(ctx context.Context, g, h *core.Graph, opts Options, start time.Time) (Result, error) {
	if opts.Goal > 0 || opts.BigFirst || opts.BlockOrder || opts.DeadEnd > 0 || opts.Restarts {
		return Result{}, errors.New("mcs: the portfolio picks its own configurations: no fixed goal, big-first, block order, dead-end or restarts with it")
	}
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	base := opts
	base.Engine, base.Devices, base.Progress, base.Timeout = EngineCPU, nil, nil, 0
	configs := portfolioConfigs(base, threads)
	if len(opts.Devices) > 0 && deviceUnsupported(g.N, h.N, opts) == "" {
		d := opts
		d.Engine, d.Progress, d.Timeout = EngineGPU, nil, 0
		configs = append(configs, portfolioConfig{name: "device " + opts.Devices[0].Info().Name, opts: d, device: true})
	}
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var global atomic.Int32
	offer := func(b int) int {
		for {
			cur := global.Load()
			if int32(b) <= cur || global.CompareAndSwap(cur, int32(b)) {
				return int(global.Load())
			}
		}
	}
	// The CPU searches' shared states, for the bridge: each registers
	// its own before it starts.
	var mu sync.Mutex
	var states []*shared
	register := func(sh *shared) {
		mu.Lock()
		states = append(states, sh)
		mu.Unlock()
	}
	bridge := func() {
		mu.Lock()
		defer mu.Unlock()
		for _, sh := range states {
			offer(int(sh.best.Load()))
		}
		b := global.Load()
		for _, sh := range states {
			sh.raise(b)
		}
	}
	stopBridge := ticker.Every(time.Millisecond, bridge)
	defer stopBridge()
	if opts.Progress != nil {
		defer ticker.Every(opts.ProgressInterval, func() {
			mu.Lock()
			var nodes int64
			for _, sh := range states {
				nodes += sh.nodes.Load()
			}
			mu.Unlock()
			opts.Progress(Progress{Incumbent: int(global.Load()), Nodes: nodes, Elapsed: time.Since(start)})
		})()
	}

	type outcome struct {
		i   int
		res Result
		err error
	}
	done := make(chan outcome, len(configs))
	for i, c := range configs {
		go func() {
			var res Result
			var err error
			switch {
			case c.device:
				res, err = solveDevice(ctx, g, h, c.opts, false, start, offer, nil)
			case c.opts.Directed || c.opts.EdgeLabels:
				res, err = runConfig[uint32](ctx, g, h, c.opts, start, register)
			default:
				res, err = runConfig[uint8](ctx, g, h, c.opts, start, register)
			}
			if err == nil {
				offer(res.Size)
			}
			done <- outcome{i, res, err}
		}()
	}
	var best Result
	have := false
	var firstErr error
	winner := -1
	var nodes int64
	for range configs {
		o := <-done
		if o.err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("%s: %w", configs[o.i].name, o.err)
			}
			continue
		}
		nodes += o.res.Nodes
		if o.res.Proven && winner < 0 {
			winner = o.i
			cancel() // the first proof settles it: stop the others
		}
		if !have || o.res.Size > best.Size {
			best, have = o.res, true
		}
	}
	if !have {
		return Result{}, firstErr
	}
	names := make([]string, len(configs))
	for i, c := range configs {
		names[i] = c.name
	}
	best.Nodes, best.Proven, best.Threads = nodes, winner >= 0, threads
	best.Shared, best.Epochs, best.Tail, best.Targets = 0, 0, 0, 0
	if winner >= 0 {
		best.Why = fmt.Sprintf("%s proved it first, of: %s", configs[winner].name, strings.Join(names, ", "))
	} else {
		best.Why = "stopped before any proof, of: " + strings.Join(names, ", ")
	}
	return best, nil
}

// runConfig prepares and runs one CPU configuration of the portfolio.
func runConfig[C cell](ctx context.Context, g, h *core.Graph, opts Options, start time.Time, register func(*shared)) (Result, error) {
	p, err := newProblem[C](g, h, opts)
	if err != nil {
		return Result{}, err
	}
	if opts.Prune != PruneNone && !opts.Restarts { // rr2: rr's tree
		p.enablePrune()
	}
	sh := p.newShared()
	register(sh)
	res := p.runShared(ctx, sh, opts.Threads, start)
	if res.Mapping == nil {
		res.Mapping = [][2]int{}
	}
	return res, nil
}
