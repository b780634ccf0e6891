package mcs

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// optionSet is a combination of options with the kind of random graphs
// it is tested on.
type optionSet struct {
	name      string
	opts      Options
	directed  bool
	vl, el    int
	loops     float64
	maxN      int
	skipBrute bool
}

// graph draws a random graph of n vertices and density p of the set's
// kind (directed, labelled, with loops).
func (os optionSet) graph(t testing.TB, rng *rand.Rand, n int, p float64) *core.Graph {
	return randomGraph(t, rng, n, p, os.directed, os.vl, os.el, os.loops)
}

// randomPair is a random pair of graphs of an option set's kind.
type randomPair struct {
	g, h *core.Graph
	p    float64 // the density of both
}

// randomPairs draws count pairs, each graph of lo to lo+span−1 vertices,
// both of density pLo + pSpan·U[0,1).
func (os optionSet) randomPairs(t testing.TB, rng *rand.Rand, count, lo, span int, pLo, pSpan float64) []randomPair {
	out := make([]randomPair, count)
	for i := range out {
		n0, n1 := lo+rng.IntN(span), lo+rng.IntN(span)
		p := pLo + pSpan*rng.Float64()
		out[i] = randomPair{os.graph(t, rng, n0, p), os.graph(t, rng, n1, p), p}
	}
	return out
}

// optionSets are the combinations every small-case test runs.
var optionSets = []optionSet{
	{name: "plain", opts: Options{}, maxN: 10},
	{name: "min_product", opts: Options{Heuristic: MinProduct}, maxN: 10},
	{name: "connected", opts: Options{Connected: true}, maxN: 9},
	{name: "big-first", opts: Options{BigFirst: true}, maxN: 9},
	{name: "connected+big-first", opts: Options{Connected: true, BigFirst: true}, maxN: 9},
	{name: "directed", opts: Options{Directed: true}, directed: true, maxN: 9},
	{name: "directed+connected", opts: Options{Directed: true, Connected: true}, directed: true, maxN: 8},
	{name: "vertex-labels", opts: Options{VertexLabels: true}, vl: 3, maxN: 10},
	{name: "edge-labels", opts: Options{EdgeLabels: true}, el: 3, maxN: 9},
	{name: "all-labels", opts: Options{VertexLabels: true, EdgeLabels: true}, vl: 2, el: 2, maxN: 9},
	{name: "directed+labels", opts: Options{Directed: true, VertexLabels: true, EdgeLabels: true}, directed: true, vl: 2, el: 2, maxN: 9},
	{name: "loops", opts: Options{}, loops: 0.3, maxN: 9},
	{name: "directed+loops+big-first", opts: Options{Directed: true, BigFirst: true}, directed: true, loops: 0.3, maxN: 8},
}

func solveChecked(t *testing.T, g, h *core.Graph, opts Options) Result {
	t.Helper()
	res, err := Solve(context.Background(), g, h, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(g, h, res.Mapping, opts); err != nil {
		t.Fatalf("threads %d: %v (mapping %v)", opts.Threads, err, res.Mapping)
	}
	if res.Size != len(res.Mapping) {
		t.Fatalf("size %d but %d pairs", res.Size, len(res.Mapping))
	}
	if !res.Proven {
		t.Fatalf("not proven")
	}
	return res
}

// TestBruteForce compares sizes with exhaustive search on ≤ 10 vertices,
// for every option set, sequential and parallel.
func TestBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, os := range optionSets {
		t.Run(os.name, func(t *testing.T) {
			for i, rp := range os.randomPairs(t, rng, 25, 1, os.maxN, 0.2, 0.6) {
				g, h := rp.g, rp.h
				want := bruteForce(g, h, os.opts)
				for _, threads := range []int{1, 3} {
					o := os.opts
					o.Threads = threads
					res := solveChecked(t, g, h, o)
					if res.Size != want {
						t.Fatalf("case %d (n=%d,%d) threads %d: size %d, brute force %d", i, g.N, h.N, threads, res.Size, want)
					}
				}
			}
		})
	}
}

