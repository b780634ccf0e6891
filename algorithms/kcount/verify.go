package kcount

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/arbor-gpu/arbor/core"
)

// Recount counts the k-cliques of g by the plainest method that is still
// usable on real graphs, sharing nothing with the engines: vertices in
// their input order, each clique extended only by larger neighbours, the
// candidates kept as sorted lists and intersected by merging. It is the
// independent check of Count (Verify), as slow as the cliques are many.
func Recount(ctx context.Context, g *core.Graph, k int) (uint64, error) {
	if g == nil {
		return 0, errors.New("kcount: nil graph")
	}
	if k < 1 {
		return 0, fmt.Errorf("kcount: k is %d; it must be at least 1", k)
	}
	// larger[v]: v's neighbours above v, either arc, no self-loops.
	larger := make([][]int32, g.N)
	for u := 0; u < g.N; u++ {
		for _, v := range g.Neighbors(u) {
			a, b := min(u, int(v)), max(u, int(v))
			if a != b {
				larger[a] = append(larger[a], int32(b))
			}
		}
	}
	for v := range larger {
		slices.Sort(larger[v])
		larger[v] = slices.Compact(larger[v])
	}
	var (
		total uint64
		over  bool
		steps int
	)
	var extend func(cands []int32, need int) error
	extend = func(cands []int32, need int) error {
		if need == 0 {
			var carry uint64
			total, carry = bits.Add64(total, 1, 0)
			over = over || carry != 0
			return nil
		}
		if steps++; steps&4095 == 0 && ctx.Err() != nil {
			return fmt.Errorf("kcount: recount stopped: %w", ctx.Err())
		}
		for i, v := range cands {
			if len(cands)-i < need {
				break
			}
			if err := extend(intersect(cands[i+1:], larger[v]), need-1); err != nil {
				return err
			}
		}
		return nil
	}
	all := make([]int32, g.N)
	for v := range all {
		all[v] = int32(v)
	}
	if err := extend(all, k); err != nil {
		return 0, err
	}
	if over {
		return 0, ErrOverflow
	}
	return total, nil
}

// intersect is the sorted intersection of two sorted lists.
func intersect(a, b []int32) []int32 {
	var out []int32
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// Verify checks a result against Recount: a proven count must equal it, a
// partial one must not exceed it.
func Verify(ctx context.Context, g *core.Graph, res Result) error {
	want, err := Recount(ctx, g, res.K)
	if err != nil {
		return err
	}
	switch {
	case res.Proven && res.Count != want:
		return fmt.Errorf("kcount: %d %d-cliques counted, the recount finds %d", res.Count, res.K, want)
	case !res.Proven && res.Count > want:
		return fmt.Errorf("kcount: a partial count of %d %d-cliques exceeds the recount's %d", res.Count, res.K, want)
	}
	return nil
}
