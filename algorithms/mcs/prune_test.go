package mcs

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// twinGraph is randomGraph with twins planted: after k random vertices,
// each further vertex copies an earlier one (label, loop and arcs to the
// others), joined to it or not (both ways, one label, when directed), and
// with probability 1/4 one of its arcs flipped so that near-twins, which
// must not count as twins, come up too.
func twinGraph(t testing.TB, rng *rand.Rand, n int, p float64, directed bool, vl, el int, loops float64) *core.Graph {
	t.Helper()
	k := 1 + rng.IntN(max(1, n/2))
	arcs := map[[2]int]int32{} // undirected: keyed min, max
	loop := make([]bool, n)
	labels := make([]int32, n)
	key := func(u, v int) [2]int {
		if !directed && u > v {
			u, v = v, u
		}
		return [2]int{u, v}
	}
	lab := func() int32 {
		if el > 0 {
			return int32(rng.IntN(el))
		}
		return 0
	}
	for u := 0; u < k; u++ {
		loop[u] = rng.Float64() < loops
		if vl > 0 {
			labels[u] = int32(rng.IntN(vl))
		}
		for v := 0; v < k; v++ {
			if v == u || (!directed && v < u) || rng.Float64() >= p {
				continue
			}
			arcs[key(u, v)] = lab()
		}
	}
	for i := k; i < n; i++ {
		src := rng.IntN(i)
		loop[i], labels[i] = loop[src], labels[src]
		for a := 0; a < i; a++ {
			if a == src {
				continue
			}
			if l, ok := arcs[key(src, a)]; ok {
				arcs[key(i, a)] = l
			}
			if l, ok := arcs[key(a, src)]; ok && directed {
				arcs[key(a, i)] = l
			}
		}
		if rng.IntN(2) == 0 {
			l := lab()
			arcs[key(src, i)] = l
			if directed {
				arcs[key(i, src)] = l
			}
		}
		if rng.IntN(4) == 0 {
			a := rng.IntN(i + 1)
			if a != i {
				if _, ok := arcs[key(i, a)]; ok {
					delete(arcs, key(i, a))
				} else {
					arcs[key(i, a)] = lab()
				}
			}
		}
	}
	b := core.NewBuilder(n, directed)
	b.HasEdgeLabels = el > 0
	b.AllowSelfLoops = loops > 0
	for u := 0; u < n; u++ {
		if loop[u] {
			b.Add(core.Edge{U: int32(u), V: int32(u), Weight: 1})
		}
	}
	for a, l := range arcs {
		b.Add(core.Edge{U: int32(a[0]), V: int32(a[1]), Weight: 1, Label: l})
	}
	if vl > 0 {
		b.VertexLabels = labels
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestPruneBruteForce checks the pruned engine (PruneRR) against brute
// force and the faithful engine on random small pairs, half of them with
// planted twins so that the twin rules fire, under every option set (and
// dead-end raising and block order); every mapping passes Verify
// (solveChecked). ARBOR_LONG=1 runs five times more.
func TestPruneBruteForce(t *testing.T) {
	perSet := 400
	if os.Getenv("ARBOR_LONG") == "1" {
		perSet *= 5
	}
	rng := rand.New(rand.NewPCG(37, 2025))
	var faithfulNodes, prunedNodes int64
	pairs := 0
	sets := append(slices.Clone(optionSets), optionSets[0], optionSets[0])
	sets[len(sets)-2].name, sets[len(sets)-2].opts = "dead-end", Options{DeadEnd: 20}
	sets[len(sets)-1].name, sets[len(sets)-1].opts = "block-order", Options{BlockOrder: true}
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			for i := 0; i < perSet; i++ {
				n0 := 1 + rng.IntN(set.maxN)
				n1 := 1 + rng.IntN(set.maxN)
				p := 0.1 + 0.8*rng.Float64()
				gen := randomGraph
				if i%2 == 0 {
					gen = twinGraph
				}
				g := gen(t, rng, n0, p, set.directed, set.vl, set.el, set.loops)
				h := gen(t, rng, n1, p, set.directed, set.vl, set.el, set.loops)
				want := bruteForce(g, h, set.opts)
				o := set.opts
				o.Threads, o.Prune = 1, PruneNone
				faithful := solveChecked(t, g, h, o)
				if faithful.Size != want {
					t.Fatalf("case %d (n=%d,%d): faithful size %d, brute force %d", i, n0, n1, faithful.Size, want)
				}
				o.Prune = PruneRR
				for _, threads := range []int{1, 2} {
					o.Threads = threads
					res := solveChecked(t, g, h, o)
					if res.Size != want {
						t.Fatalf("case %d (n=%d,%d) threads %d: pruned size %d, brute force %d\ng=%v\nh=%v",
							i, n0, n1, threads, res.Size, want, g, h)
					}
					if threads == 1 {
						faithfulNodes += faithful.Nodes
						prunedNodes += res.Nodes
					}
				}
				// R6, off in PruneRR, must be safe too.
				if res := solveWithR6(t, g, h, set.opts); res.Size != want {
					t.Fatalf("case %d (n=%d,%d): with R6 size %d, brute force %d", i, n0, n1, res.Size, want)
				}
				pairs++
			}
		})
	}
	t.Logf("%d pairs: faithful %d nodes, pruned %d (%.2f×)", pairs, faithfulNodes, prunedNodes, float64(faithfulNodes)/float64(prunedNodes))
	if prunedNodes >= faithfulNodes {
		t.Errorf("the pruned engine searched %d nodes, the faithful one %d: no rule fired", prunedNodes, faithfulNodes)
	}
}

