/* vec_add: c[i] = a[i] + scale*b[i] for i < n. The trivial kernel that
   exercises buffers, scalar arguments and rounding of the global size.
   group_sum: each work-group sums its slice of a into sums[group] through
   dynamic local memory and barriers (a tree reduction), which exercises
   local memory, barriers and group ids. The group size must be a power of two. */

KERNEL void vec_add(GLOBAL const i32* RESTRICT a, GLOBAL const i32* RESTRICT b, GLOBAL i32* RESTRICT c,
                    const i32 n, const i32 scale)
{
    size_t i = get_global_id(0);
    if (i < (size_t)n) {
        c[i] = a[i] + scale * b[i];
    }
}

KERNEL void group_sum(GLOBAL const i32* RESTRICT a, GLOBAL i64* RESTRICT sums, const i32 n, LOCAL_PTR(i64, scratch))
{
    LOCAL_BIND(i64, scratch);
    size_t lid = get_local_id(0);
    size_t gid = get_global_id(0);
    size_t size = get_local_size(0);
    scratch[lid] = gid < (size_t)n ? (i64)a[gid] : 0;
    BARRIER();
    for (size_t s = size / 2; s > 0; s >>= 1) {
        if (lid < s) {
            scratch[lid] += scratch[lid + s];
        }
        BARRIER();
    }
    if (lid == 0) {
        sums[get_group_id(0)] = scratch[0];
    }
}
