//go:build measure

package mcs

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// pruneMeasurePairs are ten medium MIVIA pairs (proven, 5–17 s for the
// original program in expected.csv), one per family where possible.
var pruneMeasurePairs = []string{
	"mcs10_r005_s35.A00", "mcs90_b09m_s40.A02", "mcs50_m4Dr6_s35.A01", "mcs70_m2Dr6_s35.A01",
	"mcs50_r01_s30.A01", "mcs90_b06m_s90.A02", "mcs30_b03_s40.A02", "mcs90_r01_s60.A02",
	"mcs10_r02_s30.A00", "mcs50_m2D_s40.A00",
}

// TestMeasurePrune is docs/results/mcs.md's faithful-against-pruned table:
// one thread, each pair faithful then pruned back to back, CPU time of the
// process (the machine is shared: wall time would count waiting). Run by
// hand: go test -tags measure -run MeasurePrune -timeout 60m, with
// -mcs.measure (-mcs.pairs overrides the pairs, comma-separated;
// -mcs.reverse runs the pruned engine first).
func TestMeasurePrune(t *testing.T) {
	skipUnlessMeasuring(t)
	names := pruneMeasurePairs
	if s := *flagPairs; s != "" {
		names = strings.Split(s, ",")
	}
	dir, pairs := readExpected(t)
	var lnN, lnT, lnB float64
	var sumF, sumP time.Duration
	out := "| pair | size | faithful nodes | pruned nodes | nodes ratio | faithful branched | pruned branched | branched ratio | faithful CPU s | pruned CPU s | time ratio |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
	for _, name := range names {
		p := pairNamed(t, pairs, name)
		g, h := readPair(t, dir, p)
		run := func(pr Pruning) (Result, time.Duration) {
			c0 := cpuTime()
			res := solveChecked(t, g, h, Options{Threads: 1, Prune: pr})
			return res, cpuTime() - c0
		}
		var f, r Result
		var tf, tr time.Duration
		if *flagReverse { // pruned first: order effects
			r, tr = run(PruneRR)
			f, tf = run(PruneNone)
		} else {
			f, tf = run(PruneNone)
			r, tr = run(PruneRR)
		}
		if f.Size != p.Size || r.Size != p.Size {
			t.Errorf("%s: sizes faithful %d pruned %d, expected %d", name, f.Size, r.Size, p.Size)
		}
		if f.Nodes != p.Nodes {
			t.Errorf("%s: faithful nodes %d, expected %d", name, f.Nodes, p.Nodes)
		}
		nr := float64(f.Nodes) / float64(r.Nodes)
		br := float64(f.Branched) / float64(r.Branched)
		tr2 := tr.Seconds() / tf.Seconds()
		lnN += math.Log(nr)
		lnB += math.Log(br)
		lnT += math.Log(tr2)
		sumF += tf
		sumP += tr
		line := fmt.Sprintf("| %s | %d | %d | %d | %.2f× | %d | %d | %.2f× | %.2f | %.2f | %.2f |\n",
			name, p.Size, f.Nodes, r.Nodes, nr, f.Branched, r.Branched, br, tf.Seconds(), tr.Seconds(), tr2)
		t.Log(line)
		out += line
	}
	k := float64(len(names))
	out += fmt.Sprintf("| geo-mean / sum | | | | %.2f× fewer | | | %.2f× fewer | %.1f | %.1f | %.2f |\n",
		math.Exp(lnN/k), math.Exp(lnB/k), sumF.Seconds(), sumP.Seconds(), math.Exp(lnT/k))
	fmt.Print(out)
}

// TestMeasurePruneRules turns the pruned search's rules off one at a time
// on the pairs where they fire (-mcs.pairs overrides): nodes and CPU
// time of each configuration, one thread.
func TestMeasurePruneRules(t *testing.T) {
	skipUnlessMeasuring(t)
	names := []string{"mcs90_b06m_s90.A02", "mcs30_b03_s40.A02", "mcs10_r005_s35.A00"}
	if s := *flagPairs; s != "" {
		names = strings.Split(s, ",")
	}
	configs := []struct {
		name string
		off  rrOff
		r6   bool
	}{
		{"all rules", 0, false}, {"without R1/R2/B1", offTwins0, false}, {"without R4", offTwins1, false},
		{"without R3", offR3, false}, {"without R5", offR5, false}, {"with R6", 0, true},
		{"all off", offTwins0 | offTwins1 | offR3 | offR5, false},
	}
	dir, pairs := readExpected(t)
	out := "| pair | configuration | nodes | branched | CPU s |\n|---|---|---|---|---|\n"
	for _, name := range names {
		mp := pairNamed(t, pairs, name)
		g, h := readPair(t, dir, mp)
		for _, c := range configs {
			p, err := newProblem[uint8](g, h, Options{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			p.rrOff, p.withR6 = c.off, c.r6
			c0 := cpuTime()
			res := p.runPruned(context.Background(), 1, time.Now(), true)
			took := cpuTime() - c0
			if err := Verify(g, h, res.Mapping, Options{}); err != nil || res.Size != mp.Size {
				t.Fatalf("%s %s: size %d (want %d), %v", name, c.name, res.Size, mp.Size, err)
			}
			out += fmt.Sprintf("| %s | %s | %d | %d | %.2f |\n", name, c.name, res.Nodes, res.Branched, took.Seconds())
		}
	}
	fmt.Print(out)
}

// TestMeasurePruneTwins compares the engines on generated pairs with
// planted twins (twinGraph: half of the vertices copies of others), the
// inputs R1/R2/B1/R4 are for, one thread, 60 s limit per search.
func TestMeasurePruneTwins(t *testing.T) {
	skipUnlessMeasuring(t)
	out := "| n | p | seed | size | faithful nodes | pruned nodes | nodes ratio | faithful CPU s | pruned CPU s | time ratio |\n|---|---|---|---|---|---|---|---|---|---|\n"
	for _, n := range []int{30, 40} {
		for seed := uint64(1); seed <= 3; seed++ {
			rng := rand.New(rand.NewPCG(seed, uint64(n)))
			p := 0.3
			g := twinGraph(t, rng, n, p, false, 0, 0, 0)
			h := twinGraph(t, rng, n, p, false, 0, 0, 0)
			run := func(pr Pruning) (Result, time.Duration) {
				c0 := cpuTime()
				res, err := Solve(context.Background(), g, h, Options{Threads: 1, Prune: pr, Timeout: 60 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				if err := Verify(g, h, res.Mapping, Options{}); err != nil {
					t.Fatal(err)
				}
				return res, cpuTime() - c0
			}
			f, tf := run(PruneNone)
			r, tr := run(PruneRR)
			if f.Proven && r.Proven && f.Size != r.Size {
				t.Errorf("n=%d seed %d: sizes %d and %d", n, seed, f.Size, r.Size)
			}
			mark := func(res Result) string {
				if res.Proven {
					return ""
				}
				return " (limit)"
			}
			out += fmt.Sprintf("| %d | %.1f | %d | %d | %d%s | %d%s | %.1f× | %.2f | %.2f | %.3f |\n", n, p, seed, r.Size,
				f.Nodes, mark(f), r.Nodes, mark(r), float64(f.Nodes)/float64(r.Nodes), tf.Seconds(), tr.Seconds(), tr.Seconds()/tf.Seconds())
		}
	}
	fmt.Print(out)
}
