package device

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/arbor-gpu/arbor/backend"
)

//go:embed *.cl
var files embed.FS

func init() { RegisterSources("device", files) }

// Dialect is the language a backend compiles.
type Dialect string

const (
	OpenCL Dialect = "opencl"
	CUDA   Dialect = "cuda"
	Go     Dialect = "cpu" // the CPU backend: the source is shown, the twin runs
)

// DialectOf says which prelude a device needs.
func DialectOf(info backend.Info) Dialect {
	switch info.Backend {
	case "cuda":
		return CUDA
	case "opencl":
		return OpenCL
	}
	return Go
}

// The preludes map one vocabulary onto both compilers. Kernel sources use:
//
//	KERNEL, GLOBAL, LOCAL (static local arrays), CONSTANT, INLINE, RESTRICT;
//	KERNEL_BOUNDS(threads, blocks) between KERNEL void and the name: the
//	kernel is never launched with more than threads work-items a group, and
//	the compiler should fit blocks groups on a multiprocessor (CUDA's
//	launch bounds: it caps the registers; nothing in OpenCL);
//	get_global_id/get_local_id/get_group_id/get_local_size/get_num_groups/
//	get_global_size (dimension 0..2);
//	BARRIER() (local and global fence within a work-group);
//	LOCAL_PTR(type, name) as a kernel parameter for dynamic local memory and
//	LOCAL_BIND(type, name) as the first statement that uses it;
//	LOCAL_REF(type) as the type of a helper function's parameter that points
//	into local memory (__local type* in OpenCL, a plain pointer in CUDA);
//	i32 u32 i64 u64 (and uint, ulong);
//	atomics: ATOMIC_ADD_I32/U32, ATOMIC_MIN_I32, ATOMIC_MAX_I32, ATOMIC_CAS_I32/U32,
//	and, where ARBOR_ATOMICS64 is 1, ATOMIC_ADD_U64, ATOMIC_MIN_U64, ATOMIC_MAX_U64, ATOMIC_CAS_U64
//	and LOCAL_ATOMIC_MAX_U64 (on local memory).
//	Each returns the old value, as both APIs do.
//	LOCAL_ATOMIC_OR_U32 (on local memory); GLOBAL_FENCE(): orders this
//	work-item's global writes before its later ones, device-wide (publish
//	data, fence, then set the flag that announces it);
//	POPCOUNT32(x), POPCOUNT64(x): set bits of a 32/64-bit word, as an i32;
//	CTZ64(x): the index of the lowest set bit of a non-zero word;
//	i32x4 and u64x2 (16-byte vectors with members .x .y [.z .w]) and
//	LOAD_VEC(type, p, i): the i-th 16-byte vector of global array p, which
//	must be 16-byte aligned there (one wide load where scalar loads would
//	take four or two instructions);
//	ARBOR_MIN(a, b), ARBOR_MAX(a, b);
//	ARBOR_WARP_SIZE: 32 where warp primitives exist (CUDA), else 0; then
//	arbor_warp_inclusive_i32(x, lane), arbor_warp_sum_i64(x),
//	arbor_warp_ballot(pred) (a u32 lane mask) and arbor_ffs(x) (1 + the
//	lowest set bit, 0 for none), which every lane of the warp must call
//	together; a kernel keeps a plain work-group path for the others;
//	sub-group operations, where ARBOR_SG_WARP (LANES work-items are one
//	whole sub-group of the path device/subgroup.go picked): arbor_sg_lane(),
//	arbor_sg_ballot(pred) (a u64 lane mask: 32 or 64 lanes),
//	arbor_sg_any(pred), arbor_sg_shfl_u64/i32(x, src),
//	arbor_sg_sum_i32(x), arbor_sg_min_u64(x), arbor_sg_inclusive_i32(x);
//	every lane calls them together; kernels keep a work-group route (local
//	memory and barriers) for #if !ARBOR_SG_WARP;
//	arbor_pack_max(key, index) -> u64 and arbor_packed_key/arbor_packed_index:
//	the deterministic argmax word (a larger key wins, equal keys go to the
//	smaller index), so max over packed words is an argmax with ties broken
//	the same way on every device; the word 0 means "nothing" and unpacks to
//	(key INT_MIN, index -1);
//	arbor_group_max_u64(LOCAL_REF(u64) s, v) and arbor_group_sum_i64(LOCAL_REF(i64) s, v):
//	the maximum / sum of v over the work-group (dimension 0, power-of-two
//	size), returned to every work-item, through one local slot per item;
//	with packed words, arbor_group_max_u64 is the per-group argmax.
const openclPrelude = `/* Arbor prelude: OpenCL C */
#define ARBOR_OPENCL 1
#if defined(cl_khr_int64_base_atomics) && defined(cl_khr_int64_extended_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#endif
#define KERNEL __kernel
#define KERNEL_BOUNDS(threads, blocks)
#define GLOBAL __global
#define LOCAL __local
#define CONSTANT __constant
#define INLINE static inline
#define RESTRICT restrict
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define LOCAL_PTR(type, name) __local type* name
#define LOCAL_BIND(type, name)
typedef int i32;
typedef uint u32;
typedef long i64;
typedef ulong u64;
#define ATOMIC_ADD_I32(p, v) atomic_add((volatile __global int*)(p), (v))
#define ATOMIC_ADD_U32(p, v) atomic_add((volatile __global uint*)(p), (v))
#define ATOMIC_MIN_I32(p, v) atomic_min((volatile __global int*)(p), (v))
#define ATOMIC_MAX_I32(p, v) atomic_max((volatile __global int*)(p), (v))
#define ATOMIC_CAS_I32(p, c, v) atomic_cmpxchg((volatile __global int*)(p), (c), (v))
#define ATOMIC_CAS_U32(p, c, v) atomic_cmpxchg((volatile __global uint*)(p), (c), (v))
#define LOCAL_ATOMIC_ADD_I32(p, v) atomic_add((volatile __local int*)(p), (v))
#define LOCAL_ATOMIC_OR_U32(p, v) atomic_or((volatile __local uint*)(p), (v))
#if ARBOR_NVIDIA
/* NVIDIA's OpenCL compiles mem_fence to a work-group-scope fence
   (membar.cta): a task one work-group writes into the ring and another
   takes was then read half stale on the H100 (mappings with a vertex
   matched twice), while CUDA's __threadfence (membar.gl) was right. */
#define GLOBAL_FENCE() asm volatile("membar.gl;" ::: "memory")
#else
#define GLOBAL_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif
#if ARBOR_ATOMICS64
#define ATOMIC_ADD_U64(p, v) atom_add((volatile __global ulong*)(p), (v))
#define ATOMIC_MIN_U64(p, v) atom_min((volatile __global ulong*)(p), (v))
#define ATOMIC_MAX_U64(p, v) atom_max((volatile __global ulong*)(p), (v))
#define ATOMIC_CAS_U64(p, c, v) atom_cmpxchg((volatile __global ulong*)(p), (c), (v))
#define LOCAL_ATOMIC_MAX_U64(p, v) atom_max((volatile __local ulong*)(p), (v))
#endif
#define ARBOR_WARP_SIZE 0
#define LOCAL_REF(type) __local type*
#define POPCOUNT32(x) ((i32)popcount((uint)(x)))
#define POPCOUNT64(x) ((i32)popcount((ulong)(x)))
typedef int4 i32x4;
typedef ulong2 u64x2;
#define LOAD_VEC(type, p, i) (((__global const type*)(p))[i])
/* Sub-group operations (device/subgroup.go picks the path from the
   device's extensions: ARBOR_SUBGROUP 2 = cl_khr_subgroups, 3 = inline PTX
   on NVIDIA's OpenCL, 0 = none, the kernels' work-group route). */
#if ARBOR_SUBGROUP == 2
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#if ARBOR_SG_KHR_BALLOT
#pragma OPENCL EXTENSION cl_khr_subgroup_ballot : enable
#endif
#if ARBOR_SG_KHR_SHUFFLE
#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle : enable
#endif
#define arbor_sg_lane() ((u32)get_sub_group_local_id())
#if ARBOR_SG_KHR_BALLOT
INLINE u64 arbor_sg_ballot(int p)
{
    const uint4 b = sub_group_ballot(p);
    return (u64)b.x | (u64)b.y << 32;
}
#else
/* One bit per lane, so the sum is the OR (at most 64 lanes). */
INLINE u64 arbor_sg_ballot(int p) { return sub_group_reduce_add(p ? (ulong)1 << get_sub_group_local_id() : (ulong)0); }
#endif
#define arbor_sg_any(p) sub_group_any((int)(p))
#if ARBOR_SG_KHR_SHUFFLE
#define arbor_sg_shfl_u64(x, src) sub_group_shuffle((ulong)(x), (uint)(src))
#define arbor_sg_shfl_i32(x, src) sub_group_shuffle((int)(x), (uint)(src))
#else
/* Without cl_khr_subgroup_shuffle: a broadcast, which needs the same
   source lane on every lane; every use in the kernels has it. */
#define arbor_sg_shfl_u64(x, src) sub_group_broadcast((ulong)(x), (uint)(src))
#define arbor_sg_shfl_i32(x, src) sub_group_broadcast((int)(x), (uint)(src))
#endif
#define arbor_sg_sum_i32(x) sub_group_reduce_add((int)(x))
#define arbor_sg_min_u64(x) sub_group_reduce_min((ulong)(x))
#define arbor_sg_inclusive_i32(x) sub_group_scan_inclusive_add((int)(x))
#elif ARBOR_SUBGROUP == 4
/* The local-memory emulation (ARBOR_SUBGROUPS=local, for testing): the
   worker's work-items are the sub-group, and every operation is an
   exchange through the kernel's ARBOR_SG_SCRATCH array between two
   barriers. It runs the kernels' sub-group code on devices without
   sub-groups (PoCL in CI); the search layer's reductions keep their own
   work-group form on it. */
#define ARBOR_SG_SCRATCH LOCAL u64 arbor_sg_s[LANES]
#define arbor_sg_lane() ((u32)get_local_id(0))
INLINE u64 arbor_sgl_ballot(LOCAL_REF(u64) s, int p)
{
    const u32 l = (u32)get_local_id(0);
    s[l] = p ? (u64)1 << l : (u64)0;
    BARRIER();
    u64 m = 0;
    for (u32 i = 0; i < (u32)get_local_size(0); i++) {
        m |= s[i];
    }
    BARRIER();
    return m;
}
INLINE u64 arbor_sgl_shfl(LOCAL_REF(u64) s, u64 x, u32 src)
{
    s[get_local_id(0)] = x;
    BARRIER();
    const u64 r = s[src];
    BARRIER();
    return r;
}
/* The sum of lanes 0 .. lane (all: the lanes' total). The loop runs the
   same count on every work-item: PoCL 3.1 ran a loop bounded by
   get_local_id(0) after a barrier to the last work-item's bound on all
   of them. */
INLINE i64 arbor_sgl_scan(LOCAL_REF(u64) s, i64 x, int all)
{
    const u32 l = (u32)get_local_id(0);
    s[l] = (u64)x;
    BARRIER();
    i64 r = 0;
    for (u32 i = 0; i < (u32)get_local_size(0); i++) {
        if (all || i <= l) {
            r += (i64)s[i];
        }
    }
    BARRIER();
    return r;
}
INLINE u64 arbor_sgl_min(LOCAL_REF(u64) s, u64 x)
{
    s[get_local_id(0)] = x;
    BARRIER();
    u64 r = s[0];
    for (u32 i = 1; i < (u32)get_local_size(0); i++) {
        r = s[i] < r ? s[i] : r;
    }
    BARRIER();
    return r;
}
#define arbor_sg_ballot(p) arbor_sgl_ballot(arbor_sg_s, (p))
#define arbor_sg_any(p) (arbor_sgl_ballot(arbor_sg_s, (p)) != 0)
#define arbor_sg_shfl_u64(x, src) arbor_sgl_shfl(arbor_sg_s, (u64)(x), (u32)(src))
#define arbor_sg_shfl_i32(x, src) ((i32)arbor_sgl_shfl(arbor_sg_s, (u64)(i64)(x), (u32)(src)))
#define arbor_sg_sum_i32(x) ((i32)arbor_sgl_scan(arbor_sg_s, (i64)(x), 1))
#define arbor_sg_min_u64(x) arbor_sgl_min(arbor_sg_s, (u64)(x))
#define arbor_sg_inclusive_i32(x) ((i32)arbor_sgl_scan(arbor_sg_s, (i64)(x), 0))
#elif ARBOR_SUBGROUP == 3
/* NVIDIA's OpenCL offers no sub-group extension, but its compiler takes
   inline PTX (as GLOBAL_FENCE does): the warp's own vote and shuffle. A
   worker is one full warp (LANES == 32), so the member mask is all ones. */
INLINE u32 arbor_sg_lane(void) { return (u32)get_local_id(0) & 31u; }
INLINE u64 arbor_sg_ballot(int p)
{
    uint r;
    asm volatile("{ .reg .pred q; setp.ne.s32 q, %1, 0; vote.sync.ballot.b32 %0, q, 0xffffffff; }" : "=r"(r) : "r"(p));
    return (u64)r;
}
#define arbor_sg_any(p) (arbor_sg_ballot(p) != 0)
INLINE u32 arbor_ptx_shfl_idx(u32 x, u32 src)
{
    uint r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(src));
    return r;
}
INLINE u32 arbor_ptx_shfl_xor(u32 x, u32 m)
{
    uint r;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(m));
    return r;
}
INLINE u32 arbor_ptx_shfl_up(u32 x, u32 d)
{
    uint r;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0x0, 0xffffffff;" : "=r"(r) : "r"(x), "r"(d));
    return r;
}
INLINE u64 arbor_sg_shfl_u64(u64 x, u32 src) { return (u64)arbor_ptx_shfl_idx((u32)(x >> 32), src) << 32 | arbor_ptx_shfl_idx((u32)x, src); }
INLINE i32 arbor_sg_shfl_i32(i32 x, u32 src) { return (i32)arbor_ptx_shfl_idx((u32)x, src); }
INLINE i32 arbor_sg_sum_i32(i32 x)
{
    for (u32 d = 16; d > 0; d >>= 1) {
        x += (i32)arbor_ptx_shfl_xor((u32)x, d);
    }
    return x;
}
INLINE u64 arbor_sg_min_u64(u64 x)
{
    for (u32 d = 16; d > 0; d >>= 1) {
        const u64 o = (u64)arbor_ptx_shfl_xor((u32)(x >> 32), d) << 32 | arbor_ptx_shfl_xor((u32)x, d);
        x = o < x ? o : x;
    }
    return x;
}
INLINE i32 arbor_sg_inclusive_i32(i32 x)
{
    const u32 lane = arbor_sg_lane();
    for (u32 d = 1; d < 32; d <<= 1) {
        const i32 y = (i32)arbor_ptx_shfl_up((u32)x, d);
        if (lane >= d) {
            x += y;
        }
    }
    return x;
}
#endif
` + commonPrelude

