//go:build measure

package vertexcover

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// auditPair recounts pairSearch's state after a step: one chosen vertex
// per clique (and pIn on exactly those), symmetric pair weights, the
// violated edges listed, and every score equal to the weights of its
// edges to chosen vertices.
func auditPair(report func(string)) func(step int64, l *partLayout, vs, w []int64, chosen []int32, violated int) {
	return func(step int64, l *partLayout, vs, w []int64, chosen []int32, violated int) {
		bad := func(format string, args ...any) {
			report(fmt.Sprintf("step %d: ", step) + fmt.Sprintf(format, args...))
		}
		k := l.k
		in := make([]bool, l.n)
		for q, c := range chosen {
			if l.clique[c] != int32(q) {
				bad("clique %d chose %d of clique %d", q, c, l.clique[c])
			}
			in[c] = true
		}
		for v, x := range vs {
			if (x < 0) != in[v] {
				bad("vertex %d: chosen bit %v, chosen %v", v, x < 0, in[v])
			}
		}
		for i := range k {
			for j := range k {
				if w[i*k+j] != w[j*k+i] || w[i*k+j] < 1 {
					bad("pair weights %d,%d: %d and %d", i, j, w[i*k+j], w[j*k+i])
				}
			}
		}
		want, count := make([]int64, l.n), 0
		for _, c := range chosen {
			for _, u := range l.adj[l.off[c]:l.off[c+1]] {
				want[u] += w[int(l.clique[c])*k+int(l.clique[u])]
				if in[u] && c < u {
					count++
				}
			}
		}
		if count != violated {
			bad("%d violated edges listed, %d violated", violated, count)
		}
		for v, x := range vs {
			if got := x & pScore; got != want[v] {
				bad("vertex %d: score %d, recounted %d", v, got, want[v])
			}
		}
	}
}

// TestPairSearch: pairSearch's incremental state equals a recount after
// every step (through forgettings, on instances with and without an
// answer); it finds planted answers; and it takes the steps of the plain
// reference (partitionSearchCW, cwPair, partition_cw_test.go) seed for
// seed, with and without the degree bias.
func TestPairSearch(t *testing.T) {
	defer func(g float64) { pairAudit, pairGamma = nil, g }(pairGamma)
	problems := 0
	pairAudit = auditPair(func(s string) {
		if problems++; problems <= 5 {
			t.Error(s)
		}
	})
	pairGamma = 0.02 // forget often
	var stop atomic.Bool
	for seed := uint64(1); seed <= 4; seed++ {
		const k, q = 12, 6
		g, part := plantedParts(t, k, q, 0.4, seed)
		c := pairSearch(g, part, k, seed, &stop, time.Now().Add(time.Minute), partDegBeta, nil)
		if c == nil {
			t.Fatalf("seed %d: no cover", seed)
		}
		var list []int
		for v, in := range c {
			if in {
				list = append(list, v)
			}
		}
		if err := Verify(g, list); err != nil || len(list) != g.N-k {
			t.Fatalf("seed %d: cover of %d (%v), want %d", seed, len(list), err, g.N-k)
		}
		// No answer: to the cap.
		_, h, hp := joinedRB(t, g, k, q)
		steps := int64(3000)
		if c := pairSearch(h, hp, k, seed, &stop, time.Now().Add(time.Minute), 0, &steps); c != nil || steps < 3000 {
			t.Fatalf("seed %d: stopped after %d steps on an instance without an answer", seed, steps)
		}
	}
	pairAudit = nil
	same := func(name string, g *core.Graph, seed uint64, cap int64) {
		t.Helper()
		part, k := bestPartition(g)
		for _, beta := range []float64{0, partDegBeta} {
			s1, s2 := cap, cap
			c1 := pairSearch(g, part, k, seed, &stop, time.Now().Add(time.Minute), beta, &s1)
			c2 := partitionSearchCW(g, part, k, seed, &stop, time.Now().Add(time.Minute), beta, &s2, cwPair)
			if s1 != s2 || (c1 == nil) != (c2 == nil) {
				t.Fatalf("%s seed %d β %g: pairSearch %d steps (solved %v), the reference %d (%v)", name, seed, beta, s1, c1 != nil, s2, c2 != nil)
			}
			t.Logf("%s seed %d β %g: %d steps both (solved %v)", name, seed, beta, s1, c1 != nil)
		}
	}
	defer func(g float64) { cwGamma = g }(cwGamma)
	pairGamma, cwGamma = 0.05, 0.05 // through forgettings
	for seed := uint64(1); seed <= 6; seed++ {
		same("planted", plantedRB(t, 24, 10, 0.55, seed), seed, 200000)
	}
	g := optionalGraph(t, "vc/bhoslib/frb35-17-1.mis")
	if g == nil {
		return
	}
	for seed := uint64(1); seed <= 2; seed++ {
		same("frb35-17-1", g, seed, 300000)
	}
}
