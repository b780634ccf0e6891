package kernel

import (
	"sync/atomic"

	"github.com/arbor-gpu/arbor/backend"
)

// The Go twins of cs314.cl. Each runs the kernel's grid-stride loop for the
// work-items of one group, exactly as the source does; the argument order is
// the kernel's.

func init() {
	backend.RegisterTwin("strongestNeighborScan", strongestNeighborScanTwin)
	backend.RegisterTwin("collateSegments", collateSegmentsTwin)
	backend.RegisterTwin("checkHandshaking", checkHandshakingTwin)
	backend.RegisterTwin("markFilterEdges", markFilterEdgesTwin)
	backend.RegisterTwin("exclusivePrefixSum", exclusivePrefixSumTwin)
	backend.RegisterTwin("packGraph", packGraphTwin)
}

// strideItems calls body(t) for every work-item t of the group below
// nthreads: the `if (t >= nthreads) return;` every cs314 kernel starts with.
func strideItems(g *backend.Group, nthreads int, body func(t int)) {
	g.Each(func(_, gid int) {
		if gid < nthreads {
			body(gid)
		}
	})
}

// strongestNeighborScanTwin: src, oldDst, newDst, oldWeight, newWeight,
// madeChanges, distance, numEdges, nthreads.
func strongestNeighborScanTwin(g *backend.Group) {
	src, oldDst, newDst := g.I32s(0), g.I32s(1), g.I32s(2)
	oldW, newW, changes := g.I32s(3), g.I32s(4), g.I32s(5)
	dist, m, nt := int(g.I32(6)), int(g.I32(7)), int(g.I32(8))
	strideItems(g, nt, func(t int) {
		changed := false
		for i := t; i < m; i += nt {
			d, w := oldDst[i], oldW[i]
			if j := i - dist; j >= 0 && src[j] == src[i] {
				if dj, wj := oldDst[j], oldW[j]; wj > w || (wj == w && dj < d) {
					d, w, changed = dj, wj, true
				}
			}
			newDst[i], newW[i] = d, w
		}
		if changed {
			// Several groups may run at once on the CPU: store atomically.
			atomic.StoreInt32(&changes[0], 1)
		}
	})
}

// collateSegmentsTwin: src, scanResult, strongNeighbor, numEdges, nthreads.
func collateSegmentsTwin(g *backend.Group) {
	src, scan, strong := g.I32s(0), g.I32s(1), g.I32s(2)
	m, nt := int(g.I32(3)), int(g.I32(4))
	strideItems(g, nt, func(t int) {
		for i := t; i < m; i += nt {
			if i == m-1 || src[i] != src[i+1] {
				strong[src[i]] = scan[i]
			}
		}
	})
}

// checkHandshakingTwin: strongNeighbor, matches, numVertices, nthreads.
func checkHandshakingTwin(g *backend.Group) {
	strong, matches := g.I32s(0), g.I32s(1)
	n, nt := int(g.I32(2)), int(g.I32(3))
	strideItems(g, nt, func(t int) {
		for v := t; v < n; v += nt {
			if matches[v] == -1 {
				if s := strong[v]; s >= 0 && int(strong[s]) == v {
					matches[v] = s
				}
			}
		}
	})
}

// markFilterEdgesTwin: src, dst, matches, keepEdges, numEdges, nthreads.
func markFilterEdgesTwin(g *backend.Group) {
	src, dst, matches, keep := g.I32s(0), g.I32s(1), g.I32s(2), g.I32s(3)
	m, nt := int(g.I32(4)), int(g.I32(5))
	strideItems(g, nt, func(t int) {
		for i := t; i < m; i += nt {
			keep[i] = 0
			if matches[src[i]] == -1 && matches[dst[i]] == -1 {
				keep[i] = 1
			}
		}
	})
}

// exclusivePrefixSumTwin: oldSum, newSum, distance, numElements, nthreads.
func exclusivePrefixSumTwin(g *backend.Group) {
	old, sum := g.I32s(0), g.I32s(1)
	dist, n, nt := int(g.I32(2)), int(g.I32(3)), int(g.I32(4))
	strideItems(g, nt, func(t int) {
		for i := t; i < n; i += nt {
			switch {
			case dist == 0 && i == 0:
				sum[i] = 0
			case dist == 0:
				sum[i] = old[i-1]
			case i >= dist:
				sum[i] = old[i] + old[i-dist]
			default:
				sum[i] = old[i]
			}
		}
	})
}

// packGraphTwin: newSrc, oldSrc, newDst, oldDst, newWeight, oldWeight,
// edgeMap, numEdges, nthreads.
func packGraphTwin(g *backend.Group) {
	newSrc, oldSrc, newDst, oldDst := g.I32s(0), g.I32s(1), g.I32s(2), g.I32s(3)
	newW, oldW, edgeMap := g.I32s(4), g.I32s(5), g.I32s(6)
	m, nt := int(g.I32(7)), int(g.I32(8))
	strideItems(g, nt, func(t int) {
		for i := t; i < m; i += nt {
			if k := edgeMap[i]; edgeMap[i+1] != k {
				newSrc[k], newDst[k], newW[k] = oldSrc[i], oldDst[i], oldW[i]
			}
		}
	})
}
