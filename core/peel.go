package core

// Peel orders the vertices by repeatedly removing one of minimum degree,
// the bucket algorithm of Batagelj and Zaveršnik: O(n + m) over the calls
// to neighbours. deg holds each vertex's degree on entry and its core
// number on return; neighbours(v, visit) calls visit on every neighbour of
// v, in the caller's order (which, with ties among equal degrees broken by
// vertex number, fixes the order returned). It returns the vertices in the
// order they were peeled and the degeneracy (the largest core number).
func Peel(deg []int, neighbours func(v int, visit func(u int))) (order []int32, degeneracy int) {
	n := len(deg)
	maxDeg := 0
	for _, d := range deg {
		maxDeg = max(maxDeg, d)
	}
	// order holds the vertices sorted by current degree; bin[d] is where
	// degree d starts in it, pos[v] where v is.
	bin := make([]int, maxDeg+2)
	for _, d := range deg {
		bin[d+1]++
	}
	for d := 1; d < len(bin); d++ {
		bin[d] += bin[d-1]
	}
	order, pos := make([]int32, n), make([]int, n)
	next := make([]int, len(bin))
	copy(next, bin)
	for v, d := range deg {
		pos[v] = next[d]
		order[pos[v]] = int32(v)
		next[d]++
	}
	for i := 0; i < n; i++ {
		v := int(order[i])
		degeneracy = max(degeneracy, deg[v])
		neighbours(v, func(u int) {
			if deg[u] <= deg[v] {
				return
			}
			// u moves to the front of its degree's bucket, then the
			// bucket boundary passes it: its degree drops.
			du, pu := deg[u], pos[u]
			pw := bin[du]
			if w := int(order[pw]); w != u {
				order[pu], order[pw] = int32(w), int32(u)
				pos[u], pos[w] = pw, pu
			}
			bin[du]++
			deg[u]--
		})
	}
	return order, degeneracy
}
