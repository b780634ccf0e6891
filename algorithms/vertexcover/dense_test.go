package vertexcover

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// TestEnginesAgainstBruteForce checks every engine against exhaustive
// search on generated graphs of every density, one and two threads.
func TestEnginesAgainstBruteForce(t *testing.T) {
	cases := map[string]int{}
	for n := 2; n <= 18; n++ {
		for _, p := range []float64{0.1, 0.25, 0.5, 0.8} {
			g := gnp(t, n, p, uint64(n*977)+uint64(p*100))
			want := bruteMin(g)
			for _, eng := range []Engine{EngineAuto, EngineBranch, EngineClique} {
				for _, threads := range []int{1, 2} {
					res, err := Solve(context.Background(), g, Options{Threads: threads, LocalSearch: -1, Engine: eng})
					if err != nil {
						t.Fatal(err)
					}
					if err := Verify(g, res.Cover); err != nil {
						t.Fatalf("n=%d p=%v %s: %v", n, p, eng, err)
					}
					if len(res.Cover) != want || !res.Proven {
						t.Fatalf("n=%d p=%v %s threads=%d: cover %d proven %v, brute force %d", n, p, eng, threads, len(res.Cover), res.Proven, want)
					}
					if res.LowerBound > want {
						t.Fatalf("n=%d p=%v %s: lower bound %d above the optimum %d", n, p, eng, res.LowerBound, want)
					}
					if eng == EngineBranch && res.Engine != string(EngineBranch) {
						t.Fatalf("n=%d p=%v: engine %q ran when branch was asked for", n, p, res.Engine)
					}
					if res.DenseThreshold != DenseThreshold || res.Why == "" {
						t.Fatalf("threshold %v why %q", res.DenseThreshold, res.Why)
					}
					cases[res.Engine]++
				}
			}
		}
	}
	t.Logf("settled by: %v", cases)
	if cases[string(EngineClique)] == 0 {
		t.Fatal("the clique route never settled a case")
	}
}

// TestEngineChoice checks that auto takes the clique route on a dense
// kernel and branch and reduce on a sparse one, and that a graph with a
// sparse and a dense component uses both.
func TestEngineChoice(t *testing.T) {
	dense := gnp(t, 40, 0.5, 1)
	sparse := gnp(t, 150, 0.05, 2)
	for _, c := range []struct {
		name   string
		g      *core.Graph
		engine Engine
		want   string
	}{
		{"dense auto", dense, EngineAuto, string(EngineClique)},
		{"dense branch", dense, EngineBranch, string(EngineBranch)},
		{"sparse auto", sparse, EngineAuto, string(EngineBranch)},
		{"sparse clique", sparse, EngineClique, string(EngineClique)},
		{"both", disjointUnion(t, sparse, dense), EngineAuto, string(EngineBranch + "+" + EngineClique)},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Solve(context.Background(), c.g, Options{Threads: 2, LocalSearch: 20 * time.Millisecond, Engine: c.engine})
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(c.g, res.Cover); err != nil {
				t.Fatal(err)
			}
			if !res.Proven || res.Kernel == 0 {
				t.Fatalf("proven %v kernel %d: want a proven answer from a non-empty kernel", res.Proven, res.Kernel)
			}
			if res.Engine != c.want {
				t.Fatalf("engine %q (%s), want %q", res.Engine, res.Why, c.want)
			}
			t.Logf("cover %d, %s: %s", len(res.Cover), res.Engine, res.Why)
		})
	}
	// Every engine agrees on the sizes.
	g := disjointUnion(t, sparse, dense)
	sizes := map[Engine]int{}
	for _, eng := range []Engine{EngineAuto, EngineBranch, EngineClique} {
		res, err := Solve(context.Background(), g, Options{Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		sizes[eng] = len(res.Cover)
	}
	if sizes[EngineAuto] != sizes[EngineBranch] || sizes[EngineClique] != sizes[EngineBranch] {
		t.Fatalf("engines disagree: %v", sizes)
	}
}

// TestCliqueParameterized runs the clique route in parameterized mode.
func TestCliqueParameterized(t *testing.T) {
	g := gnp(t, 60, 0.4, 3)
	res, err := Solve(context.Background(), g, Options{Engine: EngineClique})
	if err != nil {
		t.Fatal(err)
	}
	opt := len(res.Cover)
	for _, k := range []int{opt, opt - 1} {
		r, err := Solve(context.Background(), g, Options{Engine: EngineClique, Parameterized: true, K: k})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Proven || (k >= opt) != (r.Cover != nil) {
			t.Fatalf("k=%d (optimum %d): cover %v proven %v", k, opt, r.Size(), r.Proven)
		}
		if r.Cover != nil && len(r.Cover) > k {
			t.Fatalf("k=%d: cover of %d", k, len(r.Cover))
		}
	}
}

// TestCliqueRouteStops checks that a cancelled clique route returns a
// valid cover, unproven.
func TestCliqueRouteStops(t *testing.T) {
	g := gnp(t, 220, 0.06, 4) // minutes for the clique route
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := Solve(ctx, g, Options{Engine: EngineClique, LocalSearch: -1})
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 2*time.Second {
		t.Fatalf("took %v after a 200 ms timeout", time.Since(start))
	}
	if res.Proven || res.Cover == nil {
		t.Fatalf("proven %v, cover %v: want an unproven cover", res.Proven, res.Size())
	}
	if err := Verify(g, res.Cover); err != nil {
		t.Fatal(err)
	}
	if res.LowerBound > len(res.Cover) {
		t.Fatalf("lower bound %d above the cover %d", res.LowerBound, len(res.Cover))
	}
}

func TestUnknownEngine(t *testing.T) {
	_, err := Solve(context.Background(), gnp(t, 5, 0.5, 1), Options{Engine: "quantum"})
	if err == nil || !strings.Contains(err.Error(), "quantum") {
		t.Fatalf("err %v, want an unknown engine error", err)
	}
}

// disjointUnion puts b's vertices after a's.
func disjointUnion(t testing.TB, a, b *core.Graph) *core.Graph {
	t.Helper()
	bl := core.NewBuilder(a.N+b.N, false)
	for _, x := range []struct {
		g   *core.Graph
		off int
	}{{a, 0}, {b, a.N}} {
		for u := 0; u < x.g.N; u++ {
			for _, v := range x.g.Neighbors(u) {
				if int(v) > u {
					bl.AddEdge(u+x.off, int(v)+x.off)
				}
			}
		}
	}
	return build(t, bl)
}
