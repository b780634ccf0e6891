/* bitset.cl: intersect-and-count, McSplit's bidomain filtering. Row r of
   `rows` is the bitset rows[r*row_stride .. r*row_stride + words) and is
   matched with mask[r*mask_stride ..] (mask_stride 0: one mask for every
   row; row_stride: a second array of rows). counts[r] is the number of bits
   set in both. `lanes` work-items (a power of two dividing the group size)
   share one row; groups loop over the rows. */

KERNEL void bitset_and_count(GLOBAL const u64* RESTRICT rows, const i32 nrows, const i32 words, const i64 row_stride,
                             GLOBAL const u64* RESTRICT mask, const i64 mask_stride, const i32 lanes,
                             GLOBAL i32* RESTRICT counts, LOCAL_PTR(i32, scratch))
{
    LOCAL_BIND(i32, scratch);
    size_t lid = get_local_id(0);
    size_t w = (size_t)lanes;
    size_t lane = lid % w;
    size_t per_group = get_local_size(0) / w;
    for (size_t first = get_group_id(0) * per_group; first < (size_t)nrows; first += get_num_groups(0) * per_group) {
        size_t r = first + lid / w;
        i32 c = 0;
        if (r < (size_t)nrows) {
            GLOBAL const u64* row = rows + r * (size_t)row_stride;
            GLOBAL const u64* m = mask + r * (size_t)mask_stride;
            for (size_t j = lane; j < (size_t)words; j += w) {
                c += POPCOUNT64(row[j] & m[j]);
            }
        }
        scratch[lid] = c;
        BARRIER();
        for (size_t h = w >> 1; h > 0; h >>= 1) {
            if (lane < h) {
                scratch[lid] += scratch[lid + h];
            }
            BARRIER();
        }
        if (lane == 0 && r < (size_t)nrows) {
            counts[r] = scratch[lid];
        }
        BARRIER();
    }
}
