/* vc.cl: vertex cover by branch and reduce on the device search-tree layer
   (devsearch.cl), after Kabbara's degree-array scheme as the GPU studies
   refined it (Yamout et al. 2022). One work-group of LANES work-items is
   one worker running a depth-first search over its own stack.

   The graph (the host's kernel after its root reductions) is CSR on the
   device: off[N+1], adj[]. A node is a degree array of N int32 words:
     deg[v] >= 0   v is live with deg[v] live neighbours (0: isolated, out);
     deg[v] == -1  v is in the cover (VC_IN);
     deg[v] == -3  v is being taken (VC_MARK, only inside vc_apply_marks);
   plus the cover size so far. The array alone is the partial solution:
   a leaf's cover is { v : deg[v] == VC_IN }.

   At a node the worker applies, to a fixed point, rounds of rules decided
   on a snapshot of the array (so the result does not depend on LANES or
   on the order of the lanes):
     * high degree: deg[v] > allowed − cover puts v in every cover within
       the budget;
     * degree one: v's only neighbour u goes in (for an isolated edge
       u–v only the larger of the two, so exactly one is taken);
     * degree two in a triangle: both neighbours go in (only the
       smallest degree-2 vertex of a triangle fires);
   then prunes when cover > allowed, when the remaining edges exceed
   (allowed − cover) × the largest degree (each cover vertex covers at
   most that many), or when a greedy maximal matching (lane 0, in index
   order) has more than allowed − cover edges. It branches on the live vertex of largest degree,
   smallest index on ties: the minimum of the packed key
   (0x7fffffff − deg) << 32 | v. The children are "v in the cover" (a copy
   one level down) and then "N(v) in the cover" (in place, at the same
   level: the last child needs no copy).

   allowed is goal when frozen (parameterized search with a fixed budget:
   the tree is then the same on every device, the conformance check),
   else N − 1 − DS_INC. DS_INC holds N − |best cover| (larger is better),
   so raising it lowers the budget of every worker.

   Per worker, in global memory: MAXDEPTH frames of N degrees, MAXDEPTH
   headers of HW words (H_COVER, H_V, H_NEXT, H_OP), a mark array of N
   words (all zero between rounds), and a certificate of N+1 words:
   cert[0] = N − |cover| of the best cover this worker found, cert[1+v] =
   1 when v is in it. A worker writes its certificate before it raises
   DS_INC, and only when it beats DS_INC, so the certificate of largest
   cert[0] is the incumbent the device found.

   A task (TASKW u64 words): t[0] = cover | op << 32; t[1] = the op's
   vertex; then the degree array, two int32 per word (little endian). A
   task is a node to enter (counted where it is entered): the array with
   its op (none, "take v", "take N(v)") still to apply. */

#ifndef LANES
#define LANES 32
#endif

#include "devsearch.cl"

#define VC_IN (-1)
#define VC_MARK (-3)

#define H_COVER 0
#define H_V 1
#define H_NEXT 2 /* 1: "v in" next; 2: "N(v) in" next; 3: done */
#define H_OP 3
#define HW 4

#define OP_NONE 0
#define OP_TAKE_V 1
#define OP_TAKE_NV 2

#define PH_ENTER 0
#define PH_NEXT 1

#define T_DEG 2

/* vc_apply_marks puts every vertex marked VC_MARK into the cover: its live
   neighbours lose a degree each, then it becomes VC_IN. Every lane calls
   it and gets the number taken. With one lane the marked vertices' lists
   are walked. With several, each lane recounts its own live vertices'
   marked neighbours instead (more reads, no atomics): a lane writes only
   its own vertices, and the others only test them for VC_MARK, which a
   live vertex never is, so no write races with a read that matters and
   no ordering between atomics and plain loads is assumed. */
