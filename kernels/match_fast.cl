/* The fast handshaking-matching kernels (the "fast" engine of `arbor match`).
   The remaining arcs are kept grouped by source in two parallel arrays:
   src[i] (the source vertex) and keys[i], a 64-bit key
       (rank << 32) | ~dst
   so that the larger key is the stronger arc: higher weight rank first, and
   on equal ranks the smaller neighbour index (a larger ~dst). A vertex's
   strongest neighbour is then the max key of its segment, one u64 max,
   deterministic on every device whatever order the arcs are combined in.

   Every kernel is a grid-stride loop with an explicit thread count nthreads,
   so any thread count gives the same result. Per pass the host runs
   matchArgmax, matchHandshake, matchMark, an exclusive scan of the keep
   flags (kernels/scan.cl) and matchPack. best[] must be 0 for every vertex
   with arcs when matchArgmax starts: the host zeroes it once, and matchMark
   zeroes the entries it has finished with. */

#ifndef MATCH_CHUNK
#define MATCH_CHUNK 8
#endif

INLINE i32 key_dst(u64 k) { return (i32)(~(u32)k); }

/* matched: one bit per vertex (bit v & 31 of word v >> 5), set by the
   handshake when v is matched. The filter tests both ends of every arc
   against it: n/8 bytes stay in the cache where the gathers from the
   4-byte match[] array (random in the destination) went to memory. */
INLINE int is_matched(GLOBAL const u32* RESTRICT matched, i32 v)
{
    return (matched[v >> 5] >> (u32)(v & 31)) & 1u;
}

/* Sets v's bit; each vertex is matched once, by the one work-item that
   handles its segment, so adding the bit is an atomic or. */
INLINE void set_matched(GLOBAL u32* RESTRICT matched, i32 v)
{
    ATOMIC_ADD_U32(&matched[v >> 5], 1u << (u32)(v & 31));
}

/* Loads the sources of the chunk [lo, hi) into cs (-1 past hi) and the keys
   selected by want (bit j: arc lo + j) into ck (0 elsewhere). Every load is
   issued before any is used, so a work-item fetches its chunk's memory
   sectors at once instead of one after the other; cs and ck stay in
   registers (the loops have a constant trip count). */
INLINE void load_chunk(GLOBAL const i32* RESTRICT src, GLOBAL const u64* RESTRICT keys, i64 lo, i64 hi,
                       u32 want, i32* cs, u64* ck)
{
    for (int j = 0; j < MATCH_CHUNK; j++) {
        i64 i = lo + j;
        cs[j] = i < hi ? src[i] : -1;
        ck[j] = ((want >> (u32)j) & 1u) != 0 ? keys[i] : (u64)0;
    }
}

/* The keep mask of a whole chunk of len arcs. */
INLINE u32 chunk_bits(int len)
{
    return len >= 32 ? 0xffffffffu : (1u << (u32)len) - 1u;
}

/* best[v] = max(best[v], acc). The plain read first skips the atomic when
   best[v] is already at least acc, which saves most atomics on the
   segments of high-degree vertices (many chunks, one address). A stale read
   can only be too small (best only grows during a launch), and then the
   atomic runs anyway, so the result is exact. */
INLINE void atomic_max_best(GLOBAL u64* best, i32 v, u64 acc)
{
    if (acc > best[v]) {
        ATOMIC_MAX_U64(&best[v], acc);
    }
}

/* best[v] = the max key of v's segment. Thread t reduces chunks of
   MATCH_CHUNK consecutive arcs (chunk t, t + nthreads, ...), so a warp reads
   contiguous memory and a high-degree vertex is shared by many threads. A
   run of arcs that is a whole segment is stored directly; a run that
   continues in a neighbouring chunk is combined with a 64-bit atomic max. */