// TestTwinClasses checks twinClasses against the definition, through
// Verify's relation and nothing of the search: two vertices share a class
// exactly when they have the same key and swapping them keeps every
// relation in the graph.
func TestTwinClasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, set := range optionSets {
		for i := 0; i < 40; i++ {
			n := 1 + rng.IntN(12)
			g := twinGraph(t, rng, n, 0.1+0.8*rng.Float64(), set.directed, set.vl, set.el, set.loops)
			var p0 *problem[uint32]
			p0, err := newProblem[uint32](g, g, set.opts)
			if err != nil {
				t.Fatal(err)
			}
			tw := p0.findTwins()
			in := make([]int, n) // new index of each input vertex
			for k, v := range p0.order0 {
				in[v] = k
			}
			for u := 0; u < n; u++ {
				for v := u + 1; v < n; v++ {
					twin := g.HasEdge(u, u) == g.HasEdge(v, v) &&
						(!set.opts.VertexLabels || vlabel(g, u) == vlabel(g, v)) &&
						relation(g, u, v, set.opts) == relation(g, v, u, set.opts)
					for a := 0; a < n && twin; a++ {
						if a != u && a != v {
							twin = relation(g, u, a, set.opts) == relation(g, v, a, set.opts)
						}
					}
					cu, cv := tw.cls0[in[u]], tw.cls0[in[v]]
					if same := cu >= 0 && cu == cv; same != twin {
						t.Fatalf("%s: %v: vertices %d and %d: twins %v, same class %v (%d, %d)", set.name, g, u, v, twin, same, cu, cv)
					}
				}
			}
		}
	}
}

