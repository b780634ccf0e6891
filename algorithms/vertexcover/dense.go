package vertexcover

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/clique"
	"github.com/arbor-gpu/arbor/core"
)

// Engine says how and where the search runs (Options.Engine): the CPU
// routes (auto, branch, clique, cpu) and the device engines (gpu, hybrid,
// device.go). Its values are the CLI's --engine names.
type Engine string

// The engines that choose among the CPU routes.
const (
	// EngineAuto solves each kernel component with the clique route when
	// its density reaches DenseThreshold, by branch and reduce otherwise;
	// with a device, the device joins a dense root kernel (auto.go).
	EngineAuto Engine = "auto"
	// EngineBranch is branch and reduce only.
	EngineBranch Engine = "branch"
	// EngineClique solves every kernel component the clique route can
	// hold (cliqueMaxKernel vertices) as n − ω(complement).
	EngineClique Engine = "clique"
)

// DenseThreshold is the kernel density (2m / n(n−1)) from which the auto
// engine solves a kernel component as a maximum clique of its complement
// (raced against branch and reduce on the top-level kernels; see dense).
// Measured on two cores (docs/design/vertexcover.md): on G(n,p) kernels of 100–150
// vertices the clique route is faster from p = 0.08 up (2–300×); at 200
// vertices it loses at p = 0.05, wins from p = 0.15, and both time out at
// 0.08–0.12. On the Yamout cop_hat graphs (density 0.25–0.75) it is
// 10–1000× faster than branch and reduce; on the 200-vertex PACE kernels
// (density 0.04–0.06) it is 1–4× slower.
const DenseThreshold = 0.08

// cliqueHeadStart is how long the clique route runs alone before branch
// and reduce starts beside it (auto mode): long enough for the cop_hat
// kernels that take it tens of milliseconds, short against the local
// search's 300 ms slot that would otherwise run first.
const cliqueHeadStart = 100 * time.Millisecond

// cliqueMaxKernel is the largest kernel component the clique route takes:
// the clique engine keeps an n×n bit matrix (32 MiB at this size).
const cliqueMaxKernel = 1 << 14

// denseRoute is what every engine of one Solve call shares about the
// engine choice: the mode asked for and what ran.
type denseRoute struct {
	mode      Engine
	threshold float64
	// maxMemory is Options.MaxMemory: a kernel whose clique bit matrices
	// pass it stays with branch and reduce.
	maxMemory int64

	cliqueRuns atomic.Int64 // kernel components settled by the clique route
	cliqueNode atomic.Int64 // their clique search nodes
	branchRuns atomic.Int64 // kernel components left to branch and reduce

	mu  sync.Mutex
	why string // the top-level kernel's decision

	join *autoJoin // auto with a device: where it joins a dense root kernel (auto.go); nil: none
}

func newDenseRoute(mode Engine, maxMemory int64) (*denseRoute, error) {
	switch mode {
	case "":
		mode = EngineAuto
	case EngineAuto, EngineBranch, EngineClique:
	default:
		return nil, fmt.Errorf("vertex cover: unknown engine %q (want %s, %s or %s)", mode, EngineAuto, EngineBranch, EngineClique)
	}
	return &denseRoute{mode: mode, threshold: DenseThreshold, maxMemory: maxMemory}, nil
}

// engine names what settled the answer, for Result.Engine.
func (d *denseRoute) engine() string {
	c, b := d.cliqueRuns.Load(), d.branchRuns.Load()
	switch {
	case c > 0 && b > 0:
		return string(EngineBranch + "+" + EngineClique)
	case c > 0:
		return string(EngineClique)
	}
	return string(EngineBranch)
}

func (d *denseRoute) explain() string {
	d.mu.Lock()
	why := d.why
	d.mu.Unlock()
	if why == "" {
		why = "the root reductions and bounds settled it"
	}
	if c := d.cliqueRuns.Load(); c > 0 {
		why += fmt.Sprintf("; %d kernel component(s) by the clique route (%d clique nodes)", c, d.cliqueNode.Load())
	}
	return why
}