KERNEL void matchArgmax(GLOBAL const i32* RESTRICT src, GLOBAL const u64* RESTRICT keys,
                        GLOBAL u64* RESTRICT best, const i32 numArcs, const i32 nthreads)
{
    i64 t = (i64)get_global_id(0);
    if (t >= nthreads) {
        return;
    }
    i64 m = numArcs;
    i64 chunks = (m + MATCH_CHUNK - 1) / MATCH_CHUNK;
    for (i64 c = t; c < chunks; c += nthreads) {
        i64 lo = c * MATCH_CHUNK;
        i64 hi = lo + MATCH_CHUNK < m ? lo + MATCH_CHUNK : m;
        int len = (int)(hi - lo);
        i32 prev = lo > 0 ? src[lo - 1] : -1; /* vertices are >= 0: -1 matches none */
        i32 next = hi < m ? src[hi] : -1;
        i32 cs[MATCH_CHUNK];
        u64 ck[MATCH_CHUNK];
        load_chunk(src, keys, lo, hi, chunk_bits(len), cs, ck);
        i32 v = cs[0];
        u64 acc = ck[0];
        int began = prev == v; /* the run began in an earlier chunk */
        for (int j = 1; j < MATCH_CHUNK; j++) {
            if (j >= len) {
                break;
            }
            i32 u = cs[j];
            u64 k = ck[j];
            if (u != v) {
                if (began) {
                    atomic_max_best(best, v, acc);
                } else {
                    best[v] = acc;
                }
                v = u;
                acc = k;
                began = 0;
            } else if (k > acc) {
                acc = k;
            }
        }
        if (began || next == v) {
            atomic_max_best(best, v, acc);
        } else {
            best[v] = acc;
        }
    }
}

/* The first arc of each segment decides its source v: v is matched to its
   strongest neighbour s when s's strongest neighbour is v. Only best is
   read and only match[v] and v's matched bit written, so one launch finds
   every pair. */
KERNEL void matchHandshake(GLOBAL const i32* RESTRICT src, GLOBAL const u64* RESTRICT best,
                           GLOBAL i32* RESTRICT match, GLOBAL u32* RESTRICT matched,
                           GLOBAL const i64* RESTRICT arcCount, const i32 nthreads)
{
    i64 t = (i64)get_global_id(0);
    if (t >= nthreads) {
        return;
    }
    i64 m = arcCount[0];
    for (i64 i = t; i < m; i += nthreads) {
        i32 v = src[i];
        if (i == 0 || src[i - 1] != v) {
            i32 s = key_dst(best[v]);
            if (key_dst(best[s]) == v) {
                match[v] = s;
                set_matched(matched, v);
            }
        }
    }
}

/* The handshake over the vertices instead of the arcs: best[v] is non-zero
   exactly for the vertices that still have arcs (matchArgmax fills it for
   them, matchMarkTiles clears it for every source, matchPackTiles fills it
   for the sources of kept arcs; a key is never 0), so reading best (8
   bytes a vertex) gives matchHandshake's pairs and bits without reading
   src (4 bytes an arc): the cheaper one while arcs outnumber twice the
   vertices. */
KERNEL void matchHandshakeVertices(GLOBAL const u64* RESTRICT best, GLOBAL i32* RESTRICT match,
                                   GLOBAL u32* RESTRICT matched, const i32 n, const i32 nthreads)
{
    i64 t = (i64)get_global_id(0);
    if (t >= nthreads) {
        return;
    }
    for (i64 v = t; v < n; v += nthreads) {
        u64 b = best[v];
        if (b != 0) {
            i32 s = key_dst(b);
            if (key_dst(best[s]) == (i32)v) {
                match[v] = s;
                set_matched(matched, (i32)v);
            }
        }
    }
}

/* The filter is a two-pass stream compaction over tiles: a tile is
   get_local_size(0) consecutive chunks of MATCH_CHUNK arcs, one chunk per
   work-item; groups stride over the tiles. matchMarkTiles writes each
   chunk's keep word (bit j < MATCH_CHUNK: arc lo + j has both ends
   unmatched; above them, the kept arcs of the tile's earlier chunks) and
   each tile's kept count; the host scans the counts (kernels/scan.cl); then
   matchPackTiles re-reads the arcs with their words, writes the kept ones
   in order at their tile's offset plus their rank within the tile, and, in
   the same read, computes the next pass's best[] over the kept arcs (the
   arcs are read twice per pass, written once; there are no per-arc flags).
   The rank within the tile comes with the word, so the pack needs no scan:
   it stages the tile's kept arcs in local memory and writes them out
   whole.
   The output does not depend on the tile size: every kept arc lands at its
   rank among all kept arcs.

   matchHandshake, matchMarkTiles and matchPackTiles read the number of arcs
   from the device (arcCount[0], the previous pass's scan total), so the
   host can queue several passes without reading a count back in between;
   it sizes their launches by an upper bound, and any size gives the same
   result. Tiles past the count are not touched: the host zeroes the tile
   counts it scans. */

