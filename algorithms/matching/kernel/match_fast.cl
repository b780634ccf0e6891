/* The fast handshaking-matching kernels (the "fast" engine of `arbor match`).
   The remaining arcs are kept grouped by source in two parallel arrays:
   src[i] (the source vertex) and keys[i], a 64-bit key
       (rank << 32) | ~dst
   so that the larger key is the stronger arc: higher weight rank first, and
   on equal ranks the smaller neighbour index (a larger ~dst). A vertex's
   strongest neighbour is then the max key of its segment, one u64 max,
   deterministic on every device whatever order the arcs are combined in.

   Per pass the host runs matchHandshake and the filter (matchFilter, or
   matchMarkTiles, a scan and matchPackTiles), after one matchArgmax for
   the first pass; the filter computes the next pass's strongest neighbours
   as it packs the kept arcs.

   best[v] holds v's strongest key with the pass's tag in the bits above
   the ranks (tag << (64 - tag bits): the ranks leave them free): an entry
   is this pass's when its tag bits equal the pass's tag. Each pass's tag is
   larger than the last (the host zeroes best when the tags wrap), so the
   filter writes the next pass's maxima over the current ones, by plain
   stores or atomic max, into the same array: no entry is ever cleared, and
   a vertex without arcs keeps an older tag.

   The grid-stride kernels take an explicit thread count nthreads and the
   tile kernels any group size, and any of them gives the same result. */

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

/* Loads the sources of the chunk [lo, hi) into cs (-1 past hi), a whole
   chunk in 16-byte loads (chunks start at multiples of MATCH_CHUNK, so the
   vectors are aligned). */
INLINE void load_sources(GLOBAL const i32* RESTRICT src, i64 lo, i64 hi, i32* cs)
{
    if (hi - lo == MATCH_CHUNK) {
        for (int j = 0; j < MATCH_CHUNK / 4; j++) {
            i32x4 v = LOAD_VEC(i32x4, src, lo / 4 + j);
            cs[4 * j] = v.x;
            cs[4 * j + 1] = v.y;
            cs[4 * j + 2] = v.z;
            cs[4 * j + 3] = v.w;
        }
        return;
    }
    for (int j = 0; j < MATCH_CHUNK; j++) {
        cs[j] = lo + j < hi ? src[lo + j] : -1;
    }
}

/* Loads the sources and keys of the chunk [lo, hi) into cs, ck (-1 and 0
   past hi), 16-byte loads for a whole chunk. Every load is issued before
   any is used, so a work-item fetches its chunk's memory sectors at once
   instead of one after the other; cs and ck stay in registers (the loops
   have a constant trip count). */
INLINE void load_chunk(GLOBAL const i32* RESTRICT src, GLOBAL const u64* RESTRICT keys, i64 lo, i64 hi,
                       i32* cs, u64* ck)
{
    load_sources(src, lo, hi, cs);
    if (hi - lo == MATCH_CHUNK) {
        for (int j = 0; j < MATCH_CHUNK / 2; j++) {
            u64x2 v = LOAD_VEC(u64x2, keys, lo / 2 + j);
            ck[2 * j] = v.x;
            ck[2 * j + 1] = v.y;
        }
        return;
    }
    for (int j = 0; j < MATCH_CHUNK; j++) {
        ck[j] = lo + j < hi ? keys[lo + j] : (u64)0;
    }
}

#if MATCH_CHUNK % 4 != 0
#error "MATCH_CHUNK must be a multiple of 4 (the 16-byte loads of load_chunk)"
#endif

/* The keep mask of a whole chunk of len arcs. */
INLINE u32 chunk_bits(int len)
{
    return len >= 32 ? 0xffffffffu : (1u << (u32)len) - 1u;
}

/* best[v] = max(best[v], acc). The plain read first skips the atomic when
   best[v] is already at least acc. A stale read can only be too small (best
   only grows during a launch), and then the atomic runs anyway, so the
   result is exact. */
INLINE void atomic_max_best(GLOBAL u64* best, i32 v, u64 acc)
{
    if (acc > best[v]) {
        ATOMIC_MAX_U64(&best[v], acc);
    }
}