// TestPruneConnectedRoot is the case that keeps R3 away from the root of
// a connected search: an isolated vertex v of label A in a small
// bidomain of its own, and a triangle of label B, in both graphs. Matching
// v to its copy splits every bidomain as v does (nothing is adjacent),
// but the triangle (3 vertices) is not connected to v: R3 at the root
// would answer 1.
func TestPruneConnectedRoot(t *testing.T) {
	build := func() *core.Graph {
		b := core.NewBuilder(4, false)
		b.VertexLabels = []int32{1, 1, 1, 0}
		b.Add(core.Edge{U: 0, V: 1, Weight: 1})
		b.Add(core.Edge{U: 1, V: 2, Weight: 1})
		b.Add(core.Edge{U: 0, V: 2, Weight: 1})
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g, h := build(), build()
	for _, threads := range []int{1, 2} {
		o := Options{Connected: true, VertexLabels: true, Prune: PruneRR, Threads: threads}
		if res := solveChecked(t, g, h, o); res.Size != 3 {
			t.Errorf("threads %d: size %d, want 3", threads, res.Size)
		}
	}
}

// TestMIVIAPruned checks the pruned engines' (rr, rr2) sizes against the original
// McSplit's on the sample of proven MIVIA pairs TestMIVIA uses (all of
// them with -mcs.all or ARBOR_LONG=1), sequential and parallel, every
// mapping verified; and that it never searches more nodes than the
// faithful tree there in all. -mcs.maxsec 5 (with ARBOR_LONG=1)
// takes every proven pair under 5 s instead of 0.5 s.
func TestMIVIAPruned(t *testing.T) {
	dir, pairs := readExpected(t)
	easy, all := easyPairs(pairs, *flagMaxSec, 40)
	checked := 0
	var faithful, pruned int64
	for _, p := range easy {
		if !all && p.Seconds > 0.1 {
			continue
		}
		g, h := readPair(t, dir, p)
		for _, threads := range []int{1, 2} {
			res := solveChecked(t, g, h, Options{Threads: threads, Prune: PruneRR})
			if res.Size != p.Size {
				t.Errorf("%s/%s: pruned, %d threads: size %d, original McSplit %d", p.G, p.H, threads, res.Size, p.Size)
			}
			if threads == 1 {
				faithful += p.Nodes
				pruned += res.Nodes
			}
			// rr2 (bound.go, learn.go) too.
			if res := solveChecked(t, g, h, Options{Threads: threads, Prune: PruneRR2}); res.Size != p.Size {
				t.Errorf("%s/%s: rr2, %d threads: size %d, original McSplit %d", p.G, p.H, threads, res.Size, p.Size)
			}
		}
		checked++
	}
	t.Logf("%d of %d easy proven pairs: sizes equal; nodes %d faithful, %d pruned", checked, len(easy), faithful, pruned)
	if pruned > faithful {
		t.Errorf("pruned engine searched %d nodes, the faithful %d", pruned, faithful)
	}
}

// solveWithR6 runs the pruned sequential engine with R6 on, and verifies
// the mapping.
func solveWithR6(t *testing.T, g, h *core.Graph, opts Options) Result {
	t.Helper()
	opts.Threads = 1
	res := solveTweaked(t, g, h, opts, tweak{r6: true})
	if err := Verify(g, h, res.Mapping, opts); err != nil {
		t.Fatalf("with R6: %v", err)
	}
	return res
}

// tweak is what tests switch on inside the pruned engine: R6, a mutation.
type tweak struct {
	r6  bool
	mut mutation
}

// solveTweaked runs the pruned engine (opts.Prune's, rr when none) on
// opts.Threads threads with tw applied; the mapping is not checked.
func solveTweaked(t *testing.T, g, h *core.Graph, opts Options, tw tweak) Result {
	t.Helper()
	if opts.Directed || opts.EdgeLabels {
		return runTweaked[uint32](t, g, h, opts, tw)
	}
	return runTweaked[uint8](t, g, h, opts, tw)
}

func runTweaked[C cell](t *testing.T, g, h *core.Graph, opts Options, tw tweak) Result {
	p, err := newProblem[C](g, h, opts)
	if err != nil {
		t.Fatal(err)
	}
	p.withR6, p.mutate = tw.r6, tw.mut
	return p.runPruned(context.Background(), max(1, opts.Threads), time.Now(), true)
}
