//go:build measure

package mcs

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMeasureLearn compares the pruned search with and without learned
// branching (learn.go) on MIVIA pairs: -mcs.pairs (comma-separated;
// default the ten medium pairs), -mcs.learn the modes to run
// (comma-separated: learnMode values, plus 4 for the edge-count bound B2; default 0,1,3), -mcs.threads
// (default 1), -mcs.limit per search (default 60 s). Nodes, CPU
// seconds, size and whether it was proven; every mapping verified.
func TestMeasureLearn(t *testing.T) {
	skipUnlessMeasuring(t)
	names := pruneMeasurePairs
	if s := *flagPairs; s != "" {
		names = strings.Split(s, ",")
	}
	var modes []learnMode
	for _, f := range strings.Split(*flagLearn, ",") {
		m, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("-mcs.learn %q: %v", *flagLearn, err)
		}
		modes = append(modes, learnMode(m))
	}
	threads := threadsOr(1)
	limit := limitOr(time.Minute)
	dir, pairs := readExpected(t)
	lnN := make([]float64, len(modes))
	lnT := make([]float64, len(modes))
	out := "| pair | expected | learn | size | proven | nodes | CPU s |\n|---|---|---|---|---|---|---|\n"
	for _, name := range names {
		mp := pairNamed(t, pairs, name)
		g, h := readPair(t, dir, mp)
		for k, m := range modes {
			opts := Options{Threads: threads}
			if *flagProof { // the proof tree alone: goal size+1
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
