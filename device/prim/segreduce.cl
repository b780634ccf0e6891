/* segreduce.cl: reduction of every CSR segment. Segment s is
   values[offsets[s] .. offsets[s+1]); its sum (64-bit), its largest value
   and that value's arc index (the smallest among equals, through the packed
   argmax word of the prelude) are written where want asks (bit 0 sums,
   bit 1 maxes, bit 2 argmax). An empty segment has sum 0, max INT_MIN and
   argmax -1.
   `lanes` work-items (a power of two dividing the group size) share one
   segment: 1 for very short segments, up to the group size for long ones.
   Groups loop over the segments, so any launch size covers any count. */

KERNEL void segreduce_i32(GLOBAL const i32* RESTRICT offsets, GLOBAL const i32* RESTRICT values, const i32 segments,
                          const i32 lanes, const i32 want, GLOBAL i64* RESTRICT sums, GLOBAL i32* RESTRICT maxes,
                          GLOBAL i32* RESTRICT argmax, LOCAL_PTR(i64, lsum), LOCAL_PTR(u64, lmax))
{
    LOCAL_BIND(i64, lsum);
    LOCAL_BIND(u64, lmax);
    size_t lid = get_local_id(0);
    size_t w = (size_t)lanes;
    size_t lane = lid % w;
    size_t per_group = get_local_size(0) / w;
    for (size_t first = get_group_id(0) * per_group; first < (size_t)segments; first += get_num_groups(0) * per_group) {
        size_t seg = first + lid / w;
        i64 s = 0;
        u64 m = 0;
        if (seg < (size_t)segments) {
            i32 end = offsets[seg + 1];
            for (i32 a = offsets[seg] + (i32)lane; a < end; a += lanes) {
                i32 v = values[a];
                u64 p = arbor_pack_max(v, (u32)a);
                s += v;
                m = ARBOR_MAX(m, p);
            }
        }
        lsum[lid] = s;
        lmax[lid] = m;
        BARRIER();
        for (size_t h = w >> 1; h > 0; h >>= 1) {
            if (lane < h) {
                lsum[lid] += lsum[lid + h];
                lmax[lid] = ARBOR_MAX(lmax[lid], lmax[lid + h]);
            }
            BARRIER();
        }
        if (lane == 0 && seg < (size_t)segments) {
            if (want & 1) {
                sums[seg] = lsum[lid];
            }
            if (want & 2) {
                maxes[seg] = arbor_packed_key(lmax[lid]);
            }
            if (want & 4) {
                argmax[seg] = arbor_packed_index(lmax[lid]);
            }
        }
        BARRIER();
    }
}