/* Sum of the work-group's values in s (any group size); all items get it. */
INLINE i32 group_sum_i32(LOCAL_REF(i32) s, i32 x, size_t lid, size_t size)
{
    s[lid] = x;
    BARRIER();
    size_t p = 1;
    while (p < size) {
        p <<= 1;
    }
    for (size_t h = p >> 1; h > 0; h >>= 1) {
        if (lid < h && lid + h < size) {
            s[lid] += s[lid + h];
        }
        BARRIER();
    }
    i32 total = s[0];
    BARRIER();
    return total;
}

/* Exclusive prefix sum of x over the work-group (Hillis-Steele over a
   double buffer s[0..2*size)). */
INLINE i32 group_exclusive_i32(LOCAL_REF(i32) s, i32 x, size_t lid, size_t size)
{
    LOCAL_REF(i32) a = s;
    LOCAL_REF(i32) b = s + size;
    a[lid] = x;
    BARRIER();
    for (size_t d = 1; d < size; d <<= 1) {
        i32 y = a[lid];
        if (lid >= d) {
            y += a[lid - d];
        }
        b[lid] = y;
        BARRIER();
        LOCAL_REF(i32) t = a;
        a = b;
        b = t;
    }
    i32 r = a[lid] - x;
    BARRIER();
    return r;
}

#if MATCH_CHUNK > 16
#error "a keep word holds MATCH_CHUNK mask bits and, above them, a rank below 256 * MATCH_CHUNK"
#endif

/* Keep words and per-tile kept counts; the first arc of each segment also
   clears best[v] for the next pass (matchPackTiles fills it again).
   sums: two i32 per work-item. */
KERNEL void matchMarkTiles(GLOBAL const i32* RESTRICT src, GLOBAL const u64* RESTRICT keys,
                           GLOBAL const u32* RESTRICT matched, GLOBAL u64* RESTRICT best,
                           GLOBAL u32* RESTRICT mask, GLOBAL i32* RESTRICT tileCount,
                           GLOBAL const i64* RESTRICT arcCount, LOCAL_PTR(i32, sums))
{
    LOCAL_BIND(i32, sums);
    size_t lid = get_local_id(0);
    size_t size = get_local_size(0);
    i64 m = arcCount[0];
    i64 chunks = (m + MATCH_CHUNK - 1) / MATCH_CHUNK;
    i64 tiles = (chunks + (i64)size - 1) / (i64)size;
    for (i64 tile = (i64)get_group_id(0); tile < tiles; tile += (i64)get_num_groups(0)) {
        i64 c = tile * (i64)size + (i64)lid;
        i32 cnt = 0;
        u32 bits = 0;
        if (c < chunks) {
            i64 lo = c * MATCH_CHUNK;
            i64 hi = lo + MATCH_CHUNK < m ? lo + MATCH_CHUNK : m;
            int len = (int)(hi - lo);
            i32 p = lo > 0 ? src[lo - 1] : -1; /* the previous arc's source */
            i32 cs[MATCH_CHUNK];
            u64 ck[MATCH_CHUNK];
            load_chunk(src, keys, lo, hi, chunk_bits(len), cs, ck);
            for (int j = 0; j < MATCH_CHUNK; j++) {
                if (j >= len) {
                    break;
                }
                i32 v = cs[j];
                if (!is_matched(matched, v) && !is_matched(matched, key_dst(ck[j]))) {
                    bits |= 1u << (u32)j;
                    cnt++;
                }
                if (p != v) {
                    best[v] = 0;
                }
                p = v;
            }
        }
        i32 rank = group_exclusive_i32(sums, cnt, lid, size);
        if (c < chunks) {
            mask[c] = bits | ((u32)rank << MATCH_CHUNK);
        }
        if (lid == size - 1) {
            tileCount[tile] = rank + cnt;
        }
    }
}

/* Compaction plus the next pass's argmax. tileOffset: the exclusive scan of
   the tile counts; the keep words give the rank within the tile. A kept
   run of v that
   may have kept arcs in another chunk (v's old segment crosses the chunk's
   edge) is combined with an atomic max, otherwise stored. */
