package core

import (
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
)

func sameGraph(a, b *Graph) bool {
	return a.N == b.N && a.Directed == b.Directed && slices.Equal(a.Offsets, b.Offsets) &&
		slices.Equal(a.Adj, b.Adj) && slices.Equal(a.Weights, b.Weights)
}

func TestGNP(t *testing.T) {
	g := GNP(2000, 0.01, 7)
	checkCSR(t, g)
	// Expected edges p·n(n-1)/2 = 19990, standard deviation ≈ 141.
	if m := g.Edges(); math.Abs(float64(m)-19990) > 6*141 {
		t.Fatalf("G(2000,0.01) has %d edges, expected about 19990", m)
	}
	if !sameGraph(g, GNP(2000, 0.01, 7)) {
		t.Fatal("GNP is not deterministic for a seed")
	}
	if sameGraph(g, GNP(2000, 0.01, 8)) {
		t.Fatal("GNP ignores the seed")
	}
	if k := GNP(30, 1, 1); k.Edges() != 30*29/2 {
		t.Fatalf("G(30,1) has %d edges, want 435", k.Edges())
	}
	if e := GNP(30, 0, 1); e.Edges() != 0 || e.N != 30 {
		t.Fatal("G(30,0) is not empty")
	}
	if GNP(0, 0.5, 1).N != 0 || GNP(1, 0.5, 1).Edges() != 0 {
		t.Fatal("tiny GNP wrong")
	}
}

func TestBoundedDegree(t *testing.T) {
	g := BoundedDegree(1000, 5, 3)
	checkCSR(t, g)
	full := 0
	for v := 0; v < g.N; v++ {
		if d := g.Degree(v); d > 5 {
			t.Fatalf("vertex %d has degree %d > 5", v, d)
		} else if d == 5 {
			full++
		}
	}
	if full < 500 {
		t.Fatalf("only %d of 1000 vertices reached degree 5", full)
	}
	if !sameGraph(g, BoundedDegree(1000, 5, 3)) {
		t.Fatal("BoundedDegree is not deterministic")
	}
	if BoundedDegree(3, 10, 1).Edges() > 3 {
		t.Fatal("BoundedDegree(3,10) is not simple")
	}
}

func TestRMAT(t *testing.T) {
	g := RMAT(12, 8, 0.57, 0.19, 0.19, 1)
	checkCSR(t, g)
	if g.N != 4096 {
		t.Fatalf("N=%d", g.N)
	}
	gen := 8 * 4096
	if m := g.Edges(); m > gen || m+g.Repeated > gen || m < gen/2 {
		t.Fatalf("%d edges (+%d merged) from %d generated", m, g.Repeated, gen)
	}
	// Skew: vertex 0 (quadrant a at every level) is the biggest hub.
	maxDeg := 0
	for v := 0; v < g.N; v++ {
		maxDeg = max(maxDeg, g.Degree(v))
	}
	if g.Degree(0) != maxDeg || maxDeg < 20*gen*2/g.N/8 {
		t.Fatalf("no skew: degree(0)=%d max=%d", g.Degree(0), maxDeg)
	}
	if !sameGraph(g, RMAT(12, 8, 0.57, 0.19, 0.19, 1)) {
		t.Fatal("RMAT is not deterministic")
	}
	// a=b=c=d=1/4 is G(n,m)-like: no strong hub.
	u := RMAT(12, 8, 0.25, 0.25, 0.25, 1)
	for v := 0; v < u.N; v++ {
		if u.Degree(v) > 60 {
			t.Fatalf("uniform R-MAT has a hub of degree %d", u.Degree(v))
		}
	}
}

func TestRandomWeights(t *testing.T) {
	g := RandomIntWeights(GNP(200, 0.1, 1), 1, 10, 5)
	checkCSR(t, g) // also checks weights agree on both arcs
	seen := map[float64]bool{}
	for _, w := range g.Weights {
		if w < 1 || w > 10 || w != math.Trunc(w) {
			t.Fatalf("weight %g outside integers 1..10", w)
		}
		seen[w] = true
	}
	if len(seen) != 10 || !g.IntWeights {
		t.Fatalf("weights use %d of 10 values", len(seen))
	}
	r := RandomRealWeights(GNP(200, 0.1, 1), -1, 1, 5)
	checkCSR(t, r)
	for _, w := range r.Weights {
		if w < -1 || w >= 1 {
			t.Fatalf("real weight %g outside [-1,1)", w)
		}
	}
	if r.IntWeights {
		t.Fatal("real weights marked integer")
	}
}

// BenchmarkRMAT generates Graph500-style R-MAT graphs; the 10^8-edge case
// (scale 23, edge factor 12: about 1.6 GB while building) runs only with
// ARBOR_LONG=1.
func BenchmarkRMAT(b *testing.B) {
	for _, c := range []struct{ scale, ef int }{{20, 16}, {23, 12}} {
		m := c.ef << c.scale
		b.Run(fmt.Sprintf("edges=%d", m), func(b *testing.B) {
			if m > 1e7 && os.Getenv("ARBOR_LONG") == "" {
				b.Skip("set ARBOR_LONG=1 for the 10^8-edge R-MAT")
			}
			var g *Graph
			for b.Loop() {
				g = RMAT(c.scale, c.ef, 0.57, 0.19, 0.19, 1)
			}
			b.ReportMetric(float64(m)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Medges/s")
			b.ReportMetric(float64(g.Edges()), "edges-kept")
		})
	}
}