const cudaPrelude = `/* Arbor prelude: CUDA (NVRTC) */
#define ARBOR_CUDA 1
#define KERNEL extern "C" __global__
#define KERNEL_BOUNDS(threads, blocks) __launch_bounds__(threads, blocks)
#define GLOBAL
#define LOCAL __shared__
#define CONSTANT
#define INLINE static __device__ __forceinline__
#define RESTRICT __restrict__
#define BARRIER() __syncthreads()
extern __shared__ __align__(16) unsigned char arbor_dynamic_local[];
/* Dynamic local memory: the backend passes each LOCAL_PTR parameter the
   byte offset of its slice of the block's dynamic shared memory. */
#define LOCAL_PTR(type, name) unsigned int name##_arbor_offset
#define LOCAL_BIND(type, name) type* name = (type*)(arbor_dynamic_local + name##_arbor_offset)
typedef int i32;
typedef unsigned int u32;
typedef unsigned int uint;
typedef long long i64;
typedef unsigned long long u64;
typedef unsigned long long ulong;
INLINE size_t get_global_id(int d) { return d == 0 ? (size_t)blockIdx.x * blockDim.x + threadIdx.x : d == 1 ? (size_t)blockIdx.y * blockDim.y + threadIdx.y : (size_t)blockIdx.z * blockDim.z + threadIdx.z; }
INLINE size_t get_local_id(int d) { return d == 0 ? threadIdx.x : d == 1 ? threadIdx.y : threadIdx.z; }
INLINE size_t get_group_id(int d) { return d == 0 ? blockIdx.x : d == 1 ? blockIdx.y : blockIdx.z; }
INLINE size_t get_local_size(int d) { return d == 0 ? blockDim.x : d == 1 ? blockDim.y : blockDim.z; }
INLINE size_t get_num_groups(int d) { return d == 0 ? gridDim.x : d == 1 ? gridDim.y : gridDim.z; }
INLINE size_t get_global_size(int d) { return get_num_groups(d) * get_local_size(d); }
#define ATOMIC_ADD_I32(p, v) atomicAdd((int*)(p), (v))
#define ATOMIC_ADD_U32(p, v) atomicAdd((unsigned int*)(p), (v))
#define ATOMIC_MIN_I32(p, v) atomicMin((int*)(p), (v))
#define ATOMIC_MAX_I32(p, v) atomicMax((int*)(p), (v))
#define ATOMIC_CAS_I32(p, c, v) atomicCAS((int*)(p), (c), (v))
#define ATOMIC_CAS_U32(p, c, v) atomicCAS((unsigned int*)(p), (c), (v))
#define LOCAL_ATOMIC_ADD_I32(p, v) atomicAdd((int*)(p), (v))
#define LOCAL_ATOMIC_OR_U32(p, v) atomicOr((unsigned int*)(p), (v))
#define GLOBAL_FENCE() __threadfence()
#define ATOMIC_ADD_U64(p, v) atomicAdd((unsigned long long*)(p), (v))
#define ATOMIC_MIN_U64(p, v) atomicMin((unsigned long long*)(p), (v))
#define ATOMIC_MAX_U64(p, v) atomicMax((unsigned long long*)(p), (v))
#define ATOMIC_CAS_U64(p, c, v) atomicCAS((unsigned long long*)(p), (c), (v))
#define LOCAL_ATOMIC_MAX_U64(p, v) atomicMax((unsigned long long*)(p), (v))
#define LOCAL_REF(type) type*
/* Warp primitives (all 32 lanes of the warp must take part). */
#define ARBOR_WARP_SIZE 32
INLINE i32 arbor_warp_inclusive_i32(i32 x, u32 lane)
{
    for (int d = 1; d < 32; d <<= 1) {
        i32 y = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= (u32)d) {
            x += y;
        }
    }
    return x;
}
INLINE i64 arbor_warp_sum_i64(i64 x)
{
    for (int d = 16; d > 0; d >>= 1) {
        x += __shfl_xor_sync(0xffffffffu, x, d);
    }
    return x;
}
#define arbor_warp_ballot(pred) __ballot_sync(0xffffffffu, (pred))
#define arbor_ffs(x) __ffs(x)
#define POPCOUNT32(x) ((i32)__popc((unsigned int)(x)))
#define POPCOUNT64(x) ((i32)__popcll((unsigned long long)(x)))
typedef int4 i32x4;
typedef ulonglong2 u64x2;
#define LOAD_VEC(type, p, i) (((const type*)(p))[i])
/* Sub-group operations on the CUDA path (ARBOR_SUBGROUP 1): a warp. */
#define arbor_sg_lane() (threadIdx.x & 31u)
#define arbor_sg_ballot(p) ((u64)__ballot_sync(0xffffffffu, (p)))
#define arbor_sg_any(p) __any_sync(0xffffffffu, (p))
#define arbor_sg_shfl_u64(x, src) ((u64)__shfl_sync(0xffffffffu, (unsigned long long)(x), (src)))
#define arbor_sg_shfl_i32(x, src) ((i32)__shfl_sync(0xffffffffu, (int)(x), (src)))
INLINE i32 arbor_sg_sum_i32(i32 x)
{
    for (int d = 16; d > 0; d >>= 1) {
        x += __shfl_xor_sync(0xffffffffu, x, d);
    }
    return x;
}
INLINE u64 arbor_sg_min_u64(u64 x)
{
    for (int d = 16; d > 0; d >>= 1) {
        const u64 o = __shfl_xor_sync(0xffffffffu, x, d);
        x = o < x ? o : x;
    }
    return x;
}
#define arbor_sg_inclusive_i32(x) arbor_warp_inclusive_i32((x), arbor_sg_lane())
` + commonPrelude

