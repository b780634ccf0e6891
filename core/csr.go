package core

import (
	"runtime"
	"slices"
	"sync"
)

// edgeStream yields input edges in a fixed order. buildCSR calls it twice
// (count, then place), so it must yield the same edges both times: a
// generator can recompute them from its seed instead of storing them.
type edgeStream func(yield func(u, v int32))

// csrOptions says how buildCSR turns input edges into arcs.
type csrOptions struct {
	directed bool
	// lastWins keeps the payload of the last of several equal edges (the
	// MIVIA rule, see readMIVIA); otherwise the first one's is kept.
	lastWins bool
}

// dupInfo describes the duplicate edges buildCSR merged.
type dupInfo struct {
	count int   // edges (directed: arcs) merged into an earlier equal one
	u, v  int32 // the duplicate with the smallest u (then v); valid if count > 0
}

// buildCSR builds a graph on n vertices from the edges each yields. Undirected
// input edge {u,v} becomes arcs u→v and v→u (a self-loop one arc u→u).
// Each vertex's arcs are sorted by target and duplicates merged. w and lab,
// when non-nil, are per input edge and become Weights and EdgeLabels.
//
// It never materialises an []Edge: memory is Offsets, Adj and, only when
// there is a payload, one uint32 per arc naming its input edge.
func buildCSR(n int, each edgeStream, w []float64, lab []int32, o csrOptions) (*Graph, dupInfo) {
	g := &Graph{N: n, Directed: o.directed, Offsets: make([]int, n+1)}
	off := g.Offsets
	each(func(u, v int32) {
		off[u+1]++
		if !o.directed && u != v {
			off[v+1]++
		}
	})
	for i := 0; i < n; i++ {
		off[i+1] += off[i]
	}
	total := off[n]
	adj := make([]int32, total)
	payload := w != nil || lab != nil
	var perm []uint32
	if payload {
		perm = make([]uint32, total)
	}
	// Place arcs, using off[v] as v's cursor; afterwards off[v] holds the
	// end of v's arcs, i.e. the old off[v+1], and is shifted back.
	next := uint32(0)
	each(func(u, v int32) {
		p := off[u]
		adj[p] = v
		off[u] = p + 1
		if payload {
			perm[p] = next
		}
		if !o.directed && u != v {
			q := off[v]
			adj[q] = u
			off[v] = q + 1
			if payload {
				perm[q] = next
			}
		}
		next++
	})
	copy(off[1:], off[:n])
	off[0] = 0

	sortSegments(off, adj, perm)

	adj, dup := mergeDuplicates(off, adj, perm, o)
	wp := len(adj)
	g.Adj = adj
	if w != nil {
		g.Weights = make([]float64, wp)
		for i := range wp {
			g.Weights[i] = w[perm[i]]
		}
	}
	if lab != nil {
		g.EdgeLabels = make([]int32, wp)
		for i := range wp {
			g.EdgeLabels[i] = lab[perm[i]]
		}
	}
	return g, dup
}

// mergeDuplicates removes repeated targets from each sorted segment in
// place, rewriting off, and returns the shortened adj (perm is compacted
// alongside). With lastWins a merged run keeps its last perm entry.
func mergeDuplicates(off []int, adj []int32, perm []uint32, o csrOptions) ([]int32, dupInfo) {
	n := len(off) - 1
	wp, dup := mergeRange(off, adj, perm, o, 0, n, off[n])
	off[n] = wp
	if len(adj)-wp > wp/8 { // many merged: give the slack back
		adj = slices.Clone(adj[:wp])
	} else {
		adj = adj[:wp:wp]
	}
	return adj, dup
}

// mergeRange merges the segments of vertices lo..hi-1, which end at end
// (the old off[hi], passed in because a concurrent mergeRange of the next
// range may be rewriting off[hi]). Kept arcs are packed from off[lo] on;
// off[lo..hi-1] become their new starts and the returned wp their end.
// dup.u, dup.v is the range's first duplicate in vertex order.
func mergeRange(off []int, adj []int32, perm []uint32, o csrOptions, lo, hi, end int) (wp int, dup dupInfo) {
	payload := perm != nil
	wp = off[lo]
	start := wp
	for v := lo; v < hi; v++ {
		segEnd := end
		if v+1 < hi {
			segEnd = off[v+1]
		}
		off[v] = wp
		segStart := wp
		for i := start; i < segEnd; i++ {
			t := adj[i]
			if wp > segStart && adj[wp-1] == t {
				if o.directed || int(t) >= v {
					if dup.count == 0 {
						dup.u, dup.v = int32(v), t
					}
					dup.count++
				}
				if payload && o.lastWins {
					perm[wp-1] = perm[i]
				}
				continue
			}
			adj[wp] = t
			if payload {
				perm[wp] = perm[i]
			}
			wp++
		}
		start = segEnd
	}
	return wp, dup
}

// sortSegments sorts each vertex's arcs by target; with perm, equal
// targets stay in input order (perm is the input edge index and breaks
// ties). Large graphs are sorted by several goroutines over vertex ranges.
func sortSegments(off []int, adj []int32, perm []uint32) {
	n := len(off) - 1
	sortRange := func(lo, hi int) {
		var keys []uint64
		for v := lo; v < hi; v++ {
			seg := adj[off[v]:off[v+1]]
			if len(seg) < 2 {
				continue
			}
			if perm == nil {
				if !slices.IsSorted(seg) {
					slices.Sort(seg)
				}
				continue
			}
			ps := perm[off[v]:off[v+1]]
			keys = keys[:0]
			sorted := true
			for i, t := range seg {
				keys = append(keys, uint64(uint32(t))<<32|uint64(ps[i]))
				if i > 0 && keys[i] < keys[i-1] {
					sorted = false
				}
			}
			if sorted {
				continue
			}
			slices.Sort(keys)
			for i, k := range keys {
				seg[i] = int32(k >> 32)
				ps[i] = uint32(k)
			}
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if len(adj) < 1<<18 || workers < 2 {
		sortRange(0, n)
		return
	}
	// Split by arc count so that each worker gets a similar share.
	per := len(adj)/(4*workers) + 1
	var wg sync.WaitGroup
	sem := make(chan struct{}, workers)
	lo := 0
	for lo < n {
		hi := lo + 1
		for hi < n && off[hi]-off[lo] < per {
			hi++
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			sortRange(lo, hi)
			<-sem
		}(lo, hi)
		lo = hi
	}
	wg.Wait()
}

// arrayStream yields stored edges.
func arrayStream(src, dst []int32) edgeStream {
	return func(yield func(u, v int32)) {
		for i, u := range src {
			yield(u, dst[i])
		}
	}
}
