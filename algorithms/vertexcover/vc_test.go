package vertexcover

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/cpu"
)

// TestAgainstBruteForce compares Solve with exhaustive search on generated
// graphs of every density, with one and two threads, with and without the
// local search (without it, the exact search must find the cover itself).
func TestAgainstBruteForce(t *testing.T) {
	cases := 0
	for n := 1; n <= 18; n++ {
		for _, p := range []float64{0.1, 0.2, 0.35, 0.5, 0.8} {
			g := gnp(t, n, p, uint64(n*1000)+uint64(p*100))
			want := bruteMin(g)
			for _, opts := range []Options{
				{Threads: 1, LocalSearch: -1},
				{Threads: 1, LocalSearch: -1, Mirrors: true},
				{Threads: 2, LocalSearch: 5 * time.Millisecond},
			} {
				res, err := Solve(context.Background(), g, opts)
				if err != nil {
					t.Fatal(err)
				}
				if err := Verify(g, res.Cover); err != nil {
					t.Fatalf("n=%d p=%v: %v", n, p, err)
				}
				if len(res.Cover) != want || !res.Proven {
					t.Fatalf("n=%d p=%v threads=%d: cover %d proven %v, brute force %d", n, p, opts.Threads, len(res.Cover), res.Proven, want)
				}
				if res.LowerBound > want {
					t.Fatalf("n=%d p=%v: lower bound %d above the optimum %d", n, p, res.LowerBound, want)
				}
				cases++
			}
		}
	}
	t.Logf("%d cases", cases)
}

// TestStructuredGraphs covers shapes the reductions are built for: cycles
// and paths (folds), disjoint pieces (components), stars (degree one,
// high degree), complete graphs (domination).
func TestStructuredGraphs(t *testing.T) {
	cycle := func(n int) [][2]int {
		var e [][2]int
		for i := 0; i < n; i++ {
			e = append(e, [2]int{i, (i + 1) % n})
		}
		return e
	}
	shift := func(e [][2]int, k int) [][2]int {
		out := make([][2]int, len(e))
		for i, x := range e {
			out[i] = [2]int{x[0] + k, x[1] + k}
		}
		return out
	}
	var petersen [][2]int
	for i := 0; i < 5; i++ {
		petersen = append(petersen, [2]int{i, (i + 1) % 5}, [2]int{i, i + 5}, [2]int{5 + i, 5 + (i+2)%5})
	}
	complete := func(n int) [][2]int {
		var e [][2]int
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				e = append(e, [2]int{i, j})
			}
		}
		return e
	}
	for _, c := range []struct {
		name  string
		n     int
		edges [][2]int
	}{
		{"C5", 5, cycle(5)},
		{"C8", 8, cycle(8)},
		{"C17", 17, cycle(17)},
		{"petersen", 10, petersen},
		{"K6", 6, complete(6)},
		{"C5+C7+K4", 16, append(append(cycle(5), shift(cycle(7), 5)...), shift(complete(4), 12)...)},
		{"star", 9, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {0, 7}, {0, 8}}},
		{"empty", 4, nil},
	} {
		g := fromEdges(t, c.n, c.edges)
		want := bruteMin(g)
		for _, threads := range []int{1, 2} {
			res, err := Solve(context.Background(), g, Options{Threads: threads, LocalSearch: -1})
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(g, res.Cover); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if len(res.Cover) != want || !res.Proven {
				t.Fatalf("%s: cover %d proven %v, want %d", c.name, len(res.Cover), res.Proven, want)
			}
		}
	}
}

// TestParameterized: k = optimum finds a cover within it, k = optimum − 1
// proves that none exists.
func TestParameterized(t *testing.T) {
	for i, c := range []struct {
		n int
		p float64
	}{{12, 0.3}, {16, 0.25}, {18, 0.4}, {40, 0.1}, {60, 0.08}} {
		g := gnp(t, c.n, c.p, uint64(77+i))
		min, err := Solve(context.Background(), g, Options{Threads: 1})
		if err != nil || !min.Proven {
			t.Fatalf("case %d: minimum: %v proven %v", i, err, min.Proven)
		}
		opt := len(min.Cover)
		if c.n <= 20 && bruteMin(g) != opt {
			t.Fatalf("case %d: minimum %d, brute force %d", i, opt, bruteMin(g))
		}
		for _, threads := range []int{1, 2} {
			for _, ls := range []time.Duration{-1, 0} {
				res, err := Solve(context.Background(), g, Options{Parameterized: true, K: opt, Threads: threads, LocalSearch: ls})
				if err != nil {
					t.Fatal(err)
				}
				if res.Cover == nil || len(res.Cover) > opt || !res.Proven {
					t.Fatalf("case %d k=%d: got %d proven %v", i, opt, res.Size(), res.Proven)
				}
				if err := Verify(g, res.Cover); err != nil {
					t.Fatal(err)
				}
				res, err = Solve(context.Background(), g, Options{Parameterized: true, K: opt - 1, Threads: threads, LocalSearch: ls})
				if err != nil {
					t.Fatal(err)
				}
				if res.Cover != nil || !res.Proven {
					t.Fatalf("case %d k=%d: got a cover of %d (proven %v), want a proof of none", i, opt-1, res.Size(), res.Proven)
				}
			}
		}
	}
}

