/* kcount.cl: the one-page example of docs/porting.md. It counts the
   k-cliques of a graph on the device search-tree layer: one work-item per
   worker (LANES 1), a stack of candidate sets, one-child donation, no
   incumbent (the tree is the same however it is scheduled).
   Frame at level L: the candidates P (W words) of the node whose clique
   has base + L vertices, less the children already started.
   Task: t[0] = the node's clique size, t[1 .. 1+W) = its P. */
#define LANES 1
#ifndef W
#define W 1
#endif
#include "devsearch.cl"
#define KC_ENTER 0
#define KC_NEXT 1

KERNEL void kcount_epoch(GLOBAL const i32* RESTRICT shape, GLOBAL const u64* RESTRICT adj, GLOBAL u64* slots,
                         GLOBAL u32* seq, GLOBAL u32* ctrl, GLOBAL i64* wstate, GLOBAL u64* frames, GLOBAL i64* counts,
                         const i64 budget, const i32 idle_limit)
{
    const i32 K = shape[1];
    const u32 CAP = (u32)shape[2];
    const u32 wid = (u32)get_group_id(0);
    GLOBAL i64* st = wstate + (size_t)wid * DS_W_WORDS;
    GLOBAL u64* fr = frames + (size_t)wid * K * W;
    i64 nodes = st[DS_W_NODES], donated = st[DS_W_DONATED], taken = st[DS_W_TAKEN], count = counts[wid], spent = 0;
    i32 active = (i32)st[DS_W_ACTIVE], level = (i32)st[DS_W_LEVEL], phase = (i32)st[DS_W_PHASE];
    i32 base = (i32)st[DS_W_BASE], polls = 0, waiting = 0;
    if (active) {
        ATOMIC_ADD_I32(&ctrl[DS_RUNNING], 1);
    }
    for (;;) {
        if (!active) { /* idle: take a task, or return */
            i32 running;
            i64 pos = ds_try_take(ctrl, seq, CAP, waiting, &running);
            if (pos < 0) {
                waiting = 1;
                if (++polls >= idle_limit || running <= 0) {
                    break;
                }
                continue;
            }
            volatile GLOBAL const u64* t = (volatile GLOBAL const u64*)(slots + (size_t)(pos & (CAP - 1)) * (1 + W));
            base = (i32)t[0];
            for (int j = 0; j < W; j++) {
                fr[j] = t[1 + j];
            }
            ds_commit_pop(seq, CAP, (u32)pos);
            active = 1, waiting = 0, polls = 0, taken++, level = 0, phase = KC_ENTER;
            continue;
        }
        if (spent >= budget) {
            break;
        }
        GLOBAL u64* p = fr + (size_t)level * W;
        const i32 size = base + level;
        if (phase == KC_ENTER) { /* count the node; one below k: its candidates are the k-cliques */
            nodes++, spent++, phase = KC_NEXT;
            if (size == K - 1) {
                for (int j = 0; j < W; j++) {
                    count += POPCOUNT64(p[j]);
                    p[j] = 0;
                }
            } else if (level > 0 && ds_should_give(ctrl)) {
                /* Give away the next child of the shallowest node that has one. */
                for (i32 l = 0; l < level; l++) {
                    GLOBAL u64* q = fr + (size_t)l * W;
                    i32 w = 0;
                    while (w < W && q[w] == 0) {
                        w++;
                    }
                    if (w == W) {
                        continue;
                    }
                    const u32 v = (u32)(w * 64 + CTZ64(q[w]));
                    i32 left = 0;
                    for (int j = 0; j < W; j++) {
                        left += POPCOUNT64(q[j] & adj[(size_t)v * W + j]);
                    }
                    i64 pos = base + l + 1 + left < K ? -2 : ds_reserve_push(ctrl, seq, CAP);
                    if (pos >= 0) {
                        GLOBAL u64* t = slots + (size_t)(pos & (CAP - 1)) * (1 + W);
                        t[0] = (u64)(base + l + 1);
                        for (int j = 0; j < W; j++) {
                            t[1 + j] = q[j] & adj[(size_t)v * W + j];
                        }
                        ds_commit_push(seq, CAP, (u32)pos);
                        donated++;
                    }
                    if (pos != -1) { /* given, or pruned as its owner would: v is done here */
                        q[w] &= q[w] - 1;
                    }
                    break;
                }
            }
            continue;
        }
        /* Next child: the lowest candidate v, with the candidates above it adjacent to it. */
        i32 w = 0;
        while (w < W && p[w] == 0) {
            w++;
        }
        if (w == W) { /* every child done: back to the parent, or the task is over */
            if (level > 0) {
                level--;
            } else {
                active = 0;
                ds_task_done(ctrl);
            }
            continue;
        }
        const u32 v = (u32)(w * 64 + CTZ64(p[w]));
        p[w] &= p[w] - 1;
        i32 left = 0;
        for (int j = 0; j < W; j++) {
            p[W + j] = p[j] & adj[(size_t)v * W + j];
            left += POPCOUNT64(p[W + j]);
        }
        if (size + 1 + left >= K) { /* enough candidates left for a k-clique */
            level++, phase = KC_ENTER;
        }
    }
    ds_save_status(st, ctrl, nodes, active, level, phase, base, donated, taken, waiting);
    counts[wid] = count;
}
