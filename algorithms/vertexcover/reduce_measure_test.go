//go:build measure

package vertexcover

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// TestReduceMeasure applies the root reductions to the public PACE 2019
// instances and logs, per instance, the kernel left (vertices, edges),
// the time and how often each rule fired, then per rule on how many
// instances it fired and how often in all (issue #42):
//
//	go test -tags measure -run ReduceMeasure -v ./algorithms/vertexcover/ -args -red
//
// -red.files=085,153 picks instances (default: all of optima.csv);
// -red.funnel turns the funnel rule on at any size;
// -red.struction applies the degree-3 struction to the kernel,
// alternating with the root reductions, and logs the kernel and bound;
// -red.crown samples kernel vertices that some optimal LP
// solution sets to 0 (a crown the reduction's LP solution leaves);
// -red.count counts where rules Arbor lacks would fire on the
// kernel (twins, funnels of degree 4–8, desks); -red.bound logs the kernel's root lower bound and greedy dive.
var (
	redMeasure   = flag.Bool("red", false, "TestReduceMeasure: run it on every instance of optima.csv")
	redFiles     = flag.String("red.files", "", "TestReduceMeasure: the PACE instances (numbers), comma-separated")
	redFunnel    = flag.Bool("red.funnel", false, "TestReduceMeasure: the funnel rule at any size")
	redStruction = flag.Bool("red.struction", false, "TestReduceMeasure: the degree-3 struction on the kernel")
	redCrown     = flag.Bool("red.crown", false, "TestReduceMeasure: sample kernel vertices some optimal LP solution sets to 0")
	redCount     = flag.Bool("red.count", false, "TestReduceMeasure: count where missing rules would fire (twins, funnels of degree 4-8, desks)")
	redBound     = flag.Bool("red.bound", false, "TestReduceMeasure: log the kernel's root lower bound and greedy dive")
)