/* Segment maxima over tiles. The kernels below that compute best[] work on
   tiles: get_local_size(0) consecutive chunks of MATCH_CHUNK arcs, one chunk
   per work-item. A segment covers several chunks (a high-degree vertex's,
   even whole tiles), and combining its runs with global atomics costs one
   atomic per chunk, which the device serialises per address. So the runs
   are combined in local memory first: when the tile's sources span at most
   MATCH_SPAN vertices (tileFirst..tileLast), in one slot per vertex, which
   the group then writes out in order (one store per source; an atomic only
   for the two end vertices when their segments cross the tile's edge);
   otherwise the runs of the tile's first and last source go to two slots
   and the others are stored, or combined with a global atomic max when
   they cross a chunk's edge. The slots hold untagged keys (0: no arc); tag
   joins a key as it goes to best. slots: MATCH_SPAN u64 of local memory. */

#ifndef MATCH_SPAN
#define MATCH_SPAN 512
#endif

/* Whether a tile's maxima use one slot per vertex. */
INLINE int slot_per_vertex(i32 tileFirst, i32 tileLast)
{
    return tileLast - tileFirst < MATCH_SPAN;
}

/* The slots a tile uses. */
INLINE i32 slots_used(i32 tileFirst, i32 tileLast)
{
    return slot_per_vertex(tileFirst, tileLast) ? tileLast - tileFirst + 1 : 2;
}

/* Zeroes the slots a tile uses (every work-item calls it; a barrier must
   follow before chunk_maxima). */
INLINE void zero_slots(LOCAL_REF(u64) slots, i32 tileFirst, i32 tileLast, size_t lid, size_t size)
{
    i32 used = slots_used(tileFirst, tileLast);
    for (i32 i = (i32)lid; i < used; i += (i32)size) {
        slots[i] = 0;
    }
}

/* The per-source maxima of the arcs of a loaded chunk selected by bits
   (cs[0] is the chunk's first source; prev and next: the sources just
   before and after the chunk, -1 for none). */
INLINE void chunk_maxima(const i32* cs, const u64* ck, u32 bits, i32 prev, i32 next, GLOBAL u64* RESTRICT best,
                         u64 tag, i32 tileFirst, i32 tileLast, LOCAL_REF(u64) slots)
{
    int perVertex = slot_per_vertex(tileFirst, tileLast);
    i32 first = cs[0];
    int before = prev == first; /* first's segment began in an earlier chunk */
    i32 v = -1;
    u64 acc = 0;
    for (int j = 0; j <= MATCH_CHUNK; j++) {
        int take = j < MATCH_CHUNK && ((bits >> (u32)j) & 1u) != 0;
        if (take && cs[j] == v) {
            if (ck[j] > acc) {
                acc = ck[j];
            }
            continue;
        }
        if (v >= 0 && (take || j == MATCH_CHUNK)) {
            /* v's run ends: the chunk's last run may continue after it */
            int shared = (v == first && before) || (j == MATCH_CHUNK && next == v);
            if (perVertex) {
                LOCAL_ATOMIC_MAX_U64(&slots[v - tileFirst], acc);
            } else if (v == tileFirst) {
                LOCAL_ATOMIC_MAX_U64(&slots[0], acc);
            } else if (v == tileLast) {
                LOCAL_ATOMIC_MAX_U64(&slots[1], acc);
            } else if (shared) {
                atomic_max_best(best, v, acc | tag);
            } else {
                best[v] = acc | tag;
            }
        }
        if (take) {
            v = cs[j];
            acc = ck[j];
        }
    }
}

/* Writes a tile's slots (every work-item calls it, after a barrier that
   follows every chunk_maxima of the tile; another barrier must pass before
   the slots are zeroed again): the slot of a segment that crosses the
   tile's edge (prevTile, nextTile: the sources just outside it) is
   combined atomically. A slot still 0 had no arcs. */
INLINE void flush_slots(GLOBAL u64* RESTRICT best, u64 tag, LOCAL_REF(u64) slots, i32 tileFirst, i32 tileLast,
                        i32 prevTile, i32 nextTile, size_t lid, size_t size)
{
    int perVertex = slot_per_vertex(tileFirst, tileLast);
    i32 used = slots_used(tileFirst, tileLast);
    for (i32 i = (i32)lid; i < used; i += (i32)size) {
        u64 a = slots[i];
        i32 v = perVertex ? tileFirst + i : (i == 0 ? tileFirst : tileLast);
        if (a == 0) {
            continue; /* no arcs (in the two-slot form, tileLast == tileFirst leaves slot 1 at 0) */
        }
        if (prevTile == v || nextTile == v) {
            atomic_max_best(best, v, a | tag);
        } else {
            best[v] = a | tag;
        }
    }
}

