package vertexcover

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/cpu"
	"github.com/arbor-gpu/arbor/device/startup"
	"github.com/arbor-gpu/arbor/device/startup/startuptest"
)

// TestAutoDoesNotWait: with the device still opening (and never done),
// auto answers every instance, sparse and dense, on the CPU engine, proven
// and equal to brute force, and says why; an opening that fails leaves the
// CPU engine too, and the gpu engine reports its failure.
func TestAutoDoesNotWait(t *testing.T) {
	opening := startuptest.Stuck(t)
	rng := rand.New(rand.NewPCG(35, 21))
	dense := 0
	for i := 0; i < 24; i++ {
		g := gnp(t, 2+rng.IntN(16), 0.05+0.6*rng.Float64(), uint64(3500+i))
		res := solveDev(t, g, Options{Opening: opening, Threads: 2})
		if want := bruteMin(g); !res.Proven || len(res.Cover) != want {
			t.Fatalf("case %d (n=%d m=%d): cover %d proven %v, brute force %d", i, g.N, g.Edges(), len(res.Cover), res.Proven, want)
		}
		// A dense root kernel waited for the device, in vain; any other
		// never asked for it.
		want := "joins only kernels that go to the clique route"
		if strings.Contains(res.Why, "clique route on the complement") {
			dense++
			want = "before the device was open"
		}
		if res.Engine == string(EngineHybrid) || res.Device != "" || !strings.Contains(res.Why, want) {
			t.Fatalf("case %d: engine %s device %q (%s), want the CPU engine (%s)", i, res.Engine, res.Device, res.Why, want)
		}
	}
	if dense == 0 {
		t.Fatal("no instance had a dense kernel")
	}
	if opening.Done() {
		t.Fatal("the opening finished although its gate is shut")
	}
	failed := startuptest.Failed(errors.New("no GPU here"))
	g := gnp(t, 60, 0.3, 35)
	want := cpuOptimum(t, g)
	res := solveDev(t, g, Options{Opening: failed})
	if !res.Proven || len(res.Cover) != want || res.Engine == string(EngineHybrid) || !strings.Contains(res.Why, "no GPU here") {
		t.Fatalf("failed opening: cover %d proven %v engine %s (%s), CPU engine %d", len(res.Cover), res.Proven, res.Engine, res.Why, want)
	}
	if _, err := Solve(context.Background(), g, Options{Engine: EngineGPU, Opening: failed}); err == nil || !strings.Contains(err.Error(), "no GPU here") {
		t.Fatalf("gpu engine on a failed opening: %v", err)
	}
}

// TestAutoJoin: when the device opens during the search of a dense
// kernel, it joins with the clique device search beside the CPU engine
// (the rule forced to take any device); the cover is verified and equal
// to the CPU engine's minimum, on every device. A sparse kernel never
// joins, whatever the rule.
func TestAutoJoin(t *testing.T) {
	force := func(devs []backend.Device) (bool, string) {
		if len(devs) == 0 {
			panic("the rule ran without the opened device")
		}
		return true, "forced"
	}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		rng := rand.New(rand.NewPCG(35, 22))
		joined := 0
		for i := 0; i < 4; i++ {
			// A kernel of density about 0.2: the clique route, some
			// milliseconds on the CPU engine, so the device (open after
			// 0–2 ms) joins.
			g := gnp(t, 115+rng.IntN(20), 0.17+0.05*rng.Float64(), uint64(3600+i))
			want := cpuOptimum(t, g)
			opening := startuptest.After(time.Duration(rng.IntN(3))*time.Millisecond, dev)
			res := solveDev(t, g, Options{Opening: opening, Workers: 5, joinRule: force})
			if !res.Proven || len(res.Cover) != want {
				t.Fatalf("case %d (n=%d m=%d): cover %d proven %v (%s), CPU engine %d", i, g.N, g.Edges(), len(res.Cover), res.Proven, res.Why, want)
			}
			if res.Engine == string(EngineHybrid) {
				joined++
				if res.Device == "" || !strings.Contains(res.Why, "clique engine's gpu search") || !strings.Contains(res.Why, "settled by") {
					t.Fatalf("case %d: the device joined without saying so: device %q, why %q", i, res.Device, res.Why)
				}
			}
			t.Logf("case %d (n=%d): %s, %s", i, g.N, res.Engine, res.Why)
		}
		if joined == 0 {
			t.Fatal("the device never joined: every instance settled before the opening ended")
		}
		// A sparse kernel (a cycle with chords: density below the
		// threshold) stays on the CPU engine's branch and reduce.
		g := gnp(t, 300, 0.02, 37)
		res := solveDev(t, g, Options{Opening: startup.Opened([]backend.Device{dev}), joinRule: force})
		if res.Engine == string(EngineHybrid) || res.Device != "" || !strings.Contains(res.Why, "joins only kernels that go to the clique route") {
			t.Fatalf("sparse kernel (%d): engine %s device %q (%s)", res.Kernel, res.Engine, res.Device, res.Why)
		}
	})
}

