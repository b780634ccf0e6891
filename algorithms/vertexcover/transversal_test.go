package vertexcover

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// checkTransCover fails unless c is a cover of g of size size.
func checkTransCover(t *testing.T, g *core.Graph, c []bool, size int, what string) {
	t.Helper()
	list := coverList(c)
	if err := Verify(g, list); err != nil || len(list) != size {
		t.Fatalf("%s: cover of %d vertices claimed %d: %v", what, len(list), size, err)
	}
}

// TestTransversalBrute runs the transversal search on random graphs of up
// to 16 vertices, its state audited after every step, from the solver's
// clique partition (k cliques): every cover it reports or returns is a
// cover of the claimed size and no smaller than the brute-force optimum;
// where the partition's bound n − k is the optimum it must find the
// transversal, and where it is below, it must return none.
func TestTransversalBrute(t *testing.T) {
	transAudit = func(step int64, problem string) { t.Fatalf("step %d: %s", step, problem) }
	defer func() { transAudit = nil }()
	tight := 0
	for seed := uint64(0); seed < 400; seed++ {
		n := 6 + int(seed%11)
		g := gnp(t, n, 0.12+float64(seed%7)*0.08, seed+91000)
		if g.Edges() == 0 {
			continue
		}
		opt := bruteMin(g)
		part, k := bestPartition(g)
		limit := 5 * time.Second
		if n-k < opt {
			limit = 5 * time.Millisecond
		}
		var stop atomic.Bool
		last := n + 1
		report := func(c []bool, size int) {
			checkTransCover(t, g, c, size, "reported")
			if size < opt || size >= last {
				t.Fatalf("seed %d: reported %d after %d (optimum %d)", seed, size, last, opt)
			}
			last = size
		}
		c := transversalSearch(g, part, k, seed, &stop, time.Now().Add(limit), nil, report)
		switch {
		case n-k == opt && c == nil:
			t.Fatalf("seed %d: the partition's bound %d is the optimum, no transversal found", seed, n-k)
		case n-k < opt && c != nil:
			t.Fatalf("seed %d: a transversal of %d below the optimum %d", seed, n-k, opt)
		case c != nil:
			tight++
			checkTransCover(t, g, c, n-k, "returned")
		}
	}
	if tight < 100 {
		t.Fatalf("only %d instances with a tight partition: the test checks too little", tight)
	}
	t.Logf("%d of 400 with the partition's bound at the optimum, each found", tight)
}

// plantedSAT is the family's structure with a known optimum: a planted
// 3-SAT formula of nv variables and nc clauses encoded as vertex cover (a
// hub edge per variable, vertices 2i for x_i and 2i+1 for ¬x_i; a
// triangle per clause, each of its vertices joined to the hub of its
// literal). Every clause is satisfied by the planted assignment, so the
// false hubs and one true literal per clause are independent: the
// optimum is nv + 2·nc, the bound of the partition into hub edges and
// triangles.
func plantedSAT(t testing.TB, nv, nc int, seed uint64) *core.Graph {
	r := rand.New(rand.NewPCG(seed, 11))
	val := make([]bool, nv)
	for i := range val {
		val[i] = r.IntN(2) == 0
	}
	b := core.NewBuilder(2*nv+3*nc, false)
	for i := range nv {
		b.AddEdge(2*i, 2*i+1)
	}
	for j := range nc {
		for {
			vars := r.Perm(nv)[:3]
			neg := [3]bool{r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(2) == 0}
			sat := false
			for t, x := range vars {
				sat = sat || val[x] != neg[t]
			}
			if !sat {
				continue
			}
			base := 2*nv + 3*j
			b.AddEdge(base, base+1)
			b.AddEdge(base+1, base+2)
			b.AddEdge(base, base+2)
			for t, x := range vars {
				lit := 2 * x
				if neg[t] {
					lit++
				}
				b.AddEdge(base+t, lit)
			}
			break
		}
	}
	return build(t, b)
}

// plantedTriangles: nt triangles, one vertex of each planted as the
// independent one, and ne random edges between triangles never joining
// two planted vertices: the optimum is 2·nt.
func plantedTriangles(t testing.TB, nt, ne int, seed uint64) *core.Graph {
	r := rand.New(rand.NewPCG(seed, 13))
	rep := make([]int, nt)
	b := core.NewBuilder(3*nt, false)
	for q := range nt {
		rep[q] = 3*q + r.IntN(3)
		b.AddEdge(3*q, 3*q+1)
		b.AddEdge(3*q+1, 3*q+2)
		b.AddEdge(3*q, 3*q+2)
	}
	for added := 0; added < ne; {
		u, v := r.IntN(3*nt), r.IntN(3*nt)
		if u/3 == v/3 || (u == rep[u/3] && v == rep[v/3]) {
			continue
		}
		b.AddEdge(u, v)
		added++
	}
	return build(t, b)
}