func TestReduceMeasure(t *testing.T) {
	if !*redMeasure && *redFiles == "" {
		t.Skip("-args -red (or -red.files) not given")
	}
	dir := filepath.Join(dataset.Require(t, ""), "vc/pace2019")
	var files []string
	if f := *redFiles; f != "" {
		for _, x := range strings.Split(f, ",") {
			files = append(files, "vc-exact_"+x+".gr")
		}
	} else {
		m, _ := filepath.Glob(filepath.Join(dir, "vc-exact_*.gr"))
		for _, x := range m {
			files = append(files, filepath.Base(x))
		}
		sort.Strings(files)
	}
	var total [numRules]int64
	var on [numRules]int
	sumN, sumM, sumKN, sumKM := 0, 0, 0, 0
	var sumT time.Duration
	for _, f := range files {
		g, err := core.ReadGraph(filepath.Join(dir, f), core.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s := newState(g)
		if *redFunnel {
			s.funnelOn = true
		}
		start := time.Now()
		s.rootReductions(func() int { return g.N })
		el := time.Since(start)
		var b strings.Builder
		for r, c := range s.fired {
			if c > 0 {
				fmt.Fprintf(&b, " %s=%d", ruleNames[r], c)
				on[r]++
				total[r] += c
			}
		}
		t.Logf("%s n=%d m=%d kernel n=%d m=%d cover=%d %.3fs%s", strings.TrimSuffix(f, ".gr"), g.N, g.Edges(), s.nAlive, s.m, s.cover, el.Seconds(), b.String())
		if *redBound && s.m > 0 {
			start := time.Now()
			lb := s.cover + s.rootLowerBound()
			t1 := time.Since(start)
			rb, _ := s.rootBound(noBudget)
			t2 := time.Since(start) - t1
			_, dive := s.greedyDive()
			t.Logf("  root bound %d (%.3fs), with the funnel trial %d (%.3fs), greedy dive %d", lb, t1.Seconds(), rb, t2.Seconds(), s.cover+dive)
		}
		if *redCount && s.m > 0 {
			tw, fu := candidates(s)
			t.Logf("  kernel: %d degree-3 twin pairs, %d vertices of degree 4–8 with a funnel, %d desks", tw, fu, desks(s))
		}
		if *redStruction && s.m > 0 {
			kn, km, lb, applied := structionRounds(t, s)
			// The same rebuild without the struction: the kernel's
			// vertex order changes the greedy bounds by a little.
			kg, _ := s.extract(nil)
			re := newState(kg)
			re.rootReductions(noBudget)
			t.Logf("  degree-3 struction: %d applied; kernel %d vertices, %d edges; root bound %d (without: %d, rebuilt without: %d)", applied, kn, km, lb, s.cover+s.rootLowerBound(), s.cover+re.cover+re.rootLowerBound())
		}
		if *redCrown && s.m > 0 {
			fix, tried, twice, n := crownSample(s, 100)
			t.Logf("  LP: 2·LP = %d on %d vertices; %d of %d sampled vertices are 0 in some optimal LP solution", twice, n, fix, tried)
		}
		sumN, sumM, sumKN, sumKM, sumT = sumN+g.N, sumM+g.Edges(), sumKN+s.nAlive, sumKM+s.m, sumT+el
	}
	t.Logf("total: %d instances, n=%d m=%d → kernel n=%d m=%d, %.2fs", len(files), sumN, sumM, sumKN, sumKM, sumT.Seconds())
	for r := range total {
		t.Logf("rule %-11s fired on %3d instances, %d times", ruleNames[r], on[r], total[r])
	}
}

// candidates counts, on s's kernel, pairs of non-adjacent degree-3
// vertices with the same neighbourhood (the twin rule) and vertices v of
// degree 4–8 with a neighbour c such that N(v) \ {c} is a clique and c
// does not see all of it (the funnel rule beyond degree 3).
func candidates(s *state) (twins, funnels int) {
	g, _ := s.extract(nil)
	seen := map[[3]int32]int{}
	for v := 0; v < g.N; v++ {
		nb := g.Neighbors(v)
		if len(nb) == 3 {
			seen[[3]int32{nb[0], nb[1], nb[2]}]++
		}
		if len(nb) < 4 || len(nb) > 8 {
			continue
		}
		adj := func(a, b int32) bool {
			for _, x := range g.Neighbors(int(a)) {
				if x == b {
					return true
				}
			}
			return false
		}
	next:
		for _, c := range nb {
			seesAll := true
			for i, a := range nb {
				if a == c {
					continue
				}
				if !adj(a, c) {
					seesAll = false
				}
				for _, b := range nb[i+1:] {
					if b != c && !adj(a, b) {
						continue next
					}
				}
			}
			if !seesAll {
				funnels++
				break
			}
		}
	}
	for _, k := range seen {
		twins += k * (k - 1) / 2
	}
	return twins, funnels
}

// crownSample tests up to k kernel vertices v, spread over the kernel,
// for an optimal LP solution with x_v = 0: LP(G − N[v]) + |N(v)| = LP(G).
// The Nemhauser–Trotter reduction with such a solution would remove v and
// N(v); the solution lpHalves finds may leave them at one half.
func crownSample(s *state, k int) (fixable, tried, twiceLP, n int) {
	g, ids := s.extract(nil)
	_, twiceLP = lpHalves(g)
	step := max(1, g.N/k)
	for i := 0; i < g.N; i += step {
		v := ids[i]
		gone := map[int32]bool{v: true}
		for _, u := range s.adj[v] {
			if s.alive[u] {
				gone[u] = true
			}
		}
		sub, _ := s.extract(func(x int32) bool { return !gone[x] })
		_, t2 := lpHalves(sub)
		tried++
		if t2+2*(len(gone)-1) == twiceLP {
			fixable++
		}
	}
	return fixable, tried, twiceLP, g.N
}

// desks counts the desks of s's kernel (Xiao and Nagamochi; Akiba and
// Iwata): chordless 4-cycles a–b–c–d of vertices of degree 3 or 4 with
// A = N({a, c}) \ {b, d} and B = N({b, d}) \ {a, c} of at most two
// vertices each and disjoint, each cycle counted once.
func desks(s *state) int {
	g, _ := s.extract(nil)
	deg := func(v int32) int { return len(g.Neighbors(int(v))) }
	adj := func(a, b int32) bool {
		for _, x := range g.Neighbors(int(a)) {
			if x == b {
				return true
			}
		}
		return false
	}
	outside := func(x, y, p, q int32) map[int32]bool {
		m := map[int32]bool{}
		for _, v := range [2]int32{x, y} {
			for _, u := range g.Neighbors(int(v)) {
				if u != p && u != q {
					m[u] = true
				}
			}
		}
		return m
	}
	count := 0
	for a := int32(0); a < int32(g.N); a++ {
		if deg(a) < 3 || deg(a) > 4 {
			continue
		}
		nb := g.Neighbors(int(a))
		for i, b := range nb {
			for _, d := range nb[i+1:] {
				if adj(b, d) || deg(b) < 3 || deg(b) > 4 || deg(d) < 3 || deg(d) > 4 {
					continue
				}
				for _, c := range g.Neighbors(int(b)) {
					// a is the cycle's smallest vertex: each cycle once.
					if c <= a || c == d || adj(a, c) || !adj(c, d) || deg(c) < 3 || deg(c) > 4 || b < a || d < a {
						continue
					}
					A, B := outside(a, c, b, d), outside(b, d, a, c)
					if len(A) > 2 || len(B) > 2 {
						continue
					}
					disjoint := true
					for x := range A {
						if B[x] {
							disjoint = false
						}
					}
					if disjoint {
						count++
					}
				}
			}
		}
	}
	return count
}

// struction3 applies the struction (Ebenegger, Hammer and de Werra) once
// to each degree-3 vertex v of g whose neighbours a < b < c are pairwise
// non-adjacent and untouched so far in this pass: v, a, b, c leave, and
// new vertices ab, ac, bc come in, ab adjacent to ac, each xy adjacent
// to N(x) ∪ N(y) outside N[v]. α drops by exactly one and n by one, so
// the minimum cover keeps its size. A measurement only: no lifting.
func struction3(g *core.Graph) (*core.Graph, int) {
	adj := make([]map[int32]bool, g.N)
	for v := range adj {
		adj[v] = map[int32]bool{}
		for _, u := range g.Neighbors(v) {
			adj[v][u] = true
		}
	}
	gone := make([]bool, g.N)
	touched := make([]bool, g.N)
	applied := 0
	for v := 0; v < g.N; v++ {
		if gone[v] || touched[v] || len(adj[v]) != 3 {
			continue
		}
		var nb []int32
		for u := range adj[v] {
			nb = append(nb, u)
		}
		slices.Sort(nb)
		a, b, c := nb[0], nb[1], nb[2]
		if adj[a][b] || adj[a][c] || adj[b][c] || touched[a] || touched[b] || touched[c] {
			continue
		}
		applied++
		ext := func(x int32) []int32 {
			var out []int32
			for w := range adj[x] {
				if w != int32(v) && w != a && w != b && w != c {
					out = append(out, w)
				}
			}
			return out
		}
		ea, eb, ec := ext(a), ext(b), ext(c)
		for _, x := range []int32{int32(v), a, b, c} {
			for w := range adj[x] {
				delete(adj[w], x)
				touched[w] = true
			}
			adj[x] = map[int32]bool{}
			gone[x], touched[x] = true, true
		}
		base := int32(len(adj))
		for i := 0; i < 3; i++ {
			adj = append(adj, map[int32]bool{})
			gone, touched = append(gone, false), append(touched, true)
		}
		link := func(x, y int32) {
			adj[x][y], adj[y][x] = true, true
		}
		ab, ac, bc := base, base+1, base+2
		link(ab, ac)
		for _, pr := range [][3]int32{{ab, 0, 1}, {ac, 0, 2}, {bc, 1, 2}} {
			for _, e := range [][]int32{ea, eb, ec}[pr[1]] {
				link(pr[0], e)
			}
			for _, e := range [][]int32{ea, eb, ec}[pr[2]] {
				link(pr[0], e)
			}
		}
	}
	idx := make([]int, len(adj))
	n := 0
	for v := range adj {
		if !gone[v] {
			idx[v] = n
			n++
		}
	}
	bld := core.NewBuilder(n, false)
	for v := range adj {
		for u := range adj[v] {
			if !gone[v] && int(u) > v {
				bld.AddEdge(idx[v], idx[u])
			}
		}
	}
	out, err := bld.Build()
	if err != nil {
		panic(err)
	}
	return out, applied
}

// structionRounds alternates struction3 and the root reductions on s's
// kernel until the struction no longer applies (at most 20 rounds), and
// returns the last kernel, its root bound (the cover the reductions took
// plus rootLowerBound: the struction keeps the cover's size) and the
// number of structions.
func structionRounds(t *testing.T, s *state) (n, m, lb, applied int) {
	g, _ := s.extract(nil)
	offset := s.cover
	for round := 0; round < 20; round++ {
		h, k := struction3(g)
		applied += k
		st := newState(h)
		st.rootReductions(noBudget)
		offset += st.cover
		g, _ = st.extract(nil)
		if k == 0 || g.N == 0 {
			break
		}
	}
	st := newState(g)
	return g.N, st.m, offset + st.rootLowerBound(), applied
}

// TestStruction3 checks the measurement's struction against brute force
// on random graphs of 8–16 vertices: the minimum cover keeps its size.
// (Leaving out the edge between ab and ac fails it at once.)
func TestStruction3(t *testing.T) {
	applied := 0
	for seed := uint64(0); seed < 300; seed++ {
		g := gnp(t, 8+int(seed%9), 0.2+float64(seed%3)*0.05, seed+51000)
		h, k := struction3(g)
		if k == 0 {
			continue
		}
		applied += k
		if a, b := bruteMin(g), bruteMin(h); a != b {
			t.Fatalf("seed %d: %d structions: optimum %d, after %d", seed, k, a, b)
		}
	}
	if applied < 50 {
		t.Fatalf("only %d structions", applied)
	}
}