// commonPrelude is written in the shared vocabulary, after either dialect.
const commonPrelude = `#define ARBOR_MIN(a, b) ((a) < (b) ? (a) : (b))
/* ARBOR_SG_WARP: a worker of LANES work-items is one whole sub-group of
   the path the device takes, so the arbor_sg_* operations span exactly
   the worker's lanes (tested in #if after the kernel defines LANES).
   ARBOR_SG_SCRATCH; at the top of a kernel that uses them declares what
   the local-memory emulation needs (nothing on the other paths). */
#ifndef ARBOR_SG_SCRATCH
#define ARBOR_SG_SCRATCH
#endif
#define ARBOR_SG_WARP (ARBOR_SUBGROUP != 0 && LANES > 1 && ARBOR_SG_SIZE == LANES)
/* Index of the lowest set bit of a non-zero 64-bit word (OpenCL 1.2 has no ctz). */
#define CTZ64(x) POPCOUNT64(((x) & (~(x) + 1)) - 1)
#define ARBOR_MAX(a, b) ((a) > (b) ? (a) : (b))
/* Deterministic argmax word: key (sign flipped, so unsigned order is signed
   order) in the high half, the complement of the index in the low half. */
INLINE u64 arbor_pack_max(i32 key, u32 index) { return ((u64)((u32)key ^ 0x80000000u) << 32) | (u64)(~index); }
INLINE i32 arbor_packed_key(u64 p) { return (i32)((u32)(p >> 32) ^ 0x80000000u); }
INLINE i32 arbor_packed_index(u64 p) { return (i32)(~(u32)p); }
/* Work-group reductions over dimension 0 through local memory s (one slot
   per work-item; the group size a power of two): every work-item of the
   group must call them, and every one gets the result. s is free again
   when they return. */
INLINE u64 arbor_group_max_u64(LOCAL_REF(u64) s, u64 v)
{
    size_t lid = get_local_id(0);
    s[lid] = v;
    BARRIER();
    for (size_t h = get_local_size(0) >> 1; h > 0; h >>= 1) {
        if (lid < h) {
            s[lid] = ARBOR_MAX(s[lid], s[lid + h]);
        }
        BARRIER();
    }
    u64 r = s[0];
    BARRIER();
    return r;
}
INLINE i64 arbor_group_sum_i64(LOCAL_REF(i64) s, i64 v)
{
    size_t lid = get_local_id(0);
    s[lid] = v;
    BARRIER();
    for (size_t h = get_local_size(0) >> 1; h > 0; h >>= 1) {
        if (lid < h) {
            s[lid] += s[lid + h];
        }
        BARRIER();
    }
    i64 r = s[0];
    BARRIER();
    return r;
}
`

