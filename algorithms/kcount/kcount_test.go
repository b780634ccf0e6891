package kcount

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// gnp is a G(n, p) graph from rng; directed graphs get each arc on its
// own (either makes a pair adjacent) and a few self-loops.
func gnp(t testing.TB, rng *rand.Rand, n int, p float64, directed bool) *core.Graph {
	t.Helper()
	b := core.NewBuilder(n, directed)
	b.AllowSelfLoops = directed
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < p {
				if directed && rng.IntN(2) == 0 {
					b.AddEdge(v, u)
				} else {
					b.AddEdge(u, v)
				}
			}
		}
		if directed && rng.IntN(4) == 0 {
			b.AddEdge(u, u)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// bruteCounts counts the cliques of every size of a graph of at most 22
// vertices by looking at every vertex subset: a subset is a clique when
// it is one without its lowest vertex and that vertex is adjacent to all
// the rest. out[k] is the number of k-cliques (out[0] = 1, the empty set).
func bruteCounts(g *core.Graph) []uint64 {
	n := g.N
	if n > 22 {
		panic("bruteCounts: too many vertices")
	}
	nb := make([]uint32, n)
	for u := 0; u < n; u++ {
		for _, v := range g.Neighbors(u) {
			if int(v) != u {
				nb[u] |= 1 << v
				nb[v] |= 1 << u
			}
		}
	}
	clique := make([]bool, 1<<n)
	out := make([]uint64, n+1)
	clique[0] = true
	out[0] = 1
	for s := uint32(1); s < 1<<n; s++ {
		low := bits.TrailingZeros32(s)
		rest := s &^ (1 << low)
		if clique[rest] && nb[low]&rest == rest {
			clique[s] = true
			out[bits.OnesCount32(s)]++
		}
	}
	return out
}

// want is bruteCounts' answer for k (0 above n).
func want(counts []uint64, k int) uint64 {
	if k < len(counts) {
		return counts[k]
	}
	return 0
}

func count(t testing.TB, g *core.Graph, k int, o Options) Result {
	t.Helper()
	res, err := Count(context.Background(), g, k, o)
	if err != nil {
		t.Fatalf("n %d, k %d, %s: %v", g.N, k, o.Engine, err)
	}
	if !res.Proven {
		t.Fatalf("n %d, k %d, %s: not proven without a limit", g.N, k, o.Engine)
	}
	return res
}

// smallGraphs are random graphs of at most 20 vertices at several
// densities, a few directed with self-loops, and the extremes.
func smallGraphs(t testing.TB) []*core.Graph {
	rng := rand.New(rand.NewPCG(41, 1))
	var gs []*core.Graph
	for _, n := range []int{0, 1, 2, 5, 9, 14, 20} {
		for _, p := range []float64{0, 0.15, 0.4, 0.7, 0.9, 1} {
			gs = append(gs, gnp(t, rng, n, p, false))
		}
		gs = append(gs, gnp(t, rng, n, 0.6, true))
	}
	return gs
}

// TestBruteForce: the CPU engine (1 and 3 threads) and Recount equal the
// subset enumeration for every k from 1 to n + 2, on every small graph.
func TestBruteForce(t *testing.T) {
	for gi, g := range smallGraphs(t) {
		counts := bruteCounts(g)
		for k := 1; k <= g.N+2; k++ {
			w := want(counts, k)
			for _, threads := range []int{1, 3} {
				if got := count(t, g, k, Options{Engine: EngineCPU, Threads: threads}); got.Count != w {
					t.Fatalf("graph %d (n %d, %d edges), k %d, %d threads: %d k-cliques, brute force %d", gi, g.N, g.Edges(), k, threads, got.Count, w)
				}
			}
			if got, err := Recount(context.Background(), g, k); err != nil || got != w {
				t.Fatalf("graph %d, k %d: Recount %d (%v), brute force %d", gi, k, got, err, w)
			}
		}
	}
}

// TestK: k below 1 is an error; k = 1 and 2 are the vertices and edges; a
// k past the degeneracy + 1 is 0 without a search; a large k is fine.
func TestK(t *testing.T) {
	g := gnp(t, rand.New(rand.NewPCG(3, 4)), 60, 0.3, false)
	for _, k := range []int{0, -3} {
		if _, err := Count(context.Background(), g, k, Options{}); err == nil {
			t.Fatalf("k %d: no error", k)
		}
	}
	if r := count(t, g, 1, Options{}); r.Count != 60 {
		t.Fatalf("k 1: %d, want 60", r.Count)
	}
	if r := count(t, g, 2, Options{}); r.Count != uint64(g.Edges()) {
		t.Fatalf("k 2: %d, want %d edges", r.Count, g.Edges())
	}
	r := count(t, g, math.MaxInt32, Options{})
	if r.Count != 0 || r.Nodes != 0 || r.Degeneracy < 1 {
		t.Fatalf("k 2^31−1: %+v, want 0 without a search", r)
	}
	if r := count(t, g, r.Degeneracy+2, Options{}); r.Count != 0 {
		t.Fatalf("k = degeneracy + 2: %d, want 0", r.Count)
	}
	if _, err := Count(context.Background(), g, 3, Options{Engine: EngineGPU}); err == nil {
		t.Fatal("the gpu engine without a device: no error")
	}
	if _, err := Count(context.Background(), g, 3, Options{Engine: "fpga"}); err == nil {
		t.Fatal("an unknown engine: no error")
	}
}

// TestDegeneracyOrder: every vertex has at most degeneracy out-neighbours,
// every edge is oriented once, and the degeneracy is the largest core
// number (a clique on 6 vertices inside a sparse graph: 5).
func TestDegeneracyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	b := core.NewBuilder(200, false)
	for i := 0; i < 300; i++ {
		b.AddEdge(rng.IntN(200), rng.IntN(200))
	}
	for u := 0; u < 6; u++ {
		for v := u + 1; v < 6; v++ {
			b.AddEdge(u+100, v+100)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	d := orient(g)
	if d.degeneracy < 5 {
		t.Fatalf("degeneracy %d, want ≥ 5 (a 6-clique)", d.degeneracy)
	}
	if int64(len(d.out)) != d.edges || d.edges != int64(g.Edges()) {
		t.Fatalf("%d oriented edges, %d edges, graph %d", len(d.out), d.edges, g.Edges())
	}
	for i := 0; i < d.n; i++ {
		if len(d.outs(i)) > d.degeneracy {
			t.Fatalf("rank %d has %d out-neighbours, degeneracy %d", i, len(d.outs(i)), d.degeneracy)
		}
		for _, u := range d.outs(i) {
			if int(u) <= i || !g.HasEdge(int(d.order[i]), int(d.order[u])) {
				t.Fatalf("rank %d → %d is not an edge up the order", i, u)
			}
		}
	}
}

// TestRealGraphs: the CPU engine equals Recount on small real graphs, for
// every k up to their clique number (under -short, USAir97's middle k,
// whose recounts take seconds, are left out).
func TestRealGraphs(t *testing.T) {
	dir := dataset.Require(t, "matching/suitesparse")
	for _, name := range []string{"karate.mtx", "football.mtx", "USAir97.mtx", "jagmesh7.mtx", "delaunay_n10.mtx"} {
		g, err := core.ReadGraph(filepath.Join(dir, name), core.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for k := 1; ; k++ {
			if testing.Short() && name == "USAir97.mtx" && k >= 8 && k <= 17 {
				continue
			}
			got := count(t, g, k, Options{Engine: EngineCPU})
			if err := Verify(context.Background(), g, got); err != nil {
				t.Fatalf("%s, k %d: %v", name, k, err)
			}
			if got.Count == 0 {
				t.Logf("%s: %d vertices, degeneracy %d, no %d-clique", name, g.N, got.Degeneracy, k)
				break
			}
		}
	}
}

// TestStop: a cancelled context or a timeout returns a partial count,
// marked unproven, that does not exceed the full count; nil error.
func TestStop(t *testing.T) {
	g := gnp(t, rand.New(rand.NewPCG(7, 8)), 160, 0.6, false)
	const k = 9
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Count(ctx, g, k, Options{Threads: 2})
	if err != nil || r.Proven {
		t.Fatalf("cancelled: %+v, %v; want unproven, no error", r, err)
	}
	t0 := time.Now()
	r, err = Count(context.Background(), g, k, Options{Threads: 2, Timeout: 30 * time.Millisecond})
	if err != nil || r.Proven || r.Count == 0 {
		t.Fatalf("timeout: %+v, %v; want a partial count, unproven", r, err)
	}
	if el := time.Since(t0); el > 3*time.Second {
		t.Fatalf("a 30 ms timeout returned after %v", el)
	}
	full := count(t, g, k, Options{Threads: 2})
	if r.Count > full.Count {
		t.Fatalf("partial count %d exceeds the full count %d", r.Count, full.Count)
	}
	t.Logf("G(160, 0.6), k %d: %d of %d counted in 30 ms; the whole count took %v", k, r.Count, full.Count, full.Elapsed)
}

// TestOverflow: a count past 2^64 − 1 is noticed, not wrapped.
func TestOverflow(t *testing.T) {
	c := &counter{count: math.MaxUint64 - 2}
	c.add(2)
	if c.over {
		t.Fatal("2^64 − 1 reported as an overflow")
	}
	c.add(1)
	if !c.over {
		t.Fatal("2^64 not reported as an overflow")
	}
}
