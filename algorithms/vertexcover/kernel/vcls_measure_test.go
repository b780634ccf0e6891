//go:build measure

package kernel

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

var (
	vclsFiles   = flag.String("vcls", "", "TestVCLSMeasure: the BHOSLIB instances, comma-separated")
	vclsSecs    = flag.Float64("vcls.secs", 6, "TestVCLSMeasure: seconds per run")
	vclsConfigs = flag.String("vcls.configs", "8x64", "TestVCLSMeasure: chains-per-CU x lanes, comma-separated")
	vclsSeeds   = flag.String("vcls.seeds", "1-1", "TestVCLSMeasure: the seeds, first-last")
	vclsBiases  = flag.String("vcls.beta", "alt", "TestVCLSMeasure: the biases: alt, none, all or 1024ths, comma-separated")
)

// TestVCLSMeasure times vcls_epoch on BHOSLIB instances, for choosing the
// chains per compute unit, the lanes per chain and the degree bias
// (issue #17):
//
//	./kernels.test -test.run VCLSMeasure -test.v -vcls frb59-26-2,frb53-24-1 \
//		-vcls.configs 8x64,16x32 -vcls.secs 6 -vcls.seeds 1-8 -vcls.beta alt,none,all
//
// A config is chains-per-compute-unit x lanes. Each (config, bias, seed)
// runs alone on the first device of ARBOR_BACKEND (default auto) until a
// chain solves or the time is up, and prints the steps per second of all
// chains together and the time to the solution; then a line per config
// and bias with the solved runs, their mean time and steps, and how many
// of the winning chains had the bias. The bias: alt (the default: odd
// chains PartitionBeta), none, all, or a number (every chain that many
// 1024ths of the mean weight).
func TestVCLSMeasure(t *testing.T) {
	files := *vclsFiles
	if files == "" {
		t.Skip("-vcls FILES not set")
	}
	dir := dataset.Require(t, "vc/bhoslib")
	secs := *vclsSecs
	configs := strings.Split(*vclsConfigs, ",")
	var lo, hi uint64
	if _, err := fmt.Sscanf(*vclsSeeds, "%d-%d", &lo, &hi); err != nil || hi < lo {
		t.Fatalf("-vcls.seeds %q: want first-last", *vclsSeeds)
	}
	dev, c, err := backend.Select(backend.SelectionFromEnv("", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	t.Logf("device %s (%s)", c.Info, c.Why)
	for _, f := range strings.Split(files, ",") {
		p, err := bhoslibProblem(dir, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range configs {
			per, lanes := 0, 0
			if _, err := fmt.Sscanf(cfg, "%dx%d", &per, &lanes); err != nil {
				t.Fatalf("config %q: want chains-per-CU x lanes", cfg)
			}
			chains := per * max(dev.Info().ComputeUnits, 1)
			for _, mode := range strings.Split(*vclsBiases, ",") {
				beta, err := vclsBetaMode(mode)
				if err != nil {
					t.Fatal(err)
				}
				var solved, biased int
				var sumT, sumSteps float64
				for seed := lo; seed <= hi; seed++ {
					r := measureVCLS(t, dev, p, chains, lanes, seed, beta, secs)
					t.Logf("%s %s beta %s seed %d: %d chains, built in %.2f s, %s after %.2f s (%.2f G steps), %.1f M steps/s (%.0f k per chain)",
						f, cfg, mode, seed, chains, r.built, map[bool]string{true: "solved", false: "unsolved"}[r.solved], r.secs,
						float64(r.steps)/1e9, float64(r.steps)/r.secs/1e6, float64(r.steps)/r.secs/1e3/float64(chains))
					if r.solved {
						solved++
						sumT += r.secs
						sumSteps += float64(r.steps)
						if beta != nil && beta(r.winner) > 0 {
							biased++
						}
					}
				}
				if solved > 0 {
					t.Logf("SUMMARY %s %s beta %s: %d of %d solved within %.0f s, mean %.2f s, %.2f G steps; %d winners biased",
						f, cfg, mode, solved, hi-lo+1, secs, sumT/float64(solved), sumSteps/float64(solved)/1e9, biased)
				} else {
					t.Logf("SUMMARY %s %s beta %s: 0 of %d solved within %.0f s", f, cfg, mode, hi-lo+1, secs)
				}
			}
		}
	}
}

// vclsBetaMode is TestVCLSMeasure's bias per chain (nil: the default).
func vclsBetaMode(mode string) (func(c int) int64, error) {
	switch mode {
	case "alt":
		return func(c int) int64 { return int64(c%2) * PartitionBeta }, nil
	case "none":
		return func(int) int64 { return 0 }, nil
	case "all":
		return func(int) int64 { return PartitionBeta }, nil
	}
	b, err := strconv.ParseInt(mode, 10, 64)
	if err != nil || b < 0 {
		return nil, fmt.Errorf("-vcls.beta %q: want alt, none, all or a count of 1024ths", mode)
	}
	return func(int) int64 { return b }, nil
}

type vclsRun struct {
	built, secs float64
	solved      bool
	steps       int64
	winner      int // the lowest solved chain
}

// measureVCLS runs chains chains from seed with the bias until one solves
// or secs pass, launches doubling in steps up to about 50 ms.
func measureVCLS(t *testing.T, dev backend.Device, p PartitionProblem, chains, lanes int, seed uint64, beta func(int) int64, secs float64) vclsRun {
	q, err := dev.NewQueue()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	t0 := time.Now()
	s, err := newPartitionLS(dev, q, p, chains, seed, lanes)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	if err := s.setBeta(q, beta); err != nil {
		t.Fatal(err)
	}
	r := vclsRun{built: time.Since(t0).Seconds(), winner: -1}
	t0 = time.Now()
	steps := int64(256)
	for time.Since(t0).Seconds() < secs && !r.solved {
		l0 := time.Now()
		if r.solved, err = s.Run(q, steps, true); err != nil {
			t.Fatal(err)
		}
		if time.Since(l0) < 50*time.Millisecond {
			steps *= 2
		}
	}
	r.secs = time.Since(t0).Seconds()
	if r.steps, err = s.Steps(q); err != nil {
		t.Fatal(err)
	}
	cs, err := s.scalars(q)
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < chains && r.solved; c++ {
		if cs[c*vclsCSW+vclsSolved] != 0 {
			r.winner = c
			break
		}
	}
	return r
}
