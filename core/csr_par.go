package core

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// parallelism says how a reader spreads its work over goroutines. The
// readers take it as a parameter so that tests can make small inputs take
// the parallel paths, with many chunks cut at awkward places; the result
// never depends on it.
type parallelism struct {
	workers  int // goroutines at once; < 2 runs everything in the caller
	chunks   int // pieces a file's body is cut into for parsing
	minBytes int // a body shorter than this is parsed in one piece
	minEdges int // fewer edges are built into CSR by the sequential buildCSR
}

// defaultParallelism uses every CPU the runtime may: four body chunks per
// worker even out lines of different lengths and workers that the OS
// delays. Below 1 MiB (a few tens of thousands of lines) goroutines cost
// more than they save.
func defaultParallelism() parallelism {
	w := runtime.GOMAXPROCS(0)
	return parallelism{workers: w, chunks: 4 * w, minBytes: 1 << 20, minEdges: 1 << 16}
}

// parallelFor runs body(0..n-1) on up to workers goroutines, handing out
// indices in order; with workers < 2 it runs them in the caller.
func parallelFor(workers, n int, body func(i int)) {
	if workers < 2 || n < 2 {
		for i := range n {
			body(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				body(i)
			}
		}()
	}
	wg.Wait()
}

// chunkStream yields edges stored in chunks, chunk after chunk.
func chunkStream(src, dst [][]int32) edgeStream {
	return func(yield func(u, v int32)) {
		for k, s := range src {
			d := dst[k]
			for i, u := range s {
				yield(u, d[i])
			}
		}
	}
}

// buildCSRChunks is buildCSR for edges stored in chunks: src[k], dst[k]
// and, when not nil, the payloads w[k] and lab[k], chunk k's edges
// following chunk k-1's in input order. It gives exactly buildCSR's graph
// and dupInfo, bit for bit, using par.workers goroutines when there are at
// least par.minEdges edges.
//
// The chunks are grouped into runs of about equal edge counts, one per
// goroutine. Each group counts degrees into its own array; a prefix sum
// over (vertex, group) turns the counts into cursors, so group g places
// its arcs of v after those of groups < g: every segment holds its arcs in
// input order, as the sequential build places them, with no atomics. The
// payload is placed with the arcs, and perm holds each arc's position:
// within a segment positions rank arcs as input indices do, so sorting and
// merging by them decide as buildCSR does, and the final gather of the
// payload reads near where it writes instead of all over the input.
// Where the per-group arrays would outweigh the graph (many vertices, few
// edges) the groups share atomic cursors instead (placeAtomic).
func buildCSRChunks(n int, src, dst [][]int32, w [][]float64, lab [][]int32, o csrOptions, par parallelism) (*Graph, dupInfo) {
	base := make([]int, len(src)+1) // input index of each chunk's first edge
	for k, s := range src {
		base[k+1] = base[k] + len(s)
	}
	edges := base[len(src)]
	if par.workers < 2 || edges < par.minEdges {
		return buildCSR(n, chunkStream(src, dst), concat(w, par.workers), concat(lab, par.workers), o)
	}
	arcs := 2 * edges // at most; the exact count is known after counting
	if o.directed {
		arcs = edges
	}
	// Groups: runs of whole chunks, cut where the input index passes
	// multiples of edges/groups.
	groups := min(par.workers, len(src))
	if n > 0 {
		groups = min(groups, 2*arcs/n) // 4n bytes per group ≤ 8 bytes per arc
	}
	if arcs >= 1<<32 {
		groups = 0 // uint32 cursors would overflow
	}
	g := &Graph{N: n, Directed: o.directed}
	payload := w != nil || lab != nil
	var off []int
	var adj []int32
	var perm []uint32
	var from []float64 // where the weights are gathered from: perm indexes it
	var fromLab []int32
	if groups < 2 {
		from, fromLab = concat(w, par.workers), concat(lab, par.workers)
		off = placeAtomic(n, src, dst, base, o, par.workers, func(total int) ([]int32, []uint32) {
			adj = make([]int32, total)
			if payload {
				perm = make([]uint32, total)
			}
			return adj, perm
		})
	} else {
		off, adj, perm, from, fromLab = placeGrouped(n, src, dst, w, lab, base, groups, payload, o, par.workers)
	}
	sortSegments(off, adj, perm)
	adj, perm, dup := mergeDuplicatesParallel(off, adj, perm, o, par.workers)
	g.Offsets, g.Adj = off, adj
	kept := len(adj)
	const span = 1 << 16
	if w != nil {
		g.Weights = make([]float64, kept)
		parallelFor(par.workers, (kept+span-1)/span, func(s int) {
			for i := s * span; i < min((s+1)*span, kept); i++ {
				g.Weights[i] = from[perm[i]]
			}
		})
	}
	if lab != nil {
		g.EdgeLabels = make([]int32, kept)
		parallelFor(par.workers, (kept+span-1)/span, func(s int) {
			for i := s * span; i < min((s+1)*span, kept); i++ {
				g.EdgeLabels[i] = fromLab[perm[i]]
			}
		})
	}
	return g, dup
}