// TestTransversalPlanted: on planted instances of both kinds, whose
// partition's bound is the optimum, the search reaches it (its cover
// verified), from several seeds.
func TestTransversalPlanted(t *testing.T) {
	cases := []struct {
		name string
		g    *core.Graph
		opt  int
	}{
		{"sat 60x255", plantedSAT(t, 60, 255, 1), 60 + 2*255},
		{"sat 150x700", plantedSAT(t, 150, 700, 2), 150 + 2*700},
		{"sat 240x1250", plantedSAT(t, 240, 1250, 7), 240 + 2*1250},
		{"triangles 300+600", plantedTriangles(t, 300, 600, 3), 600},
		{"triangles 1000+1500", plantedTriangles(t, 1000, 1500, 4), 2000},
	}
	for _, c := range cases {
		part, k := bestPartition(c.g)
		if c.g.N-k != c.opt {
			t.Fatalf("%s: the partition's bound %d, the planted optimum %d", c.name, c.g.N-k, c.opt)
		}
		for seed := uint64(1); seed <= 3; seed++ {
			var stop atomic.Bool
			t0 := time.Now()
			cover := transversalSearch(c.g, part, k, seed, &stop, t0.Add(30*time.Second), nil, nil)
			if cover == nil {
				t.Fatalf("%s seed %d: no transversal in 30 s", c.name, seed)
			}
			checkTransCover(t, c.g, cover, c.opt, c.name)
			t.Logf("%s seed %d: the optimum in %v", c.name, seed, time.Since(t0).Round(time.Millisecond))
		}
	}
}

// TestTransversalMutation breaks the move (transMutant: a vertex that
// leaves keeps one neighbour's conflict) and shows that the audit of
// TestTransversalBrute catches it.
func TestTransversalMutation(t *testing.T) {
	type caught struct{ problem string }
	transAudit = func(step int64, problem string) { panic(caught{problem}) }
	transMutant = true
	defer func() { transAudit, transMutant = nil, false }()
	g := plantedSAT(t, 30, 120, 5)
	part, k := bestPartition(g)
	var stop atomic.Bool
	defer func() {
		r := recover()
		c, ok := r.(caught)
		if !ok {
			t.Fatalf("the broken move was not caught by the audit (%v)", r)
		}
		t.Logf("caught: %s", c.problem)
	}()
	transversalSearch(g, part, k, 1, &stop, time.Now().Add(200*time.Millisecond), nil, nil)
}

// TestSolvePlantedSAT: the solver proves the planted optimum of a
// formula large enough (3,100 vertices) for the transversal search to
// run on its kernel, the cover verified.
func TestSolvePlantedSAT(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of search")
	}
	nv, nc := 200, 900
	g := plantedSAT(t, nv, nc, 6)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	res, err := Solve(ctx, g, Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(g, res.Cover); err != nil || !res.Proven || len(res.Cover) != nv+2*nc {
		t.Fatalf("cover of %d (planted optimum %d), proven %v, bound %d, kernel %d: %v", len(res.Cover), nv+2*nc, res.Proven, res.LowerBound, res.Kernel, err)
	}
}

// TestLargeCliquesFirst: largeCliquesFirst's parts are cliques covering
// every vertex once (random graphs), and on the planted instances, where
// the sequential greedy splits triangles, it finds the tight partition.
func TestLargeCliquesFirst(t *testing.T) {
	check := func(g *core.Graph, part []int32, k int, what string) {
		members := make([][]int, k)
		for v, q := range part {
			if q < 0 || int(q) >= k {
				t.Fatalf("%s: vertex %d in part %d of %d", what, v, q, k)
			}
			members[q] = append(members[q], v)
		}
		for q, m := range members {
			if len(m) == 0 {
				t.Fatalf("%s: part %d empty", what, q)
			}
			for i, u := range m {
				for _, v := range m[i+1:] {
					if !g.HasEdge(u, v) {
						t.Fatalf("%s: part %d holds %d and %d, not adjacent", what, q, u, v)
					}
				}
			}
		}
	}
	for seed := uint64(0); seed < 200; seed++ {
		g := gnp(t, 5+int(seed%20), 0.05+float64(seed%9)*0.05, seed+77000)
		part, k := largeCliquesFirst(g)
		check(g, part, k, "gnp")
		if g.N <= 20 && g.N-k > bruteMin(g) {
			t.Fatalf("seed %d: %d cliques, bound %d above the optimum", seed, k, g.N-k)
		}
	}
	for seed := uint64(1); seed <= 5; seed++ {
		nv, nc := 100, 430
		g := plantedSAT(t, nv, nc, seed+40)
		part, k := largeCliquesFirst(g)
		check(g, part, k, "planted")
		if g.N-k != nv+2*nc {
			t.Fatalf("planted seed %d: bound %d, the planted optimum %d", seed, g.N-k, nv+2*nc)
		}
	}
}
