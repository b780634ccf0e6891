//go:build measure

package mcs

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMeasureLearn compares the pruned search with and without learned
// branching (learn.go) on MIVIA pairs: ARBOR_MCS_PAIRS (comma-separated;
// default the ten medium pairs), ARBOR_MCS_LEARN the modes to run
// (comma-separated: learnMode values, plus 4 for the edge-count bound B2; default 0,1,3), ARBOR_MCS_THREADS
// (default 1), ARBOR_MCS_LIMIT seconds per search (default 60). Nodes, CPU
// seconds, size and whether it was proven; every mapping verified.
func TestMeasureLearn(t *testing.T) {
	if os.Getenv("ARBOR_MCS_MEASURE") != "1" {
		t.Skip("set ARBOR_MCS_MEASURE=1 to run the docs/results/mcs.md measurements")
	}
	names := pruneMeasurePairs
	if s := os.Getenv("ARBOR_MCS_PAIRS"); s != "" {
		names = strings.Split(s, ",")
	}
	modes := []learnMode{0, learnV, learnV | learnW}
	if s := os.Getenv("ARBOR_MCS_LEARN"); s != "" {
		modes = nil
		for _, f := range strings.Split(s, ",") {
			m, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			modes = append(modes, learnMode(m))
		}
	}
	threads := envInt(t, "ARBOR_MCS_THREADS", 1)
	limit := time.Duration(envInt(t, "ARBOR_MCS_LIMIT", 60)) * time.Second
	dir, pairs := readExpected(t)
	lnN := make([]float64, len(modes))
	lnT := make([]float64, len(modes))
	out := "| pair | expected | learn | size | proven | nodes | CPU s |\n|---|---|---|---|---|---|---|\n"
	for _, name := range names {
		mp := pairNamed(t, pairs, name)
		g, h := readPair(t, dir, mp)
		for k, m := range modes {
			opts := Options{Threads: threads}
			if os.Getenv("ARBOR_MCS_PROOF") == "1" { // the proof tree alone: goal size+1
				opts.Goal = mp.Size + 1
			}
			p, err := newProblem[uint8](g, h, opts)
			if err != nil {
				t.Fatal(err)
			}
			p.learn = m & (learnV | learnW)
			if m&4 != 0 {
				p.bound2 = true
				p.bits0, p.bits1 = newAdjBits(p.adj0, p.n0), newAdjBits(p.adj1, p.n1)
			}
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			c0 := cpuTime()
			res := p.runPruned(ctx, threads, time.Now(), true)
			took := cpuTime() - c0
			cancel()
			if err := Verify(g, h, res.Mapping, Options{}); err != nil && opts.Goal == 0 {
				t.Fatalf("%s learn %d: %v", name, m, err)
			}
			if opts.Goal == 0 && (res.Proven && mp.Proven && res.Size != mp.Size || res.Size < mp.Size && res.Proven) {
				t.Errorf("%s learn %d: size %d, expected %d", name, m, res.Size, mp.Size)
			}
			lnN[k] += math.Log(float64(res.Nodes))
			lnT[k] += math.Log(took.Seconds())
			line := fmt.Sprintf("| %s | %d | %d | %d | %v | %d | %.2f |\n", name, mp.Size, m, res.Size, res.Proven, res.Nodes, took.Seconds())
			t.Log(line)
			out += line
		}
	}
	for k, m := range modes {
		out += fmt.Sprintf("| geo-mean | | %d | | | %.0f | %.2f |\n", m, math.Exp(lnN[k]/float64(len(names))), math.Exp(lnT[k]/float64(len(names))))
	}
	fmt.Print(out)
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return v
}

// pairNamed returns the expected.csv row whose first graph is name.
func pairNamed(t *testing.T, pairs []miviaPair, name string) miviaPair {
	t.Helper()
	for _, q := range pairs {
		if q.G == name {
			return q
		}
	}
	t.Fatalf("%s not in expected.csv", name)
	return miviaPair{}
}