// TestAutoOpensWhenDense: an opening that starts when asked is started
// by a dense root kernel only: a sparse one never opens the device.
func TestAutoOpensWhenDense(t *testing.T) {
	var opened atomic.Int32
	open := func() ([]backend.Device, func(), error) {
		opened.Add(1)
		return []backend.Device{cpu.New(1)}, nil, nil
	}
	sparse := startup.OpenWhenAsked(open)
	res := solveDev(t, gnp(t, 300, 0.02, 37), Options{Opening: sparse})
	if !res.Proven || sparse.Done() || opened.Load() != 0 {
		t.Fatalf("sparse kernel: proven %v, the device opened %d times (%s)", res.Proven, opened.Load(), res.Why)
	}
	dense := startup.OpenWhenAsked(open)
	res = solveDev(t, gnp(t, 150, 0.2, 38), Options{Opening: dense})
	dense.Wait()
	if !res.Proven || opened.Load() != 1 || res.Engine == string(EngineHybrid) {
		t.Fatalf("dense kernel: proven %v engine %s, the device opened %d times (%s)", res.Proven, res.Engine, opened.Load(), res.Why)
	}
}

// TestAutoRule: the rule gives the device only to a GPU with warp-level
// operations; a CPU device given to auto stays unused, and says why.
func TestAutoRule(t *testing.T) {
	host := cpu.New(0)
	if ok, why := autoJoinRule([]backend.Device{host}); ok || !strings.Contains(why, "not a GPU") {
		t.Fatalf("CPU device: %v (%s)", ok, why)
	}
	if ok, _ := autoJoinRule(nil); ok {
		t.Fatal("no device joined")
	}
	g := gnp(t, 60, 0.3, 36)
	res := solveDev(t, g, Options{Devices: []backend.Device{host}})
	if !res.Proven || res.Engine == string(EngineHybrid) || !strings.Contains(res.Why, "not a GPU") {
		t.Fatalf("auto on a CPU device: engine %s (%s) proven %v", res.Engine, res.Why, res.Proven)
	}
}

// TestAutoJoinOffers: the device's answer alone (no CPU engine running
// beside it) reaches the engine: its cover, lifted through the root
// reductions, is a minimum cover of the graph, its bound raises the root
// lower bound to it, and its proof halts the engine and is credited to
// the device.
func TestAutoJoinOffers(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		for i := 0; i < 3; i++ {
			g := gnp(t, 40+20*i, 0.2+0.1*float64(i), uint64(3700+i))
			want := cpuOptimum(t, g)
			e := newEngine(g, &shared{start: time.Now()}, nil, g.N+1, 1, 0, 0)
			s := newState(g)
			lb, ok := s.rootReductions(func() int { return int(e.best.Load()) - 1 - s.cover })
			if !ok || s.m == 0 {
				t.Fatalf("graph %d: the root reductions settled it; the test needs a kernel", i)
			}
			lb = max(lb, s.cover+s.rootLowerBound())
			j := newAutoJoin(context.Background(), startup.Opened([]backend.Device{dev}),
				func([]backend.Device) (bool, string) { return true, "forced" }, 5, time.Now())
			j.start(e, e.cliqueJob(s, lb), slices.Clone(s.ops), nil)
			j.wg.Wait()
			j.finish()
			cover := make([]int, len(e.cover))
			for k, v := range e.cover {
				cover[k] = int(v)
			}
			if err := Verify(g, cover); err != nil || len(cover) != want {
				t.Fatalf("graph %d: device cover %d (%v), minimum %d", i, len(cover), err, want)
			}
			if !e.halt.Load() || !j.won.Load() || e.rootLB.Load() != int64(want) {
				t.Fatalf("graph %d: halt %v won %v root bound %d, minimum %d", i, e.halt.Load(), j.won.Load(), e.rootLB.Load(), want)
			}
			var res Result
			j.report(&res)
			if res.Engine != string(EngineHybrid) || res.Device == "" || !strings.Contains(res.Why, "settled by the device") {
				t.Fatalf("graph %d: report engine %s device %q why %q", i, res.Engine, res.Device, res.Why)
			}
		}
	})
}