// Prelude returns the prelude for a dialect.
func Prelude(d Dialect) string {
	if d == CUDA {
		return cudaPrelude
	}
	return openclPrelude
}

// Text returns the body of kernel source file name (without ".cl"): the
// embedded one, or name.cl in $ARBOR_KERNELS_DIR when that file exists,
// so that a kernel can be edited and re-run (the CPU backend still runs
// the built-in twin) without rebuilding the binary. The cache key covers
// the text, so an edited source is compiled afresh.
func Text(name string) (string, error) {
	body, err := rawText(name)
	if err != nil {
		return "", err
	}
	return expandIncludes(name, body, 0)
}

// rawText is Text without the includes resolved.
func rawText(name string) (string, error) {
	if dir := os.Getenv("ARBOR_KERNELS_DIR"); dir != "" {
		b, err := os.ReadFile(filepath.Join(dir, name+".cl"))
		if err == nil {
			return string(b), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("device: ARBOR_KERNELS_DIR: %w", err)
		}
	}
	e, ok := lookupSource(name)
	if !ok {
		return "", fmt.Errorf("device: no source %q", name)
	}
	return e.text, nil
}

var includeLine = regexp.MustCompile(`(?m)^#include "([A-Za-z0-9_]+)\.cl"[ \t]*$`)