// TestCancel: a cancelled search returns a valid cover, unproven.
func TestCancel(t *testing.T) {
	g := gnp(t, 300, 0.5, 5)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var calls int
	res, err := Solve(ctx, g, Options{LocalSearch: 50 * time.Millisecond, Progress: func(Progress) { calls++ }, ProgressEvery: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Proven {
		t.Skip("solved G(300, 0.5) within 300 ms: cannot test cancellation on this machine")
	}
	if err := Verify(g, res.Cover); err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Error("progress callback never called")
	}
	if res.Elapsed > 5*time.Second {
		t.Errorf("cancelled search took %v to return", res.Elapsed)
	}
}

func TestVerifyRejects(t *testing.T) {
	g := fromEdges(t, 4, [][2]int{{0, 1}, {1, 2}, {2, 3}})
	for _, c := range []struct {
		cover []int
		want  string
	}{
		{[]int{1}, "not covered"},
		{[]int{1, 2, 2}, "twice"},
		{[]int{1, 2, 4}, "outside"},
		{[]int{-1, 1, 2}, "outside"},
	} {
		err := Verify(g, c.cover)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Verify(%v) = %v, want an error containing %q", c.cover, err, c.want)
		}
	}
	if err := Verify(g, []int{1, 2}); err != nil {
		t.Errorf("Verify of a real cover: %v", err)
	}
}

