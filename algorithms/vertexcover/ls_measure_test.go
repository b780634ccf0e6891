//go:build measure

package vertexcover

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// The measurement's flags (go test -tags measure … -args, or after the
// package): what to run, on which instances, and the searches' knobs.
var (
	lsAlgs  = flag.String("ls", "", "TestLSMeasure: the local searches to time, comma-separated: part, numvc, pair, cw, cwcv, cwvc, cwedge")
	lsFiles = flag.String("ls.files", "frb45-21-3,frb50-23-2,frb53-24-1", "TestLSMeasure: the BHOSLIB instances, comma-separated")
	lsSeeds = flag.String("ls.seeds", "1-4", "TestLSMeasure: the seeds, first-last")
	lsCap   = flag.Duration("ls.cap", 20*time.Second, "TestLSMeasure: the time cap of a run")
	lsPar   = flag.Int("ls.par", 1, "TestLSMeasure: seeds run at once")
	lsSteps = flag.Int64("ls.steps", 0, "TestLSMeasure: the partition search's step cap (0: none)")
)

func init() {
	float := func(name, usage string, v *float64) {
		flag.Func(name, usage, func(s string) (err error) { *v, err = strconv.ParseFloat(s, 64); return err })
	}
	float("ls.gamma", "TestLSMeasure: partGamma", &partGamma)
	float("ls.rho", "TestLSMeasure: partRho", &partRho)
	float("ls.beta", "TestLSMeasure: partDegBeta", &partDegBeta)
	float("ls.cwgamma", "TestLSMeasure: cwGamma", &cwGamma)
	flag.Func("ls.sample", "TestLSMeasure: partSample", func(s string) (err error) { partSample, err = strconv.Atoi(s); return err })
	flag.Func("ls.chain", "TestLSMeasure: partChain (1, 0 or any: partChainAny too)", func(s string) error {
		partChain, partChainAny = s != "0", s == "any"
		return nil
	})
}

// TestLSMeasure times the local searches alone to the optimum on BHOSLIB
// instances (issue #17), one run per seed, one at a time:
//
//	go test -tags measure -run LSMeasure -v ./algorithms/vertexcover/ \
//		-ls part,numvc -ls.files frb50-23-1,frb53-24-1 -ls.seeds 1-4 -ls.cap 20s
//
// The target is the planted optimum n − N (the clique count of the
// partition). Each line gives the time and steps to the target (or the
// cap) and the steps per second. -ls.par runs that many seeds at
// once (NuMVC's step counts are then mixed up: its counter is shared);
// -ls.steps caps the partition search's steps (so that runs on a
// loaded machine compare); -ls.gamma, -ls.rho and -ls.sample set the
// partition search's knobs (partGamma, partRho, partSample); -ls.beta sets
// partDegBeta, -ls.chain=1|any partChain (any: partChainAny too). pair is
// pairSearch (pairsearch_test.go), the partition search with weights per
// pair of cliques. The variants of partition_cw_test.go run as cw (per
// clique pair), cwcv (per clique and vertex), cwvc (per vertex and
// clique) and cwedge (per edge, as part); -ls.cwgamma sets their
// forgetting threshold (cwGamma).
func TestLSMeasure(t *testing.T) {
	which := *lsAlgs
	if which == "" {
		t.Skip("-ls ALGS not set")
	}
	dir := dataset.Require(t, "")
	files := strings.Split(*lsFiles, ",")
	a, b, _ := strings.Cut(*lsSeeds, "-")
	lo, _ := strconv.Atoi(a)
	hi := lo
	if b != "" {
		hi, _ = strconv.Atoi(b)
	}
	limit, par, stepCap := *lsCap, *lsPar, *lsSteps
	for _, f := range files {
		path := filepath.Join(dir, "vc/bhoslib", f+".mis")
		if _, err := os.Stat(path); err != nil {
			path += ".gz" // the GPU machine's copy is compressed
		}
		g, err := core.ReadGraph(path, core.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		part, k := bestPartition(g)
		target := g.N - k
		for _, alg := range strings.Split(which, ",") {
			var sum time.Duration
			var mu sync.Mutex
			var wg sync.WaitGroup
			hits := 0
			sem := make(chan struct{}, max(par, 1))
			for seed := lo; seed <= hi; seed++ {
				wg.Add(1)
				sem <- struct{}{}
				go func(seed int) {
					defer func() { <-sem; wg.Done() }()
					var stop atomic.Bool
					t0 := time.Now()
					deadline := t0.Add(limit)
					steps := stepCap
					size := 0
					switch alg {
					case "part":
						c := partitionSearchSteps(g, part, k, uint64(seed), &stop, deadline, partDegBeta, &steps)
						size = target + 1
						if c != nil {
							size = target
						}
					case "pair":
						c := pairSearch(g, part, k, uint64(seed), &stop, deadline, partDegBeta, &steps)
						size = target + 1
						if c != nil {
							size = target
						}
					case "numvc":
						numvcSteps.Store(0)
						best := localSearch(g, target, deadline, nil, uint64(seed), &stop, nil, nil, nil, nil)
						steps = numvcSteps.Load()
						for _, in := range best {
							if in {
								size++
							}
						}
					default:
						mode, ok := cwModes[alg]
						if !ok {
							panic("unknown search " + alg)
						}
						c := partitionSearchCW(g, part, k, uint64(seed), &stop, deadline, partDegBeta, &steps, mode)
						size = target + 1
						if c != nil {
							size = target
						}
					}
					el := time.Since(t0)
					mu.Lock()
					defer mu.Unlock()
					if size <= target {
						hits++
					}
					sum += el
					t.Logf("%s %s seed %d: size %d (target %d) in %.2f s, %d steps, %.0f k steps/s", f, alg, seed, size, target, el.Seconds(), steps, float64(steps)/el.Seconds()/1e3)
				}(seed)
			}
			wg.Wait()
			t.Logf("%s %s: %d/%d at target, total %.1f s", f, alg, hits, hi-lo+1, sum.Seconds())
		}
	}
}