// expandIncludes replaces each line #include "X.cl" of source name by the
// text of X (the compilers see strings, not files, so the includes are
// resolved here), with #line directives so that errors name the right file
// and line.
func expandIncludes(name, body string, depth int) (string, error) {
	if depth > 4 {
		return "", fmt.Errorf("device: %s.cl: includes nested too deep", name)
	}
	var err error
	out := includeLine.ReplaceAllStringFunc(body, func(line string) string {
		inc := includeLine.FindStringSubmatch(line)[1]
		at := strings.Count(body[:strings.Index(body, line)], "\n") + 1
		text, e := rawText(inc)
		if e == nil {
			text, e = expandIncludes(inc, text, depth+1)
		}
		if e != nil && err == nil {
			err = fmt.Errorf("device: %s.cl:%d: %w", name, at, e)
		}
		return fmt.Sprintf("#line 1 \"%s.cl\"\n%s\n#line %d \"%s.cl\"", inc, text, at+1, name)
	})
	return out, err
}

// FeatureDefines are the macros injected from a device's capabilities.
func FeatureDefines(info backend.Info) map[string]string {
	a64 := "0"
	if info.Atomics64 {
		a64 = "1"
	}
	nvidia := "0"
	if strings.Contains(strings.ToUpper(info.Vendor), "NVIDIA") {
		nvidia = "1"
	}
	m := map[string]string{
		"ARBOR_NVIDIA":         nvidia,
		"ARBOR_ATOMICS64":      a64,
		"ARBOR_MAX_WORK_GROUP": fmt.Sprint(info.MaxWorkGroup),
		"ARBOR_LOCAL_MEMORY":   fmt.Sprint(info.LocalMemory),
	}
	// A bad ARBOR_SUBGROUPS leaves the sub-group macros out here (the
	// prelude then takes the work-group route); Source reports it.
	if sg, err := subgroupDefines(info); err == nil {
		maps.Copy(m, sg)
	}
	return m
}

