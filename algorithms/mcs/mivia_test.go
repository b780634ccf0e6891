package mcs

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

var allMIVIA = flag.Bool("mcs.all", false, "check every proven MIVIA pair under 0.5 s, not a sample (also ARBOR_LONG=1)")

type miviaPair = dataset.MIVIAPair

func readExpected(tb testing.TB) (string, []miviaPair) {
	tb.Helper()
	dir := dataset.Require(tb, "mcs/mivia")
	pairs, err := dataset.ReadMIVIA(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return dir, pairs
}

func readPair(tb testing.TB, dir string, p miviaPair) (*core.Graph, *core.Graph) {
	tb.Helper()
	return readPairAs(tb, dir, p, core.ReadOptions{})
}

// readPairAs reads a pair's graphs with ro (Directed, say).
func readPairAs(tb testing.TB, dir string, p miviaPair, ro core.ReadOptions) (*core.Graph, *core.Graph) {
	tb.Helper()
	g, err := core.ReadGraph(filepath.Join(dir, p.G), ro)
	if err != nil {
		tb.Fatal(err)
	}
	h, err := core.ReadGraph(filepath.Join(dir, p.H), ro)
	if err != nil {
		tb.Fatal(err)
	}
	return g, h
}

// easyPairs is a spread sample, about spread of them, of the proven pairs
// that took the original McSplit under maxSec; every one of them with
// -mcs.all or ARBOR_LONG=1 (all says which).
func easyPairs(pairs []miviaPair, maxSec float64, spread int) (sample []miviaPair, all bool) {
	var easy []miviaPair
	for _, p := range pairs {
		if p.Proven && p.Seconds < maxSec {
			easy = append(easy, p)
		}
	}
	all = *allMIVIA || os.Getenv("ARBOR_LONG") == "1"
	if all {
		return easy, true
	}
	step := max(1, len(easy)/spread)
	for i := 0; i < len(easy); i += step {
		sample = append(sample, easy[i])
	}
	return sample, false
}

// pairNamed returns the expected.csv row whose first graph is name.
func pairNamed(tb testing.TB, pairs []miviaPair, name string) miviaPair {
	tb.Helper()
	for _, q := range pairs {
		if q.G == name {
			return q
		}
	}
	tb.Fatalf("%s not in expected.csv", name)
	return miviaPair{}
}

// TestMIVIA checks the sequential engine's sizes and node counts against
// the original McSplit's on the proven MIVIA pairs that took it under
// 0.5 s: a spread sample by default, all of them with -mcs.all or
// ARBOR_LONG=1. The parallel engine must find the same sizes.
func TestMIVIA(t *testing.T) {
	dir, pairs := readExpected(t)
	easy, all := easyPairs(pairs, 0.5, 40)
	checked := 0
	for _, p := range easy {
		if !all && p.Seconds > 0.1 {
			// Keep the default run quick: the next pair of the stride instead.
			continue
		}
		g, h := readPair(t, dir, p)
		res := solveChecked(t, g, h, Options{Threads: 1, Prune: PruneNone})
		if res.Size != p.Size || res.Nodes != p.Nodes {
			t.Errorf("%s/%s: size %d nodes %d, original McSplit size %d nodes %d", p.G, p.H, res.Size, res.Nodes, p.Size, p.Nodes)
		}
		par := solveChecked(t, g, h, Options{Threads: 2})
		if par.Size != p.Size {
			t.Errorf("%s/%s: parallel size %d, want %d", p.G, p.H, par.Size, p.Size)
		}
		checked++
	}
	t.Logf("%d of %d sampled easy proven pairs checked, node counts compared exactly", checked, len(easy))
}

// TestMIVIANamed solves the MIVIA pairs named in -mcs.pairs (comma-
// separated g file names, e.g. mcs10_b03_s40.A01) sequentially and checks
// size and node count against expected.csv; for longer pairs by hand. With
// -mcs.threads > 1 it also runs the parallel engine and logs the speedup.
func TestMIVIANamed(t *testing.T) {
	names := *flagPairs
	if names == "" {
		t.Skip("-mcs.pairs: a comma-separated list of pairs runs it")
	}
	dir, pairs := readExpected(t)
	for _, name := range strings.Split(names, ",") {
		p := pairNamed(t, pairs, name)
		g, h := readPair(t, dir, p)
		res := solveChecked(t, g, h, Options{Threads: 1, Prune: PruneNone})
		t.Logf("%s: size %d nodes %d in %v (%.2f M nodes/s); expected size %d nodes %d proven %v",
			name, res.Size, res.Nodes, res.Elapsed, float64(res.Nodes)/res.Elapsed.Seconds()/1e6, p.Size, p.Nodes, p.Proven)
		if p.Proven && (res.Size != p.Size || res.Nodes != p.Nodes) {
			t.Errorf("%s: mismatch", name)
		}
		if th := *flagThreads; th > 1 {
			par := solveChecked(t, g, h, Options{Threads: th})
			t.Logf("%s: %d threads: size %d nodes %d in %v (%d subtrees shared), speedup %.2f", name, th, par.Size, par.Nodes, par.Elapsed, par.Shared, res.Elapsed.Seconds()/par.Elapsed.Seconds())
			if par.Size != res.Size {
				t.Errorf("%s: parallel size %d, sequential %d", name, par.Size, res.Size)
			}
		}
	}
}