KERNEL void matchPackTiles(GLOBAL const i32* RESTRICT src, GLOBAL const u64* RESTRICT keys,
                           GLOBAL const u32* RESTRICT mask, GLOBAL const i32* RESTRICT tileOffset,
                           GLOBAL i32* RESTRICT newSrc, GLOBAL u64* RESTRICT newKeys,
                           GLOBAL u64* RESTRICT best, GLOBAL const i64* RESTRICT arcCount,
                           LOCAL_PTR(u64, stage))
{
    LOCAL_BIND(u64, stage);
    size_t lid = get_local_id(0);
    size_t size = get_local_size(0);
    i64 m = arcCount[0];
    i64 chunks = (m + MATCH_CHUNK - 1) / MATCH_CHUNK;
    i64 tiles = (chunks + (i64)size - 1) / (i64)size;
    /* The kept arcs of a tile are staged in local memory at their rank, then
       written out by consecutive work-items: whole memory sectors instead of
       each item's short run. stage: MATCH_CHUNK keys, then MATCH_CHUNK
       sources, per work-item. */
    LOCAL_REF(u64) stageKeys = stage;
    LOCAL_REF(i32) stageSrc = (LOCAL_REF(i32))(stage + size * MATCH_CHUNK);
    for (i64 tile = (i64)get_group_id(0); tile < tiles; tile += (i64)get_num_groups(0)) {
        i64 c = tile * (i64)size + (i64)lid;
        u32 word = c < chunks ? mask[c] : 0u;
        u32 bits = word & chunk_bits(MATCH_CHUNK);
        i64 lastC = (tile + 1) * (i64)size < chunks ? (tile + 1) * (i64)size - 1 : chunks - 1;
        u32 lastWord = mask[lastC];
        i32 tileKept = (i32)(lastWord >> MATCH_CHUNK) + POPCOUNT32(lastWord & chunk_bits(MATCH_CHUNK));
        i64 base = (i64)tileOffset[tile];
        if (bits != 0) {
            i64 lo = c * MATCH_CHUNK;
            i64 hi = lo + MATCH_CHUNK < m ? lo + MATCH_CHUNK : m;
            i32 prev = lo > 0 ? src[lo - 1] : -1;
            i32 next = hi < m ? src[hi] : -1;
            i32 cs[MATCH_CHUNK];
            u64 ck[MATCH_CHUNK];
            load_chunk(src, keys, lo, hi, bits, cs, ck); /* only the kept arcs' keys */
            i32 pos = (i32)(word >> MATCH_CHUNK);
            i32 first = cs[0];
            int before = prev == first; /* first's segment began earlier */
            int after = 0;
            i32 v = -1;
            u64 acc = 0;
            for (int j = 0; j < MATCH_CHUNK; j++) {
                if (((bits >> (u32)j) & 1u) == 0) {
                    continue;
                }
                i32 u = cs[j];
                u64 k = ck[j];
                stageSrc[pos] = u;
                stageKeys[pos] = k;
                pos++;
                if (u == v) {
                    if (k > acc) {
                        acc = k;
                    }
                    continue;
                }
                if (v >= 0) {
                    if (v == first && before) {
                        atomic_max_best(best, v, acc);
                    } else {
                        best[v] = acc;
                    }
                }
                v = u;
                acc = k;
            }
            after = next == v;
            if ((v == first && before) || after) {
                atomic_max_best(best, v, acc);
            } else {
                best[v] = acc;
            }
        }
        BARRIER();
        for (i32 i = (i32)lid; i < tileKept; i += (i32)size) {
            newSrc[base + i] = stageSrc[i];
            newKeys[base + i] = stageKeys[i];
        }
        BARRIER();
    }
}

/* The handshake of the single-pass filter: as matchHandshake, and it also
   clears bestNext[v] for every source, which matchFilterOnePass then fills
   for the next pass (best and bestNext alternate between passes, so the
   clearing never races with this pass's reads of best). */
KERNEL void matchHandshakeNext(GLOBAL const i32* RESTRICT src, GLOBAL const u64* RESTRICT best,
                               GLOBAL u64* RESTRICT bestNext, GLOBAL i32* RESTRICT match,
                               GLOBAL u32* RESTRICT matched, const i32 numArcs, const i32 nthreads)
{
    i64 t = (i64)get_global_id(0);
    if (t >= nthreads) {
        return;
    }
    for (i64 i = t; i < numArcs; i += nthreads) {
        i32 v = src[i];
        if (i == 0 || src[i - 1] != v) {
            i32 s = key_dst(best[v]);
            if (key_dst(best[s]) == v) {
                match[v] = s;
                set_matched(matched, v);
            }
            bestNext[v] = 0;
        }
    }
}

#define MATCH_FLAG_AGGREGATE ((u64)1 << 62)
#define MATCH_FLAG_PREFIX ((u64)2 << 62)
#define MATCH_VALUE_MASK (((u64)1 << 62) - 1)

