/* devsearch.cl: the device search-tree layer, included by every search
   kernel (mcsplit.cl, clique.cl, vc.cl, kcount.cl). It holds what any
   depth-first search on the device shares, whatever its nodes look like:

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
   worker; lane 0 performs the ring's atomics and broadcasts the outcome.

   A search kernel is this layer's worker loop filled with its node
   expansion (the template, ds_worker below):

     (the entry point) NAME_epoch(its inputs, DS_RING_PARAMS, its per-worker state, DS_GOAL_PARAMS)
     {
         ds_worker w = ds_begin(DS_RING_ARGS, budget, idle_limit, CAP, TASKW, s_b);
         while (ds_next(&w)) {
             if (w.task) { install *w.task as level 0; ds_installed(&w, PHASE); continue; }
             expand the node at w.level (w.phase), counting w.nodes and w.spent
         }
         ds_end(&w);
     }

   The parameters' order is the Go side's search.Params (the twin reads
   them through it, the wrapper launches with it; a test parses every
   kernel's signature against it). */

/* A worker of one work-item (CPU devices) needs no barriers: PoCL's
   compile time grows steeply with barriers inside loops. */
#if LANES == 1
#undef BARRIER
#define BARRIER()
#endif

/* The layer's parameters of every search kernel, in their place: the ring
   and the workers' status words after the kernel's inputs, the launch's
   scalars last (DS_LAUNCH_PARAMS without a goal, DS_GOAL_PARAMS with). */
#define DS_RING_PARAMS GLOBAL u64 *slots, GLOBAL u32 *seq, GLOBAL u32 *ctrl, GLOBAL i64 *wstate
#define DS_RING_ARGS slots, seq, ctrl, wstate
#define DS_LAUNCH_PARAMS const i64 budget, const i32 idle_limit
#define DS_GOAL_PARAMS const i64 budget, const i32 idle_limit, const i32 goal, const i32 frozen

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

/* Helpers for what every search kernel does (resuming and saving a
   worker's status, taking a task, reading the incumbent, publishing a
   certificate, deciding to donate, leaving a task): the worker loop
   (ds_worker) is made of them, and a kernel's expansion uses the rest. */

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

/* ds_leave: a worker leaves the node at level: back to the parent's next
   child, or, leaving the task's own root, the task is done (the worker no
   longer runs one). Every lane calls it; lane 0 keeps DS_RUNNING right. */
INLINE i32 ds_leave(GLOBAL u32* ctrl, i32 level, u32 lid, i32* active)
{
    if (level > 0) {
        return level - 1;
    }
    *active = 0;
    if (lid == 0) {
        ds_task_done(ctrl);
    }
    return 0;
}

/* ds_slot: the words of the ring slot that position pos lands in (slots
   of taskw words). */
INLINE GLOBAL u64* ds_slot(GLOBAL u64* slots, i64 pos, u32 cap, i32 taskw)
{
    return slots + (size_t)(pos & (cap - 1)) * taskw;
}

/* The rest is the worker's side of the protocol, which every lane of the
   work-group calls together (barriers inside stay uniform): lane 0 does
   the atomics and broadcasts its outcome through LOCAL memory. */

/* ds_resume: at the start of a launch, the status words the last launch
   saved (ds_save_status), less DS_W_BASE, which each kernel reads itself
   (its meaning is the kernel's); a worker that still holds a task counts
   as running again. */
INLINE void ds_resume(GLOBAL const i64* st, GLOBAL u32* ctrl, u32 lid, i64* nodes, i32* active, i32* level, i32* phase,
                      i64* donated, i64* taken)
{
    *nodes = st[DS_W_NODES];
    *active = (i32)st[DS_W_ACTIVE];
    *level = (i32)st[DS_W_LEVEL];
    *phase = (i32)st[DS_W_PHASE];
    *donated = st[DS_W_DONATED];
    *taken = st[DS_W_TAKEN];
    BARRIER();
    if (lid == 0 && *active) {
        ATOMIC_ADD_I32(&ctrl[DS_RUNNING], 1);
    }
}

#define DS_POLL (-1) /* ds_take: no task ready, try again */
#define DS_STOP (-2) /* ds_take: give up for this launch */

/* ds_take is an idle worker's attempt to take a task (lane 0 calls
   ds_try_take and broadcasts through b[0] and b[1]): the ring position it
   now owns, or DS_POLL, or DS_STOP after idle_limit tries or once no
   worker that could donate is left in this launch. *waiting (counted in
   DS_HUNGRY) and *polls are the worker's, the same on every lane. The
   caller installs the task, then calls ds_finish_pop. */
