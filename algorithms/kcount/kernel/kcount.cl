/* kcount.cl: the one-page example of docs/porting.md. It counts the
   k-cliques of a graph on the device search-tree layer: one work-item per
   worker (LANES 1), a stack of candidate sets, one-child donation, no
   incumbent (the tree is the same however it is scheduled).
   Frame at level L: the candidates P (W words) of the node whose clique
   has base + L vertices, less the children already started.
   Task: t[0] = the node's clique size, t[1 .. 1+W) = its P.
   The worker loop is devsearch.cl's template (ds_worker); this file is
   its node expansion. */
#define LANES 1
#ifndef W
#define W 1
#endif
#include "devsearch.cl"
#define KC_ENTER 0
#define KC_NEXT 1

KERNEL void kcount_epoch(GLOBAL const i32* RESTRICT shape, GLOBAL const u64* RESTRICT adj, DS_RING_PARAMS,
                         GLOBAL u64* frames, GLOBAL i64* counts, DS_LAUNCH_PARAMS)
{
    LOCAL i64 s_b[2];
    const i32 K = shape[1];
    const u32 wid = (u32)get_group_id(0);
    GLOBAL u64* fr = frames + (size_t)wid * K * W;
    i64 count = counts[wid];
    ds_worker w = ds_begin(DS_RING_ARGS, budget, idle_limit, (u32)shape[2], 1 + W, s_b);
    while (ds_next(&w)) {
        if (w.task) { /* the task's node at level 0: its clique size and candidates */
            w.base = (i32)w.task[0];
            for (int j = 0; j < W; j++) {
                fr[j] = w.task[1 + j];
            }
            ds_installed(&w, KC_ENTER);
            continue;
        }
        GLOBAL u64* p = fr + (size_t)w.level * W;
        const i32 size = w.base + w.level;
        if (w.phase == KC_ENTER) { /* count the node; one below k: its candidates are the k-cliques */
            w.nodes++, w.spent++, w.phase = KC_NEXT;
            if (size == K - 1) {
                for (int j = 0; j < W; j++) {
                    count += POPCOUNT64(p[j]);
                    p[j] = 0;
                }
            } else if (w.level > 0 && ds_should_give(w.ctrl)) {
                /* Give away the next child of the shallowest node that has one. */
                for (i32 l = 0; l < w.level; l++) {
                    GLOBAL u64* q = fr + (size_t)l * W;
                    i32 x = 0;
                    while (x < W && q[x] == 0) {
                        x++;
                    }
                    if (x == W) {
                        continue;
                    }
                    const u32 v = (u32)(x * 64 + CTZ64(q[x]));
                    i32 left = 0;
                    for (int j = 0; j < W; j++) {
                        left += POPCOUNT64(q[j] & adj[(size_t)v * W + j]);
                    }
                    i64 pos = w.base + l + 1 + left < K ? -2 : ds_reserve_push(w.ctrl, w.seq, w.cap);
                    if (pos >= 0) {
                        GLOBAL u64* t = ds_slot(w.slots, pos, w.cap, w.taskw);
                        t[0] = (u64)(w.base + l + 1);
                        for (int j = 0; j < W; j++) {
                            t[1 + j] = q[j] & adj[(size_t)v * W + j];
                        }
                        ds_commit_push(w.seq, w.cap, (u32)pos);
                        w.donated++;
                    }
                    if (pos != -1) { /* given, or pruned as its owner would: v is done here */
                        q[x] &= q[x] - 1;
                    }
                    break;
                }
            }
            continue;
        }
        /* Next child: the lowest candidate v, with the candidates above it adjacent to it. */
        i32 x = 0;
        while (x < W && p[x] == 0) {
            x++;
        }
        if (x == W) { /* every child done: back to the parent, or the task is over */
            ds_up(&w);
            continue;
        }
        const u32 v = (u32)(x * 64 + CTZ64(p[x]));
        p[x] &= p[x] - 1;
        i32 left = 0;
        for (int j = 0; j < W; j++) {
            p[W + j] = p[j] & adj[(size_t)v * W + j];
            left += POPCOUNT64(p[W + j]);
        }
        if (size + 1 + left >= K) { /* enough candidates left for a k-clique */
            w.level++, w.phase = KC_ENTER;
        }
    }
    ds_end(&w);
    counts[wid] = count;
}
