package vertexcover

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// lns improves a cover of g by large neighbourhood search with the exact
// solver: grow a BFS ball R around a random vertex, fix everything outside
// it (a vertex of R with a neighbour outside R that is not in the cover
// must stay in it), and solve the free rest of R exactly for a smaller
// cover. Local search plateaus on large sparse kernels where the exact
// engine, with its reductions, closes a ball at once. latest(size) returns
// a cover to go on from (kernel ids; nil when none): a smaller one found
// elsewhere, or another of at most size from the local search's plateau,
// for diversity. improved hears of each improvement (the slice is reused:
// copy it). It runs until stop or stopped().
func lns(g *core.Graph, cur []bool, seed uint64, stop *atomic.Bool, stopped func() bool, latest func(size int) []bool, improved func(in []bool, size int)) {
	n := g.N
	if n == 0 {
		return
	}
	size := 0
	for _, c := range cur {
		if c {
			size++
		}
	}
	rand := xorshiftFrom(seed)
	inR := make([]int32, n) // ball id + 1 of the current ball
	local := make([]int32, n)
	var free []int32
	radius := lnsStartBall
	for ball := int32(1); !stop.Load() && !stopped(); ball++ {
		if c := latest(size); c != nil {
			copy(cur, c)
			size = 0
			for _, x := range cur {
				if x {
					size++
				}
			}
		}
		free = free[:0]
		R := []int32{int32(rand(n))}
		inR[R[0]] = ball
		for h := 0; h < len(R) && len(R) < radius; h++ {
			for _, u := range g.Neighbors(int(R[h])) {
				if inR[u] != ball && len(R) < radius {
					inR[u] = ball
					R = append(R, u)
				}
			}
		}
		old := 0
		for _, v := range R {
			forced := false
			for _, u := range g.Neighbors(int(v)) {
				if inR[u] != ball && !cur[u] {
					forced = true
					break
				}
			}
			if forced {
				inR[v] = -ball // stays in the cover
				continue
			}
			local[v] = int32(len(free))
			free = append(free, v)
			if cur[v] {
				old++
			}
		}
		if old == 0 {
			continue
		}
		b := core.NewBuilder(len(free), false)
		for _, v := range free {
			for _, u := range g.Neighbors(int(v)) {
				if inR[u] == ball && v < u {
					b.AddEdge(int(local[v]), int(local[u]))
				}
			}
		}
		sub, err := b.Build()
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), lnsSolveTime)
		res, err := Solve(ctx, sub, Options{Parameterized: true, K: old - 1, Threads: 1, LocalSearch: -1})
		cancel()
		if err != nil {
			return
		}
		if !res.Proven {
			radius = max(lnsMinBall, radius*3/4)
		} else if radius < lnsMaxBall {
			radius = radius * 9 / 8
		}
		if res.Cover == nil {
			continue
		}
		for _, v := range free {
			cur[v] = false
		}
		for _, x := range res.Cover {
			cur[free[x]] = true
		}
		size -= old - len(res.Cover)
		improved(cur, size)
	}
}

// LNS tuning: ball sizes (adapted to how fast balls are solved), the
// time one ball may take, and the kernels it runs on.
const (
	lnsStartBall = 300
	lnsMinBall   = 50
	lnsMaxBall   = 5000
	lnsSolveTime = 200 * time.Millisecond
	lnsMinKernel = 1000
	lnsMaxDegree = 16 // mean degree
)