// edgeDensity is m over the n(n−1)/2 pairs of n vertices (0 for n < 2).
func edgeDensity(n, m int) float64 {
	if n < 2 {
		return 0
	}
	return 2 * float64(m) / (float64(n) * float64(n-1))
}

// useClique decides whether the kernel (n vertices, m edges) goes to the
// clique route, and says why.
func (d *denseRoute) useClique(n, m int) (bool, string) {
	density := edgeDensity(n, m)
	switch {
	case d.mode == EngineBranch:
		return false, fmt.Sprintf("kernel of %d vertices, density %.3f: branch and reduce (asked for)", n, density)
	case n > cliqueMaxKernel:
		return false, fmt.Sprintf("kernel of %d vertices, more than the clique route holds (%d): branch and reduce", n, cliqueMaxKernel)
	case clique.CheckMemory(n, d.maxMemory) != nil:
		return false, fmt.Sprintf("kernel of %d vertices: the clique route's bit matrices pass the memory limit: branch and reduce", n)
	case d.mode == EngineClique:
		return true, fmt.Sprintf("kernel of %d vertices, density %.3f: clique route on the complement (asked for)", n, density)
	case density >= d.threshold:
		return true, fmt.Sprintf("kernel of %d vertices, density %.3f ≥ %.2f: clique route on the complement", n, density, d.threshold)
	}
	return false, fmt.Sprintf("kernel of %d vertices, density %.3f < %.2f: branch and reduce", n, density, d.threshold)
}

// dense starts the clique route on the root kernel of s when the engine
// choice says so: the minimum cover of the kernel is its vertex count less
// the clique number of its complement. The cover is mapped back through
// rootOps and offered like any other; the root lower bound lb caps the
// clique search, and its proven bound raises lb in turn when it stops
// early.
//
// With ok the route ran alone (engine "clique", or a component inside the
// tree) and the caller returns cover and proven. Otherwise the caller goes
// on with branch and reduce and calls wait before it returns: on the top
// kernels in auto mode the clique route races beside it (its local search
// closes kernels whose lower bound is tight, such as BHOSLIB's, at once,
// where the clique search would take minutes), the first proof halts the
// other, and wait cancels the route and waits for it.
func (e *engine) dense(s *state, rootOps []op, lb int, top bool) (cover []int32, proven, ok bool, wait func()) {
	d := e.route
	if d == nil {
		return nil, false, false, func() {}
	}
	use, why := d.useClique(s.nAlive, s.m)
	note := func(why string) {
		if e.parent == nil {
			d.mu.Lock()
			d.why = why
			d.mu.Unlock()
		}
	}
	note(why)
	if !use {
		d.branchRuns.Add(1)
		return nil, false, false, func() {}
	}
	// The clique engine stops on a context: cancel it when this engine
	// is stopped (timeout, Ctrl-C, a parent's target reached).
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if e.stopped() {
					cancel()
					return
				}
			}
		}
	}()
	if d.mode == EngineClique || !top {
		defer cancel()
		won, err := e.cliqueRoute(ctx, e.cliqueJob(s, lb), rootOps)
		if err != nil {
			note(why + fmt.Sprintf(" (failed: %v; branch and reduce instead)", err))
			d.branchRuns.Add(1)
			return nil, false, false, func() {}
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.cover, won && !e.sh.stop.Load() && (e.parent == nil || !e.parent.stopped()), true, func() {}
	}
	done := make(chan struct{})
	var won bool
	var failed error
	job := e.cliqueJob(s, lb) // here: the search changes s from now on
	routeCtx, stopRoute := context.WithCancel(ctx)
	if d.join != nil && e.parent == nil {
		// auto with a device: it joins on this kernel once open (auto.go),
		// and then the CPU's clique route stops (stopRoute): the device
		// runs the same search far faster, and two CPU searches racing
		// beside it starve its host loop of the CPU.
		d.join.start(e, job, rootOps, stopRoute)
	}
	go func() {
		defer close(done)
		won, failed = e.cliqueRoute(routeCtx, job, rootOps)
		if failed != nil && routeCtx.Err() != nil {
			failed = nil // stopped: the device took the clique route over
		}
		if won {
			e.halt.Store(true) // branch and reduce stops: the cover is minimum
		}
	}()
	// A head start: most dense kernels are settled within it, without
	// paying for the local search's own time slot.
	select {
	case <-done:
		if won {
			cancel()
			stopRoute()
			note(why + ", raced against branch and reduce: the clique route proved it within its head start")
			e.mu.Lock()
			defer e.mu.Unlock()
			return e.cover, !e.sh.stop.Load() && (e.parent == nil || !e.parent.stopped()), true, func() {}
		}
	case <-time.After(cliqueHeadStart):
	}
	return nil, false, false, func() {
		cancel()
		stopRoute()
		<-done
		switch {
		case d.join != nil && d.join.won.Load():
			note(why + ", raced against branch and reduce on the CPU and the clique route on the device: the device proved it first")
			return
		case failed != nil:
			note(why + fmt.Sprintf(", raced against branch and reduce, which won (the clique route failed: %v)", failed))
		case won:
			note(why + ", raced against branch and reduce: the clique route proved it first")
			return
		case e.sh.stop.Load():
			// The time limit or an interrupt: nothing was proven, and
			// saying who "proved it first" would contradict the status.
			note(why + ", raced against branch and reduce: stopped before either proved it")
		default:
			note(why + ", raced against branch and reduce: branch and reduce proved it first")
		}
		d.branchRuns.Add(1)
	}
}

