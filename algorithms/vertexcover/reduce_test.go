package vertexcover

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/arbor-gpu/arbor/core"
)

func noBudget() int { return 1 << 30 }

// snapshot captures everything undo must restore.
type snap struct {
	alive        []bool
	deg          []int32
	live         [][]int32
	nAlive, m, c int
}

func takeSnap(s *state) snap {
	sn := snap{alive: slices.Clone(s.alive), deg: slices.Clone(s.deg), nAlive: s.nAlive, m: s.m, c: s.cover}
	for v := 0; v < s.n; v++ {
		var l []int32
		if s.alive[v] {
			l = s.liveNeighbors(int32(v), nil)
			slices.Sort(l)
		}
		sn.live = append(sn.live, l)
	}
	return sn
}

func sameSnap(t *testing.T, what string, a, b snap) {
	t.Helper()
	if !slices.Equal(a.alive, b.alive) || a.nAlive != b.nAlive || a.m != b.m || a.c != b.c {
		t.Fatalf("%s: alive/nAlive/m/cover differ: %d %d %d vs %d %d %d", what, a.nAlive, a.m, a.c, b.nAlive, b.m, b.c)
	}
	for v := range a.live {
		if a.alive[v] && (a.deg[v] != b.deg[v] || !slices.Equal(a.live[v], b.live[v])) {
			t.Fatalf("%s: vertex %d: deg %d %v vs %d %v", what, v, a.deg[v], a.live[v], b.deg[v], b.live[v])
		}
	}
}

// checkDegrees: every live vertex's degree equals its live neighbours, and
// adjacency is symmetric with no repeats.
func checkDegrees(t *testing.T, s *state) {
	t.Helper()
	edges := 0
	for v := 0; v < s.n; v++ {
		if !s.alive[v] {
			continue
		}
		l := s.liveNeighbors(int32(v), nil)
		if int(s.deg[v]) != len(l) {
			t.Fatalf("vertex %d: deg %d, %d live neighbours", v, s.deg[v], len(l))
		}
		seen := map[int32]bool{}
		for _, u := range l {
			if seen[u] || u == int32(v) {
				t.Fatalf("vertex %d: neighbour %d repeated or a loop", v, u)
			}
			seen[u] = true
			if !liveSet(s, u)[int32(v)] {
				t.Fatalf("edge %d→%d without %d→%d", v, u, u, v)
			}
		}
		edges += len(l)
	}
	if edges/2 != s.m {
		t.Fatalf("m = %d, counted %d", s.m, edges/2)
	}
}

func TestDegreeZeroAndOne(t *testing.T) {
	// 0-1 path, 2 isolated.
	s := newState(fromEdges(t, 3, [][2]int{{0, 1}}))
	s.queueAll()
	if !s.reduce(noBudget) {
		t.Fatal("reduce failed")
	}
	if s.nAlive != 0 || s.cover != 1 {
		t.Fatalf("nAlive %d cover %d, want 0 and 1", s.nAlive, s.cover)
	}
	in := make([]bool, 3)
	resolve(s.ops, in)
	if in[2] || in[0] == in[1] {
		t.Fatalf("cover %v: want exactly one of 0,1 and not the isolated 2", in)
	}
	// Degree one takes the neighbour: leaf 0 of star centre 1.
	s = newState(fromEdges(t, 4, [][2]int{{0, 1}, {1, 2}, {1, 3}, {2, 3}}))
	s.push(0)
	s.reduce(noBudget)
	if s.alive[1] || len(s.ops) == 0 || s.ops[0] != (op{kind: opTake, v: 1}) {
		t.Fatalf("degree one: ops %v, want take 1 first", s.ops)
	}
}

func TestTriangleRule(t *testing.T) {
	// 0 has degree 2 with adjacent neighbours 1, 2; 1 and 2 have more.
	s := newState(fromEdges(t, 5, [][2]int{{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 4}, {3, 4}}))
	s.push(0)
	s.reduce(noBudget)
	if s.ops[0] != (op{kind: opTake, v: 1}) || s.ops[1] != (op{kind: opTake, v: 2}) {
		t.Fatalf("ops %v: want take 1, take 2 first", s.ops)
	}
}