// TestReferenceNodes checks that the engine's search tree is the original
// algorithm's, node for node, under every option set, against a literal
// transcription of the original's structure (helpers_test.go).
func TestReferenceNodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, os := range optionSets {
		t.Run(os.name, func(t *testing.T) {
			for i, rp := range os.randomPairs(t, rng, 20, 5, 12, 0.15, 0.7) {
				g, h := rp.g, rp.h
				o := os.opts
				o.Threads, o.Prune = 1, PruneNone
				res := solveChecked(t, g, h, o)
				var size int
				var nodes int64
				if o.Directed || o.EdgeLabels {
					pr, err := newProblem[uint32](g, h, o)
					if err != nil {
						t.Fatal(err)
					}
					size, nodes = (&refSearch[uint32]{p: pr}).run()
				} else {
					pr, err := newProblem[uint8](g, h, o)
					if err != nil {
						t.Fatal(err)
					}
					size, nodes = (&refSearch[uint8]{p: pr}).run()
				}
				if res.Size != size || res.Nodes != nodes {
					t.Fatalf("case %d (n=%d,%d p=%.2f): engine size %d nodes %d, reference size %d nodes %d",
						i, g.N, h.N, rp.p, res.Size, res.Nodes, size, nodes)
				}
			}
		})
	}
}

// TestSmallCases checks hand-made cases with known answers.
func TestSmallCases(t *testing.T) {
	build := func(n int, directed bool, edges ...[2]int) *core.Graph {
		b := core.NewBuilder(n, directed)
		for _, e := range edges {
			b.AddEdge(e[0], e[1])
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	path4 := build(4, false, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 3})
	triangle := build(3, false, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 0})
	twoEdges := build(4, false, [2]int{0, 1}, [2]int{2, 3})
	empty3 := build(3, false)
	none := build(0, false)
	cycle := build(3, true, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 0})
	out := build(3, true, [2]int{0, 1}, [2]int{0, 2}, [2]int{1, 2})
	cases := []struct {
		name string
		g, h *core.Graph
		opts Options
		want int
	}{
		{"path vs triangle", path4, triangle, Options{}, 2},
		{"triangle vs itself", triangle, triangle, Options{}, 3},
		{"two edges vs path", twoEdges, path4, Options{}, 3},
		{"two edges vs path, connected", twoEdges, path4, Options{Connected: true}, 2},
		{"empty vs path", empty3, path4, Options{}, 2},
		{"empty vs path, connected", empty3, path4, Options{Connected: true}, 1},
		{"no vertices", none, path4, Options{}, 0},
		{"no vertices, big-first", none, path4, Options{BigFirst: true}, 0},
		{"cycle vs transitive, undirected", cycle, out, Options{}, 3},
		{"cycle vs transitive, directed", cycle, out, Options{Directed: true}, 2},
	}
	for _, c := range cases {
		for _, threads := range []int{1, 2} {
			o := c.opts
			o.Threads = threads
			res := solveChecked(t, c.g, c.h, o)
			if res.Size != c.want {
				t.Errorf("%s, threads %d: size %d, want %d (mapping %v)", c.name, threads, res.Size, c.want, res.Mapping)
			}
		}
	}
}

// TestVerifyRejects checks that the checker catches each kind of bad mapping.
func TestVerifyRejects(t *testing.T) {
	b := core.NewBuilder(4, false)
	b.AddEdge(0, 1)
	b.AddEdge(1, 2)
	b.AddEdge(2, 3)
	b.VertexLabels = []int32{0, 1, 0, 1}
	path, _ := b.Build()
	b2 := core.NewBuilder(4, true)
	b2.AddEdge(0, 1)
	b2.AddEdge(2, 3)
	arcs, _ := b2.Build()
	cases := []struct {
		name    string
		g, h    *core.Graph
		mapping [][2]int
		opts    Options
	}{
		{"out of range", path, path, [][2]int{{0, 4}}, Options{}},
		{"not injective", path, path, [][2]int{{0, 1}, {2, 1}}, Options{}},
		{"edge to non-edge", path, path, [][2]int{{0, 0}, {1, 2}}, Options{}},
		{"non-edge to edge", path, path, [][2]int{{0, 0}, {2, 1}}, Options{}},
		{"labels", path, path, [][2]int{{0, 1}}, Options{VertexLabels: true}},
		{"disconnected", path, path, [][2]int{{0, 0}, {3, 3}}, Options{Connected: true}},
		{"direction", arcs, arcs, [][2]int{{0, 1}, {1, 0}}, Options{Directed: true}},
	}
	for _, c := range cases {
		if err := Verify(c.g, c.h, c.mapping, c.opts); err == nil {
			t.Errorf("%s: Verify accepted %v", c.name, c.mapping)
		}
	}
	if err := Verify(path, path, [][2]int{{0, 3}, {1, 2}, {2, 1}, {3, 0}}, Options{}); err != nil {
		t.Errorf("reversal of a path rejected: %v", err)
	}
	if err := Verify(arcs, arcs, [][2]int{{0, 1}, {1, 0}}, Options{}); err != nil {
		t.Errorf("undirected reading rejected a valid mapping: %v", err)
	}
}

