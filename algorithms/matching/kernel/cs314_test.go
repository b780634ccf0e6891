package kernel

import (
	"fmt"
	"slices"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/cpu"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/checktest"
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
	}{{2, 1, false, false}, {600, 599, true, true}, {6000, 5999, false, true}, {1000, 3001, true, false}, {1000, 3001, false, false}} {
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
			// The fast kernels' first pass finds the same neighbours and pairs;
			// both filters give what a sequential simulation of two passes
			// gives, and the handshake over the arcs equals the one over the
			// vertices.
			sim := simulateFastPasses(in, 2)
			var scanOut []device.Output
			for _, lookback := range []bool{false, true} {
				fp, err := in.fastPasses(dev, threads, lookback)
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("n=%d threads=%d lookback=%v", tc.n, threads, lookback)
				best, match := named(t, fp, "best").Values, named(t, fp, "pass 1: match").Values
				for v := range want {
					got := int32(-1)
					if best[v] != 0 {
						got = MatchKeyDst(uint64(best[v]))
					}
					if got != want[v] || match[v] != matches[v] {
						t.Fatalf("%s: fast kernels: vertex %d strongest %d match %d, want %d and %d", what, v, got, match[v], want[v], matches[v])
					}
				}
				for _, o := range sim {
					if err := device.Compare([]device.Output{named(t, fp, o.Name)}, []device.Output{o}); err != nil {
						t.Fatalf("%s: vs sequential simulation: %v", what, err)
					}
				}
				for _, name := range []string{"match", "matched bits"} {
					arc := named(t, fp, "pass 1: arc handshake: "+name)
					arc.Name = "pass 1: " + name
					if err := device.Compare([]device.Output{arc}, []device.Output{named(t, fp, arc.Name)}); err != nil {
						t.Fatalf("%s: arc handshake vs vertex handshake: %v", what, err)
					}
				}
				if !lookback {
					scanOut = fp
					continue
				}
				for _, o := range fp {
					if err := device.Compare([]device.Output{o}, []device.Output{named(t, scanOut, o.Name)}); err != nil {
						t.Fatalf("%s: look-back filter vs mark, scan, pack: %v", what, err)
					}
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
	want := checktest.Twin(t, checks)
	// Checks come in groups of three thread counts (1 is skipped for the
	// large case) of three kernels: same kernel and shape, other threads.
	byKey := map[string][]device.Output{}
	for i, c := range checks {
		key := c.Kernel + "|" + c.Case[:len(c.Case)-len(threadSuffix(c.Case))]
		if prev, ok := byKey[key]; ok {
			if err := device.Compare(want[i], prev); err != nil {
				t.Fatalf("%s %s differs from another thread count: %v", c.Kernel, c.Case, err)
			}
		} else {
			byKey[key] = want[i]
		}
	}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) { checktest.Match(t, dev, checks, want) })
}

func threadSuffix(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '=' {
			return s[i+1:]
		}
	}
	return ""
}

// named is the output called name.
func named(t *testing.T, outs []device.Output, name string) device.Output {
	t.Helper()
	for _, o := range outs {
		if o.Name == name {
			return o
		}
	}
	t.Fatalf("no output %q", name)
	return device.Output{}
}

// simulateFastPasses runs the fast engine's passes sequentially on the host:
// per pass the strongest key of each source, the mutual pairs, the arcs with
// both ends unmatched (in order) and the next pass's strongest keys, named
// as fastPasses names them.
func simulateFastPasses(in *cs314Case, passes int) []device.Output {
	n := in.n
	src := slices.Clone(in.src)
	keys := make([]uint64, len(src))
	for i := range keys {
		keys[i] = MatchKey(in.wgt[i], in.dst[i])
	}
	strongest := func(src []int32, keys []uint64) []uint64 {
		best := make([]uint64, n)
		for i, u := range src {
			best[u] = max(best[u], keys[i])
		}
		return best
	}
	match := make([]int32, n)
	for i := range match {
		match[i] = -1
	}
	best := strongest(src, keys)
	var out []device.Output
	for pass := 1; pass <= passes; pass++ {
		for v := range n {
			if best[v] != 0 {
				if s := MatchKeyDst(best[v]); MatchKeyDst(best[s]) == int32(v) {
					match[v] = s
				}
			}
		}
		var ns []int32
		var nk []uint64
		for i, u := range src {
			if match[u] == -1 && match[MatchKeyDst(keys[i])] == -1 {
				ns, nk = append(ns, u), append(nk, keys[i])
			}
		}
		src, keys, best = ns, nk, strongest(ns, nk)
		name := func(s string) string { return fmt.Sprintf("pass %d: %s", pass, s) }
		out = append(out, device.Widen(name("match"), slices.Clone(match)), device.Widen(name("kept"), []int{len(src)}),
			device.Widen(name("packed src"), src), device.Widen(name("packed keys"), keys), device.Widen(name("next best"), best))
	}
	return out
}
