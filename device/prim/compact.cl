/* compact.cl: stable stream compaction. compact_mark turns flags into 0/1,
   the host scans them exclusively into positions (scan.cl), and the scatter
   kernels move each kept element i to pos[i]. Every kernel is a grid-stride
   loop, so any launch size covers any n. */

KERNEL void compact_mark(GLOBAL const i32* RESTRICT flags, const i64 n, GLOBAL i32* RESTRICT pos)
{
    for (size_t i = get_global_id(0); i < (size_t)n; i += get_global_size(0)) {
        pos[i] = flags[i] != 0 ? 1 : 0;
    }
}

KERNEL void compact_scatter4(GLOBAL const i32* RESTRICT flags, GLOBAL const i32* RESTRICT pos, const i64 n,
                             GLOBAL const u32* RESTRICT src, GLOBAL u32* RESTRICT dst)
{
    for (size_t i = get_global_id(0); i < (size_t)n; i += get_global_size(0)) {
        if (flags[i] != 0) {
            dst[pos[i]] = src[i];
        }
    }
}

KERNEL void compact_scatter8(GLOBAL const i32* RESTRICT flags, GLOBAL const i32* RESTRICT pos, const i64 n,
                             GLOBAL const u64* RESTRICT src, GLOBAL u64* RESTRICT dst)
{
    for (size_t i = get_global_id(0); i < (size_t)n; i += get_global_size(0)) {
        if (flags[i] != 0) {
            dst[pos[i]] = src[i];
        }
    }
}

/* compact_index writes the indices of the kept elements. */
KERNEL void compact_index(GLOBAL const i32* RESTRICT flags, GLOBAL const i32* RESTRICT pos, const i64 n,
                          GLOBAL i32* RESTRICT dst)
{
    for (size_t i = get_global_id(0); i < (size_t)n; i += get_global_size(0)) {
        if (flags[i] != 0) {
            dst[pos[i]] = (i32)i;
        }
    }
}
