//go:build measure

package vertexcover

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

var proofSet = flag.String("proof", "", "TestProofMeasure: comma-separated instances: PACE numbers (083) or gnm:N:M:SEED")

// TestProofMeasure proves small hard instances with one thread and no
// local search and prints nodes and user CPU (issue #42, the stand-ins
// of docs/results/vertexcover.md):
//
//	go test -tags measure -run ProofMeasure -v ./algorithms/vertexcover/ \
//		-proof gnm:200:1400:1,gnm:200:1400:2,gnm:220:1600:1,083,091,093
//
// gnm:N:M:SEED is a G(n, m) graph of m distinct random edges from a
// seeded generator (not the Python one of the earlier section: other
// graphs of the same kind).
func TestProofMeasure(t *testing.T) {
	if *proofSet == "" {
		t.Skip("-proof INSTANCES not set")
	}
	for _, name := range strings.Split(*proofSet, ",") {
		var g *core.Graph
		if rest, ok := strings.CutPrefix(name, "gnm:"); ok {
			var n, m int
			var seed uint64
			if _, err := fmt.Sscanf(strings.ReplaceAll(rest, ":", " "), "%d %d %d", &n, &m, &seed); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			g = gnmGraph(t, n, m, seed)
		} else {
			dir := dataset.Require(t, "")
			var err error
			g, err = core.ReadGraph(filepath.Join(dir, "vc/pace2019/vc-exact_"+name+".gr"), core.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
		}
		before := userCPU()
		res, err := Solve(t.Context(), g, Options{Threads: 1, LocalSearch: -1})
		if err != nil {
			t.Fatal(err)
		}
		cpu := userCPU() - before
		if err := Verify(g, res.Cover); err != nil || !res.Proven {
			t.Fatalf("%s: proven %v, cover: %v", name, res.Proven, err)
		}
		t.Logf("%-16s optimum %4d  nodes %8d  user CPU %.2f s", name, len(res.Cover), res.Nodes, cpu.Seconds())
	}
}

// gnmGraph is a G(n, m) graph: m distinct edges drawn uniformly.
func gnmGraph(t testing.TB, n, m int, seed uint64) *core.Graph {
	r := rand.New(rand.NewPCG(seed, 42))
	seen := map[[2]int]bool{}
	b := core.NewBuilder(n, false)
	for len(seen) < m {
		u, v := r.IntN(n), r.IntN(n)
		if u == v {
			continue
		}
		if u > v {
			u, v = v, u
		}
		if !seen[[2]int{u, v}] {
			seen[[2]int{u, v}] = true
			b.AddEdge(u, v)
		}
	}
	return build(t, b)
}

func userCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano())
}