// cliqueJob is the clique route's input, taken from the state before the
// search changes it.
type cliqueJob struct {
	kg    *core.Graph
	ids   []int32 // state vertex of each kernel vertex
	n     int     // state vertices
	cover int     // cover size so far (the root reductions')
	opts  clique.Options
}

// cliqueJob takes the live graph of s (the root kernel) and the first
// clique: the kernel vertices the reduction-interleaved greedy leaves out
// of its cover are independent. The root lower bound lb caps ω.
func (e *engine) cliqueJob(s *state, lb int) cliqueJob {
	kg, ids := s.extract(nil)
	diveIn, _ := s.greedyDive()
	var initial []int
	for i, v := range ids {
		if !diveIn[v] {
			initial = append(initial, i)
		}
	}
	j := cliqueJob{kg: kg, ids: ids, n: s.n, cover: s.cover,
		opts: clique.Options{Threads: e.threads, Complement: true, Initial: initial}}
	if e.route != nil { // an engine made without the dense route (tests) keeps the default limit
		j.opts.MaxMemory = e.route.maxMemory
	}
	if klb := lb - s.cover; klb > 0 {
		j.opts.UpperBound = kg.N - klb // the kernel needs klb cover vertices: ω ≤ n − klb
	}
	return j
}

// cliqueRoute solves the job as n − ω of the complement, offers the cover
// and reports whether it was proven minimum.
func (e *engine) cliqueRoute(ctx context.Context, j cliqueJob, rootOps []op) (bool, error) {
	d := e.route
	if e.sh.limit > 0 {
		// What is left of the node limit; count stops the rest.
		j.opts.NodeLimit = max(1, e.sh.limit-e.sh.nodes.Load())
	}
	res, err := clique.Maximum(ctx, j.kg, j.opts)
	if err != nil {
		return false, err
	}
	e.sh.count(res.Nodes)
	d.cliqueNode.Add(res.Nodes)
	in := make([]bool, j.n)
	for _, v := range j.ids {
		in[v] = true
	}
	for _, v := range res.Clique {
		in[j.ids[v]] = false
	}
	resolve(rootOps, in)
	e.offerSet(in, j.cover+j.kg.N-res.Size)
	// The clique bound is a cover bound: raise the root lower bound.
	klb := int64(j.cover + j.kg.N - res.UpperBound)
	for old := e.rootLB.Load(); klb > old && !e.rootLB.CompareAndSwap(old, klb); old = e.rootLB.Load() {
	}
	if res.Proven {
		d.cliqueRuns.Add(1)
	}
	return res.Proven, nil
}
