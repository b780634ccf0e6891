package vertexcover

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/clique"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/startup"
)

// The auto engine with a device (Options.Opening, or Options.Devices):
// nobody waits for the device, and it is used only where it is measured
// to win.
//
// The CPU engine starts at once, exactly as --engine cpu runs it. When the
// root kernel goes to the clique route (density ≥ DenseThreshold: n − ω of
// its complement), the device starts opening in the background after a
// head start (joinHeadStart; with startup.OpenWhenAsked nothing else pays
// for it). If the kernel is still open once the device is, and the device
// is a GPU with warp-level operations (autoJoinRule), the clique engine's
// device search joins on that kernel and the CPU's own clique route stops
// (the device runs the same search far faster); branch and reduce goes on
// beside it with one core left free, the device's covers and bound feed
// its incumbent and lower bound, and the first proof settles the answer.
// Leaving the clique route and a core to the device matters: with every
// core busy, each wake-up of the device's host loop waits for a preemption
// (up to 10 ms), and cop_hat500-3 took 68 epochs over 8.3 s on the H200
// instead of 11 in 1.0 s. Measured there (docs/results/startup.md):
// cop_hat500-3 8.2–8.7 s on the CPU engine, auto 1.2–1.4 s, --engine
// hybrid 0.9–1.1 s (on the H100 the device alone proved it in 0.31 s of
// search, docs/results/vertexcover.md). Everything else stays on the CPU
// engine: on sparse kernels the device's branch and reduce (vc_epoch),
// with a matching bound far weaker than the CPU's, matched or lost to the
// CPU engine on every measured instance.

// joinHeadStart is how long a dense kernel runs on the CPU before the
// device starts opening: startup.HeadStart, the head start of mcs's and
// clique's auto (measured on the H200, vc cop_hat500-2 took 53 ms on the
// CPU engine and 104 ms when the device started opening at once: the exit
// waits for the driver's initialisation).
const joinHeadStart = startup.HeadStart

// autoJoinRule says whether the device may join a dense kernel, and why.
// The clique device search's colouring rests on warp-level operations
// (the work-group fallback measured 2.3× CUDA's time on frb30-15-1).
func autoJoinRule(devs []backend.Device) (bool, string) {
	if len(devs) == 0 {
		return false, "no device"
	}
	info := devs[0].Info()
	switch {
	case info.Type != backend.TypeGPU:
		return false, fmt.Sprintf("%s is not a GPU", info)
	case !device.WarpLevel(info):
		return false, fmt.Sprintf("%s has no warp-level operations (CUDA, or OpenCL with a sub-group path), which the clique device search needs", info)
	}
	return true, fmt.Sprintf("GPU %s with warp-level operations, measured to settle dense kernels the CPU engine takes seconds over (docs/results/vertexcover.md)", info.Name)
}

// autoJoin is the device side of one auto Solve: it waits for the root
// kernel's decision (dense calls start) and for the opening, then runs the
// clique engine's device search on the kernel beside the CPU engine.
type autoJoin struct {
	opening *startup.Opening
	rule    func([]backend.Device) (bool, string)
	workers int
	begin   time.Time // when Solve started

	ctx    context.Context // cancelled when Solve's CPU engine is done
	cancel context.CancelFunc
	wg     sync.WaitGroup

	started atomic.Bool // dense called start: the root kernel is dense
	timer   *time.Timer // starts the opening after joinHeadStart (under mu)
	won     atomic.Bool // the device proved the kernel's answer first

	mu      sync.Mutex
	outcome string        // why the device did or did not join (empty: still waiting)
	joined  bool          // the device search ran
	device  string        // on this device
	after   time.Duration // since Solve started, when it joined
	res     clique.Result // the device search's result
	err     error         // the device search's failure (not a cancellation): the CPU engine goes on
}

func newAutoJoin(ctx context.Context, opening *startup.Opening, rule func([]backend.Device) (bool, string), workers int, begin time.Time) *autoJoin {
	j := &autoJoin{opening: opening, rule: rule, workers: workers, begin: begin}
	j.ctx, j.cancel = context.WithCancel(ctx)
	return j
}

