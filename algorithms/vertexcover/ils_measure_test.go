//go:build measure

package vertexcover

import (
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

var (
	ilsFiles  = flag.String("ils", "", "TestILSMeasure: the PACE instances (numbers), comma-separated")
	ilsCap    = flag.Duration("ils.cap", 3*time.Second, "TestILSMeasure: the time cap of a run")
	ilsSeeds  = flag.Int("ils.seeds", 4, "TestILSMeasure: seeds 1 to this")
	ilsAlgs   = flag.String("ils.algs", "numvc,ils", "TestILSMeasure: the searches: numvc, ils, part")
	ilsNoPart = flag.Bool("ils.nopart", false, "TestILSMeasure: the ILS without the clique partition")
)

func init() {
	flag.Func("trans.noise", "TestILSMeasure: transNoise", func(s string) (err error) { transNoise, err = strconv.ParseFloat(s, 64); return err })
	flag.BoolVar(&transRepair, "trans.repair", transRepair, "TestILSMeasure: transRepair")
	flag.BoolVar(&transWeights, "trans.w", transWeights, "TestILSMeasure: transWeights")
	flag.Int64Var(&transForget, "trans.forget", transForget, "TestILSMeasure: transForget")
	flag.Func("trans.tabu", "TestILSMeasure: transTabu", func(s string) (err error) { transTabu, err = strconv.ParseInt(s, 10, 64); return err })
}

// TestILSMeasure runs NuMVC and the ILS alone on the root kernels of PACE
// instances (issue #42), from the greedy dive's cover, one seed after
// another, and prints each run's best cover and when it was found:
//
//	go test -tags measure -run ILSMeasure -v ./algorithms/vertexcover/ \
//		-ils 131,175 -ils.seeds 6 -ils.cap 3s
//
// -ils.nopart runs the ILS without the clique partition (no defect
// perturbations); -ils.algs picks among numvc, ils and part (the
// partition search for a transversal, which reports only one).
func TestILSMeasure(t *testing.T) {
	files := *ilsFiles
	if files == "" {
		t.Skip("-ils FILES not set")
	}
	dir := dataset.Require(t, "")
	limit, seeds := *ilsCap, *ilsSeeds
	for _, f := range strings.Split(files, ",") {
		g, err := core.ReadGraph(filepath.Join(dir, "vc/pace2019/vc-exact_"+f+".gr"), core.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s := newState(g)
		s.rootReductions(func() int { return g.N })
		lb := s.cover + s.rootLowerBound()
		kg, ids := s.extract(nil)
		part, k := bestPartition(kg)
		if *ilsNoPart {
			part = nil
		}
		diveIn, diveSize := s.greedyDive()
		init := make([]bool, kg.N)
		for i, v := range ids {
			init[i] = diveIn[v]
		}
		t.Logf("%s: kernel %d vertices, %d edges; root bound %d, partition bound %d, dive %d",
			f, kg.N, kg.Edges(), lb, s.cover+kg.N-k, s.cover+diveSize)
		var stop atomic.Bool
		for _, alg := range strings.Split(*ilsAlgs, ",") {
			line := alg + ":"
			for seed := uint64(1); seed <= uint64(seeds); seed++ {
				t0 := time.Now()
				last := ""
				report := func(c []bool, size int) {
					last = fmt.Sprintf(" %d@%.2fs", s.cover+size, time.Since(t0).Seconds())
				}
				switch alg {
				case "numvc":
					localSearch(kg, 0, time.Now().Add(limit), nil, seed, &stop, init, nil, nil, report)
				case "transinit":
					p, k := sparsePartition(kg)
					transversalSearch(kg, p, k, seed, &stop, time.Now().Add(limit), init, report)
				case "trans":
					p, k := sparsePartition(kg)
					transversalSearch(kg, p, k, seed, &stop, time.Now().Add(limit), nil, report)
				case "part":
					p, k := bestPartition(kg)
					if c := partitionSearch(kg, p, k, seed, &stop, time.Now().Add(limit), partDegBeta*float64(seed%2)); c != nil {
						report(c, kg.N-k)
					}
				default:
					ilsSearch(kg, part, k, 0, time.Now().Add(limit), &stop, seed, init, nil, report)
				}
				line += last
			}
			t.Log(line)
		}
	}
}
