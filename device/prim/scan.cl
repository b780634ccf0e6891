/* scan.cl: work-efficient reduce-then-scan over work-group tiles, and the
   tile reduction that also serves plain reductions.

   A tile is get_local_size(0) * per_item consecutive elements; work-group g
   owns tile g. A scan of n elements is
     1. scan_reduce_OP: partials[g] = OP over tile g;
     2. the partials scanned exclusively (recursively, by the host);
     3. scan_down_OP: each group scans its tile in local memory and adds
        offsets[g] (when use_offsets), writing every element once.
   Every group reads its own tile before writing it, so in and out may be the
   same buffer. No group ever waits for another, so the scan needs no
   forward-progress guarantee between work-groups (PoCL gives none).

   OP is sum (accumulated in 64 bits, so the total is exact and a 32-bit
   result wraps like sequential 32-bit addition) or max. Integer sum and max
   are associative and commutative, so the result does not depend on the
   order of combination: it equals the sequential one bit for bit.
   The work-group size must be a power of two. */

#define SCAN_OP_SUM(a, b) ((a) + (b))
/* Tile slot of element t: one pad slot per 32 keeps the per-item serial
   loops (stride per_item) free of local-memory bank conflicts. The host
   sizes the tile for SCAN_PAD(tile - 1) + 1 elements. */
#define SCAN_PAD(t) ((t) + ((t) >> 5))
#define SCAN_OP_MAX(a, b) ((a) > (b) ? (a) : (b))

#define SCAN_KERNELS(NAME, T, ACC, IDENT, OP)                                                           \
KERNEL void scan_reduce_##NAME(GLOBAL const T* RESTRICT in, const i64 n, const i32 per_item,            \
                               GLOBAL ACC* RESTRICT partials, LOCAL_PTR(ACC, sums))                     \
{                                                                                                       \
    LOCAL_BIND(ACC, sums);                                                                              \
    size_t lid = get_local_id(0);                                                                       \
    size_t size = get_local_size(0);                                                                    \
    size_t base = (size_t)get_group_id(0) * size * (size_t)per_item;                                    \
    ACC acc = IDENT;                                                                                    \
    for (i32 j = 0; j < per_item; j++) {                                                                \
        size_t i = base + (size_t)j * size + lid;                                                       \
        if (i < (size_t)n) {                                                                            \
            acc = OP(acc, (ACC)in[i]);                                                                  \
        }                                                                                               \
    }                                                                                                   \
    sums[lid] = acc;                                                                                    \
    BARRIER();                                                                                          \
    for (size_t s = size >> 1; s > 0; s >>= 1) {                                                        \
        if (lid < s) {                                                                                  \
            sums[lid] = OP(sums[lid], sums[lid + s]);                                                   \
        }                                                                                               \
        BARRIER();                                                                                      \
    }                                                                                                   \
    if (lid == 0) {                                                                                     \
        partials[get_group_id(0)] = sums[0];                                                            \
    }                                                                                                   \
}                                                                                                       \
                                                                                                        \
KERNEL void scan_down_##NAME(GLOBAL const T* in, GLOBAL T* out, const i64 n, const i32 per_item,        \
                             GLOBAL const ACC* offsets, const i32 use_offsets,                          \
                             const i32 inclusive, GLOBAL ACC* total,                                    \
                             LOCAL_PTR(T, tile), LOCAL_PTR(ACC, sums))                                  \
{                                                                                                       \
    LOCAL_BIND(T, tile);                                                                                \
    LOCAL_BIND(ACC, sums);                                                                              \
    size_t lid = get_local_id(0);                                                                       \
    size_t size = get_local_size(0);                                                                    \
    size_t group = get_group_id(0);                                                                     \
    size_t k = (size_t)per_item;                                                                        \
    size_t base = group * size * k;                                                                     \
    /* Coalesced load; the padding past n is the identity. */                                           \
    for (size_t j = 0; j < k; j++) {                                                                    \
        size_t t = j * size + lid;                                                                      \
        tile[SCAN_PAD(t)] = base + t < (size_t)n ? in[base + t] : (T)(IDENT);                           \
    }                                                                                                   \
    BARRIER();                                                                                          \
    /* Each item owns k consecutive elements of the tile. */                                            \
    ACC acc = IDENT;                                                                                    \
    for (size_t j = 0; j < k; j++) {                                                                    \
        acc = OP(acc, (ACC)tile[SCAN_PAD(lid * k + j)]);                                                \
    }                                                                                                   \
    sums[lid] = acc;                                                                                    \
    BARRIER();                                                                                          \
    /* Exclusive scan of the per-item sums: up-sweep, then down-sweep. */                               \
    for (size_t d = 1; d < size; d <<= 1) {                                                             \
        size_t idx = (lid + 1) * 2 * d - 1;                                                             \
        if (idx < size) {                                                                               \
            sums[idx] = OP(sums[idx - d], sums[idx]);                                                   \
        }                                                                                               \
        BARRIER();                                                                                      \
    }                                                                                                   \
    ACC tile_total = sums[size - 1];                                                                    \
    BARRIER();                                                                                          \
    if (lid == 0) {                                                                                     \
        sums[size - 1] = IDENT;                                                                         \
    }                                                                                                   \
    BARRIER();                                                                                          \
    for (size_t d = size >> 1; d > 0; d >>= 1) {                                                        \
        size_t idx = (lid + 1) * 2 * d - 1;                                                             \
        if (idx < size) {                                                                               \
            ACC left = sums[idx - d];                                                                   \
            sums[idx - d] = sums[idx];                                                                  \
            sums[idx] = OP(sums[idx], left);                                                            \
        }                                                                                               \
        BARRIER();                                                                                      \
    }                                                                                                   \
    ACC offset = use_offsets ? offsets[group] : (ACC)(IDENT);                                           \
    ACC run = OP(offset, sums[lid]);                                                                    \
    for (size_t j = 0; j < k; j++) {                                                                    \
        size_t t = SCAN_PAD(lid * k + j);                                                               \
        ACC v = (ACC)tile[t];                                                                           \
        if (inclusive) {                                                                                \
            run = OP(run, v);                                                                           \
            tile[t] = (T)run;                                                                           \
        } else {                                                                                        \
            tile[t] = (T)run;                                                                           \
            run = OP(run, v);                                                                           \
        }                                                                                               \
    }                                                                                                   \
    BARRIER();                                                                                          \
    for (size_t j = 0; j < k; j++) {                                                                    \
        size_t t = j * size + lid;                                                                      \
        if (base + t < (size_t)n) {                                                                     \
            out[base + t] = tile[SCAN_PAD(t)];                                                          \
        }                                                                                               \
    }                                                                                                   \
    if (lid == 0 && group == get_num_groups(0) - 1) {                                                   \
        total[0] = OP(offset, tile_total);                                                              \
    }                                                                                                   \
}

#define SCAN_I32_MIN (-2147483647 - 1)
#define SCAN_I64_MIN (-(i64)9223372036854775807 - (i64)1)

SCAN_KERNELS(sum_i32, i32, i64, 0, SCAN_OP_SUM)
SCAN_KERNELS(sum_u32, u32, i64, 0, SCAN_OP_SUM)
SCAN_KERNELS(sum_i64, i64, i64, 0, SCAN_OP_SUM)
SCAN_KERNELS(max_i32, i32, i32, SCAN_I32_MIN, SCAN_OP_MAX)
SCAN_KERNELS(max_i64, i64, i64, SCAN_I64_MIN, SCAN_OP_MAX)
SCAN_KERNELS(max_u64, u64, u64, 0, SCAN_OP_MAX)
