/* argmax.cl: deterministic argmax. A value v at index i becomes the word
   arbor_pack_max(v, i) (prelude): the larger value wins and, among equal
   values, the smaller index. The maximum of those words is therefore the
   same on every device whatever the order of combination, which makes the
   result reproducible bit for bit. The word 0 means "no element".
   The work-group size must be a power of two (arbor_group_max_u64, in the
   prelude, is the per-group step). */

/* argmax_pack_i32: out[i] = arbor_pack_max(values[i], i), the input of a
   prefix maximum (scan.cl's max_u64) or of argmax_groups_u64. */
KERNEL void argmax_pack_i32(GLOBAL const i32* RESTRICT values, const i64 n, GLOBAL u64* RESTRICT out)
{
    for (size_t i = get_global_id(0); i < (size_t)n; i += get_global_size(0)) {
        out[i] = arbor_pack_max(values[i], (u32)i);
    }
}

/* argmax_groups_i32: partials[g] = the packed argmax of the elements group g
   visits in a grid-stride loop. */
KERNEL void argmax_groups_i32(GLOBAL const i32* RESTRICT values, const i64 n, GLOBAL u64* RESTRICT partials,
                              LOCAL_PTR(u64, scratch))
{
    LOCAL_BIND(u64, scratch);
    u64 m = 0;
    for (size_t i = get_global_id(0); i < (size_t)n; i += get_global_size(0)) {
        u64 p = arbor_pack_max(values[i], (u32)i);
        m = ARBOR_MAX(m, p);
    }
    m = arbor_group_max_u64(scratch, m);
    if (get_local_id(0) == 0) {
        partials[get_group_id(0)] = m;
    }
}

/* argmax_groups_u64: the same over words already packed. */
KERNEL void argmax_groups_u64(GLOBAL const u64* RESTRICT in, const i64 n, GLOBAL u64* RESTRICT partials,
                              LOCAL_PTR(u64, scratch))
{
    LOCAL_BIND(u64, scratch);
    u64 m = 0;
    for (size_t i = get_global_id(0); i < (size_t)n; i += get_global_size(0)) {
        m = ARBOR_MAX(m, in[i]);
    }
    m = arbor_group_max_u64(scratch, m);
    if (get_local_id(0) == 0) {
        partials[get_group_id(0)] = m;
    }
}

#if ARBOR_ATOMICS64
/* argmax_atomic_i32: one pass; each group folds its maximum into result[0]
   (which the host zeroes) with a 64-bit atomic max. */
KERNEL void argmax_atomic_i32(GLOBAL const i32* RESTRICT values, const i64 n, GLOBAL u64* RESTRICT result,
                              LOCAL_PTR(u64, scratch))
{
    LOCAL_BIND(u64, scratch);
    u64 m = 0;
    for (size_t i = get_global_id(0); i < (size_t)n; i += get_global_size(0)) {
        u64 p = arbor_pack_max(values[i], (u32)i);
        m = ARBOR_MAX(m, p);
    }
    m = arbor_group_max_u64(scratch, m);
    if (get_local_id(0) == 0 && m != 0) {
        ATOMIC_MAX_U64(result, m);
    }
}
#endif

/* argmax_rows_i32: one work-group per row (group-stride over rows) — the
   vertex-cover branching step, where a group owns one search-tree node.
   Row r is values[r*stride .. r*stride + cols); index[r] is the column of
   its largest value (smallest column on ties, -1 for an empty row) and
   value[r] that value (INT_MIN for an empty row). */
KERNEL void argmax_rows_i32(GLOBAL const i32* RESTRICT values, const i32 rows, const i32 cols, const i64 stride,
                            GLOBAL i32* RESTRICT index, GLOBAL i32* RESTRICT value, LOCAL_PTR(u64, scratch))
{
    LOCAL_BIND(u64, scratch);
    for (size_t r = get_group_id(0); r < (size_t)rows; r += get_num_groups(0)) {
        GLOBAL const i32* row = values + r * (size_t)stride;
        u64 m = 0;
        for (size_t j = get_local_id(0); j < (size_t)cols; j += get_local_size(0)) {
            u64 p = arbor_pack_max(row[j], (u32)j);
            m = ARBOR_MAX(m, p);
        }
        m = arbor_group_max_u64(scratch, m);
        if (get_local_id(0) == 0) {
            index[r] = arbor_packed_index(m);
            value[r] = arbor_packed_key(m);
        }
    }
}