// start is called by the top engine once its root kernel goes to the
// clique route (job, before the search changes the state): the device
// joins when it is open, if the rule lets it.
func (j *autoJoin) start(e *engine, job cliqueJob, rootOps []op, stopCPURoute func()) {
	if !j.started.CompareAndSwap(false, true) {
		return
	}
	// A dense kernel: open the device after a head start (most dense
	// kernels are settled within it, and then never touch the driver,
	// whose initialisation a process that exits meanwhile must wait for).
	j.mu.Lock()
	j.timer = time.AfterFunc(joinHeadStart, j.opening.Start)
	j.mu.Unlock()
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		select {
		case <-j.ctx.Done():
			return // the CPU engine settled it first
		case <-j.opening.Ready():
		}
		if j.ctx.Err() != nil {
			return
		}
		devs, err := j.opening.Wait()
		if err != nil {
			j.set(fmt.Sprintf("no device (%v)", err))
			return
		}
		ok, why := j.rule(devs)
		if ok && job.kg.N > clique.DeviceMaxVertices {
			ok, why = false, fmt.Sprintf("a kernel of %d vertices, more than the clique device search takes (%d)", job.kg.N, clique.DeviceMaxVertices)
		}
		if !ok {
			j.set(why + ": the CPU engine alone")
			return
		}
		co := job.opts
		co.Engine, co.Devices, co.Workers, co.Threads = clique.EngineGPU, devs, j.workers, 1
		after := time.Since(j.begin)
		j.mu.Lock()
		j.joined, j.after, j.outcome, j.device = true, after, why, devs[0].Info().String()
		j.mu.Unlock()
		if stopCPURoute != nil {
			stopCPURoute()
		}
		res, err := clique.Maximum(j.ctx, job.kg, co)
		if err != nil {
			if !errors.Is(err, context.Canceled) && j.ctx.Err() == nil {
				j.mu.Lock()
				j.err = err
				j.mu.Unlock()
			}
			return
		}
		j.mu.Lock()
		j.res = res
		j.mu.Unlock()
		e.sh.count(res.Nodes)
		// The device's clique is a cover of the kernel, its bound a
		// lower bound on the cover (as the CPU's clique route offers).
		in := make([]bool, job.n)
		for _, v := range job.ids {
			in[v] = true
		}
		for _, v := range res.Clique {
			in[job.ids[v]] = false
		}
		resolve(rootOps, in)
		e.offerSet(in, job.cover+job.kg.N-res.Size)
		klb := int64(job.cover + job.kg.N - res.UpperBound)
		for old := e.rootLB.Load(); klb > old && !e.rootLB.CompareAndSwap(old, klb); old = e.rootLB.Load() {
		}
		if res.Proven && !e.stopped() {
			j.won.Store(true)
			e.halt.Store(true) // the CPU engine stops: the cover is minimum
		}
	}()
}

func (j *autoJoin) set(outcome string) {
	j.mu.Lock()
	j.outcome = outcome
	j.mu.Unlock()
}

// finish stops the device search (the CPU engine is done) and waits for it.
func (j *autoJoin) finish() {
	j.mu.Lock()
	if j.timer != nil {
		j.timer.Stop() // not opened yet: it never will be
	}
	j.mu.Unlock()
	j.cancel()
	j.wg.Wait()
}

// report completes res (the CPU engine's) with what the device did: the
// engine is hybrid when the device joined; Why says in every case why the
// device did or did not take part. A device search that failed is said
// there too: the CPU engine's answer stands without it.
func (j *autoJoin) report(res *Result) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var why string
	switch {
	case j.joined:
		settled := "the CPU engine"
		if j.won.Load() {
			settled = "the device"
		}
		why = fmt.Sprintf("auto: %s; the clique engine's gpu search on %s joined after %v (the device opened in %v), beside the CPU engine; settled by %s",
			j.outcome, j.res.Device, j.after.Round(time.Millisecond), j.opening.Took().Round(time.Millisecond), settled)
		res.Engine = string(EngineHybrid)
		res.Device, res.Workers, res.Epochs, res.Moved = j.res.Device, j.res.Threads, j.res.Epochs, j.res.Moved
		if res.Device == "" {
			res.Device = j.device
		}
		if j.err != nil {
			why += fmt.Sprintf(" (the device search failed: %v)", j.err)
		}
	case j.outcome != "":
		why = "auto: " + j.outcome
	case !j.started.Load():
		why = "auto: the CPU engine; the device joins only kernels that go to the clique route, where it is measured to win"
	case !j.opening.Done():
		why = "auto: the CPU engine settled it before the device was open"
	default:
		why = "auto: the CPU engine settled it as the device opened"
	}
	res.Why += "; " + why
}