// placeGrouped places the arcs of the chunks (src, dst; base: each
// chunk's first input index) into CSR order with groups runs of whole
// chunks counting and placing on their own: a cursor per group and
// vertex, so no atomics, and every segment's arcs in input order. It
// returns the offsets, the targets and, with a payload, the permutation
// (the identity: arcs lie in input order) and the weights and labels
// placed beside the arcs, where the permutation indexes them.
func placeGrouped(n int, src, dst [][]int32, w [][]float64, lab [][]int32, base []int, groups int, payload bool, o csrOptions, workers int) (off []int, adj []int32, perm []uint32, from []float64, fromLab []int32) {
	edges := base[len(src)]
	first := make([]int, groups+1) // chunks of group j: first[j]..first[j+1]-1
	for j, k := 1, 0; j <= groups; j++ {
		for k < len(src) && (j == groups || base[k] < j*edges/groups) {
			k++
		}
		first[j] = k
	}
	cnt := make([]uint32, groups*n)
	parallelFor(workers, groups, func(j int) {
		c := cnt[j*n : (j+1)*n]
		for k := first[j]; k < first[j+1]; k++ {
			d := dst[k]
			for i, u := range src[k] {
				c[u]++
				if v := d[i]; !o.directed && u != v {
					c[v]++
				}
			}
		}
	})
	// Degrees, their prefix sum, then each group's cursor per vertex;
	// the two passes over cnt go by vertex ranges, in parallel.
	off = make([]int, n+1)
	const span = 1 << 14
	spans := (n + span - 1) / span
	parallelFor(workers, spans, func(s int) {
		for v := s * span; v < min((s+1)*span, n); v++ {
			d := 0
			for j := range groups {
				d += int(cnt[j*n+v])
			}
			off[v+1] = d
		}
	})
	for v := range n {
		off[v+1] += off[v]
	}
	parallelFor(workers, spans, func(s int) {
		for v := s * span; v < min((s+1)*span, n); v++ {
			p := uint32(off[v])
			for j := range groups {
				c := cnt[j*n+v]
				cnt[j*n+v] = p
				p += c
			}
		}
	})
	total := off[n]
	adj = make([]int32, total)
	if payload {
		perm = make([]uint32, total)
	}
	if w != nil {
		from = make([]float64, total)
	}
	if lab != nil {
		fromLab = make([]int32, total)
	}
	parallelFor(workers, groups, func(j int) {
		cur := cnt[j*n : (j+1)*n]
		for k := first[j]; k < first[j+1]; k++ {
			d := dst[k]
			for i, u := range src[k] {
				v := d[i]
				p := cur[u]
				cur[u] = p + 1
				adj[p] = v
				q := p
				if !o.directed && u != v {
					q = cur[v]
					cur[v] = q + 1
					adj[q] = u
				}
				if w != nil {
					from[p], from[q] = w[k][i], w[k][i]
				}
				if lab != nil {
					fromLab[p], fromLab[q] = lab[k][i], lab[k][i]
				}
			}
		}
	})
	// Each segment's arcs lie in input order, so the payload's
	// permutation starts as the identity: written here in order, not
	// beside each placed arc (two fewer scattered writes an edge).
	if payload {
		const span = 1 << 16
		parallelFor(workers, (total+span-1)/span, func(s int) {
			for i := s * span; i < min((s+1)*span, total); i++ {
				perm[i] = uint32(i)
			}
		})
	}
	return off, adj, perm, from, fromLab
}

