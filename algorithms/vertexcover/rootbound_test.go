package vertexcover

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/arbor-gpu/arbor/core"
)

// largeState is s as the root of a large graph sees it: no bitsets (the
// funnel then tests and adds edges on the adjacency lists) and the funnel
// rule off, as for states of more than maxBitsetVertices.
func largeState(g *core.Graph) *state {
	s := newState(g)
	s.bits, s.funnelOn = nil, false
	return s
}

// checkKernel checks what every reduction must keep: s's cover so far
// plus its kernel's optimum is want, the input's optimum, and an optimal
// cover of the kernel lifted through s's ops is a minimum cover of g.
func checkKernel(s *state, g *core.Graph, want int) error {
	kg, ids := s.extract(nil)
	if got := s.cover + bruteMin(kg); got != want {
		return fmt.Errorf("offset %d + kernel optimum = %d, want %d", s.cover, got, want)
	}
	cover := liftedCover(s, kg, ids, g.N)
	if err := Verify(g, cover); err != nil {
		return fmt.Errorf("lifted cover: %w", err)
	}
	if len(cover) != want {
		return fmt.Errorf("lifted cover of %d, want %d", len(cover), want)
	}
	return nil
}

// TestRootFunnelKeepsOptimum: the root's rules with the funnel on, on the
// adjacency lists (as rootBound runs them on large kernels), keep the
// optimum and lift to minimum covers, and undo restores the graph; and
// rootBound never exceeds the optimum and leaves the kernel as it found
// it. Random graphs of 6–16 vertices.
func TestRootFunnelKeepsOptimum(t *testing.T) {
	funnels, raised, trials := int64(0), 0, 0
	for seed := uint64(0); seed < 600; seed++ {
		n := 6 + int(seed%11)
		g := gnp(t, n, 0.15+float64(seed%5)*0.05, seed+31000)
		if seed%2 == 1 {
			g = triangles(t, n, seed)
		}
		want := bruteMin(g)

		s := largeState(g)
		before := takeSnap(s)
		s.funnelOn, s.unconfinedOn = true, true
		s.queueAll()
		s.reduce(noBudget)
		funnels += s.fired[ruleFunnel]
		checkDegrees(t, s)
		if err := checkKernel(s, g, want); err != nil {
			t.Fatalf("seed %d (%d funnels): %v", seed, s.fired[ruleFunnel], err)
		}
		s.undoTo(0)
		sameSnap(t, "undo root funnels", before, takeSnap(s))

		// rootBound on the unreduced graph (on these small graphs the
		// root reductions leave no kernel): its trial then runs the
		// tree's rules with the funnel on.
		s = largeState(g)
		kernel, fired := takeSnap(s), s.fired
		mark := len(s.ops)
		s.funnelOn = true
		s.queueAll()
		s.reduce(noBudget)
		if s.fired[ruleFunnel] > 0 {
			trials++
		}
		s.funnelOn = false
		s.undoTo(mark)
		s.fired = fired
		plain := s.cover + s.rootLowerBound()
		rb, ok := s.rootBound(noBudget)
		if !ok || rb > want || rb < plain {
			t.Fatalf("seed %d: rootBound %d (ok %v), plain %d, optimum %d", seed, rb, ok, plain, want)
		}
		if rb > plain {
			raised++
		}
		sameSnap(t, "after rootBound", kernel, takeSnap(s))
		if s.fired != fired {
			t.Fatalf("seed %d: rootBound left its firings counted", seed)
		}
		if err := checkKernel(s, g, want); err != nil {
			t.Fatalf("seed %d: after rootBound: %v", seed, err)
		}
	}
	if funnels < 100 {
		t.Fatalf("only %d funnels: the test exercises too little", funnels)
	}
	if trials < 20 {
		t.Fatalf("the funnel fired on only %d graphs: rootBound is exercised too little", trials)
	}
	t.Logf("%d funnels; rootBound's funnels fired on %d graphs and raised the bound on %d", funnels, trials, raised)
}

// triangles is a graph like the PACE triangle family: disjoint triangles
// joined by random edges, each vertex given about one more neighbour
// (their root kernels keep degree-3 vertices with one adjacent pair of
// neighbours, where the funnel fires).
func triangles(t testing.TB, n int, seed uint64) *core.Graph {
	r := rand.New(rand.NewPCG(seed, 13))
	b := core.NewBuilder(n, false)
	for v := 0; v+2 < n; v += 3 {
		b.AddEdge(v, v+1)
		b.AddEdge(v, v+2)
		b.AddEdge(v+1, v+2)
	}
	for i := 0; i < n/2+1; i++ {
		u, v := r.IntN(n), r.IntN(n)
		if u/3 != v/3 {
			b.AddEdge(u, v)
		}
	}
	return build(t, b)
}

// TestRootFunnelMutation breaks the funnel's condition (N(v) \ {c} a
// clique: here v's neighbours a, b are not adjacent) and shows that the
// check of TestRootFunnelKeepsOptimum rejects the result.
func TestRootFunnelMutation(t *testing.T) {
	caught, tried := 0, 0
	for seed := uint64(0); seed < 300 && caught == 0; seed++ {
		n := 8 + int(seed%9)
		g := gnp(t, n, 0.2+float64(seed%3)*0.05, seed+41000)
		want := bruteMin(g)
		s := largeState(g)
		for v := int32(0); v < int32(n); v++ {
			if !s.alive[v] || s.deg[v] != 3 {
				continue
			}
			var nb [3]int32
			s.firstLive(v, nb[:])
			if s.hasEdge(nb[0], nb[1]) || s.hasEdge(nb[0], nb[2]) || s.hasEdge(nb[1], nb[2]) {
				continue
			}
			s.funnel(v, nb[0], nb[1], nb[2]) // a, b not adjacent: wrong
			tried++
			if checkKernel(s, g, want) != nil {
				caught++
			}
			break
		}
	}
	if caught == 0 {
		t.Fatalf("a funnel on a non-clique was never caught (%d tried)", tried)
	}
}

// TestRootReductionsStop: the root reductions poll state.stop and end,
// and a search cancelled before it starts still answers with a verified
// cover, unproven.
func TestRootReductionsStop(t *testing.T) {
	// A long path: every vertex is reduced one at a time.
	b := core.NewBuilder(20000, false)
	for v := 1; v < 20000; v++ {
		b.AddEdge(v-1, v)
	}
	g := build(t, b)
	s := newState(g)
	polls := 0
	s.stop = func() bool { polls++; return true }
	if _, ok := s.rootReductions(noBudget); ok || polls != 1 || s.nAlive < 20000-stopEvery {
		t.Fatalf("stopped root reductions: ok %v after %d polls, %d vertices left", ok, polls, s.nAlive)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Solve(ctx, g, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Proven || res.Cover == nil || Verify(g, res.Cover) != nil {
		t.Fatalf("cancelled: proven %v, cover of %d", res.Proven, len(res.Cover))
	}
}