INLINE i64 ds_take(GLOBAL u32* ctrl, GLOBAL u32* seq, u32 cap, i32 idle_limit, LOCAL_REF(i64) b, u32 lid,
                   i32* waiting, i32* polls)
{
    if (lid == 0) {
        i32 running;
        b[0] = ds_try_take(ctrl, seq, cap, *waiting, &running);
        b[1] = running;
    }
    BARRIER();
    const i64 pos = b[0];
    const i32 running = (i32)b[1];
    BARRIER();
    if (pos >= 0) {
        *waiting = 0;
        *polls = 0;
        return pos;
    }
    *waiting = 1;
    (*polls)++;
    return *polls >= idle_limit || running <= 0 ? DS_STOP : DS_POLL;
}

/* ds_finish_pop: once every lane has read its part of the task at pos,
   lane 0 frees the slot. */
INLINE void ds_finish_pop(GLOBAL u32* seq, u32 cap, i64 pos, u32 lid)
{
    GLOBAL_FENCE();
    BARRIER();
    if (lid == 0) {
        ds_commit_pop(seq, cap, (u32)pos);
    }
}

/* ds_incumbent: the incumbent (DS_INC) as lane 0 read it, through *s, on
   every lane. Lanes reading it themselves could see different values
   (another worker raising it in between) and part of them would publish
   or prune, the rest not. On the H100's OpenCL that left stale pairs in
   McSplit's certificate (a vertex matched twice). */
INLINE i32 ds_incumbent(GLOBAL u32* ctrl, LOCAL_REF(i32) s, u32 lid)
{
    if (lid == 0) {
        *s = (i32)ds_peek(&ctrl[DS_INC]);
    }
    BARRIER();
    const i32 inc = *s;
    BARRIER();
    return inc;
}

/* ds_publish: once every lane has written its part of a certificate
   whose size word is *size_word, lane 0 sets that word, then raises the
   incumbent to size: certificate first, then its size (the host reads
   the certificate with the largest size word once the launch is over). */
INLINE void ds_publish(GLOBAL u32* ctrl, GLOBAL i32* size_word, i32 size, u32 lid)
{
    GLOBAL_FENCE();
    BARRIER();
    if (lid == 0) {
        *size_word = size;
        ATOMIC_MAX_I32(&ctrl[DS_INC], size);
    }
}

/* ds_give_now: ds_should_give as lane 0 decided it (through *b), on every
   lane. */
INLINE i32 ds_give_now(GLOBAL u32* ctrl, LOCAL_REF(i64) b, u32 lid)
{
    if (lid == 0) {
        *b = ds_should_give(ctrl);
    }
    BARRIER();
    const i32 give = (i32)*b;
    BARRIER();
    return give;
}

/* ds_reserve_slot: the ring position lane 0 reserved for a donation
   (ds_reserve_push, through *b), on every lane; -1 when the ring is full.
   One barrier only: the caller passes another before lane 0 can write *b
   again. The lanes fill the slot, then call ds_finish_push. */
INLINE i64 ds_reserve_slot(GLOBAL u32* ctrl, GLOBAL u32* seq, u32 cap, LOCAL_REF(i64) b, u32 lid)
{
    if (lid == 0) {
        *b = ds_reserve_push(ctrl, seq, cap);
    }
    BARRIER();
    return *b;
}

/* ds_finish_push: once every lane has written its part of the task at
   pos, lane 0 publishes it. */
INLINE void ds_finish_push(GLOBAL u32* seq, u32 cap, i64 pos, u32 lid)
{
    GLOBAL_FENCE();
    BARRIER();
    if (lid == 0) {
        ds_commit_push(seq, cap, (u32)pos);
    }
}

/* ds_worker: the worker loop's state, the same on every lane: the
   template every search kernel fills (see the top of this file). The
   kernel reads and moves level and phase, counts nodes (entered) and
   spent (its budget's steps), donated; base is DS_W_BASE, whose meaning is
   the kernel's (saved and resumed with the rest). ds_next sets task to the
   ring slot a worker has just taken (to install) and to 0 when it holds a
   node to expand. */
