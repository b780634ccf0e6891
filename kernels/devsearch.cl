/* devsearch.cl: the device search-tree layer, included by every search
   kernel (mcsplit.cl). It holds what any depth-first search on the device
   shares, whatever its nodes look like:

   * the control block (u32 words, DS_*): the task ring's head and tail,
     the incumbent's size, and the counts of idle and working workers;
   * a bounded multi-producer multi-consumer ring of self-contained tasks
     (slots of u64 words, the capacity a power of two, a sequence word per slot
     in the manner of Vyukov's bounded queue). Reserving a slot is one CAS;
     a consumer that finds the next slot still being written treats the
     ring as empty instead of waiting for the writer, and a producer that
     finds the ring full keeps the work itself. No work-group ever waits on
     another: OpenCL and PoCL promise no co-residency of work-groups;
   * the per-worker status block (i64 words, DS_W_*) that survives between
     launches, so a search kernel runs in epochs: it returns after a node
     budget, the host reads the counters, reports progress, honours
     timeouts, feeds or drains the ring, and relaunches;
   * work-group reductions and scans over the LANES work-items of a worker
     (warp shuffles on CUDA when LANES is 32).

   The including source defines LANES; the ring's capacity (a power of
   two) and slot size are arguments, so that one build serves every size. One work-group is one
   worker; lane 0 performs the ring's atomics and broadcasts the outcome. */

#define DS_HEAD 0
#define DS_TAIL 1
#define DS_INC 2
#define DS_HUNGRY 3
#define DS_RUNNING 4
#define DS_CTRL_WORDS 8

#define DS_W_NODES 0
#define DS_W_ACTIVE 1
#define DS_W_LEVEL 2
#define DS_W_PHASE 3
#define DS_W_BASE 4
#define DS_W_DONATED 5
#define DS_W_TAKEN 6
#define DS_W_WORDS 8

/* A plain (non-atomic) read that sees other work-groups' writes: volatile
   keeps it out of registers and, on CUDA, out of the incoherent L1. */
INLINE u32 ds_peek(GLOBAL u32* p) { return *((volatile GLOBAL u32*)p); }

INLINE u32 ds_load(GLOBAL u32* p) { return ATOMIC_ADD_U32(p, 0u); }

/* ds_reserve_push returns the ring position a producer may fill, or -1 when
   the ring is full or too contended (the caller keeps the work). Lane 0 only. */
INLINE i64 ds_reserve_push(GLOBAL u32* ctrl, GLOBAL u32* seq, u32 cap)
{
    for (int tries = 0; tries < 64; tries++) {
        u32 pos = ds_load(&ctrl[DS_TAIL]);
        u32 s = ds_load(&seq[pos & (cap - 1u)]);
        i32 diff = (i32)(s - pos);
        if (diff == 0) {
            if (ATOMIC_CAS_U32(&ctrl[DS_TAIL], pos, pos + 1u) == pos) {
                return (i64)pos;
            }
        } else if (diff < 0) {
            return -1;
        }
    }
    return -1;
}

/* ds_commit_push publishes a filled slot. Every lane that wrote it must
   have fenced and passed a barrier first. Lane 0 only. */
INLINE void ds_commit_push(GLOBAL u32* seq, u32 cap, u32 pos)
{
    GLOBAL_FENCE();
    ATOMIC_ADD_U32(&seq[pos & (cap - 1u)], 1u);
}

/* ds_reserve_pop returns the position of a published task this worker now
   owns, or -1 when there is none ready. Lane 0 only. */
INLINE i64 ds_reserve_pop(GLOBAL u32* ctrl, GLOBAL u32* seq, u32 cap)
{
    for (int tries = 0; tries < 64; tries++) {
        u32 pos = ds_load(&ctrl[DS_HEAD]);
        u32 s = ds_load(&seq[pos & (cap - 1u)]);
        i32 diff = (i32)(s - (pos + 1u));
        if (diff == 0) {
            if (ATOMIC_CAS_U32(&ctrl[DS_HEAD], pos, pos + 1u) == pos) {
                GLOBAL_FENCE();
                return (i64)pos;
            }
        } else if (diff < 0) {
            return -1;
        }
    }
    return -1;
}

/* ds_commit_pop frees a slot once every lane has read it (after a barrier). */
INLINE void ds_commit_pop(GLOBAL u32* seq, u32 cap, u32 pos)
{
    GLOBAL_FENCE();
    ATOMIC_ADD_U32(&seq[pos & (cap - 1u)], cap - 1u);
}

/* Tasks queued and not yet taken (an estimate while others push and pop). */
INLINE i32 ds_queued(GLOBAL u32* ctrl) { return (i32)(ds_peek(&ctrl[DS_TAIL]) - ds_peek(&ctrl[DS_HEAD])); }

/* Helpers for the boilerplate every search kernel repeats (taking a task,
   deciding to donate, leaving a task, saving the status at the end of a
   launch): mcsplit.cl, clique.cl and vc.cl all use them. */

