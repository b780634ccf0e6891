package mcs

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// manyOptionSets are the option sets of optionSets that SolveMany takes.
func manyOptionSets() []int {
	var out []int
	for i, os := range optionSets {
		if !os.opts.BigFirst {
			out = append(out, i)
		}
	}
	return out
}

func solveManyChecked(t *testing.T, graphs []*core.Graph, opts Options) MultiResult {
	t.Helper()
	res, err := SolveMany(context.Background(), graphs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyMany(graphs, res.Tuples, opts); err != nil {
		t.Fatalf("threads %d: %v (tuples %v)", opts.Threads, err, res.Tuples)
	}
	if res.Size != len(res.Tuples) {
		t.Fatalf("size %d but %d tuples", res.Size, len(res.Tuples))
	}
	if res.Proven == opts.Approximate || res.Approximate != opts.Approximate {
		t.Fatalf("proven %v approximate %v, asked approximate %v", res.Proven, res.Approximate, opts.Approximate)
	}
	return res
}

// bruteForceMany is an oracle sharing nothing with the search: the
// largest vertex set S of graphs[0] whose induced subgraph embeds, as an
// induced subgraph, in every other graph on its own (embeddings of one
// subgraph into each graph compose into common tuples), trying every S.
func bruteForceMany(graphs []*core.Graph, opts Options) int {
	g := graphs[0]
	best := 0
	for mask := 0; mask < 1<<g.N; mask++ {
		var s []int
		for v := 0; v < g.N; v++ {
			if mask>>v&1 == 1 {
				s = append(s, v)
			}
		}
		if len(s) <= best {
			continue
		}
		if opts.Connected && len(s) > 1 {
			id := make([][2]int, len(s))
			for i, v := range s {
				id[i] = [2]int{v, v}
			}
			if Verify(g, g, id, opts) != nil {
				continue
			}
		}
		ok := true
		for _, h := range graphs[1:] {
			ok = ok && embeds(g, h, s, opts)
		}
		if ok {
			best = len(s)
		}
	}
	return best
}

// embeds reports whether g[s] is isomorphic to an induced subgraph of h.
func embeds(g, h *core.Graph, s []int, opts Options) bool {
	used := make([]bool, h.N)
	var mapping [][2]int
	var rec func(i int) bool
	rec = func(i int) bool {
		if i == len(s) {
			return true
		}
		for x := 0; x < h.N; x++ {
			if used[x] {
				continue
			}
			mapping = append(mapping, [2]int{s[i], x})
			if compatible(g, h, mapping, opts) {
				used[x] = true
				if rec(i + 1) {
					return true
				}
				used[x] = false
			}
			mapping = mapping[:len(mapping)-1]
		}
		return false
	}
	return rec(0)
}

// TestManyPairIsPair checks that SolveMany on two graphs is the pair
// engine's search: equal sizes and node counts, under every option set.
func TestManyPairIsPair(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, i := range manyOptionSets() {
		os := optionSets[i]
		t.Run(os.name, func(t *testing.T) {
			for c, rp := range os.randomPairs(t, rng, 15, 5, 12, 0.15, 0.7) {
				g, h := rp.g, rp.h
				o := os.opts
				o.Threads, o.Prune = 1, PruneNone // the k-graph search has R5 alone
				pair := solveChecked(t, g, h, o)
				o.PlainOrder = true
				many := solveManyChecked(t, []*core.Graph{g, h}, o)
				if many.Size != pair.Size || many.Nodes != pair.Nodes {
					t.Fatalf("case %d (n=%d,%d): many size %d nodes %d, pair size %d nodes %d", c, g.N, h.N, many.Size, many.Nodes, pair.Size, pair.Nodes)
				}
			}
		})
	}
}

// TestManyMIVIAPairs compares SolveMany on MIVIA pairs with the original
// McSplit's sizes and node counts (a spread of easy pairs; all with
// ARBOR_LONG=1).
func TestManyMIVIAPairs(t *testing.T) {
	dir, pairs := readExpected(t)
	easy, _ := easyPairs(pairs, 0.05, 25)
	for _, p := range easy {
		g, h := readPair(t, dir, p)
		// The default order too: MIVIA pairs have equal sizes, so it keeps g first.
		res := solveManyChecked(t, []*core.Graph{g, h}, Options{Threads: 1, Prune: PruneNone})
		if res.Size != p.Size || res.Nodes != p.Nodes {
			t.Errorf("%s/%s: size %d nodes %d, original McSplit size %d nodes %d", p.G, p.H, res.Size, res.Nodes, p.Size, p.Nodes)
		}
	}
}

// TestManyBruteForce compares sizes on tiny random triples (and a few
// quadruples) with bruteForceMany, sequential and parallel, both orders.
func TestManyBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, i := range manyOptionSets() {
		os := optionSets[i]
		t.Run(os.name, func(t *testing.T) {
			for c := 0; c < 20; c++ {
				k := 3
				if c%4 == 3 {
					k = 4
				}
				graphs := make([]*core.Graph, k)
				for j := range graphs {
					graphs[j] = os.graph(t, rng, 2+rng.IntN(7), 0.2+0.6*rng.Float64())
				}
				want := bruteForceMany(graphs, os.opts)
				for _, threads := range []int{1, 3} {
					for _, plain := range []bool{false, true} {
						o := os.opts
						o.Threads, o.PlainOrder = threads, plain
						res := solveManyChecked(t, graphs, o)
						if res.Size != want {
							t.Fatalf("case %d (k=%d) threads %d plain %v: size %d, brute force %d", c, k, threads, plain, res.Size, want)
						}
					}
				}
			}
		})
	}
}