// concat joins chunks into one slice (nil for nil), copying them in
// parallel; a single chunk is returned as it is.
func concat[T any](chunks [][]T, workers int) []T {
	if chunks == nil {
		return nil
	}
	if len(chunks) == 1 {
		return chunks[0]
	}
	at := make([]int, len(chunks)+1)
	for k, c := range chunks {
		at[k+1] = at[k] + len(c)
	}
	all := make([]T, at[len(chunks)])
	parallelFor(workers, len(chunks), func(k int) { copy(all[at[k]:], chunks[k]) })
	return all
}

// placeAtomic counts degrees and places arcs for buildCSRChunks with one
// atomic cursor per vertex: the order of arcs within a segment then
// depends on scheduling, which sortSegments undoes, since it orders each
// segment by target and, with a payload, by input index (perm), a total
// order. It gets adj and perm from alloc, given the arc count, and
// returns the offsets.
func placeAtomic(n int, src, dst [][]int32, base []int, o csrOptions, workers int, alloc func(int) ([]int32, []uint32)) []int {
	cur := make([]atomic.Int64, n+1)
	parallelFor(workers, len(src), func(k int) {
		d := dst[k]
		for i, u := range src[k] {
			cur[u].Add(1)
			if v := d[i]; !o.directed && u != v {
				cur[v].Add(1)
			}
		}
	})
	off := make([]int, n+1)
	for v := range n {
		c := cur[v].Load()
		cur[v].Store(int64(off[v])) // now v's placement cursor
		off[v+1] = off[v] + int(c)
	}
	a, pm := alloc(off[n])
	parallelFor(workers, len(src), func(k int) {
		d := dst[k]
		for i, u := range src[k] {
			v := d[i]
			p := cur[u].Add(1) - 1
			a[p] = v
			if pm != nil {
				pm[p] = uint32(base[k] + i)
			}
			if !o.directed && u != v {
				q := cur[v].Add(1) - 1
				a[q] = u
				if pm != nil {
					pm[q] = uint32(base[k] + i)
				}
			}
		}
	})
	return off
}

// mergeDuplicatesParallel is mergeDuplicates over vertex ranges of similar
// arc counts, each merged in place by its own goroutine. When some range
// shrank, the ranges are then copied together into new arrays (also in
// parallel); off is rewritten either way. perm is returned compacted.
func mergeDuplicatesParallel(off []int, adj []int32, perm []uint32, o csrOptions, workers int) ([]int32, []uint32, dupInfo) {
	n := len(off) - 1
	// Vertex ranges [cut[j], cut[j+1]) of about total/(4·workers) arcs.
	per := len(adj)/(4*workers) + 1
	cut := []int{0}
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && off[hi]-off[lo] < per {
			hi++
		}
		cut = append(cut, hi)
		lo = hi
	}
	ranges := len(cut) - 1
	start := make([]int, ranges+1) // old offsets at the cuts
	for j, c := range cut {
		start[j] = off[c]
	}
	end := make([]int, ranges) // where each range's kept arcs end
	dups := make([]dupInfo, ranges)
	parallelFor(workers, ranges, func(j int) {
		end[j], dups[j] = mergeRange(off, adj, perm, o, cut[j], cut[j+1], start[j+1])
	})
	var dup dupInfo
	shrunk := false
	for j, d := range dups {
		if d.count > 0 && dup.count == 0 {
			dup.u, dup.v = d.u, d.v
		}
		dup.count += d.count
		shrunk = shrunk || end[j] != start[j+1]
	}
	if !shrunk {
		return adj, perm, dup
	}
	to := make([]int, ranges+1) // new offsets at the cuts
	for j := range ranges {
		to[j+1] = to[j] + end[j] - start[j]
	}
	na := make([]int32, to[ranges])
	var np []uint32
	if perm != nil {
		np = make([]uint32, to[ranges])
	}
	parallelFor(workers, ranges, func(j int) {
		copy(na[to[j]:to[j+1]], adj[start[j]:end[j]])
		if perm != nil {
			copy(np[to[j]:to[j+1]], perm[start[j]:end[j]])
		}
		for v := cut[j]; v < cut[j+1]; v++ {
			off[v] += to[j] - start[j]
		}
	})
	off[n] = to[ranges]
	return na, np, dup
}