// TestStop checks that a timeout, a node limit and a cancelled context
// return a valid, unproven result.
func TestStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	g := randomGraph(t, rng, 60, 0.3, false, 0, 0, 0)
	h := randomGraph(t, rng, 60, 0.3, false, 0, 0, 0)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, threads := range []int{1, 2} {
		for _, c := range []struct {
			name string
			ctx  context.Context
			opts Options
		}{
			{"timeout", context.Background(), Options{Timeout: 50 * time.Millisecond}},
			{"node limit", context.Background(), Options{NodeLimit: 20000}},
			{"cancelled", cancelled, Options{}},
		} {
			o := c.opts
			o.Threads = threads
			start := time.Now()
			res, err := Solve(c.ctx, g, h, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Proven {
				t.Errorf("%s, threads %d: proven after %d nodes", c.name, threads, res.Nodes)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("%s, threads %d: took %v to stop", c.name, threads, took)
			}
			if err := Verify(g, h, res.Mapping, o); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}
	}
}

// TestProgress checks the progress callback is called while searching.
func TestProgress(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	g := randomGraph(t, rng, 50, 0.3, false, 0, 0, 0)
	h := randomGraph(t, rng, 50, 0.3, false, 0, 0, 0)
	calls := 0
	var last Progress
	res, err := Solve(context.Background(), g, h, Options{Threads: 1, Timeout: 300 * time.Millisecond,
		ProgressInterval: 20 * time.Millisecond, Progress: func(p Progress) { calls++; last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last.Nodes == 0 || last.Nodes > res.Nodes || last.Incumbent > res.Size {
		t.Errorf("progress: %d calls, last %+v, result %d nodes size %d", calls, last, res.Nodes, res.Size)
	}
}

func ExampleSolve() {
	b := core.NewBuilder(4, false) // a path 0-1-2-3
	b.AddEdge(0, 1)
	b.AddEdge(1, 2)
	b.AddEdge(2, 3)
	path, _ := b.Build()
	b = core.NewBuilder(3, false) // a triangle
	b.AddEdge(0, 1)
	b.AddEdge(1, 2)
	b.AddEdge(2, 0)
	triangle, _ := b.Build()
	res, _ := Solve(context.Background(), path, triangle, Options{Threads: 1})
	fmt.Println(res.Size, res.Nodes, res.Proven, Verify(path, triangle, res.Mapping, Options{}))
	// The triangle's vertices are twins: the default tree (PruneRR) tries
	// one of them per node (the original McSplit's takes 18 nodes).
	// Output: 2 7 true <nil>
}

// TestParallelSizes runs the parallel engine with many workers on pairs
// big enough for work to be shared, under every option set: sizes must
// equal the sequential engine's, and subtrees must actually be shared.
func TestParallelSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var shared int64
	for _, os := range optionSets {
		t.Run(os.name, func(t *testing.T) {
			for i, rp := range os.randomPairs(t, rng, 4, 14, 8, 0.2, 0.5) {
				g, h := rp.g, rp.h
				o := os.opts
				o.Threads = 1
				seq := solveChecked(t, g, h, o)
				for _, threads := range []int{4, 8} {
					o.Threads = threads
					par := solveChecked(t, g, h, o)
					if par.Size != seq.Size {
						t.Fatalf("case %d, %d threads: size %d, sequential %d", i, threads, par.Size, seq.Size)
					}
					shared += par.Shared
				}
			}
		})
	}
	if shared == 0 {
		t.Errorf("no subtree was ever shared")
	}
	t.Logf("%d subtrees shared", shared)
}

func TestSolveErrors(t *testing.T) {
	b := core.NewBuilder(3, false)
	b.AddEdge(0, 1)
	g, _ := b.Build()
	if _, err := Solve(context.Background(), g, nil, Options{}); err == nil {
		t.Error("nil graph accepted")
	}
	if _, err := Solve(context.Background(), g, g, Options{Heuristic: Heuristic(7)}); err == nil {
		t.Error("unknown heuristic accepted")
	}
	if _, err := ParseHeuristic("min_sum"); err == nil {
		t.Error(`ParseHeuristic("min_sum") accepted`)
	}
	big := &core.Graph{N: 40000, Offsets: make([]int, 40001)}
	if _, err := Solve(context.Background(), big, g, Options{}); err == nil {
		t.Error("a 40000-vertex graph accepted")
	}
	for _, s := range []string{"min_max", "min_product"} {
		if h, err := ParseHeuristic(s); err != nil || h.String() != s {
			t.Errorf("ParseHeuristic(%q) = %v, %v", s, h, err)
		}
	}
}
