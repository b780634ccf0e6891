package clique

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/device/startup/startuptest"
)

// TestAutoDoesNotWait: with the device still opening (and never done), auto
// answers every instance on the CPU engine, proven and equal to brute
// force, and says why; an opening that fails leaves the CPU engine too.
func TestAutoDoesNotWait(t *testing.T) {
	opening := startuptest.Stuck(t)
	rng := rand.New(rand.NewPCG(35, 11))
	for i := 0; i < 20; i++ {
		g := gnp(t, rng, 1+rng.IntN(14), rng.Float64())
		complement := i%3 == 0
		res := solve(t, g, Options{Opening: opening, Complement: complement})
		if want := bruteOmega(g, complement); res.Size != want || !res.Proven {
			t.Fatalf("case %d: size %d proven %v, brute force %d", i, res.Size, res.Proven, want)
		}
		if res.Engine != EngineCPU || !strings.Contains(res.Why, "before the device was open") {
			t.Fatalf("case %d: engine %s (%s), want the CPU engine before the device", i, res.Engine, res.Why)
		}
	}
	if opening.Done() {
		t.Fatal("the opening finished although its gate is shut")
	}
	failed := startuptest.Failed(errors.New("no GPU here"))
	g := gnp(t, rng, 60, 0.5)
	res := solve(t, g, Options{Opening: failed})
	if want := solve(t, g, Options{Engine: EngineCPU}); res.Size != want.Size || !res.Proven || res.Engine != EngineCPU {
		t.Fatalf("failed opening: size %d proven %v engine %s, CPU engine %d", res.Size, res.Proven, res.Engine, want.Size)
	}
	// The gpu engine waits for the opening, and reports its failure.
	if _, err := Maximum(context.Background(), g, Options{Engine: EngineGPU, Opening: failed}); err == nil || !strings.Contains(err.Error(), "no GPU here") {
		t.Fatalf("gpu engine on a failed opening: %v", err)
	}
}

// TestAutoJoin: when the device opens during the search (no head start
// here), the CPU engine stops and the hybrid takes over from its clique;
// the answer is the CPU engine's size, proven and verified, on every
// device (the rule is forced to pick the device, whatever its type).
func TestAutoJoin(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		rng := rand.New(rand.NewPCG(35, 12))
		joined := 0
		for i := 0; i < 4; i++ {
			// Tens of milliseconds on the CPU engine: the device opens
			// (0–2 ms) before it is done.
			complement := i == 3
			p := 0.8 + 0.1*rng.Float64()
			if complement {
				p = 1 - p
			}
			g := gnp(t, rng, 120+rng.IntN(15), p)
			want := solve(t, g, Options{Engine: EngineCPU, Complement: complement})
			opening := startuptest.After(time.Duration(rng.IntN(3))*time.Millisecond, dev)
			force := func(n int, o Options) (Engine, string, error) {
				if len(o.Devices) == 0 {
					t.Fatal("the rule ran without the opened device")
				}
				return EngineHybrid, "forced", nil
			}
			opts := Options{Workers: 5, Complement: complement}
			res, err := solveAuto(context.Background(), newProblem(g, opts), opening, 0, time.Now(), 0, force)
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(g, res.Clique, complement); err != nil || !res.Proven || res.Size != want.Size || len(res.Clique) != res.Size {
				t.Fatalf("case %d: size %d proven %v (%v), CPU engine %d", i, res.Size, res.Proven, err, want.Size)
			}
			if res.Engine == EngineHybrid {
				joined++
				if res.Device == "" || !strings.Contains(res.Why, "took over") {
					t.Fatalf("case %d: the hybrid ran without saying so: device %q, why %q", i, res.Device, res.Why)
				}
			}
		}
		t.Logf("the device joined on %d of 4", joined)
		if joined == 0 {
			t.Fatal("the device never joined: every instance settled before the opening ended")
		}
	})
}

// TestAutoOpenDevice: auto given a device that is open already (not a
// GPU here) keeps to the CPU engine and says why.
func TestAutoOpenDevice(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		g := gnp(t, rand.New(rand.NewPCG(35, 13)), 50, 0.5)
		res := solve(t, g, Options{Devices: []backend.Device{dev}})
		if dev.Info().Type == backend.TypeGPU {
			return
		}
		if res.Engine != EngineCPU || !strings.Contains(res.Why, "not a GPU") || !res.Proven {
			t.Fatalf("auto on %s: engine %s (%s) proven %v", dev.Info(), res.Engine, res.Why, res.Proven)
		}
	})
}