func TestWriteSolution(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSolution(&b, 5, []int{0, 3}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "s vc 5 2\n1\n4\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestComplement(t *testing.T) {
	g := gnp(t, 12, 0.4, 3)
	c := Complement(g)
	for u := 0; u < g.N; u++ {
		for v := 0; v < g.N; v++ {
			if u != v && g.HasEdge(u, v) == c.HasEdge(u, v) {
				t.Fatalf("(%d,%d): in g %v, in complement %v", u, v, g.HasEdge(u, v), c.HasEdge(u, v))
			}
		}
		if c.HasEdge(u, u) {
			t.Fatalf("self-loop at %d", u)
		}
	}
	// Minimum cover of the complement = n − maximum clique of g.
	res, err := Solve(context.Background(), c, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := bruteMin(c); len(res.Cover) != want {
		t.Fatalf("complement cover %d, want %d", len(res.Cover), want)
	}
}

func TestRejectsDirectedAndLoops(t *testing.T) {
	b := core.NewBuilder(3, true)
	b.AddEdge(0, 1)
	if _, err := Solve(context.Background(), build(t, b), Options{}); err == nil {
		t.Error("directed graph accepted")
	}
	b = core.NewBuilder(3, false)
	b.AllowSelfLoops = true
	b.AddEdge(1, 1)
	if _, err := Solve(context.Background(), build(t, b), Options{}); err == nil || !strings.Contains(err.Error(), "self-loop") {
		t.Errorf("self-loop: %v", err)
	}
}

func ExampleSolve() {
	// A 5-cycle needs 3 cover vertices.
	b := core.NewBuilder(5, false)
	for i := 0; i < 5; i++ {
		b.AddEdge(i, (i+1)%5)
	}
	g, _ := b.Build()
	res, _ := Solve(context.Background(), g, Options{Threads: 1})
	fmt.Println(len(res.Cover), res.Proven, Verify(g, res.Cover))
	// Output: 3 true <nil>
}

// TestComponents: a disjoint union is solved part by part (in parallel at
// the root, sequentially inside the search) and its optimum is the sum of
// the parts' optima.
func TestComponents(t *testing.T) {
	var parts []*core.Graph
	sum := 0
	for i := 0; i < 5; i++ {
		g := gnp(t, 30+5*i, 0.15, uint64(300+i))
		res, err := Solve(context.Background(), g, Options{Threads: 1, LocalSearch: -1})
		if err != nil || !res.Proven {
			t.Fatalf("part %d: %v proven %v", i, err, res.Proven)
		}
		parts = append(parts, g)
		sum += len(res.Cover)
	}
	n := 0
	for _, p := range parts {
		n += p.N
	}
	b := core.NewBuilder(n, false)
	off := 0
	for _, p := range parts {
		for u := 0; u < p.N; u++ {
			for _, v := range p.Neighbors(u) {
				if int(v) > u {
					b.AddEdge(off+u, off+int(v))
				}
			}
		}
		off += p.N
	}
	g := build(t, b)
	for _, opts := range []Options{{Threads: 1, LocalSearch: -1}, {Threads: 2}, {Threads: 3, LocalSearch: time.Millisecond}} {
		res, err := Solve(context.Background(), g, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(g, res.Cover); err != nil {
			t.Fatal(err)
		}
		if len(res.Cover) != sum || !res.Proven {
			t.Fatalf("threads %d: cover %d proven %v, sum of parts %d", opts.Threads, len(res.Cover), res.Proven, sum)
		}
	}
}

// TestThreadsAgree: every thread count reaches the same optimum on graphs
// whose search trees are large enough for work to be handed between
// workers.
func TestThreadsAgree(t *testing.T) {
	for i, c := range []struct {
		n int
		p float64
	}{{90, 0.08}, {70, 0.2}, {50, 0.5}} {
		g := gnp(t, c.n, c.p, uint64(800+i))
		one, err := Solve(context.Background(), g, Options{Threads: 1, LocalSearch: -1})
		if err != nil || !one.Proven {
			t.Fatalf("case %d: %v proven %v", i, err, one.Proven)
		}
		for _, threads := range []int{2, 4} {
			res, err := Solve(context.Background(), g, Options{Threads: threads, LocalSearch: -1})
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(g, res.Cover); err != nil {
				t.Fatal(err)
			}
			if len(res.Cover) != len(one.Cover) || !res.Proven {
				t.Fatalf("case %d threads %d: cover %d proven %v, one thread %d", i, threads, len(res.Cover), res.Proven, len(one.Cover))
			}
		}
		t.Logf("case %d: cover %d, %d nodes on one thread", i, len(one.Cover), one.Nodes)
	}
}

func TestEdgeCases(t *testing.T) {
	empty := build(t, core.NewBuilder(0, false))
	res, err := Solve(context.Background(), empty, Options{})
	if err != nil || len(res.Cover) != 0 || res.Cover == nil || !res.Proven {
		t.Fatalf("empty graph: %+v %v", res, err)
	}
	isolated := build(t, core.NewBuilder(5, false))
	res, err = Solve(context.Background(), isolated, Options{Parameterized: true, K: 0})
	if err != nil || res.Cover == nil || len(res.Cover) != 0 || !res.Proven {
		t.Fatalf("edgeless graph, k=0: %+v %v", res, err)
	}
	edge := fromEdges(t, 2, [][2]int{{0, 1}})
	res, err = Solve(context.Background(), edge, Options{Parameterized: true, K: 0})
	if err != nil || res.Cover != nil || !res.Proven {
		t.Fatalf("one edge, k=0: %+v %v", res, err)
	}
	if _, err := Solve(context.Background(), edge, Options{Parameterized: true, K: -1}); err == nil {
		t.Fatal("negative k accepted")
	}
}

// TestBelow: with Below, minimum mode returns the minimum only when it is
// below the bound, and proves that none is otherwise.
func TestBelow(t *testing.T) {
	for i := 0; i < 8; i++ {
		g := gnp(t, 50+3*i, 0.15, uint64(100+i))
		ref, err := Solve(context.Background(), g, Options{Threads: 1, LocalSearch: -1})
		if err != nil || !ref.Proven {
			t.Fatal(err)
		}
		min := len(ref.Cover)
		if ref.Nodes == 0 {
			t.Logf("graph %d: solved by the root reductions", i)
		}
		for _, below := range []int{min, min + 1, min + 5} {
			res, err := Solve(context.Background(), g, Options{Threads: 1 + i%2, Below: below, LocalSearch: -1})
			if err != nil || !res.Proven {
				t.Fatalf("below %d: %v, proven %v", below, err, res.Proven)
			}
			if below == min && res.Cover != nil {
				t.Errorf("graph %d: a cover of %d below %d, the minimum", i, len(res.Cover), below)
			}
			if below > min && len(res.Cover) != min {
				t.Errorf("graph %d: below %d: cover %v, want the minimum %d", i, below, res.Size(), min)
			}
		}
	}
}

// TestStealAgrees: donated second children (search.go, donate) rebuild the
// subtree the donor would have searched, with the path's packing
// constraints and inherited clique cover; on many graphs whose trees are
// large enough for an idle worker to steal from, with and without
// mirrors, 2 and 3 threads must reach the one-thread optimum.
func TestStealAgrees(t *testing.T) {
	for i := 0; i < 23; i++ {
		g := gnp(t, 110+3*i, 0.05+0.01*float64(i%4), uint64(900+i))
		one, err := Solve(context.Background(), g, Options{Threads: 1, LocalSearch: -1})
		if err != nil || !one.Proven {
			t.Fatalf("graph %d: %v proven %v", i, err, one.Proven)
		}
		for _, threads := range []int{2, 3} {
			opts := Options{Threads: threads, LocalSearch: -1, Mirrors: i%4 == 3}
			res, err := Solve(context.Background(), g, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(g, res.Cover); err != nil {
				t.Fatal(err)
			}
			if len(res.Cover) != len(one.Cover) || !res.Proven {
				t.Fatalf("graph %d threads %d: cover %d proven %v, one thread %d", i, threads, len(res.Cover), res.Proven, len(one.Cover))
			}
		}
		t.Logf("graph %d: %d nodes on one thread", i, one.Nodes)
	}
}

// TestNodeLimit: a search stopped by its node limit says so, unproven,
// near the limit (branch and reduce within 16 nodes a worker, the clique
// route within its own 1,024); one that needs fewer nodes is proven as
// without it.
func TestNodeLimit(t *testing.T) {
	g := gnp(t, 150, 0.1, 3) // tens of thousands of nodes on either engine
	for _, c := range []struct {
		engine Engine
		slack  int64
	}{{EngineBranch, 16}, {EngineClique, 1024}} {
		ref, err := Solve(context.Background(), g, Options{Threads: 1, LocalSearch: -1, Engine: c.engine})
		if err != nil || !ref.Proven || ref.NodeLimited {
			t.Fatalf("%s: reference: %v, proven %v, limited %v", c.engine, err, ref.Proven, ref.NodeLimited)
		}
		if ref.Nodes < 8*c.slack {
			t.Fatalf("%s: the reference search took %d nodes: too few to cut", c.engine, ref.Nodes)
		}
		for _, threads := range []int{1, 2} {
			limit := ref.Nodes / 4
			res, err := Solve(context.Background(), g, Options{Threads: threads, LocalSearch: -1, Engine: c.engine, NodeLimit: limit})
			if err != nil {
				t.Fatal(err)
			}
			if res.Proven || !res.NodeLimited || res.Nodes < limit || res.Nodes >= limit+c.slack*int64(threads) {
				t.Errorf("%s, %d threads, limit %d: proven %v, limited %v, %d nodes", c.engine, threads, limit, res.Proven, res.NodeLimited, res.Nodes)
			}
			if res.Cover != nil {
				if err := Verify(g, res.Cover); err != nil {
					t.Error(err)
				}
			}
		}
		res, err := Solve(context.Background(), g, Options{Threads: 1, LocalSearch: -1, Engine: c.engine, NodeLimit: ref.Nodes + 1})
		if err != nil || !res.Proven || res.NodeLimited || len(res.Cover) != len(ref.Cover) || res.Nodes != ref.Nodes {
			t.Errorf("%s, limit above the need: %v, proven %v, limited %v, cover %d (want %d), %d nodes (want %d)",
				c.engine, err, res.Proven, res.NodeLimited, len(res.Cover), len(ref.Cover), res.Nodes, ref.Nodes)
		}
	}
	if _, err := Solve(context.Background(), g, Options{NodeLimit: -1}); err == nil {
		t.Error("a negative node limit: no error")
	}
	for _, engine := range []Engine{EngineGPU, EngineHybrid} {
		if _, err := Solve(context.Background(), g, Options{NodeLimit: 10, Engine: engine, Devices: []backend.Device{cpu.New(1)}}); err == nil {
			t.Errorf("a node limit on the %s engine: no error", engine)
		}
	}
}
