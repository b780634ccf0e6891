/* The CS314 one-way handshaking matching kernels, with the semantics of the
   course specification. The graph is an edge list of arcs (src, dst, weight)
   grouped by source (sorted by src, then dst); every undirected edge appears
   as both of its arcs. Weights are integers (the host maps real weights to
   order-preserving ranks), so every comparison is exact on every device.

   Every kernel is a grid-stride loop over its elements with an explicit
   thread count nthreads (work-items with a global id >= nthreads do nothing),
   and every kernel reads one buffer and writes another, so the result does
   not depend on the thread count, the group size or the order in which
   work-items run. Indices are 64-bit so that i + nthreads cannot overflow. */

/* One step of a segmented inclusive max-scan at stride distance over the
   arcs: arc i takes the stronger of its own (weight, dst) and that of arc
   i - distance when both belong to the same source. Stronger means a higher
   weight, or on equal weights the smaller neighbour index. Any arc whose
   value changes sets *madeChanges (all writers store 1). */
KERNEL void strongestNeighborScan(GLOBAL const i32* RESTRICT src,
                                  GLOBAL const i32* RESTRICT oldDst, GLOBAL i32* RESTRICT newDst,
                                  GLOBAL const i32* RESTRICT oldWeight, GLOBAL i32* RESTRICT newWeight,
                                  GLOBAL i32* RESTRICT madeChanges,
                                  const i32 distance, const i32 numEdges, const i32 nthreads)
{
    i64 t = (i64)get_global_id(0);
    if (t >= nthreads) {
        return;
    }
    i32 changed = 0;
    for (i64 i = t; i < numEdges; i += nthreads) {
        i32 d = oldDst[i];
        i32 w = oldWeight[i];
        i64 j = i - distance;
        if (j >= 0 && src[j] == src[i]) {
            i32 dj = oldDst[j];
            i32 wj = oldWeight[j];
            if (wj > w || (wj == w && dj < d)) {
                d = dj;
                w = wj;
                changed = 1;
            }
        }
        newDst[i] = d;
        newWeight[i] = w;
    }
    if (changed) {
        madeChanges[0] = 1;
    }
}

/* The last arc of each source's segment holds the segment's strongest
   neighbour after the scan: it writes it for its source vertex. */
KERNEL void collateSegments(GLOBAL const i32* RESTRICT src, GLOBAL const i32* RESTRICT scanResult,
                            GLOBAL i32* RESTRICT strongNeighbor, const i32 numEdges, const i32 nthreads)
{
    i64 t = (i64)get_global_id(0);
    if (t >= nthreads) {
        return;
    }
    for (i64 i = t; i < numEdges; i += nthreads) {
        if (i == (i64)numEdges - 1 || src[i] != src[i + 1]) {
            strongNeighbor[src[i]] = scanResult[i];
        }
    }
}

/* An unmatched vertex whose strongest neighbour points back at it is
   matched to that neighbour. Each vertex writes only its own entry and
   reads only strongNeighbor, so the pairs are found in one launch. */
KERNEL void checkHandshaking(GLOBAL const i32* RESTRICT strongNeighbor, GLOBAL i32* RESTRICT matches,
                             const i32 numVertices, const i32 nthreads)
{
    i64 t = (i64)get_global_id(0);
    if (t >= nthreads) {
        return;
    }
    for (i64 v = t; v < numVertices; v += nthreads) {
        if (matches[v] == -1) {
            i32 s = strongNeighbor[v];
            if (s >= 0 && strongNeighbor[s] == (i32)v) {
                matches[v] = s;
            }
        }
    }
}

/* keepEdges[i] is 1 when neither end of arc i is matched, else 0. */
KERNEL void markFilterEdges(GLOBAL const i32* RESTRICT src, GLOBAL const i32* RESTRICT dst,
                            GLOBAL const i32* RESTRICT matches, GLOBAL i32* RESTRICT keepEdges,
                            const i32 numEdges, const i32 nthreads)
{
    i64 t = (i64)get_global_id(0);
    if (t >= nthreads) {
        return;
    }
    for (i64 i = t; i < numEdges; i += nthreads) {
        keepEdges[i] = (matches[src[i]] == -1 && matches[dst[i]] == -1) ? 1 : 0;
    }
}

/* One step of a Hillis-Steele exclusive scan: distance 0 shifts the input
   right by one (a 0 enters at the front), then distances 1, 2, 4, ... add
   the element distance places back. Run distance 0, 1, 2, ... while
   distance < numElements for the exclusive prefix sum. */
KERNEL void exclusivePrefixSum(GLOBAL const i32* RESTRICT oldSum, GLOBAL i32* RESTRICT newSum,
                               const i32 distance, const i32 numElements, const i32 nthreads)
{
    i64 t = (i64)get_global_id(0);
    if (t >= nthreads) {
        return;
    }
    for (i64 i = t; i < numElements; i += nthreads) {
        if (distance == 0) {
            newSum[i] = i == 0 ? 0 : oldSum[i - 1];
        } else {
            newSum[i] = oldSum[i] + (i >= distance ? oldSum[i - distance] : 0);
        }
    }
}

/* Scatter the kept arcs: edgeMap is the exclusive prefix sum of keepEdges
   over numEdges + 1 entries, so arc i is kept when edgeMap[i+1] differs from
   edgeMap[i], and goes to position edgeMap[i]. */
KERNEL void packGraph(GLOBAL i32* RESTRICT newSrc, GLOBAL const i32* RESTRICT oldSrc,
                      GLOBAL i32* RESTRICT newDst, GLOBAL const i32* RESTRICT oldDst,
                      GLOBAL i32* RESTRICT newWeight, GLOBAL const i32* RESTRICT oldWeight,
                      GLOBAL const i32* RESTRICT edgeMap, const i32 numEdges, const i32 nthreads)
{
    i64 t = (i64)get_global_id(0);
    if (t >= nthreads) {
        return;
    }
    for (i64 i = t; i < numEdges; i += nthreads) {
        i32 k = edgeMap[i];
        if (edgeMap[i + 1] != k) {
            newSrc[k] = oldSrc[i];
            newDst[k] = oldDst[i];
            newWeight[k] = oldWeight[i];
        }
    }
}
