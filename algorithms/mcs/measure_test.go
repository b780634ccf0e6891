//go:build measure

package mcs

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// The measurements of docs/results/mcs.md, run by hand: go test -tags
// measure ./algorithms/mcs -run TestMeasureX -mcs.measure (and -mcs.limit,
// the time per search, default 10 s (60 s for TestMeasureLearn);
// -mcs.threads, the N-graph searches' threads, default 1: node counts then
// repeat exactly). They print tables and check only that every answer
// verifies.
var (
	flagMeasure   = flag.Bool("mcs.measure", false, "run the docs/results/mcs.md measurements")
	flagLimit     = flag.Duration("mcs.limit", 0, "a measurement's time per search (0: its default)")
	flagOnly      = flag.String("mcs.only", "", "TestMeasureMany: a ;-separated list of the labels to run")
	flagPairsN    = flag.Int("mcs.pairsn", 6, "TestMeasureHeuristics: how many medium pairs")
	flagPortfolio = flag.Bool("mcs.portfolio", false, "TestMeasureHeuristics: the portfolio against the parallel engine instead")
	flagLearn     = flag.String("mcs.learn", "0,1,3", "TestMeasureLearn: the modes (learnMode values, plus 4 for B2), comma-separated")
	flagProof     = flag.Bool("mcs.proof", false, "TestMeasureLearn: the proof tree alone (goal size+1)")
	flagReverse   = flag.Bool("mcs.reverse", false, "TestMeasurePrune: the pruned engine first (order effects)")
)

// skipUnlessMeasuring skips the test without -mcs.measure.
func skipUnlessMeasuring(t *testing.T) {
	if !*flagMeasure {
		t.Skip("-mcs.measure runs the docs/results/mcs.md measurements")
	}
}

// limitOr is -mcs.limit, or def when it is not set.
func limitOr(def time.Duration) time.Duration {
	if *flagLimit > 0 {
		return *flagLimit
	}
	return def
}

var measureFamilies = []string{
	"mcs30_r01", "mcs50_r01", "mcs70_r02", "mcs90_r01",
	"mcs30_b03", "mcs50_b06", "mcs70_b03m", "mcs90_b06",
}

func measureSetup(t *testing.T) (string, time.Duration) {
	skipUnlessMeasuring(t)
	dir, _ := readExpected(t)
	return dir, limitOr(10 * time.Second)
}

// measureRun is a measurement's inputs (the data, the time limit per
// search, the threads) and the markdown table it logs.
type measureRun struct {
	dir     string
	limit   time.Duration
	threads int
	table   strings.Builder
}

// startMeasure skips unless measuring and starts the table under header
// (its column names and rule) with the thread count.
func startMeasure(t *testing.T, header string) *measureRun {
	m := &measureRun{threads: measureThreads()}
	m.dir, m.limit = measureSetup(t)
	fmt.Fprintf(&m.table, "%d thread(s)\n\n", m.threads)
	m.table.WriteString(header)
	return m
}

// measureThreads is -mcs.threads, default 1.
func measureThreads() int { return threadsOr(1) }

