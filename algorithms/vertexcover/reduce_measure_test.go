//go:build measure

package vertexcover

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// TestReduceMeasure applies the root reductions to the public PACE 2019
// instances and logs, per instance, the kernel left (vertices, edges),
// the time and how often each rule fired, then per rule on how many
// instances it fired and how often in all (issue #42):
//
//	ARBOR_RED_MEASURE=1 go test -tags measure -run ReduceMeasure -v ./algorithms/vertexcover/
//
// ARBOR_RED_FILES=085,153 picks instances (default: all of optima.csv);
// ARBOR_RED_FUNNEL=1 turns the funnel rule on at any size;
// ARBOR_RED_BOUND=1 logs the kernel's root lower bound and greedy dive.
func TestReduceMeasure(t *testing.T) {
	if os.Getenv("ARBOR_RED_MEASURE") == "" && os.Getenv("ARBOR_RED_FILES") == "" {
		t.Skip("ARBOR_RED_MEASURE not set")
	}
	dir := filepath.Join(dataset.Require(t, ""), "vc/pace2019")
	var files []string
	if f := os.Getenv("ARBOR_RED_FILES"); f != "" {
		for _, x := range strings.Split(f, ",") {
			files = append(files, "vc-exact_"+x+".gr")
		}
	} else {
		m, _ := filepath.Glob(filepath.Join(dir, "vc-exact_*.gr"))
		for _, x := range m {
			files = append(files, filepath.Base(x))
		}
		sort.Strings(files)
	}
	var total [numRules]int64
	var on [numRules]int
	sumN, sumM, sumKN, sumKM := 0, 0, 0, 0
	var sumT time.Duration
	for _, f := range files {
		g, err := core.ReadGraph(filepath.Join(dir, f), core.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s := newState(g)
		if os.Getenv("ARBOR_RED_FUNNEL") != "" {
			s.funnelOn = true
		}
		start := time.Now()
		s.rootReductions(func() int { return g.N })
		el := time.Since(start)
		var b strings.Builder
		for r, c := range s.fired {
			if c > 0 {
				fmt.Fprintf(&b, " %s=%d", ruleNames[r], c)
				on[r]++
				total[r] += c
			}
		}
		t.Logf("%s n=%d m=%d kernel n=%d m=%d cover=%d %.3fs%s", strings.TrimSuffix(f, ".gr"), g.N, g.Edges(), s.nAlive, s.m, s.cover, el.Seconds(), b.String())
		if os.Getenv("ARBOR_RED_BOUND") != "" && s.m > 0 {
			start := time.Now()
			lb := s.cover + s.rootLowerBound()
			t1 := time.Since(start)
			rb, _ := s.rootBound(noBudget)
			t2 := time.Since(start) - t1
			_, dive := s.greedyDive()
			t.Logf("  root bound %d (%.3fs), with the funnel trial %d (%.3fs), greedy dive %d", lb, t1.Seconds(), rb, t2.Seconds(), s.cover+dive)
		}
		sumN, sumM, sumKN, sumKM, sumT = sumN+g.N, sumM+g.Edges(), sumKN+s.nAlive, sumKM+s.m, sumT+el
	}
	t.Logf("total: %d instances, n=%d m=%d → kernel n=%d m=%d, %.2fs", len(files), sumN, sumM, sumKN, sumKM, sumT.Seconds())
	for r := range total {
		t.Logf("rule %-11s fired on %3d instances, %d times", ruleNames[r], on[r], total[r])
	}
}