INLINE i32 vc_apply_marks(GLOBAL i32* deg, GLOBAL const i32* RESTRICT off, GLOBAL const i32* RESTRICT adj, i32 n,
                          LOCAL_REF(i32) s_i, u32 lid)
{
#if LANES == 1
    for (i32 v = 0; v < n; v++) {
        if (deg[v] == VC_MARK) {
            for (i32 e = off[v]; e < off[v + 1]; e++) {
                if (deg[adj[e]] >= 0) {
                    deg[adj[e]]--;
                }
            }
        }
    }
#else
    for (i32 v = (i32)lid; v < n; v += LANES) {
        const i32 d = deg[v];
        if (d > 0) {
            i32 lost = 0;
            for (i32 e = off[v]; e < off[v + 1]; e++) {
                lost += deg[adj[e]] == VC_MARK ? 1 : 0;
            }
            if (lost != 0) {
                deg[v] = d - lost;
            }
        }
    }
#endif
    BARRIER();
    i32 c = 0;
    for (i32 v = (i32)lid; v < n; v += LANES) {
        if (deg[v] == VC_MARK) {
            deg[v] = VC_IN;
            c++;
        }
    }
    BARRIER();
    return ds_sum_i32(s_i, c);
}

/* shape: N, CAP, TASKW, MAXDEPTH. */
KERNEL void vc_epoch(GLOBAL const i32* RESTRICT shape, GLOBAL const i32* RESTRICT off, GLOBAL const i32* RESTRICT adj,
                     DS_RING_PARAMS, GLOBAL i32* stack, GLOBAL i32* hdrs, GLOBAL i32* marks, GLOBAL i32* certs,
                     DS_GOAL_PARAMS)
{
    LOCAL i32 s_i[LANES];
    LOCAL u64 s_u[LANES];
    LOCAL i64 s_b[4]; /* lane 0's decisions, broadcast */
    LOCAL i32 s_inc;  /* the incumbent as lane 0 read it */

    const i32 N = shape[0];
    const u32 CAP = (u32)shape[1];
    const i32 TASKW = shape[2];
    const i32 MAXDEPTH = shape[3];
    const u32 lid = (u32)get_local_id(0);
    const u32 wid = (u32)get_group_id(0);
    GLOBAL i32* fr = stack + (size_t)wid * MAXDEPTH * N;
    GLOBAL i32* hd = hdrs + (size_t)wid * MAXDEPTH * HW;
    GLOBAL i32* mk = marks + (size_t)wid * N;
    GLOBAL i32* cert = certs + (size_t)wid * (N + 1);

    /* w.base: children lost to a full stack, which must stay 0 */
    ds_worker w = ds_begin(DS_RING_ARGS, budget, idle_limit, CAP, TASKW, s_b);
    while (ds_next(&w)) {
        if (w.task) {
            volatile GLOBAL const u64* t = w.task;
            volatile GLOBAL const i32* td = (volatile GLOBAL const i32*)(t + T_DEG);
            for (i32 i = (i32)lid; i < N; i += LANES) {
                fr[i] = td[i];
            }
            if (lid == 0) {
                u64 t0 = t[0];
                hd[H_COVER] = (i32)(t0 & 0xffffffffu);
                hd[H_OP] = (i32)(t0 >> 32);
                hd[H_V] = (i32)t[1];
                hd[H_NEXT] = 0;
            }
            ds_installed(&w, PH_ENTER);
            continue;
        }

        GLOBAL i32* deg = fr + (size_t)w.level * N;
        GLOBAL i32* h = hd + (size_t)w.level * HW;

        if (w.phase == PH_NEXT) {
            const i32 next = h[H_NEXT];
            const i32 cover = h[H_COVER];
            const i32 v = h[H_V];
            BARRIER();
            if (next == 1) {
                /* "v in the cover": a copy one level down. */
                if (w.level + 1 >= MAXDEPTH) {
                    w.base++;
                    if (lid == 0) {
                        h[H_NEXT] = 2;
                    }
                    BARRIER();
                    continue;
                }
                GLOBAL i32* cd = deg + N;
                for (i32 i = (i32)lid; i < N; i += LANES) {
                    cd[i] = deg[i];
                }
                if (lid == 0) {
                    GLOBAL i32* ch = h + HW;
                    ch[H_COVER] = cover;
                    ch[H_V] = v;
                    ch[H_NEXT] = 0;
                    ch[H_OP] = OP_TAKE_V;
                    h[H_NEXT] = 2;
                }
                BARRIER();
                w.level++;
                w.phase = PH_ENTER;
                continue;
            }
            if (next == 2) {
                /* "N(v) in the cover": the last child, in place. */
                if (lid == 0) {
                    h[H_NEXT] = 0;
                    h[H_OP] = OP_TAKE_NV;
                }
                BARRIER();
                w.phase = PH_ENTER;
                continue;
            }
            ds_up(&w);
            w.phase = PH_NEXT;
            continue;
        }

        /* Enter the node at this level: apply its op, reduce, bound, branch. */
        w.nodes++;
        w.spent++;
        const i32 inc = ds_incumbent(ctrl, &s_inc, lid);
        const i32 op = h[H_OP];
        const i32 ov = h[H_V];
        i32 cover = h[H_COVER];
        const i32 allowed = frozen ? goal : N - 1 - inc;
        if (op == OP_TAKE_V) {
            if (lid == 0) {
                deg[ov] = VC_MARK;
            }
        } else if (op == OP_TAKE_NV) {
            for (i32 e = off[ov] + (i32)lid; e < off[ov + 1]; e += LANES) {
                i32 u = adj[e];
                if (deg[u] >= 0) {
                    deg[u] = VC_MARK;
                }
            }
        }
        BARRIER();
        if (op != OP_NONE) {
            cover += vc_apply_marks(deg, off, adj, N, s_i, lid);
        }
        /* The reductions, in rounds decided on a snapshot. */
        i32 kleft = allowed - cover;
        while (kleft >= 0) {
            i32 c = 0;
            for (i32 v = (i32)lid; v < N; v += LANES) {
                const i32 d = deg[v];
                if (d <= 0) {
                    continue;
                }
                if (d > kleft) {
                    mk[v] = 1;
                    c++;
                } else if (d == 1) {
                    i32 u = v;
                    for (i32 e = off[v]; e < off[v + 1]; e++) {
                        if (deg[adj[e]] >= 0) {
                            u = adj[e];
                            break;
                        }
                    }
                    if (!(deg[u] == 1 && u < v)) {
                        mk[u] = 1;
                        c++;
                    }
                } else if (d == 2) {
                    /* Triangle: both neighbours go in; only the smallest
                       degree-2 vertex of the triangle fires. */
                    i32 a = -1, b = -1;
                    for (i32 e = off[v]; e < off[v + 1]; e++) {
                        const i32 x = adj[e];
                        if (deg[x] >= 0) {
                            if (a < 0) {
                                a = x;
                            } else {
                                b = x;
                                break;
                            }
                        }
                    }
                    i32 tri = 0;
                    for (i32 e = off[a]; e < off[a + 1] && adj[e] <= b; e++) {
                        if (adj[e] == b) {
                            tri = 1;
                        }
                    }
                    if (tri && !(deg[a] == 2 && a < v) && !(deg[b] == 2 && b < v)) {
                        mk[a] = 1;
                        mk[b] = 1;
                        c++;
                    }
                }
            }
            BARRIER();
            if (ds_sum_i32(s_i, c) == 0) {
                break;
            }
            for (i32 v = (i32)lid; v < N; v += LANES) {
                if (mk[v] != 0) {
                    mk[v] = 0;
                    deg[v] = VC_MARK;
                }
            }
            BARRIER();
            cover += vc_apply_marks(deg, off, adj, N, s_i, lid);
            kleft = allowed - cover;
        }
        if (kleft < 0) {
            ds_up(&w);
            w.phase = PH_NEXT;
            continue;
        }
        i32 dsum = 0;
        u64 key = ~(u64)0;
        for (i32 v = (i32)lid; v < N; v += LANES) {
            const i32 d = deg[v];
            if (d > 0) {
                dsum += d;
                key = ARBOR_MIN(key, (u64)(u32)(0x7fffffff - d) << 32 | (u64)(u32)v);
            }
        }
        dsum = ds_sum_i32(s_i, dsum);
        key = ds_min_u64(s_u, key);
        if (dsum == 0) {
            /* A cover within the budget. Publish it if it beats the
               incumbent: certificate first, then the size. */
            const i32 value = N - cover;
            if (value > inc) {
                for (i32 v = (i32)lid; v < N; v += LANES) {
                    cert[1 + v] = deg[v] == VC_IN ? 1 : 0;
                }
                ds_publish(ctrl, cert, value, lid);
            }
            ds_up(&w);
            w.phase = PH_NEXT;
            continue;
        }
        const i32 maxd = 0x7fffffff - (i32)(key >> 32);
        if ((i64)(dsum / 2) > (i64)kleft * (i64)maxd) {
            ds_up(&w);
            w.phase = PH_NEXT;
            continue;
        }

        /* A greedy maximal matching (lane 0, vertices and lists in index
           order, so every backend gets the same one): every cover takes
           an end of each of its edges. The marks serve as "matched" and
           are cleared after. */
        if (lid == 0) {
            i32 msize = 0;
            for (i32 v = 0; v < N && msize <= kleft; v++) {
                if (deg[v] <= 0 || mk[v] != 0) {
                    continue;
                }
                for (i32 e = off[v]; e < off[v + 1]; e++) {
                    const i32 u = adj[e];
                    if (deg[u] >= 0 && mk[u] == 0) {
                        mk[u] = 1;
                        mk[v] = 1;
                        msize++;
                        break;
                    }
                }
            }
            s_b[2] = msize;
        }
        BARRIER();
        const i32 msize = (i32)s_b[2];
        for (i32 v = (i32)lid; v < N; v += LANES) {
            mk[v] = 0;
        }
        BARRIER();
        if (msize > kleft) {
            ds_up(&w);
            w.phase = PH_NEXT;
            continue;
        }

        /* Donation: while workers wait and the ring holds fewer tasks than
           them, give away the "N(v) in the cover" child of the shallowest
           node on the path that has it still to do. */
        if (w.level > 0) {
            if (ds_give_now(ctrl, &s_b[2], lid)) {
                i32 j = w.level;
                for (i32 k = (i32)lid; k < w.level; k += LANES) {
                    if (hd[(size_t)k * HW + H_NEXT] == 2) {
                        j = k;
                        break;
                    }
                }
                j = (i32)ds_min_u64(s_u, (u64)j);
                if (j < w.level) {
                    const i64 pos = ds_reserve_slot(ctrl, seq, CAP, &s_b[3], lid);
                    if (pos >= 0) {
                        GLOBAL u64* t = ds_slot(slots, pos, CAP, TASKW);
                        GLOBAL i32* td = (GLOBAL i32*)(t + T_DEG);
                        GLOBAL const i32* jd = fr + (size_t)j * N;
                        GLOBAL i32* hj = hd + (size_t)j * HW;
                        for (i32 i = (i32)lid; i < N; i += LANES) {
                            td[i] = jd[i];
                        }
                        if (lid == 0) {
                            t[0] = (u64)(u32)hj[H_COVER] | (u64)OP_TAKE_NV << 32;
                            t[1] = (u64)(u32)hj[H_V];
                            hj[H_NEXT] = 3;
                        }
                        ds_finish_push(seq, CAP, pos, lid);
                        w.donated++;
                    }
                    BARRIER();
                }
            }
        }

        if (lid == 0) {
            h[H_COVER] = cover;
            h[H_V] = (i32)(key & 0xffffffffu);
            h[H_NEXT] = 1;
            h[H_OP] = OP_NONE;
        }
        BARRIER();
        w.phase = PH_NEXT;
    }

    ds_end(&w);
}
