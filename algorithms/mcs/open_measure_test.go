//go:build measure

package mcs

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"
)

// openMeasurePairs are the smaller McSplit-open pairs (expected.csv
// proven=no, 40–60 vertices) of the 32-pair sample of docs/results/mcs.md.
var openMeasurePairs = []string{
	"mcs30_r02_s40.A01", "mcs30_b06m_s50.A00", "mcs30_b09m_s50.A02", "mcs50_m3D_s50.A02",
	"mcs70_r005_s50.A02", "mcs10_m2Dr6_s60.A02", "mcs30_m2Dr2_s60.A02", "mcs50_b03m_s60.A01",
	"mcs70_b06_s60.A02", "mcs70_m2Dr2_s60.A00",
}

// TestMeasureOpen runs the CPU engine on McSplit-open pairs under a fixed
// node budget (-mcs.nodes, default 20 M; -mcs.threads, default 1;
// -mcs.pairs to choose other pairs) in the trees rr and rr2, each
// with and without big-first (McSplit↓): the size found, whether it was
// proven within the budget, and the nodes. Every mapping is verified.
var flagOpenNodes = flag.Int64("mcs.nodes", 20_000_000, "TestMeasureOpen: the node budget of a search")

func TestMeasureOpen(t *testing.T) {
	if !*flagMeasure {
		t.Skip("-args -mcs.measure runs the docs/results/mcs.md measurements")
	}
	names := openMeasurePairs
	if s := *flagPairs; s != "" {
		names = strings.Split(s, ",")
	}
	budget := *flagOpenNodes
	threads := threadsOr(1)
	dir, pairs := readExpected(t)
	out := "| pair | McSplit's size | tree | big-first | size | proven | nodes |\n|---|---|---|---|---|---|---|\n"
	for _, name := range names {
		mp := pairNamed(t, pairs, name)
		g, h := readPair(t, dir, mp)
		for _, prune := range []Pruning{PruneRR, PruneRR2} {
			for _, big := range []bool{false, true} {
				opts := Options{Engine: EngineCPU, Threads: threads, Prune: prune, BigFirst: big, NodeLimit: budget}
				res, err := Solve(context.Background(), g, h, opts)
				if err != nil {
					t.Fatal(err)
				}
				if err := Verify(g, h, res.Mapping, Options{}); err != nil {
					t.Fatalf("%s %v big-first %v: %v", name, prune, big, err)
				}
				line := fmt.Sprintf("| %s | %d | %v | %v | %d | %v | %d |\n", name, mp.Size, prune, big, res.Size, res.Proven, res.Nodes)
				t.Log(line)
				out += line
			}
		}
	}
	fmt.Print(out)
}
