package vertexcover

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// TestGreedyDive checks the reduction-interleaved greedy on random graphs
// against brute force: its cover covers the live graph, has the size it
// reports, is never below the optimum, resolves through earlier ops to a
// cover of the input, and the state is left as it was.
func TestGreedyDive(t *testing.T) {
	for seed := uint64(0); seed < 150; seed++ {
		n := 6 + int(seed%13)
		g := gnp(t, n, 0.15+float64(seed%5)*0.1, seed+5000)
		opt := bruteMin(g)
		s := newState(g)
		if seed%2 == 1 {
			// Start from a reduced state, so folds lie below the dive.
			s.queueAll()
			s.reduce(noBudget)
		}
		before := takeSnap(s)
		in, size := s.greedyDive()
		sameSnap(t, "after the dive", before, takeSnap(s))
		if !liveEdgesCovered(s, in) {
			t.Fatalf("seed %d: the dive's cover misses a live edge", seed)
		}
		full := slices.Clone(in)
		resolve(s.ops, full)
		var cover []int
		for v, c := range full {
			if c {
				cover = append(cover, v)
			}
		}
		if err := Verify(g, cover); err != nil {
			t.Fatalf("seed %d: resolved dive cover: %v", seed, err)
		}
		if len(cover) != s.cover+size {
			t.Fatalf("seed %d: resolved cover has %d vertices, dive reported %d+%d", seed, len(cover), s.cover, size)
		}
		if len(cover) < opt {
			t.Fatalf("seed %d: dive cover %d below the optimum %d", seed, len(cover), opt)
		}
	}
}

// TestDegHeap pops in (degree, vertex) order.
func TestDegHeap(t *testing.T) {
	var h degHeap
	keys := [][2]int32{{3, 7}, {1, 9}, {3, 2}, {0, 5}, {2, 1}, {1, 4}}
	for _, k := range keys {
		h.push(k[0], k[1])
	}
	slices.SortFunc(keys, func(a, b [2]int32) int {
		if a[0] != b[0] {
			return int(a[0] - b[0])
		}
		return int(a[1] - b[1])
	})
	for _, k := range keys {
		d, v := h.pop()
		if d != k[0] || v != k[1] {
			t.Fatalf("popped (%d,%d), want (%d,%d)", d, v, k[0], k[1])
		}
	}
	if _, v := h.pop(); v != -1 {
		t.Fatalf("empty heap popped vertex %d", v)
	}
}

// TestLNS starts the large neighbourhood search from the trivial cover
// (every vertex) on sparse random graphs small enough that one ball holds
// the whole graph: every cover it reports must be a cover of that size,
// and it must reach the optimum.
func TestLNS(t *testing.T) {
	for seed := uint64(0); seed < 12; seed++ {
		g := gnp(t, 30+int(seed)*4, 0.08, seed+9000)
		ref, err := Solve(context.Background(), g, Options{Threads: 1})
		if err != nil || !ref.Proven {
			t.Fatalf("seed %d: reference solve: %v (proven %v)", seed, err, ref.Proven)
		}
		cur := make([]bool, g.N)
		for v := range cur {
			cur[v] = true
		}
		var stop atomic.Bool
		best := g.N
		deadline := time.Now().Add(30 * time.Second) // only a safety net
		stopped := func() bool { return time.Now().After(deadline) }
		lns(g, cur, seed, &stop, stopped, func(int) []bool { return nil }, func(in []bool, size int) {
			var cover []int
			for v, c := range in {
				if c {
					cover = append(cover, v)
				}
			}
			if err := Verify(g, cover); err != nil {
				t.Fatalf("seed %d: LNS cover: %v", seed, err)
			}
			if len(cover) != size {
				t.Fatalf("seed %d: LNS reported %d, cover has %d", seed, size, len(cover))
			}
			best = size
			if size <= ref.Size() {
				stop.Store(true)
			}
		})
		if best != ref.Size() {
			t.Fatalf("seed %d: LNS reached %d, optimum %d", seed, best, ref.Size())
		}
	}
}