func readNamed(t *testing.T, dir string, names ...string) []*core.Graph {
	t.Helper()
	var out []*core.Graph
	for _, n := range names {
		g, err := core.ReadGraph(filepath.Join(dir, n), core.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

func measureMany(t *testing.T, graphs []*core.Graph, opts Options) (MultiResult, string) {
	t.Helper()
	res, err := SolveMany(context.Background(), graphs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyMany(graphs, res.Tuples, opts); err != nil {
		t.Fatal(err)
	}
	cell := fmt.Sprintf("%d", res.Size)
	if !res.Proven && !res.Approximate {
		cell = "≥" + cell
	}
	return res, cell
}

// TestMeasureOrder: exact search of mixed-size triples (s15, s20, s25 of
// a family), in the oscillating order and in two plain orders.
func TestMeasureOrder(t *testing.T) {
	m := startMeasure(t, "| triple (s15.A00, s20.B00, s25.A01) | order | size | nodes | seconds |\n|---|---|---|---|---|\n")
	for _, f := range measureFamilies {
		names := []string{f + "_s15.A00", f + "_s20.B00", f + "_s25.A01"}
		if _, err := os.Stat(filepath.Join(m.dir, names[0])); err != nil {
			continue
		}
		gs := readNamed(t, m.dir, names...)
		desc := []*core.Graph{gs[2], gs[1], gs[0]}
		for _, c := range []struct {
			name   string
			graphs []*core.Graph
			plain  bool
		}{
			{"oscillating (15, 25, 20)", gs, false},
			{"plain ascending (15, 20, 25)", gs, true},
			{"plain descending (25, 20, 15)", desc, true},
		} {
			res, cell := measureMany(t, c.graphs, Options{Threads: m.threads, PlainOrder: c.plain, Timeout: m.limit})
			fmt.Fprintf(&m.table, "| %s | %s | %s | %d | %.2f |\n", f, c.name, cell, res.Nodes, res.Elapsed.Seconds())
		}
	}
	t.Log("\n" + m.table.String())
}

// TestMeasureApproximate: exact against approximate (keep 1 and 4) on
// same-size triples and quadruples (A00, B00, A01[, B01]) and on the
// mixed-size triples.
func TestMeasureApproximate(t *testing.T) {
	m := startMeasure(t, "| graphs | exact | s | approx keep 1 | s | approx keep 4 | s |\n|---|---|---|---|---|---|---|\n")
	for _, f := range measureFamilies {
		for _, set := range [][]string{
			{f + "_s20.A00", f + "_s20.B00", f + "_s20.A01"},
			{f + "_s20.A00", f + "_s20.B00", f + "_s20.A01", f + "_s20.B01"},
			{f + "_s15.A00", f + "_s20.B00", f + "_s25.A01"},
		} {
			if _, err := os.Stat(filepath.Join(m.dir, set[0])); err != nil {
				continue
			}
			label := f + " " + strings.Join(trimFamily(set, f), ",")
			if only := *flagOnly; only != "" && !strings.Contains(only, label) {
				continue // -mcs.only: a ;-separated list of labels to run
			}
			gs := readNamed(t, m.dir, set...)
			ex, exCell := measureMany(t, gs, Options{Threads: m.threads, Timeout: m.limit})
			a1, c1 := measureMany(t, gs, Options{Threads: m.threads, Timeout: m.limit, Approximate: true, Keep: 1})
			a4, c4 := measureMany(t, gs, Options{Threads: m.threads, Timeout: m.limit, Approximate: true, Keep: 4})
			fmt.Fprintf(&m.table, "| %s | %s | %.2f | %s | %.2f | %s | %.2f |\n", label, exCell, ex.Elapsed.Seconds(),
				c1, a1.Elapsed.Seconds(), c4, a4.Elapsed.Seconds())
		}
	}
	t.Log("\n" + m.table.String())
}

func trimFamily(names []string, f string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.TrimPrefix(n, f+"_")
	}
	return out
}

// TestMeasureHeuristics: the pair engine's heuristics on medium MIVIA
// pairs (the original took 5–60 s), sequential, each under the limit.
func TestMeasureHeuristics(t *testing.T) {
	dir, limit := measureSetup(t)
	_, pairs := readExpected(t)
	var medium []miviaPair
	for _, p := range pairs {
		if p.Proven && p.Seconds >= 5 && p.Seconds <= 60 {
			medium = append(medium, p)
		}
	}
	count := *flagPairsN
	configs := []struct {
		name string
		opts Options
	}{
		{"default", Options{Threads: 1}},
		{"h1 block order", Options{Threads: 1, BlockOrder: true}},
		{"h2 dead end 10^6, +1", Options{Threads: 1, DeadEnd: 1e6}},
		{"h2 dead end 10^6, doubling", Options{Threads: 1, DeadEnd: 1e6, DoubleRaise: true}},
		{"h3 restarts", Options{Threads: 1, Restarts: true, Seed: 1}},
	}
	if *flagPortfolio {
		// The portfolio against the parallel engine on the same cores.
		configs = configs[:0]
		configs = append(configs, struct {
			name string
			opts Options
		}{"cpu, 2 threads", Options{Threads: 2}}, struct {
			name string
			opts Options
		}{"portfolio, 2 threads", Options{Threads: 2, Engine: EnginePortfolio}})
	}
	var sb strings.Builder
	sb.WriteString("| pair | original s | config | size | nodes | seconds |\n|---|---|---|---|---|---|\n")
	for i := 0; i < count && len(medium) > 0; i++ {
		p := medium[i*len(medium)/count]
		g, h := readPair(t, dir, p)
		for _, c := range configs {
			o := c.opts
			o.Timeout = limit
			res, err := Solve(context.Background(), g, h, o)
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(g, h, res.Mapping, o); err != nil {
				t.Fatal(err)
			}
			cell := fmt.Sprint(res.Size)
			if !res.Proven {
				cell = "≥" + cell
			} else if res.Size != p.Size {
				t.Errorf("%s %s: size %d, want %d", p.G, c.name, res.Size, p.Size)
			}
			if res.Engine == EnginePortfolio {
				cell += " (" + strings.SplitN(res.Why, ",", 2)[0] + ")"
			}
			fmt.Fprintf(&sb, "| %s | %.1f | %s | %s | %d | %.2f |\n", strings.TrimSuffix(p.G, ".A00"), p.Seconds, c.name, cell, res.Nodes, res.Elapsed.Seconds())
		}
	}
	t.Log("\n" + sb.String())
}