// TestManyRepeatedGraph checks that (G, H, G) has mcs(G, H)'s size, on
// random pairs and MIVIA pairs, and that (G, G, G) is all of G.
func TestManyRepeatedGraph(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for c := 0; c < 20; c++ {
		g := randomGraph(t, rng, 6+rng.IntN(8), 0.4, false, 0, 0, 0)
		h := randomGraph(t, rng, 6+rng.IntN(8), 0.4, false, 0, 0, 0)
		pair := solveChecked(t, g, h, Options{Threads: 1})
		for _, threads := range []int{1, 2} {
			res := solveManyChecked(t, []*core.Graph{g, h, g}, Options{Threads: threads})
			if res.Size != pair.Size {
				t.Fatalf("case %d threads %d: (G,H,G) size %d, mcs(G,H) %d", c, threads, res.Size, pair.Size)
			}
		}
		if res := solveManyChecked(t, []*core.Graph{g, g, g}, Options{Threads: 1}); res.Size != g.N {
			t.Fatalf("case %d: (G,G,G) size %d, want %d", c, res.Size, g.N)
		}
	}
	dir, pairs := readExpected(t)
	checked := 0
	for _, p := range pairs {
		if !p.Proven || p.Seconds > 0.002 || p.N > 25 || checked == 6 {
			continue
		}
		g, h := readPair(t, dir, p)
		res := solveManyChecked(t, []*core.Graph{g, h, g}, Options{Threads: 1})
		if res.Size != p.Size {
			t.Errorf("%s/%s: (G,H,G) size %d, mcs(G,H) %d", p.G, p.H, res.Size, p.Size)
		}
		checked++
	}
}