/* The chunks of m arcs, the tiles of those chunks for a group of size
   work-items, and the end of the chunk that starts at arc lo. */
INLINE i64 num_chunks(i64 m)
{
    return (m + MATCH_CHUNK - 1) / MATCH_CHUNK;
}

INLINE i64 num_tiles(i64 chunks, size_t size)
{
    return (chunks + (i64)size - 1) / (i64)size;
}

INLINE i64 chunk_end(i64 lo, i64 m)
{
    return lo + MATCH_CHUNK < m ? lo + MATCH_CHUNK : m;
}

/* A tile's arcs: [lo, hi) of m. */
INLINE i64 tile_lo(i64 tile, size_t size)
{
    return tile * (i64)size * MATCH_CHUNK;
}

INLINE i64 tile_hi(i64 tile, size_t size, i64 m)
{
    i64 hi = (tile + 1) * (i64)size * MATCH_CHUNK;
    return hi < m ? hi : m;
}

/* best[v] = the max key of v's segment | tag, over tiles (groups stride
   over them). best must hold only smaller tags (or 0) beforehand. slots:
   MATCH_SPAN u64. */
KERNEL void KERNEL_BOUNDS(256, 4) matchArgmax(GLOBAL const i32* RESTRICT src, GLOBAL const u64* RESTRICT keys,
                                              GLOBAL u64* RESTRICT best, const i32 numArcs, const u64 tag,
                                              LOCAL_PTR(u64, slots))
{
    LOCAL_BIND(u64, slots);
    size_t lid = get_local_id(0);
    size_t size = get_local_size(0);
    i64 m = numArcs;
    i64 chunks = num_chunks(m);
    i64 tiles = num_tiles(chunks, size);
    for (i64 tile = (i64)get_group_id(0); tile < tiles; tile += (i64)get_num_groups(0)) {
        i64 tlo = tile_lo(tile, size), thi = tile_hi(tile, size, m);
        i32 tileFirst = src[tlo], tileLast = src[thi - 1];
        /* The chunk's loads are issued before the slots are zeroed, which
           waits for tileFirst and tileLast: the two round trips overlap. */
        i64 c = tile * (i64)size + (i64)lid;
        i64 lo = c * MATCH_CHUNK;
        i64 hi = chunk_end(lo, m);
        i32 cs[MATCH_CHUNK];
        u64 ck[MATCH_CHUNK];
        i32 prev = -1, next = -1;
        if (c < chunks) {
            load_chunk(src, keys, lo, hi, cs, ck);
            prev = lo > 0 ? src[lo - 1] : -1;
            next = hi < m ? src[hi] : -1;
        }
        zero_slots(slots, tileFirst, tileLast, lid, size);
        BARRIER();
        if (c < chunks) {
            chunk_maxima(cs, ck, chunk_bits((int)(hi - lo)), prev, next, best, tag, tileFirst, tileLast, slots);
        }
        BARRIER();
        flush_slots(best, tag, slots, tileFirst, tileLast, tlo > 0 ? src[tlo - 1] : -1, thi < m ? src[thi] : -1, lid,
                    size);
        BARRIER();
    }
}

/* matchSources expands the input's CSR offsets (n + 1 of them) into the
   per-arc source array: src[a] is the vertex u with offsets[u] <= a <
   offsets[u + 1]. The host uploads offsets and keys only (the keys already
   name the destinations), so the per-arc sources cost no transfer. Work-item
   t takes arcs t, t + nthreads, …; each search starts at the previous
   answer, since the arcs rise. */