typedef struct {
    GLOBAL u64* slots;
    GLOBAL u32* seq;
    GLOBAL u32* ctrl;
    GLOBAL i64* st; /* this worker's status words */
    LOCAL_REF(i64) b; /* two words of local memory: lane 0's broadcasts */
    volatile GLOBAL const u64* task;
    i64 pos; /* the ring position of task */
    i64 budget, nodes, spent, donated, taken;
    u32 cap, lid;
    i32 taskw, idle_limit;
    i32 active, level, phase, base;
    i32 polls, waiting; /* waiting: counted in DS_HUNGRY */
} ds_worker;

/* ds_begin: a worker at the start of a launch, resumed from the status
   words the last launch saved (ds_resume); b is the kernel's LOCAL i64
   scratch of at least two words. */
INLINE ds_worker ds_begin(GLOBAL u64* slots, GLOBAL u32* seq, GLOBAL u32* ctrl, GLOBAL i64* wstate, i64 budget,
                          i32 idle_limit, u32 cap, i32 taskw, LOCAL_REF(i64) b)
{
    ds_worker w;
    w.slots = slots;
    w.seq = seq;
    w.ctrl = ctrl;
    w.st = wstate + (size_t)get_group_id(0) * DS_W_WORDS;
    w.b = b;
    w.task = 0;
    w.pos = -1;
    w.budget = budget;
    w.spent = 0;
    w.cap = cap;
    w.lid = (u32)get_local_id(0);
    w.taskw = taskw;
    w.idle_limit = idle_limit;
    w.base = (i32)w.st[DS_W_BASE];
    w.polls = 0;
    w.waiting = 0;
    ds_resume(w.st, ctrl, w.lid, &w.nodes, &w.active, &w.level, &w.phase, &w.donated, &w.taken);
    return w;
}

/* ds_next: the worker's next step: 1 with w->task set when it has taken a
   task (the kernel installs it, then calls ds_installed), 1 with w->task
   0 when it holds a node to expand within its budget, 0 when its launch is
   over (budget spent, or no task came: ds_take). */
INLINE i32 ds_next(ds_worker* w)
{
    w->task = 0;
    while (!w->active) {
        const i64 pos = ds_take(w->ctrl, w->seq, w->cap, w->idle_limit, w->b, w->lid, &w->waiting, &w->polls);
        if (pos == DS_STOP) {
            return 0;
        }
        if (pos >= 0) {
            w->pos = pos;
            w->task = (volatile GLOBAL const u64*)ds_slot(w->slots, pos, w->cap, w->taskw);
            return 1;
        }
    }
    return w->spent < w->budget;
}

/* ds_installed: every lane has read its part of the task: the slot is
   freed and the worker enters the task's root (level 0) at phase. */
INLINE void ds_installed(ds_worker* w, i32 phase)
{
    ds_finish_pop(w->seq, w->cap, w->pos, w->lid);
    w->active = 1;
    w->taken++;
    w->level = 0;
    w->phase = phase;
}

/* ds_up: the worker leaves the node at its level (ds_leave): back to the
   parent, or, at the task's root, the task is done. */
INLINE void ds_up(ds_worker* w) { w->level = ds_leave(w->ctrl, w->level, w->lid, &w->active); }

/* ds_end: at the end of the launch, lane 0 saves the worker's status
   (ds_save_status). */
INLINE void ds_end(ds_worker* w)
{
    if (w->lid == 0) {
        ds_save_status(w->st, w->ctrl, w->nodes, w->active, w->level, w->phase, w->base, w->donated, w->taken,
                       w->waiting);
    }
}

/* Group reductions over the LANES work-items; every lane must call them
   and every lane gets the result. s is scratch of LANES slots. */
#if ARBOR_SG_WARP && ARBOR_SUBGROUP != 4
/* The worker is one sub-group (a CUDA or PTX warp, a khr sub-group of 32
   or 64 lanes): no local memory, no barrier. (The local-memory emulation,
   path 4, takes the work-group form below, which is the same thing.) */
INLINE i32 ds_sum_i32(LOCAL_REF(i32) s, i32 v)
{
    return arbor_sg_sum_i32(v);
}
INLINE u64 ds_min_u64(LOCAL_REF(u64) s, u64 v)
{
    return arbor_sg_min_u64(v);
}
/* Exclusive prefix sum; *total gets the sum of all lanes. */
INLINE i32 ds_exscan_i32(LOCAL_REF(i32) s, i32 v, i32* total)
{
    const i32 x = arbor_sg_inclusive_i32(v);
    *total = arbor_sg_shfl_i32(x, LANES - 1);
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