// TestManyApproximate checks that the approximation returns a verified
// common subgraph no larger than the exact one, never proven, and exact
// for two graphs.
func TestManyApproximate(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	for c := 0; c < 30; c++ {
		k := 2 + c%3
		graphs := make([]*core.Graph, k)
		for j := range graphs {
			graphs[j] = randomGraph(t, rng, 4+rng.IntN(7), 0.3+0.4*rng.Float64(), false, 2, 0, 0)
		}
		o := Options{Threads: 1, VertexLabels: true}
		exact := solveManyChecked(t, graphs, o)
		for _, keep := range []int{1, 3} {
			a := o
			a.Approximate, a.Keep = true, keep
			approx := solveManyChecked(t, graphs, a)
			if approx.Size > exact.Size || (k == 2 && approx.Size != exact.Size) {
				t.Fatalf("case %d (k=%d) keep %d: approximate %d, exact %d", c, k, keep, approx.Size, exact.Size)
			}
		}
	}
}

// TestManyKeep checks that collecting several maxima keeps the size and
// returns distinct, verified solutions.
func TestManyKeep(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	for c := 0; c < 10; c++ {
		g := randomGraph(t, rng, 8, 0.4, false, 0, 0, 0)
		h := randomGraph(t, rng, 8, 0.4, false, 0, 0, 0)
		graphs := []*core.Graph{g, h}
		one := solveManyChecked(t, graphs, Options{Threads: 1})
		res, all, err := solveManyExact(context.Background(), graphs, Options{Threads: 1}, 4)
		if err != nil {
			t.Fatal(err)
		}
		if res.Size != one.Size || len(all) == 0 || len(all) > 4 {
			t.Fatalf("case %d: size %d with %d solutions, want size %d", c, res.Size, len(all), one.Size)
		}
		seen := map[string]bool{}
		for _, sol := range all {
			if err := VerifyMany(graphs, sol, Options{}); err != nil || len(sol) != one.Size {
				t.Fatalf("case %d: solution of %d: %v", c, len(sol), err)
			}
			var key strings.Builder
			col := make([]int, len(sol))
			for i, row := range sol {
				col[i] = row[0]
			}
			slices.Sort(col)
			for _, v := range col {
				key.WriteString(string(rune('a' + v)))
			}
			if seen[key.String()] {
				t.Fatalf("case %d: a vertex set kept twice", c)
			}
			seen[key.String()] = true
		}
	}
}

func TestManyErrors(t *testing.T) {
	b := core.NewBuilder(3, false)
	b.AddEdge(0, 1)
	g, _ := b.Build()
	bad := []struct {
		name   string
		graphs []*core.Graph
		opts   Options
	}{
		{"one graph", []*core.Graph{g}, Options{}},
		{"nil graph", []*core.Graph{g, nil, g}, Options{}},
		{"big-first", []*core.Graph{g, g, g}, Options{BigFirst: true}},
		{"goal", []*core.Graph{g, g, g}, Options{Goal: 2}},
		{"gpu", []*core.Graph{g, g, g}, Options{Engine: EngineGPU}},
		{"keep", []*core.Graph{g, g, g}, Options{Keep: -1}},
	}
	for _, c := range bad {
		if _, err := SolveMany(context.Background(), c.graphs, c.opts); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
}

func TestGraphOrder(t *testing.T) {
	sized := func(ns ...int) []*core.Graph {
		var out []*core.Graph
		for _, n := range ns {
			out = append(out, &core.Graph{N: n, Offsets: make([]int, n+1)})
		}
		return out
	}
	gs := sized(5, 3, 9, 1, 7)
	if got, want := GraphOrder(gs, false), []int{3, 2, 1, 4, 0}; !slices.Equal(got, want) {
		t.Errorf("oscillating order %v, want %v", got, want)
	}
	if got, want := GraphOrder(gs, true), []int{0, 1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("plain order %v, want %v", got, want)
	}
	if got, want := GraphOrder(sized(4, 4), false), []int{0, 1}; !slices.Equal(got, want) {
		t.Errorf("equal sizes: order %v, want %v", got, want)
	}
}

// TestManyParallel checks the parallel multi-graph search against the
// sequential one on triples big enough for the root's children to be
// spread over the workers, under every option set.
func TestManyParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	var shared int64
	for _, i := range manyOptionSets() {
		os := optionSets[i]
		for c := 0; c < 3; c++ {
			graphs := make([]*core.Graph, 3)
			for j := range graphs {
				graphs[j] = os.graph(t, rng, 9+rng.IntN(4), 0.2+0.6*rng.Float64())
			}
			o := os.opts
			o.Threads = 1
			seq := solveManyChecked(t, graphs, o)
			o.Threads = 4
			par := solveManyChecked(t, graphs, o)
			if par.Size != seq.Size {
				t.Fatalf("%s case %d: parallel size %d, sequential %d", os.name, c, par.Size, seq.Size)
			}
			shared += par.Shared
		}
	}
	if shared == 0 {
		t.Error("no subtree was ever shared")
	}
	t.Logf("%d subtrees shared", shared)
}