KERNEL void matchSources(GLOBAL const i32* RESTRICT offsets, GLOBAL i32* RESTRICT src, const i32 n,
                         const i32 numArcs, const i32 nthreads)
{
    i64 t = (i64)get_global_id(0);
    if (t >= nthreads) {
        return;
    }
    i32 lo = 0;
    for (i64 a = t; a < numArcs; a += nthreads) {
        /* Invariant: offsets[lo] <= a < offsets[hi] (offsets[n] = numArcs). */
        i32 hi = n;
        while (hi - lo > 1) {
            i32 mid = lo + (hi - lo) / 2;
            if ((i64)offsets[mid] <= a) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        src[a] = lo;
    }
}

/* The handshake: v is matched to its strongest neighbour s when s's
   strongest neighbour is v. Only best is read and only match[v] and v's
   matched bit written, so one launch finds every pair.
   counts[pass] is the number of arcs (read on the device: the host queues
   passes without reading it back). While it exceeds vertexAbove, the
   handshake runs over the n vertices: best[v] carries the pass's tag
   (best & tagMask == tag) exactly for the vertices that have arcs, so
   reading best (8 bytes a vertex) replaces reading src (4 bytes an arc);
   below it, the first arc of each segment handles its source. A source's
   strongest neighbour has an arc back, so its entry is the pass's too. */
KERNEL void matchHandshake(GLOBAL const i32* RESTRICT src, GLOBAL const u64* RESTRICT best,
                           GLOBAL i32* RESTRICT match, GLOBAL u32* RESTRICT matched,
                           GLOBAL const i64* RESTRICT counts, const i32 pass, const i32 n,
                           const i32 vertexAbove, const u64 tag, const u64 tagMask, const i32 nthreads)
{
    i64 t = (i64)get_global_id(0);
    if (t >= nthreads) {
        return;
    }
    i64 m = counts[pass];
    if (m > (i64)vertexAbove) {
        for (i64 v = t; v < n; v += nthreads) {
            u64 b = best[v];
            if ((b & tagMask) == tag) {
                i32 s = key_dst(b);
                if (key_dst(best[s]) == (i32)v) {
                    match[v] = s;
                    set_matched(matched, (i32)v);
                }
            }
        }
        return;
    }
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

/* The filter keeps the arcs with both ends unmatched, packed in order into
   newSrc, newKeys, and in the same read of the arcs computes the next
   pass's best[] over the kept ones. The arcs are cut into tiles of
   get_local_size(0) chunks of MATCH_CHUNK arcs, one chunk per work-item.
   Two ways, with the same output (every kept arc lands at its rank among
   all kept arcs, whatever the tile size):
   * matchFilter: one launch per pass, the tiles' offsets found by decoupled
     look-back (Merrill and Garland 2016), so the arcs come from memory once.
   * matchMarkTiles, an exclusive scan of the tile counts (kernels/scan.cl),
     matchPackTiles: the arcs are read twice, but no work-group ever waits
     for another, for devices that do not promise forward progress to
     work-groups that have started.
   Both read the number of arcs from counts[pass], so the host can queue
   several passes without reading a count back; it sizes their launches by
   an upper bound, and any size gives the same result.
   The filter writes the next pass's maxima into best with the next pass's
   tag (the handshake is done with this pass's entries). */

/* Exclusive prefix sum of x over the work-group; *total receives the
   group's sum. s: two i32 per work-item. With warps (CUDA) and a group of
   whole warps: a shuffle scan per warp and one exchange of warp totals;
   otherwise Hillis-Steele over a double buffer. */
INLINE i32 group_scan_i32(LOCAL_REF(i32) s, i32 x, size_t lid, size_t size, i32* total)
{
#if ARBOR_WARP_SIZE == 32
    if ((size & 31) == 0) {
        u32 lane = (u32)lid & 31u, warp = (u32)lid >> 5;
        i32 inc = arbor_warp_inclusive_i32(x, lane);
        if (lane == 31) {
            s[warp] = inc;
        }
        BARRIER();
        i32 before = 0, all = 0;
        for (u32 w = 0; w < (u32)(size >> 5); w++) {
            i32 t = s[w];
            before += w < warp ? t : 0;
            all += t;
        }
        *total = all;
        BARRIER();
        return before + inc - x;
    }
#endif
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
    *total = a[size - 1];
    BARRIER();
    return r;
}

#if MATCH_CHUNK > 16
#error "a keep word holds MATCH_CHUNK mask bits and, above them, a rank below 256 * MATCH_CHUNK"
#endif

/* Loads the chunk [lo, hi) of a filtering pass and returns its keep bits
   (arc j is kept when neither end is matched). It reads an arc's key only
   when its source is
   unmatched: the sources come first, then their bitset words
   (the same few words: the sources are sorted), then the keys, a 16-byte
   vector per pair of arcs with an unmatched source, then the destinations'
   words (each group of words loaded before any is tested, so the gathers
   are in flight together). A matched vertex's whole segment goes, so the
   keys of a matched hub are never read (on R-MAT 34-38 % of an early
   pass's arcs); ck is 0 for the arcs not read. */
INLINE u32 load_live_chunk(GLOBAL const i32* RESTRICT src, GLOBAL const u64* RESTRICT keys,
                           GLOBAL const u32* RESTRICT matched, i64 lo, i64 hi, i32* cs, u64* ck)
{
    int len = (int)(hi - lo);
    load_sources(src, lo, hi, cs);
    u32 live = 0;
    {
        u32 ws[MATCH_CHUNK];
        for (int j = 0; j < MATCH_CHUNK; j++) {
            i32 v = j < len ? cs[j] : 0;
            ws[j] = matched[v >> 5] >> (u32)(v & 31);
        }
        for (int j = 0; j < MATCH_CHUNK; j++) {
            if (j < len && (ws[j] & 1u) == 0) {
                live |= 1u << (u32)j;
            }
        }
    }
    if (len == MATCH_CHUNK) {
        for (int j = 0; j < MATCH_CHUNK / 2; j++) {
            u64x2 v;
            v.x = 0;
            v.y = 0;
            if (((live >> (u32)(2 * j)) & 3u) != 0) {
                v = LOAD_VEC(u64x2, keys, lo / 2 + j);
            }
            ck[2 * j] = v.x;
            ck[2 * j + 1] = v.y;
        }
    } else {
        for (int j = 0; j < MATCH_CHUNK; j++) {
            ck[j] = ((live >> (u32)j) & 1u) != 0 ? keys[lo + j] : (u64)0;
        }
    }
    u32 wd[MATCH_CHUNK];
    for (int j = 0; j < MATCH_CHUNK; j++) {
        i32 d = ((live >> (u32)j) & 1u) != 0 ? key_dst(ck[j]) : 0;
        wd[j] = matched[d >> 5] >> (u32)(d & 31);
    }
    u32 bits = 0;
    for (int j = 0; j < MATCH_CHUNK; j++) {
        if (((live >> (u32)j) & 1u) != 0 && (wd[j] & 1u) == 0) {
            bits |= 1u << (u32)j;
        }
    }
    return bits;
}

/* Stages the kept arcs of a loaded chunk (bits) in local memory from
   position pos on. */
INLINE void stage_kept(const i32* cs, const u64* ck, u32 bits, i32 pos, LOCAL_REF(i32) stageSrc,
                       LOCAL_REF(u64) stageKeys)
{
    for (int j = 0; j < MATCH_CHUNK; j++) {
        if (((bits >> (u32)j) & 1u) != 0) {
            stageSrc[pos] = cs[j];
            stageKeys[pos] = ck[j];
            pos++;
        }
    }
}

/* The local memory of the tile kernels that stage arcs: stage holds
   MATCH_CHUNK keys per work-item, MATCH_SPAN slots, MATCH_CHUNK sources per
   work-item, then (for matchFilter) two i32 per work-item and two more. */
#define STAGE_SLOTS(stage, size) ((stage) + (size) * MATCH_CHUNK)
#define STAGE_SRC(stage, size) ((LOCAL_REF(i32))((stage) + (size) * MATCH_CHUNK + MATCH_SPAN))

/* Keep words and per-tile kept counts.
   A keep word holds the chunk's keep bits (bit j < MATCH_CHUNK: arc lo + j)
   and, above them, the number of arcs kept by the tile's earlier chunks.
   sums: two i32 per work-item. Tiles past the count are not written: the
   host zeroes the tile counts it scans. */
KERNEL void KERNEL_BOUNDS(256, 4) matchMarkTiles(GLOBAL const i32* RESTRICT src, GLOBAL const u64* RESTRICT keys,
                           GLOBAL const u32* RESTRICT matched, GLOBAL u32* RESTRICT mask,
                           GLOBAL i32* RESTRICT tileCount, GLOBAL const i64* RESTRICT counts, const i32 pass,
                           LOCAL_PTR(i32, sums))
{
    LOCAL_BIND(i32, sums);
    size_t lid = get_local_id(0);
    size_t size = get_local_size(0);
    i64 m = counts[pass];
    i64 chunks = num_chunks(m);
    i64 tiles = num_tiles(chunks, size);
    for (i64 tile = (i64)get_group_id(0); tile < tiles; tile += (i64)get_num_groups(0)) {
        i64 c = tile * (i64)size + (i64)lid;
        u32 bits = 0;
        if (c < chunks) {
            i64 lo = c * MATCH_CHUNK;
            i64 hi = chunk_end(lo, m);
            i32 cs[MATCH_CHUNK];
            u64 ck[MATCH_CHUNK];
            bits = load_live_chunk(src, keys, matched, lo, hi, cs, ck);
        }
        i32 kept;
        i32 rank = group_scan_i32(sums, POPCOUNT32(bits), lid, size, &kept);
        if (c < chunks) {
            mask[c] = bits | ((u32)rank << MATCH_CHUNK);
        }
        if (lid == 0) {
            tileCount[tile] = kept;
        }
    }
}

/* Compaction plus the next pass's argmax into best (tag: the next pass's). tileOffset: the
   exclusive scan of the tile counts; the keep words give the rank within
   the tile. The kept arcs of a tile are staged in local memory at their
   rank, then written out by consecutive work-items: whole memory sectors
   instead of each item's short run. */
KERNEL void KERNEL_BOUNDS(256, 4) matchPackTiles(GLOBAL const i32* RESTRICT src, GLOBAL const u64* RESTRICT keys,
                           GLOBAL const u32* RESTRICT mask, GLOBAL const i32* RESTRICT tileOffset,
                           GLOBAL i32* RESTRICT newSrc, GLOBAL u64* RESTRICT newKeys,
                           GLOBAL u64* RESTRICT best, GLOBAL const i64* RESTRICT counts, const i32 pass,
                           const u64 tag, LOCAL_PTR(u64, stage))
{
    LOCAL_BIND(u64, stage);
    size_t lid = get_local_id(0);
    size_t size = get_local_size(0);
    i64 m = counts[pass];
    i64 chunks = num_chunks(m);
    i64 tiles = num_tiles(chunks, size);
    LOCAL_REF(u64) stageKeys = stage;
    LOCAL_REF(u64) slots = STAGE_SLOTS(stage, size);
    LOCAL_REF(i32) stageSrc = STAGE_SRC(stage, size);
    for (i64 tile = (i64)get_group_id(0); tile < tiles; tile += (i64)get_num_groups(0)) {
        i64 tlo = tile_lo(tile, size), thi = tile_hi(tile, size, m);
        i32 tileFirst = src[tlo], tileLast = src[thi - 1];
        zero_slots(slots, tileFirst, tileLast, lid, size);
        BARRIER();
        i64 c = tile * (i64)size + (i64)lid;
        u32 word = c < chunks ? mask[c] : 0u;
        u32 bits = word & chunk_bits(MATCH_CHUNK);
        i64 lastC = (tile + 1) * (i64)size < chunks ? (tile + 1) * (i64)size - 1 : chunks - 1;
        u32 lastWord = mask[lastC];
        i32 tileKept = (i32)(lastWord >> MATCH_CHUNK) + POPCOUNT32(lastWord & chunk_bits(MATCH_CHUNK));
        i64 base = (i64)tileOffset[tile];
        if (bits != 0) {
            i64 lo = c * MATCH_CHUNK;
            i64 hi = chunk_end(lo, m);
            i32 cs[MATCH_CHUNK];
            u64 ck[MATCH_CHUNK];
            load_chunk(src, keys, lo, hi, cs, ck);
            stage_kept(cs, ck, bits, (i32)(word >> MATCH_CHUNK), stageSrc, stageKeys);
            chunk_maxima(cs, ck, bits, lo > 0 ? src[lo - 1] : -1, hi < m ? src[hi] : -1, best, tag, tileFirst, tileLast,
                         slots);
        }
        BARRIER();
        flush_slots(best, tag, slots, tileFirst, tileLast, tlo > 0 ? src[tlo - 1] : -1, thi < m ? src[thi] : -1, lid,
                    size);
        for (i32 i = (i32)lid; i < tileKept; i += (i32)size) {
            newSrc[base + i] = stageSrc[i];
            newKeys[base + i] = stageKeys[i];
        }
        BARRIER();
    }
}

/* A tile's status word in matchFilter: the pass's epoch (bits 33..63), a
   flag (bits 31..32: 1 the tile's own kept count, 2 the inclusive prefix
   up to it) and the value (bits 0..30; counts are below 2^31). A word from
   an earlier epoch reads as "not yet published", so the array is never
   cleared; and within an epoch the prefix is the larger word, so
   publishing is an atomic max. */
#define MATCH_STATUS_AGGREGATE 1u
#define MATCH_STATUS_PREFIX 2u
INLINE u64 match_status(i32 epoch, u32 flag, i64 value)
{
    return ((u64)(u32)epoch << 33) | ((u64)flag << 31) | (u64)value;
}

INLINE int status_ready(u64 s, i32 epoch)
{
    return (i32)(s >> 33) == epoch;
}

INLINE int status_prefix(u64 s)
{
    return ((u32)(s >> 31) & 3u) == MATCH_STATUS_PREFIX;
}

/* The look-back window of one work-item: statuses read at once. */
#define MATCH_LOOKBACK 8

/* The exclusive prefix of tile (> 0): the sum of its predecessors' values
   back to the nearest published prefix. The loads are volatile, so they go
   to the device-wide cache; a word is written whole by an atomic, so a load
   sees all of one word. A word not yet published (another epoch) is read
   again until it is (its group has started, so it will publish), and the
   aggregates before it are kept.
   look_back_item runs on one work-item and reads MATCH_LOOKBACK words at a
   time (independent loads, in flight together); look_back_warp runs on a
   whole warp and reads 32 at a time. */
INLINE i64 look_back_item(GLOBAL u64* status, i64 tile, i32 epoch)
{
    volatile GLOBAL u64* st = (volatile GLOBAL u64*)status;
    i64 excl = 0;
    i64 end = tile; /* the tiles before end are still to be summed */
    for (;;) {
        u64 w[MATCH_LOOKBACK];
        for (int k = 0; k < MATCH_LOOKBACK; k++) {
            i64 j = end - 1 - k;
            w[k] = j >= 0 ? st[j] : match_status(epoch, MATCH_STATUS_PREFIX, 0);
        }
        int k = 0;
        for (; k < MATCH_LOOKBACK; k++) {
            if (!status_ready(w[k], epoch)) {
                break;
            }
            excl += (i64)(w[k] & 0x7fffffffu);
            if (status_prefix(w[k])) {
                return excl;
            }
        }
        end -= k;
    }
}

#if ARBOR_WARP_SIZE == 32
INLINE i64 look_back_warp(GLOBAL u64* status, i64 tile, i32 epoch, u32 lane)
{
    volatile GLOBAL u64* st = (volatile GLOBAL u64*)status;
    i64 excl = 0;
    i64 end = tile;
    for (;;) {
        i64 j = end - 1 - (i64)lane;
        u64 s = j >= 0 ? st[j] : match_status(epoch, MATCH_STATUS_PREFIX, 0);
        int ready = status_ready(s, epoch);
        u32 waiting = arbor_warp_ballot(!ready);
        u32 prefixes = arbor_warp_ballot(ready && status_prefix(s));
        int p = prefixes != 0 ? arbor_ffs((int)prefixes) - 1 : 32; /* the nearest prefix */
        int q = waiting != 0 ? arbor_ffs((int)waiting) - 1 : 32;   /* the nearest word not yet published */
        int take = q <= p ? q : p + 1;
        excl += arbor_warp_sum_i64((int)lane < take ? (i64)(s & 0x7fffffffu) : 0);
        if (q > p) {
            return excl;
        }
        end -= take;
    }
}
#endif

/* One launch per pass: keep bits, the tile's offset by decoupled look-back,
   the staged compaction and the next pass's argmax (into best, with tag,
   the next pass's). Work-groups take tiles in order from
   counter[epoch & 1], so every tile a group waits on belongs to a group
   that has already started; a group publishes its tile's kept count, stages
   its arcs, then sums its predecessors' words back to the first prefix and
   publishes its own prefix. Each work-item keeps its chunk in registers
   from the load to the staging, so the arcs come from memory once.
   counter[(epoch + 1) & 1] is zeroed for the next pass (no launch of this
   pass uses it); epochs start at 1 and grow by one a pass; status holds a
   word per tile of the largest pass and starts zeroed. counts[pass + 1]
   receives the number of kept arcs. stage: see STAGE_SRC, then 2 * size + 2
   i32. */
KERNEL void KERNEL_BOUNDS(256, 4) matchFilter(GLOBAL const i32* RESTRICT src, GLOBAL const u64* RESTRICT keys,
                        GLOBAL const u32* RESTRICT matched, GLOBAL u64* status, GLOBAL i32* counter,
                        GLOBAL i32* RESTRICT newSrc, GLOBAL u64* RESTRICT newKeys, GLOBAL u64* RESTRICT best,
                        GLOBAL i64* counts, const i32 pass, const i32 epoch, const u64 tag, LOCAL_PTR(u64, stage))
{
    LOCAL_BIND(u64, stage);
    size_t lid = get_local_id(0);
    size_t size = get_local_size(0);
    i64 m = counts[pass];
    i64 chunks = num_chunks(m);
    i64 tiles = num_tiles(chunks, size);
    LOCAL_REF(u64) stageKeys = stage;
    LOCAL_REF(u64) slots = STAGE_SLOTS(stage, size);
    LOCAL_REF(i32) stageSrc = STAGE_SRC(stage, size);
    LOCAL_REF(i32) scratch = stageSrc + size * MATCH_CHUNK;
    LOCAL_REF(i32) shared = scratch + 2 * size; /* [0]: the tile, [1]: its exclusive offset */
    if (get_group_id(0) == 0 && lid == 0) {
        counter[(epoch + 1) & 1] = 0;
        if (tiles == 0) {
            counts[pass + 1] = 0;
        }
    }
    for (;;) {
        if (lid == 0) {
            shared[0] = ATOMIC_ADD_I32(&counter[epoch & 1], 1);
        }
        BARRIER();
        i64 tile = shared[0]; /* read before the scan's barriers; rewritten after the last one */
        if (tile >= tiles) {
            break;
        }
        i64 tlo = tile_lo(tile, size), thi = tile_hi(tile, size, m);
        i32 tileFirst = src[tlo], tileLast = src[thi - 1];
        i64 c = tile * (i64)size + (i64)lid;
        i64 lo = c * MATCH_CHUNK;
        i64 hi = chunk_end(lo, m);
        u32 bits = 0;
        i32 cs[MATCH_CHUNK];
        u64 ck[MATCH_CHUNK];
        i32 prev = -1, next = -1;
        if (c < chunks) {
            prev = lo > 0 ? src[lo - 1] : -1;
            next = hi < m ? src[hi] : -1;
            bits = load_live_chunk(src, keys, matched, lo, hi, cs, ck);
        }
        /* After the chunk's loads (zeroing waits for tileFirst and
           tileLast); the scan's barrier orders it before chunk_maxima. */
        zero_slots(slots, tileFirst, tileLast, lid, size);
        i32 agg;
        i32 rank = group_scan_i32(scratch, POPCOUNT32(bits), lid, size, &agg);
        if (lid == 0) {
            ATOMIC_MAX_U64(&status[tile], match_status(epoch, tile == 0 ? MATCH_STATUS_PREFIX : MATCH_STATUS_AGGREGATE, agg));
        }
        if (bits != 0) {
            stage_kept(cs, ck, bits, rank, stageSrc, stageKeys);
            chunk_maxima(cs, ck, bits, prev, next, best, tag, tileFirst, tileLast, slots);
        }
        i64 excl = -1;
#if ARBOR_WARP_SIZE == 32
        if ((size & 31) == 0) {
            if (lid < 32) {
                excl = tile > 0 ? look_back_warp(status, tile, epoch, (u32)lid) : 0;
            }
        } else
#endif
        if (lid == 0) {
            excl = tile > 0 ? look_back_item(status, tile, epoch) : 0;
        }
        if (lid == 0) {
            if (tile > 0) {
                ATOMIC_MAX_U64(&status[tile], match_status(epoch, MATCH_STATUS_PREFIX, excl + agg));
            }
            if (tile == tiles - 1) {
                counts[pass + 1] = excl + agg;
            }
            shared[1] = (i32)excl;
        }
        BARRIER();
        flush_slots(best, tag, slots, tileFirst, tileLast, tlo > 0 ? src[tlo - 1] : -1, thi < m ? src[thi] : -1, lid,
                    size);
        i64 base = shared[1];
        for (i32 i = (i32)lid; i < agg; i += (i32)size) {
            newSrc[base + i] = stageSrc[i];
            newKeys[base + i] = stageKeys[i];
        }
        BARRIER();
    }
}
