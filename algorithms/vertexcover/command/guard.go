package vccmd

import (
	"fmt"

	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
)

// GuardVC checks a vertex cover result: the checker accepts the cover,
// and the status agrees with a maximal matching M (|M| ≤ τ ≤ 2|M|): a
// proven minimum is not below |M|, a goal k ≥ 2|M| is never infeasible.
// k < 0 means minimum mode.
func GuardVC(g *core.Graph, res vertexcover.Result, k int) error {
	if res.Cover != nil {
		if err := vertexcover.Verify(g, res.Cover); err != nil {
			return cli.Internalf("the cover fails the checker: %w", err)
		}
	}
	m := MaximalMatching(g)
	size := len(res.Cover)
	switch {
	case res.Status == core.StatusOptimal && res.Cover == nil:
		return cli.Internalf("proven minimum but no cover")
	case res.Status == core.StatusOptimal && size < m:
		return cli.Internalf("proven minimum cover of %d, but a matching of %d edges needs %d", size, m, m)
	case res.Status == core.StatusInfeasible && (k < 0 || res.Cover != nil):
		return cli.Internalf("status infeasible with k %d and a cover of %d", k, size)
	case res.Status == core.StatusInfeasible && k >= 2*m:
		return cli.Internalf("proven that no cover of ≤ %d exists, but a matching of %d edges gives one of %d", k, m, 2*m)
	case k >= 0 && res.Cover != nil && size > k:
		return cli.Internalf("cover of %d above k=%d", size, k)
	case k < 0 && res.Cover == nil:
		return cli.Internalf("no cover at all (every vertex is one)")
	}
	return nil
}

// MaximalMatching is the size of a greedy maximal matching of g.
func MaximalMatching(g *core.Graph) int {
	used := make([]bool, g.N)
	n := 0
	for u := range g.N {
		if used[u] {
			continue
		}
		for _, v := range g.Neighbors(u) {
			if int(v) != u && !used[v] {
				used[u], used[v] = true, true
				n++
				break
			}
		}
	}
	return n
}

// checkComplement refuses vc --complement's complement of g (of file)
// where it would pass the memory limit.
func checkComplement(e *cli.Env, file string, g *core.Graph) error {
	if err := vertexcover.CheckComplement(g, e.MaxMemory()); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}