// TestManyApproximateCarries checks that the approximation's induced
// subgraphs keep labels, arc directions and self-loops: (G, G, G) must
// come out whole, and (G, H, G) a verified common subgraph of at most
// mcs(G, H), under every option set.
func TestManyApproximateCarries(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 40))
	for _, i := range manyOptionSets() {
		os := optionSets[i]
		for c := 0; c < 4; c++ {
			g := os.graph(t, rng, 4+rng.IntN(6), 0.2+0.6*rng.Float64())
			h := os.graph(t, rng, 4+rng.IntN(6), 0.2+0.6*rng.Float64())
			o := os.opts
			o.Threads, o.Approximate, o.Keep = 1, true, 2
			whole := g.N
			if os.opts.Connected {
				// A disconnected G has no connected common subgraph of |G|.
				whole = solveChecked(t, g, g, Options{Threads: 1, Connected: true, Directed: o.Directed,
					VertexLabels: o.VertexLabels, EdgeLabels: o.EdgeLabels}).Size
			}
			if res := solveManyChecked(t, []*core.Graph{g, g, g}, o); res.Size != whole {
				t.Fatalf("%s case %d: approximate (G,G,G) size %d, want %d", os.name, c, res.Size, whole)
			}
			pair := os.opts
			pair.Threads = 1
			want := solveChecked(t, g, h, pair).Size
			if res := solveManyChecked(t, []*core.Graph{g, h, g}, o); res.Size > want {
				t.Fatalf("%s case %d: approximate (G,H,G) size %d above mcs(G,H) %d", os.name, c, res.Size, want)
			}
		}
	}
}

// TestManyStop checks that a node limit and a cancelled context stop the
// multi-graph search with a verified, unproven answer, sequential and
// parallel, and that progress is reported.
func TestManyStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	graphs := make([]*core.Graph, 3)
	for j := range graphs {
		graphs[j] = randomGraph(t, rng, 40, 0.3, false, 0, 0, 0)
	}
	stopped := func(opts Options) MultiResult {
		t.Helper()
		res, err := SolveMany(context.Background(), graphs, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyMany(graphs, res.Tuples, opts); err != nil || res.Size != len(res.Tuples) {
			t.Fatalf("size %d, %d tuples: %v", res.Size, len(res.Tuples), err)
		}
		return res
	}
	for _, threads := range []int{1, 2} {
		res := stopped(Options{Threads: threads, NodeLimit: 20000})
		if res.Proven || res.Nodes < 20000 {
			t.Errorf("threads %d, node limit: proven %v after %d nodes", threads, res.Proven, res.Nodes)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r, err := SolveMany(ctx, graphs, Options{Threads: threads})
		if err != nil || r.Proven {
			t.Errorf("threads %d, cancelled: proven %v, error %v", threads, r.Proven, err)
		}
	}
	calls := 0
	stopped(Options{Threads: 1, NodeLimit: 3_000_000, ProgressInterval: time.Millisecond,
		Progress: func(Progress) { calls++ }})
	if calls == 0 {
		t.Error("no progress reported")
	}
}