/* Single-pass filter: the keep masks, the tile offsets and the compaction
   (with the next pass's argmax) in one launch, by decoupled look-back
   (Merrill and Garland 2016). Work-groups take tiles in order from
   *counter, so every tile a group waits on belongs to a group that has
   already started; a group publishes its tile's kept count in status[tile]
   (aggregate), then its inclusive prefix once known, and each tile sums its
   predecessors' statuses back to the first inclusive one. The arcs of a
   tile are read once from memory: the second look at them (to scatter) is
   served by the cache, and each work-item keeps its chunk's mask in a
   register. status (one u64 per tile) and *counter must be 0 at launch.
   scratch: two i32 per work-item plus two. *total receives the kept count. */
KERNEL void matchFilterOnePass(GLOBAL const i32* RESTRICT src, GLOBAL const u64* RESTRICT keys,
                               GLOBAL const u32* RESTRICT matched, GLOBAL u64* status,
                               GLOBAL i32* counter, GLOBAL i32* RESTRICT newSrc,
                               GLOBAL u64* RESTRICT newKeys, GLOBAL u64* RESTRICT bestNext,
                               GLOBAL i64* RESTRICT total, const i32 numArcs, LOCAL_PTR(i32, scratch))
{
    LOCAL_BIND(i32, scratch);
    size_t lid = get_local_id(0);
    size_t size = get_local_size(0);
    i64 m = numArcs;
    i64 chunks = (m + MATCH_CHUNK - 1) / MATCH_CHUNK;
    i64 tiles = (chunks + (i64)size - 1) / (i64)size;
    LOCAL_REF(i32) shared = scratch + 2 * size; /* [0]: tile, [1]: the tile's exclusive offset */
    for (;;) {
        if (lid == 0) {
            shared[0] = ATOMIC_ADD_I32(counter, 1);
        }
        BARRIER();
        i64 tile = shared[0];
        BARRIER();
        if (tile >= tiles) {
            break;
        }
        i64 c = tile * (i64)size + (i64)lid;
        i64 lo = c * MATCH_CHUNK;
        i64 hi = lo + MATCH_CHUNK < m ? lo + MATCH_CHUNK : m;
        u32 bits = 0;
        i32 cnt = 0;
        if (c < chunks) {
            for (i64 i = lo; i < hi; i++) {
                if (!is_matched(matched, src[i]) && !is_matched(matched, key_dst(keys[i]))) {
                    bits |= 1u << (u32)(i - lo);
                    cnt++;
                }
            }
        }
        i32 agg = group_sum_i32(scratch, cnt, lid, size);
        if (lid == 0) {
            i64 excl = 0;
            if (tile == 0) {
                ATOMIC_MAX_U64(&status[0], MATCH_FLAG_PREFIX | (u64)agg);
            } else {
                ATOMIC_MAX_U64(&status[tile], MATCH_FLAG_AGGREGATE | (u64)agg);
                i64 j = tile - 1;
                for (;;) {
                    u64 s = ATOMIC_ADD_U64(&status[j], (u64)0);
                    if (s == 0) {
                        continue; /* tile j's group has not published yet: it has started, so it will */
                    }
                    excl += (i64)(s & MATCH_VALUE_MASK);
                    if ((s & MATCH_FLAG_PREFIX) == MATCH_FLAG_PREFIX) {
                        break;
                    }
                    j--;
                }
                ATOMIC_MAX_U64(&status[tile], MATCH_FLAG_PREFIX | (u64)(excl + agg));
            }
            if (tile == tiles - 1) {
                total[0] = excl + agg;
            }
            shared[1] = (i32)excl;
        }
        BARRIER();
        i64 pos = (i64)shared[1];
        pos += group_exclusive_i32(scratch, cnt, lid, size);
        if (bits != 0) {
            i32 first = src[lo];
            int before = lo > 0 && src[lo - 1] == first;
            i32 v = -1;
            u64 acc = 0;
            for (i64 i = lo; i < hi; i++) {
                if (((bits >> (u32)(i - lo)) & 1u) == 0) {
                    continue;
                }
                i32 u = src[i];
                u64 k = keys[i];
                newSrc[pos] = u;
                newKeys[pos] = k;
                pos++;
                if (u == v) {
                    if (k > acc) {
                        acc = k;
                    }
                    continue;
                }
                if (v >= 0) {
                    if (v == first && before) {
                        atomic_max_best(bestNext, v, acc);
                    } else {
                        bestNext[v] = acc;
                    }
                }
                v = u;
                acc = k;
            }
            if ((v == first && before) || (hi < m && src[hi] == v)) {
                atomic_max_best(bestNext, v, acc);
            } else {
                bestNext[v] = acc;
            }
        }
    }
}