// Source assembles the exact text a device compiles for source file name:
// the defines (feature macros, then the caller's, sorted), the dialect's
// prelude, then the kernel body. Defines are written into the text, not
// passed as options, so the dump is exactly what the compiler reads and the
// cache key covers them.
func Source(info backend.Info, name string, defines map[string]string, kernelNames ...string) (backend.Source, error) {
	body, err := Text(name)
	if err != nil {
		return backend.Source{}, err
	}
	if _, err := PathOf(info); err != nil {
		return backend.Source{}, err
	}
	all := FeatureDefines(info)
	for k, v := range defines {
		all[k] = v
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	fmt.Fprintf(&sb, "/* %s.cl for %s (%s) */\n", name, info.Name, info.Backend)
	for _, k := range keys {
		fmt.Fprintf(&sb, "#define %s %s\n", k, all[k])
	}
	sb.WriteString(Prelude(DialectOf(info)))
	fmt.Fprintf(&sb, "#line 1 \"%s.cl\"\n", name)
	sb.WriteString(body)
	return backend.Source{Name: name, Code: sb.String(), Kernels: kernelNames}, nil
}

// Build compiles source file name for dev with the given kernels.
func Build(dev backend.Device, name string, defines map[string]string, kernelNames ...string) (backend.Program, error) {
	src, err := Source(dev.Info(), name, defines, kernelNames...)
	if err != nil {
		return nil, err
	}
	p, err := dev.Build(src)
	if err != nil {
		return nil, fmt.Errorf("device: %w", err)
	}
	return p, nil
}
