package cluster

import (
	"math/rand/v2"
	"testing"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/core"
)

// twinPair is a random graph of n vertices whose vertices after the first
// k copy an earlier one's neighbours (joined to it or not): twins, which
// the pruned tree's rules act on.
func twinPair(rng *rand.Rand, n int, p float64) *core.Graph {
	k := 1 + rng.IntN(max(1, n/2))
	adj := make([][]bool, n)
	for u := range adj {
		adj[u] = make([]bool, n)
	}
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			src := v
			if v >= k {
				src = rng.IntN(v)
			}
			switch {
			case v < k:
				adj[u][v] = rng.Float64() < p
			case u == src:
				adj[u][v] = rng.IntN(2) == 0
			default:
				adj[u][v] = adj[min(u, src)][max(u, src)]
			}
		}
	}
	b := core.NewBuilder(n, false)
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if adj[u][v] {
				b.AddEdge(u, v)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		panic(err) // the generator's own edges are valid
	}
	return g
}

// bruteMCS is the size of a maximum common induced subgraph of g and h,
// by trying every partial injection in order (small graphs only).
func bruteMCS(g, h *core.Graph, connected bool) int {
	adj := func(x *core.Graph) [][]bool {
		a := make([][]bool, x.N)
		for u := range a {
			a[u] = make([]bool, x.N)
			for _, v := range x.Neighbors(u) {
				a[u][v] = true
			}
		}
		return a
	}
	ag, ah := adj(g), adj(h)
	img := make([]int, g.N)
	used := make([]bool, h.N)
	best := 0
	var try func(u, size int)
	try = func(u, size int) {
		if u == g.N {
			if size > best && (!connected || connectedImage(ag, img)) {
				best = size
			}
			return
		}
		img[u] = -1
		try(u+1, size)
		for x := 0; x < h.N; x++ {
			if used[x] {
				continue
			}
			ok := true
			for v := 0; v < u && ok; v++ {
				if img[v] >= 0 && ag[u][v] != ah[x][img[v]] {
					ok = false
				}
			}
			if ok {
				img[u], used[x] = x, true
				try(u+1, size+1)
				img[u], used[x] = -1, false
			}
		}
	}
	try(0, 0)
	return best
}

// connectedImage reports whether the matched vertices of g (img ≥ 0)
// induce a connected subgraph.
func connectedImage(ag [][]bool, img []int) bool {
	start := -1
	for u, x := range img {
		if x >= 0 {
			start = u
			break
		}
	}
	if start < 0 {
		return true
	}
	seen := map[int]bool{start: true}
	stack := []int{start}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for v := range ag[u] {
			if ag[u][v] && img[v] >= 0 && !seen[v] {
				seen[v] = true
				stack = append(stack, v)
			}
		}
	}
	for u, x := range img {
		if x >= 0 && !seen[u] {
			return false
		}
	}
	return true
}

// TestClusterPruneBruteForce solves random small pairs, half with planted
// twins, on in-process workers in each search tree (tasks of a few nodes,
// so that they split and their leftovers travel as paths of that tree):
// sizes equal brute force, mappings are verified, and every one-thread
// record's audit (a replay of its task in the same tree, node for node)
// passes.
func TestClusterPruneBruteForce(t *testing.T) {
	srv := startServer(t)
	inProcessWorkers(t, srv, 2, logWriter{t})
	rng := rand.New(rand.NewPCG(44, 7))
	for _, mode := range []mcs.Pruning{mcs.PruneNone, mcs.PruneRR, mcs.PruneRR2} {
		for i := 0; i < 4; i++ {
			gen := func(n int, p float64) *core.Graph { return randomGraph(rng, n, p) }
			if i%2 == 0 {
				gen = func(n int, p float64) *core.Graph { return twinPair(rng, n, p) }
			}
			p := 0.15 + 0.7*rng.Float64()
			g, h := gen(5+rng.IntN(4), p), gen(5+rng.IntN(4), p)
			opts := mcs.Options{Prune: mode, Connected: i == 3}
			c := pairCase{name: mode.String(), g: g, h: h, size: bruteMCS(g, h, opts.Connected)}
			cfg := testConfig(srv)
			cfg.Tasks, cfg.Budget = 4, 3
			res, err := SolveMCS(deadline(t), cfg, g, h, opts)
			checkResult(t, c, res, err)
			if len(res.Quarantined) > 0 {
				t.Fatalf("%s pair %d: quarantined %v", mode, i, res.Quarantined)
			}
		}
	}
}