func TestFoldAndUnfold(t *testing.T) {
	// v=0 with non-adjacent neighbours 1, 2; N(1) = {0,3,4}, N(2) = {0,4,5}.
	g := fromEdges(t, 7, [][2]int{{0, 1}, {0, 2}, {1, 3}, {1, 4}, {2, 4}, {2, 5}, {3, 6}, {5, 6}, {4, 6}})
	s := newState(g)
	before := takeSnap(s)
	s.fold(0, 1, 2)
	checkDegrees(t, s)
	if s.alive[1] || s.alive[2] || !s.alive[0] {
		t.Fatal("fold must remove 1 and 2 and keep 0 as the merged vertex")
	}
	got := s.liveNeighbors(0, nil)
	slices.Sort(got)
	if !slices.Equal(got, []int32{3, 4, 5}) {
		t.Fatalf("merged vertex neighbours %v, want [3 4 5]", got)
	}
	if s.cover != 1 {
		t.Fatalf("cover %d after a fold, want 1", s.cover)
	}
	// Unfolding both ways: merged vertex in the cover → 1 and 2;
	// not → 0.
	in := make([]bool, 7)
	in[0] = true
	resolve(s.ops, in)
	if !in[1] || !in[2] || in[0] {
		t.Fatalf("merged in cover: %v, want 1 and 2", in)
	}
	in = make([]bool, 7)
	resolve(s.ops, in)
	if !in[0] || in[1] || in[2] {
		t.Fatalf("merged not in cover: %v, want 0", in)
	}
	s.undoTo(0)
	sameSnap(t, "undo fold", before, takeSnap(s))
}

// TestFoldPreservesOptimum: on random graphs, every fold the reductions
// make keeps the optimum (brute force on the reduced graph plus the cover
// so far) and unfolds to a valid cover of the input.
func TestFoldPreservesOptimum(t *testing.T) {
	folds := 0
	for seed := uint64(0); seed < 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		n := 6 + r.IntN(12)
		g := gnp(t, n, 1.6/float64(n)+r.Float64()*0.15, seed)
		want := bruteMin(g)
		s := newState(g)
		s.queueAll()
		s.reduce(noBudget)
		checkDegrees(t, s)
		for _, o := range s.ops {
			if o.kind == opFold {
				folds++
			}
		}
		// An optimal kernel cover unfolds to an optimal input cover.
		checkReduced(t, g, s, want, fmt.Sprintf("seed %d, reduced", seed))
	}
	if folds == 0 {
		t.Fatal("no folds happened: the test exercises nothing")
	}
	t.Logf("%d folds", folds)
}

// bruteCover returns a minimum cover by enumeration (small graphs).
func bruteCover(g *core.Graph) []bool {
	n := g.N
	best, bestSet := n+1, uint32(0)
	for set := uint32(0); set < 1<<uint(n); set++ {
		c := 0
		for x := set; x != 0; x &= x - 1 {
			c++
		}
		if c >= best {
			continue
		}
		ok := true
		for u := 0; u < n && ok; u++ {
			for _, v := range g.Neighbors(u) {
				if set&(1<<uint(u)) == 0 && set&(1<<uint(v)) == 0 {
					ok = false
					break
				}
			}
		}
		if ok {
			best, bestSet = c, set
		}
	}
	in := make([]bool, n)
	for v := 0; v < n; v++ {
		in[v] = bestSet&(1<<uint(v)) != 0
	}
	return in
}

func TestDomination(t *testing.T) {
	// N[0] = {0,1,2,3} ⊆ N[1] = {0,1,2,3,4}; 0 has degree 3.
	g := fromEdges(t, 6, [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {1, 4}, {2, 5}, {3, 5}, {4, 5}, {2, 4}})
	s := newState(g)
	if u := s.dominator(0); u != 1 {
		t.Fatalf("dominator(0) = %d, want 1", u)
	}
	// 5 (N[5] = {2,3,4,5}) has no neighbour containing it.
	if u := s.dominator(5); u != -1 {
		t.Fatalf("dominator(5) = %d, want -1", u)
	}
}

func TestHighDegree(t *testing.T) {
	// A star with 5 leaves and a budget of 2: the centre must be taken.
	g := fromEdges(t, 6, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}})
	s := newState(g)
	s.push(0)
	if !s.reduce(func() int { return 2 - s.cover }) {
		t.Fatal("reduce reported infeasible")
	}
	if s.ops[0] != (op{kind: opTake, v: 0}) {
		t.Fatalf("ops %v, want take 0 first", s.ops)
	}
	// Budget 0 with edges left is infeasible.
	s = newState(fromEdges(t, 3, [][2]int{{0, 1}, {1, 2}}))
	s.queueAll()
	if s.reduce(func() int { return 0 - s.cover }) {
		t.Fatal("reduce with budget 0 on a path succeeded")
	}
}

