//go:build measure

package vertexcover

import (
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

// TestLSMeasure times the local searches alone to the optimum on BHOSLIB
// instances (issue #17), one run per seed, one at a time:
//
//	ARBOR_LS_MEASURE=part,numvc ARBOR_LS_FILES=frb50-23-1,frb53-24-1 \
//	ARBOR_LS_SEEDS=1-4 ARBOR_LS_CAP=20s go test -run LSMeasure -v ./algorithms/vertexcover/
//
// The target is the planted optimum n − N (the clique count of the
// partition). Each line gives the time and steps to the target (or the
// cap) and the steps per second. ARBOR_LS_PAR runs that many seeds at
// once (NuMVC's step counts are then mixed up: its counter is shared);
// ARBOR_LS_STEPS caps the partition search's steps (so that runs on a
// loaded machine compare); ARBOR_LS_GAMMA, ARBOR_LS_RHO and
// ARBOR_LS_SAMPLE set the partition search's knobs (partGamma, partRho,
// partSample); ARBOR_LS_BETA sets partDegBeta, ARBOR_LS_CHAIN=1|any
// partChain (any: partChainAny too). pair is pairSearch
// (pairsearch_test.go), the partition search with weights per pair of
// cliques. The variants of
// partition_cw_test.go run as cw (per clique pair), cwcv (per clique and
// vertex), cwvc (per vertex and clique) and cwedge (per edge, as part);
// ARBOR_LS_CWGAMMA sets their forgetting threshold (cwGamma).
func TestLSMeasure(t *testing.T) {
	which := os.Getenv("ARBOR_LS_MEASURE")
	if which == "" {
		t.Skip("ARBOR_LS_MEASURE not set")
	}
	dir := dataset.Require(t, "")
	files := strings.Split(envOr("ARBOR_LS_FILES", "frb45-21-3,frb50-23-2,frb53-24-1"), ",")
	lo, hi := 1, 4
	if s := os.Getenv("ARBOR_LS_SEEDS"); s != "" {
		a, b, _ := strings.Cut(s, "-")
		lo, _ = strconv.Atoi(a)
		hi = lo
		if b != "" {
			hi, _ = strconv.Atoi(b)
		}
	}
	limit, err := time.ParseDuration(envOr("ARBOR_LS_CAP", "20s"))
	if err != nil {
		t.Fatal(err)
	}
	if x := os.Getenv("ARBOR_LS_GAMMA"); x != "" {
		partGamma, _ = strconv.ParseFloat(x, 64)
	}
	if x := os.Getenv("ARBOR_LS_RHO"); x != "" {
		partRho, _ = strconv.ParseFloat(x, 64)
	}
	if x := os.Getenv("ARBOR_LS_SAMPLE"); x != "" {
		partSample, _ = strconv.Atoi(x)
	}
	if x := os.Getenv("ARBOR_LS_BETA"); x != "" {
		partDegBeta, _ = strconv.ParseFloat(x, 64)
	}
	if x := os.Getenv("ARBOR_LS_CHAIN"); x != "" {
		partChain, partChainAny = x != "0", x == "any"
	}
	if x := os.Getenv("ARBOR_LS_CWGAMMA"); x != "" {
		cwGamma, _ = strconv.ParseFloat(x, 64)
	}
	par, _ := strconv.Atoi(envOr("ARBOR_LS_PAR", "1"))
	stepCap, _ := strconv.ParseInt(envOr("ARBOR_LS_STEPS", "0"), 10, 64)
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

func envOr(key, def string) string {
	if s := os.Getenv(key); s != "" {
		return s
	}
	return def
}
