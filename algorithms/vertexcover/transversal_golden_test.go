package vertexcover

import (
	"fmt"
	"hash/fnv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// transFingerprint runs the transversal search to the end (a tight
// partition, a deadline far off) and hashes every cover it reports, with
// its size, then the cover it returns: a digest of the run that any change
// to its random draws or moves would change (the reports' timing depends
// on the step count).
func transFingerprint(t testing.TB, g *core.Graph, seed uint64, init []bool) string {
	part, k := bestPartition(g)
	h := fnv.New64a()
	reports := 0
	add := func(c []bool, size int) {
		fmt.Fprintf(h, "%d:", size)
		for _, in := range c {
			if in {
				h.Write([]byte{1})
			} else {
				h.Write([]byte{0})
			}
		}
	}
	var stop atomic.Bool
	c := transversalSearch(g, part, k, seed, &stop, time.Now().Add(time.Minute), init, func(c []bool, size int) {
		reports++
		add(c, size)
	})
	if c == nil {
		t.Fatalf("seed %d: no transversal", seed)
	}
	add(c, g.N-k)
	return fmt.Sprintf("%d/%016x", reports, h.Sum64())
}

// greedyCover is the complement of the maximal independent set taken in
// vertex order: a start for the search's init.
func greedyCover(g *core.Graph) []bool {
	cover := make([]bool, g.N)
	for v := range g.N {
		if cover[v] {
			continue
		}
		for _, x := range g.Neighbors(v) {
			cover[x] = true
		}
	}
	for v := range g.N {
		for _, x := range g.Neighbors(v) {
			if int(x) > v && !cover[v] && !cover[x] {
				cover[x] = true
			}
		}
	}
	return cover
}

// TestTransversalGolden pins the search's runs on planted instances, with
// the knobs at their defaults and turned off, from fixed seeds: the
// digests (reports/hash) were recorded before the search became a struct
// of methods, which had to leave every run unchanged.
func TestTransversalGolden(t *testing.T) {
	sat60, sat150 := plantedSAT(t, 60, 255, 1), plantedSAT(t, 150, 700, 2)
	sat240 := plantedSAT(t, 240, 1250, 7)
	tri := plantedTriangles(t, 300, 1500, 3)
	cases := []struct {
		name            string
		g               *core.Graph
		seed            uint64
		init            bool
		weights, repair bool
		forget          int64
		want            string
	}{
		{"sat60", sat60, 1, false, true, true, 8, "2/f8d287f0fbbf30eb"},
		{"sat60", sat60, 2, false, true, true, 8, "3/e36a38b6c705f26f"},
		{"sat60", sat60, 3, false, true, true, 8, "1/05665caedf2d3ca5"},
		{"sat60 init", sat60, 4, true, true, true, 8, "3/c9a234245ef4aad1"},
		{"sat150", sat150, 1, false, true, true, 8, "5/ef5c478f15cd8a0b"},
		{"sat150 init", sat150, 2, true, true, true, 8, "5/5800e2c236fa2735"},
		{"tri300x1500", tri, 1, false, true, true, 8, "1/c912174c0a86bd69"},
		{"tri300x1500", tri, 2, false, true, true, 8, "1/0c6ff0a91dda25a5"},
		{"sat60 no repair", sat60, 1, false, true, false, 8, "3/52913987af2bad29"},
		{"sat60 no repair", sat60, 2, false, true, false, 8, "4/0696a7232cfdc5e0"},
		{"sat60 no weights", sat60, 1, false, false, false, 8, "3/3a4eff4a6ec58ba9"},
		{"tri300x1500 no weights", tri, 1, false, false, false, 8, "1/81feaea10d15ccc9"},
		{"sat240", sat240, 2, false, true, true, 8, "13/b40675192e77bb1e"},
		{"sat240 forget 2", sat240, 2, false, true, true, 2, "12/08c93733b7a2a27f"},
	}
	defer func() { transWeights, transRepair, transForget = true, true, 8 }()
	for _, c := range cases {
		transWeights, transRepair, transForget = c.weights, c.repair, c.forget
		var init []bool
		if c.init {
			init = greedyCover(c.g)
		}
		if got := transFingerprint(t, c.g, c.seed, init); got != c.want {
			t.Errorf("%s seed %d: run %s, pinned %s", c.name, c.seed, got, c.want)
		}
	}
}

// BenchmarkTransversal: the search to the end on a planted formula from
// fixed seeds (the same steps at every run: the time is the steps' cost).
func BenchmarkTransversal(b *testing.B) {
	g := plantedSAT(b, 240, 1250, 7)
	for b.Loop() {
		for seed := uint64(1); seed <= 4; seed++ {
			transFingerprint(b, g, seed, nil)
		}
	}
}
