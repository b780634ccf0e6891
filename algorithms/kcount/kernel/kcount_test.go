package kernel

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/device"
)

// bruteKCliques counts the k-cliques of a graph by plain recursion.
func bruteKCliques(n, k int, adj []uint64) int64 {
	w := (n + 63) / 64
	var rec func(p []uint64, size int) int64
	rec = func(p []uint64, size int) int64 {
		if size == k {
			return 1
		}
		var c int64
		for v := 0; v < n; v++ {
			if p[v/64]>>(v%64)&1 == 0 {
				continue
			}
			q := make([]uint64, w)
			for j := range q {
				q[j] = p[j] & adj[v*w+j]
			}
			for u := 0; u <= v; u++ { // only larger vertices follow
				q[u/64] &^= 1 << (u % 64)
			}
			c += rec(q, size+1)
		}
		return c
	}
	p := make([]uint64, w)
	for v := 0; v < n; v++ {
		p[v/64] |= 1 << (v % 64)
	}
	return rec(p, 0)
}

// TestKCount checks the porting guide's one-page example on every device:
// the count equals plain recursion's and the node count does not depend
// on the device or the number of workers.
func TestKCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	type instance struct {
		n, k  int
		adj   []uint64
		count int64
	}
	var cases []instance
	for _, c := range []struct {
		n, k int
		p    float64
	}{{10, 2, 0.5}, {30, 3, 0.4}, {64, 4, 0.5}, {65, 5, 0.6}, {150, 4, 0.2}} {
		adj := device.RandomBitRows(rng, c.n, c.p)
		cases = append(cases, instance{c.n, c.k, adj, bruteKCliques(c.n, c.k, adj)})
	}
	nodes := make([]int64, len(cases))
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		for i, c := range cases {
			for _, workers := range []int{1, 6} {
				count, n, err := CountKCliques(dev, c.n, c.k, workers, c.adj)
				if err != nil {
					t.Fatal(err)
				}
				if nodes[i] == 0 {
					nodes[i] = n
				}
				if count != c.count || n != nodes[i] {
					t.Fatalf("n %d k %d, %d workers: %d k-cliques in %d nodes, want %d in %d", c.n, c.k, workers, count, n, c.count, nodes[i])
				}
			}
		}
	})
	for i, c := range cases {
		if bits.Len64(uint64(nodes[i])) == 0 {
			t.Fatalf("case %d (n %d k %d): no nodes", i, c.n, c.k)
		}
	}
}