func TestLP(t *testing.T) {
	// Triangle: LP = 3/2, all halves.
	x, twice := lpHalves(fromEdges(t, 3, [][2]int{{0, 1}, {1, 2}, {0, 2}}))
	if twice != 3 || !slices.Equal(x, []int8{1, 1, 1}) {
		t.Fatalf("triangle: x %v 2LP %d", x, twice)
	}
	// Star: centre 1, leaves 0.
	x, twice = lpHalves(fromEdges(t, 4, [][2]int{{0, 1}, {0, 2}, {0, 3}}))
	if twice != 2 || !slices.Equal(x, []int8{2, 0, 0, 0}) {
		t.Fatalf("star: x %v 2LP %d", x, twice)
	}
	// On random graphs: x is a feasible half-integral cover of value
	// twice/2, and twice/2 ≤ optimum.
	for seed := uint64(0); seed < 100; seed++ {
		g := gnp(t, 14, 0.2, seed+500)
		x, twice := lpHalves(g)
		sum := 0
		for u := 0; u < g.N; u++ {
			sum += int(x[u])
			for _, v := range g.Neighbors(u) {
				if x[u]+x[v] < 2 {
					t.Fatalf("seed %d: edge %d-%d has x %d+%d < 1", seed, u, v, x[u], x[v])
				}
			}
		}
		if sum != twice {
			t.Fatalf("seed %d: Σ2x = %d, matching %d", seed, sum, twice)
		}
		if opt := bruteMin(g); (twice+1)/2 > opt {
			t.Fatalf("seed %d: LP bound %d above optimum %d", seed, (twice+1)/2, opt)
		}
		// NT keeps the optimum.
		s := newState(g)
		s.ntReduce()
		kg, _ := s.extract(nil)
		if got := s.cover + bruteMin(kg); got != bruteMin(g) {
			t.Fatalf("seed %d: after NT %d, optimum %d", seed, got, bruteMin(g))
		}
	}
}

func TestHopcroftKarpMaximum(t *testing.T) {
	// The matching of the double cover is maximum: compare with a simple
	// augmenting-path matcher.
	for seed := uint64(0); seed < 50; seed++ {
		g := gnp(t, 30, 0.1, seed+900)
		_, _, size := hopcroftKarp(g)
		if want := kuhn(g); size != want {
			t.Fatalf("seed %d: Hopcroft–Karp %d, Kuhn %d", seed, size, want)
		}
	}
}

func kuhn(g *core.Graph) int {
	matchR := make([]int, g.N)
	for i := range matchR {
		matchR[i] = -1
	}
	var try func(u int, seen []bool) bool
	try = func(u int, seen []bool) bool {
		for _, v := range g.Neighbors(u) {
			if seen[v] {
				continue
			}
			seen[v] = true
			if matchR[v] < 0 || try(matchR[v], seen) {
				matchR[v] = u
				return true
			}
		}
		return false
	}
	size := 0
	for u := 0; u < g.N; u++ {
		if try(u, make([]bool, g.N)) {
			size++
		}
	}
	return size
}

func TestBoundsBelowOptimum(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		g := gnp(t, 16, 0.1+float64(seed%8)*0.1, seed+1300)
		s := newState(g)
		if lb, opt := s.rootLowerBound(), bruteMin(g); lb > opt {
			t.Fatalf("seed %d: lower bound %d above optimum %d", seed, lb, opt)
		}
	}
	// Disjoint cliques in index order: the clique cover bound is exact.
	var edges [][2]int
	for b := 0; b < 4; b++ {
		for i := 0; i < 5; i++ {
			for j := i + 1; j < 5; j++ {
				edges = append(edges, [2]int{5*b + i, 5*b + j})
			}
		}
	}
	edges = append(edges, [2]int{0, 7}, [2]int{3, 12}, [2]int{9, 18})
	s := newState(fromEdges(t, 20, edges))
	if lb := s.rootLowerBound(); lb != 16 {
		t.Fatalf("4 cliques of 5 with cross edges: bound %d, want 16", lb)
	}
}

// TestUndoRestores applies random ops and reductions and checks undo
// brings back the exact graph.
func TestUndoRestores(t *testing.T) {
	for seed := uint64(0); seed < 100; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		g := gnp(t, 30, 0.12, seed+2000)
		s := newState(g)
		before := takeSnap(s)
		var marks []int
		var snaps []snap
		for step := 0; step < 12 && s.m > 0; step++ {
			marks = append(marks, len(s.ops))
			snaps = append(snaps, takeSnap(s))
			randomBranch(s, r)
			checkDegrees(t, s)
		}
		for i := len(marks) - 1; i >= 0; i-- {
			s.undoTo(marks[i])
			sameSnap(t, "undo step", snaps[i], takeSnap(s))
		}
		s.undoTo(0)
		sameSnap(t, "undo all", before, takeSnap(s))
	}
}
