package kernels

import (
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/cpu"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// TestCS314ChecksAgainstBruteForce checks the kernels' results on the CPU
// backend against a plain sequential computation, so that the twins (the
// reference for every other device) are themselves right: the scan must
// find each source's strongest neighbour (highest weight, smallest index on
// ties), and the filter must keep exactly the arcs with both ends unmatched.
func TestCS314ChecksAgainstBruteForce(t *testing.T) {
	dev := cpu.New(0)
	for _, tc := range []struct {
		n, m       int
		ties, star bool
	}{{2, 1, false, false}, {600, 599, true, true}, {1000, 3001, true, false}, {1000, 3001, false, false}} {
		in := cs314Input(tc.n, tc.m, tc.ties, tc.star)
		for _, threads := range []int{1, 7, 64, 1000, 0} {
			out, err := in.run(dev, threads, in.filterOutputs)
			if err != nil {
				t.Fatal(err)
			}
			// Sequential strongest neighbour per vertex.
			want := make([]int32, tc.n)
			bestW := make([]int32, tc.n)
			for i := range want {
				want[i] = -1
			}
			for i, u := range in.src {
				if want[u] == -1 || in.wgt[i] > bestW[u] || (in.wgt[i] == bestW[u] && in.dst[i] < want[u]) {
					want[u], bestW[u] = in.dst[i], in.wgt[i]
				}
			}
			hs, err := in.run(dev, threads, in.handshakeOutputs)
			if err != nil {
				t.Fatal(err)
			}
			strong, matches := hs[0].Values, hs[1].Values
			for v := range want {
				if strong[v] != int64(want[v]) {
					t.Fatalf("n=%d threads=%d: strongNeighbor[%d] = %d, want %d", tc.n, threads, v, strong[v], want[v])
				}
				s := want[v]
				mutual := s >= 0 && want[s] == int32(v)
				if got := matches[v]; (mutual && got != int64(s)) || (!mutual && got != -1) {
					t.Fatalf("n=%d threads=%d: matches[%d] = %d, strongest %d (mutual %v)", tc.n, threads, v, got, s, mutual)
				}
			}
			// The fast kernels' first pass finds the same neighbours and pairs.
			fp, err := in.fastPass(dev, threads)
			if err != nil {
				t.Fatal(err)
			}
			for v := range want {
				got := int32(-1)
				if fp[0].Values[v] != 0 {
					got = MatchKeyDst(uint64(fp[0].Values[v]))
				}
				if got != want[v] || fp[1].Values[v] != matches[v] {
					t.Fatalf("n=%d threads=%d: fast kernels: vertex %d strongest %d match %d, want %d and %d", tc.n, threads, v, got, fp[1].Values[v], want[v], matches[v])
				}
			}
			// The handshake over the vertices finds the same pairs and bits.
			for i, name := range []string{"match", "matched bits"} {
				if err := Compare([]Output{{Name: name, Values: fp[7+i].Values}}, []Output{{Name: name, Values: fp[1+i].Values}}); err != nil {
					t.Fatalf("n=%d threads=%d: vertex handshake vs arc handshake: %v", tc.n, threads, err)
				}
			}
			// The single-pass filter finds the same pairs, packs the same
			// arcs and the same next strongest neighbours as the two launches.
			op, err := in.onePass(dev, threads)
			if err != nil {
				t.Fatal(err)
			}
			for i, name := range []string{"match", "packed src", "packed keys", "next best"} {
				a, b := op[[]int{0, 2, 3, 4}[i]], fp[[]int{1, 4, 5, 6}[i]]
				if err := Compare([]Output{{Name: name, Values: a.Values}}, []Output{{Name: name, Values: b.Values}}); err != nil {
					t.Fatalf("n=%d threads=%d: one-pass vs two launches: %v", tc.n, threads, err)
				}
			}
			keep, edgeMap := out[0].Values, out[1].Values
			kept := 0
			for i := range in.src {
				k := matches[in.src[i]] == -1 && matches[in.dst[i]] == -1
				if (keep[i] == 1) != k {
					t.Fatalf("n=%d threads=%d: keepEdges[%d] = %d", tc.n, threads, i, keep[i])
				}
				if edgeMap[i] != int64(kept) {
					t.Fatalf("n=%d threads=%d: edgeMap[%d] = %d, want %d", tc.n, threads, i, edgeMap[i], kept)
				}
				if k {
					if out[2].Values[kept] != int64(in.src[i]) || out[3].Values[kept] != int64(in.dst[i]) || out[4].Values[kept] != int64(in.wgt[i]) {
						t.Fatalf("n=%d threads=%d: packed arc %d differs from arc %d", tc.n, threads, kept, i)
					}
					kept++
				}
			}
			if int(edgeMap[len(in.src)]) != kept {
				t.Fatalf("n=%d threads=%d: %d arcs kept, want %d", tc.n, threads, edgeMap[len(in.src)], kept)
			}
		}
	}
}

// TestCS314Checks runs every cs314 check on every backend and compares it
// with the CPU twin bit for bit; on the CPU it compares thread counts with
// each other (every check's output must not depend on them).
func TestCS314Checks(t *testing.T) {
	checks := cs314Checks(dataset.Dir())
	ref := cpu.New(0)
	want := make([][]Output, len(checks))
	for i, c := range checks {
		out, err := c.Run(ref)
		if err != nil {
			t.Fatalf("%s %s on cpu: %v", c.Kernel, c.Case, err)
		}
		want[i] = out
	}
	// Checks come in groups of three thread counts (1 is skipped for the
	// large case) of three kernels: same kernel and shape, other threads.
	byKey := map[string][]Output{}
	for i, c := range checks {
		key := c.Kernel + "|" + c.Case[:len(c.Case)-len(threadSuffix(c.Case))]
		if prev, ok := byKey[key]; ok {
			if err := Compare(want[i], prev); err != nil {
				t.Fatalf("%s %s differs from another thread count: %v", c.Kernel, c.Case, err)
			}
		} else {
			byKey[key] = want[i]
		}
	}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		if dev.Info().Backend == cpu.Name {
			return
		}
		for i, c := range checks {
			got, err := c.Run(dev)
			if err != nil {
				t.Fatalf("%s %s: %v", c.Kernel, c.Case, err)
			}
			if err := Compare(got, want[i]); err != nil {
				t.Fatalf("%s %s: %v", c.Kernel, c.Case, err)
			}
		}
	})
}

func threadSuffix(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '=' {
			return s[i+1:]
		}
	}
	return ""
}