/* ds_try_take is lane 0's part of an idle worker's attempt to take a task:
   the ring position now owned, or -1 with *running set to the workers
   still holding a task (none: nobody can donate in this launch). It keeps
   DS_HUNGRY (waiting says whether this worker is already counted there)
   and DS_RUNNING right. */
INLINE i64 ds_try_take(GLOBAL u32* ctrl, GLOBAL u32* seq, u32 cap, i32 waiting, i32* running)
{
    i64 pos = ds_reserve_pop(ctrl, seq, cap);
    if (pos < 0) {
        if (!waiting) {
            ATOMIC_ADD_I32(&ctrl[DS_HUNGRY], 1);
        }
        *running = (i32)ds_peek(&ctrl[DS_RUNNING]);
    } else {
        if (waiting) {
            ATOMIC_ADD_I32(&ctrl[DS_HUNGRY], -1);
        }
        ATOMIC_ADD_I32(&ctrl[DS_RUNNING], 1);
        *running = 1;
    }
    return pos;
}

/* ds_should_give says (to lane 0) whether to donate now: workers wait and
   the ring holds fewer tasks than them. */
INLINE i32 ds_should_give(GLOBAL u32* ctrl)
{
    i32 hungry = (i32)ds_peek(&ctrl[DS_HUNGRY]);
    return hungry > 0 && ds_queued(ctrl) < hungry;
}

/* ds_task_done: lane 0, when a worker leaves its task's root. */
INLINE void ds_task_done(GLOBAL u32* ctrl) { ATOMIC_ADD_I32(&ctrl[DS_RUNNING], -1); }

/* ds_save_status: lane 0, at the end of a launch: the worker's status
   words for the host and the next launch, and its leaving the counts of
   running or waiting workers. */
INLINE void ds_save_status(GLOBAL i64* st, GLOBAL u32* ctrl, i64 nodes, i32 active, i32 level, i32 phase, i32 base,
                           i64 donated, i64 taken, i32 waiting)
{
    st[DS_W_NODES] = nodes;
    st[DS_W_ACTIVE] = active;
    st[DS_W_LEVEL] = level;
    st[DS_W_PHASE] = phase;
    st[DS_W_BASE] = base;
    st[DS_W_DONATED] = donated;
    st[DS_W_TAKEN] = taken;
    if (active) {
        ATOMIC_ADD_I32(&ctrl[DS_RUNNING], -1);
    } else if (waiting) {
        ATOMIC_ADD_I32(&ctrl[DS_HUNGRY], -1);
    }
}

/* Group reductions over the LANES work-items; every lane must call them
   and every lane gets the result. s is scratch of LANES slots. */
#if defined(ARBOR_CUDA) && LANES == 32
INLINE i32 ds_sum_i32(LOCAL_REF(i32) s, i32 v)
{
    for (int d = 16; d > 0; d >>= 1) {
        v += __shfl_xor_sync(0xffffffffu, v, d);
    }
    return v;
}
INLINE u64 ds_min_u64(LOCAL_REF(u64) s, u64 v)
{
    for (int d = 16; d > 0; d >>= 1) {
        u64 o = __shfl_xor_sync(0xffffffffu, v, d);
        v = o < v ? o : v;
    }
    return v;
}
/* Exclusive prefix sum; *total gets the sum of all lanes. */
INLINE i32 ds_exscan_i32(LOCAL_REF(i32) s, i32 v, i32* total)
{
    u32 lane = threadIdx.x;
    i32 x = arbor_warp_inclusive_i32(v, lane);
    *total = __shfl_sync(0xffffffffu, x, 31);
    return x - v;
}
#else
INLINE i32 ds_sum_i32(LOCAL_REF(i32) s, i32 v)
{
    size_t lid = get_local_id(0);
    s[lid] = v;
    BARRIER();
    for (size_t h = LANES >> 1; h > 0; h >>= 1) {
        if (lid < h) {
            s[lid] += s[lid + h];
        }
        BARRIER();
    }
    i32 r = s[0];
    BARRIER();
    return r;
}
INLINE u64 ds_min_u64(LOCAL_REF(u64) s, u64 v)
{
    size_t lid = get_local_id(0);
    s[lid] = v;
    BARRIER();
    for (size_t h = LANES >> 1; h > 0; h >>= 1) {
        if (lid < h) {
            s[lid] = ARBOR_MIN(s[lid], s[lid + h]);
        }
        BARRIER();
    }
    u64 r = s[0];
    BARRIER();
    return r;
}
INLINE i32 ds_exscan_i32(LOCAL_REF(i32) s, i32 v, i32* total)
{
    size_t lid = get_local_id(0);
    s[lid] = v;
    BARRIER();
    for (size_t d = 1; d < LANES; d <<= 1) {
        i32 y = lid >= d ? s[lid - d] : 0;
        BARRIER();
        s[lid] += y;
        BARRIER();
    }
    i32 incl = s[lid];
    *total = s[LANES - 1];
    BARRIER();
    return incl - v;
}
#endif
