/* clique.cl: maximum clique (BBMC-style bitset branch and bound) on the
   device search-tree layer (devsearch.cl). One work-group of LANES
   work-items is one worker running a depth-first search over its own
   stack; the lanes share the words of every bitset.

   A node is a clique C (its size is base + level: the task's own members,
   then one vertex per frame above) and a candidate set P (vertices
   adjacent to all of C). Entering a node colours P greedily, one colour
   class at a time (San Segundo's BBMC: the lowest vertex of what is left
   of the class's candidates joins the class, its neighbours leave them),
   and lists the vertices of colour kmin = best − |C| + 1 and above in
   colour order, each with its colour: the others can never be branched
   on. The children are taken from the end of the list (highest colour
   first) while |C| + colour > best; a child's candidates are P ∩ N(v),
   and v leaves P before the next child. A child with no candidates is a
   leaf: the clique C + v, published when larger than the incumbent, and
   not counted as a node. This is the tree of the CPU engine
   (algorithms/clique) with PlainColouring and one thread, node for node
   when the incumbent is fixed.

   Per worker, in global memory: MAXDEPTH frames of FH words
     h[0] = vertices listed, h[1] = next: entries [lo, next) not yet tried,
     h[2] = the vertex the child below is exploring (the path),
     h[3] = lo (entries below it were given away),
     h[4 .. 4+W) = P, less the vertices already branched on;
   the list of each frame (N u32 entries v | colour << 16); the task's
   own clique (base) and the worker's best certificate.

   A task (TASKW u64 words) is a node with clique C and candidates P:
     t[0] = |C| | g << 32;  t[1 .. 1+W) = P;  t[1+W .. 1+W+|C|) = C;
     t[1+W+MAXDEPTH ..] = g list entries, two per word.
   g = 0: a node to enter, not yet counted (the root). g > 0: a node its
   donor counted and coloured, whose children are the g entries (the
   lowest-coloured half of what the donor had left), P less the vertices
   of the entries the donor kept. */

/* The wrapper (clique.go) defines these; the defaults serve
   `arbor kernels --dump` and the syntax checks. */
#ifndef LANES
#define LANES 32
#endif
#ifndef W
#define W 2
#endif

#include "devsearch.cl"

#define CQ_FH (4 + W)
#define CQ_P 4
#define CQ_NOVERT 0xffffffffu
#define CQ_ENTER 0 /* enter (count, colour) the node at level */
#define CQ_NEXT 2  /* start the next child of the node at level */

KERNEL void clique_epoch(GLOBAL const i32* RESTRICT shape, GLOBAL const u64* RESTRICT adj, DS_RING_PARAMS,
                         GLOBAL u64* frames, GLOBAL u32* lists, GLOBAL u64* bases, GLOBAL u32* certs, DS_GOAL_PARAMS)
{
    LOCAL i32 s_i[LANES];
    ARBOR_SG_SCRATCH;
#if !(ARBOR_SG_WARP && W <= LANES)
    LOCAL u64 s_q[W]; /* colouring: the vertices not yet coloured */
    LOCAL u64 s_r[W]; /* colouring: the current class's candidates */
#endif
    LOCAL i64 s_b[4]; /* lane 0's decisions, broadcast */
    LOCAL i32 s_inc;  /* the incumbent as lane 0 read it */

    const i32 N = shape[1];
    const u32 CAP = (u32)shape[3];
    const i32 TASKW = shape[4];
    const i32 MAXDEPTH = shape[5];
    const u32 lid = (u32)get_local_id(0);
    const u32 wid = (u32)get_group_id(0);
    GLOBAL u64* fr = frames + (size_t)wid * MAXDEPTH * CQ_FH;
    GLOBAL u32* ls = lists + (size_t)wid * MAXDEPTH * N;
    GLOBAL u64* base = bases + (size_t)wid * MAXDEPTH;
    GLOBAL u32* cert = certs + (size_t)wid * (MAXDEPTH + 1);

    ds_worker w = ds_begin(DS_RING_ARGS, budget, idle_limit, CAP, TASKW, s_b);
    while (ds_next(&w)) {
        if (w.task) {
            /* Install the task as level 0. */
            volatile GLOBAL const u64* t = w.task;
            const u64 t0 = t[0];
            const i32 m = (i32)(t0 & 0xffffffffu);
            const i32 g = (i32)(t0 >> 32);
            for (i32 i = (i32)lid; i < m; i += LANES) {
                base[i] = t[1 + W + i];
            }
            for (i32 j = (i32)lid; j < W; j += LANES) {
                fr[CQ_P + j] = t[1 + j];
            }
            for (i32 i = (i32)lid; i < g; i += LANES) {
                ls[i] = (u32)(t[1 + W + MAXDEPTH + i / 2] >> (32 * (i & 1)));
            }
            if (lid == 0) {
                fr[0] = (u64)g;
                fr[1] = (u64)g;
                fr[2] = 0;
                fr[3] = 0;
            }
            w.base = m; /* the task's own clique */
            ds_installed(&w, g > 0 ? CQ_NEXT : CQ_ENTER);
            continue;
        }

        GLOBAL u64* h = fr + (size_t)w.level * CQ_FH;
        GLOBAL u32* lst = ls + (size_t)w.level * N;
        const i32 size = w.base + w.level;
        /* Lane 0 reads the incumbent for the whole worker, so that every
           lane prunes and publishes alike. */
        const i32 inc = ds_incumbent(ctrl, &s_inc, lid);
        const i32 best = frozen ? goal - 1 : inc;

        if (w.phase == CQ_NEXT) {
            const i32 next = (i32)h[1];
            const i32 lo = (i32)h[3];
            const u32 e = next > lo ? lst[next - 1] : 0u;
            if (next == lo || size + (i32)(e >> 16) <= best) {
                /* Every child done, or the rest have colours no larger. */
                ds_up(&w);
                continue;
            }
            const u32 v = e & 0xffffu;
            GLOBAL const u64* row = adj + (size_t)v * W;
            GLOBAL u64* c = h + CQ_FH;
            i32 any = 0;
            for (i32 j = (i32)lid; j < W; j += LANES) {
                u64 x = h[CQ_P + j] & row[j];
                c[CQ_P + j] = x;
                any |= x != 0;
            }
            any = ds_sum_i32(s_i, any);
            if (lid == 0) {
                h[CQ_P + (v >> 6)] &= ~((u64)1 << (v & 63));
                h[1] = (u64)(next - 1);
                h[2] = v;
            }
            BARRIER();
            if (any != 0) {
                w.level++;
                w.phase = CQ_ENTER;
                continue;
            }
            /* A leaf: the clique C + v cannot grow. */
            w.spent++;
            if (size + 1 > inc) {
                for (i32 i = (i32)lid; i <= size; i += LANES) {
                    cert[1 + i] = (u32)(i < w.base ? base[i] : fr[(size_t)(i - w.base) * CQ_FH + 2]);
                }
                ds_publish(ctrl, (GLOBAL i32*)cert, size + 1, lid);
            }
            continue;
        }

        /* Enter the node at this level. */
        w.nodes++;
        w.spent++;

        /* Donation: while workers wait and the ring holds fewer tasks than
           them, the shallowest node on the path with untried children worth
           trying gives away the lowest-coloured half of them (one if it has
           only one), as a node already counted: its clique, its list entries
           and its P less the vertices of the entries the donor keeps (which
           it tries first, as the sequential order would). Frames whose next
           child fails the bound are closed on the way, as the CPU engine
           does. The tree does not change, only who explores which part. */
        if (w.level > 0) {
            if (ds_give_now(ctrl, &s_b[2], lid)) {
                if (lid == 0) {
                    i32 jj = -1;
                    i64 pos = -1;
                    for (i32 j = 0; j < w.level; j++) {
                        GLOBAL u64* hj = fr + (size_t)j * CQ_FH;
                        const i32 nx = (i32)hj[1];
                        const i32 lo = (i32)hj[3];
                        if (nx == lo) {
                            continue;
                        }
                        const u32 ej = ls[(size_t)j * N + nx - 1];
                        if (w.base + j + (i32)(ej >> 16) <= best) {
                            hj[1] = (u64)lo; /* the rest is pruned anyway */
                            continue;
                        }
                        jj = j;
                        pos = ds_reserve_push(ctrl, seq, CAP);
                        break;
                    }
                    s_b[3] = jj;
                    s_b[0] = pos;
                }
                BARRIER();
                const i32 jj = (i32)s_b[3];
                const i64 pos = s_b[0];
                BARRIER();
                if (jj >= 0 && pos >= 0) {
                    GLOBAL u64* hj = fr + (size_t)jj * CQ_FH;
                    GLOBAL const u32* lj = ls + (size_t)jj * N;
                    const i32 nx = (i32)hj[1];
                    const i32 lo = (i32)hj[3];
                    const i32 g = ARBOR_MAX(1, (nx - lo) / 2);
                    const i32 jm = w.base + jj;
                    GLOBAL u64* t = ds_slot(slots, pos, CAP, TASKW);
                    for (i32 j = (i32)lid; j < W; j += LANES) {
                        t[1 + j] = hj[CQ_P + j];
                    }
                    for (i32 i = (i32)lid; i < jm; i += LANES) {
                        t[1 + W + i] = i < w.base ? base[i] : fr[(size_t)(i - w.base) * CQ_FH + 2];
                    }
                    for (i32 i = (i32)lid; 2 * i < g; i += LANES) {
                        const u64 e1 = 2 * i + 1 < g ? (u64)lj[lo + 2 * i + 1] : 0;
                        t[1 + W + MAXDEPTH + i] = (u64)lj[lo + 2 * i] | e1 << 32;
                    }
                    GLOBAL_FENCE();
                    BARRIER();
                    if (lid == 0) {
                        for (i32 i = lo + g; i < nx; i++) {
                            const u32 v = lj[i] & 0xffffu;
                            t[1 + (v >> 6)] &= ~((u64)1 << (v & 63));
                        }
                        t[0] = (u64)(u32)jm | (u64)(u32)g << 32;
                        hj[3] = (u64)(lo + g);
                        ds_commit_push(seq, CAP, (u32)pos);
                    }
                    w.donated++;
                    BARRIER();
                }
            }
        }

        /* Colour P class by class. The lanes share the words of the
           class's candidates; lane 0 picks each class's next vertex (the
           lowest left) and writes the list, the others strike its
           neighbours out. */
        const i32 kmin = best - size + 1;
#if ARBOR_SG_WARP && W <= LANES
        /* When the worker is one sub-group (a warp of 32 on CUDA and
           NVIDIA's OpenCL, a khr sub-group of 32 or 64 lanes) each lane
           keeps one word of the uncoloured set and of the class's
           candidates in registers, and the worker finds the lowest vertex
           left with a ballot and a shuffle: no barrier per vertex (the
           local-memory form below takes two). The same vertices in the
           same order, so the same list and tree. */
        {
            u64 q = lid < W ? h[CQ_P + lid] : 0;
            i32 k = 0;
            i32 nl = 0; /* lane 0's count of listed vertices */
            while (arbor_sg_any(q != 0)) {
                k++;
                u64 r = q;
                for (;;) {
                    const u64 mask = arbor_sg_ballot(r != 0);
                    if (mask == 0) {
                        break;
                    }
                    const i32 lo = CTZ64(mask);
                    const u64 rw = arbor_sg_shfl_u64(r, lo);
                    const u64 bit = rw & (~rw + 1);
                    const u32 v = (u32)(lo * 64 + CTZ64(rw));
                    if ((i32)lid == lo) {
                        r &= ~bit;
                        q &= ~bit;
                    }
                    if (lid == 0 && k >= kmin) {
                        lst[nl++] = v | (u32)k << 16;
                    }
                    if (lid < W) {
                        r &= ~adj[(size_t)v * W + lid];
                    }
                }
            }
            if (lid == 0) {
                h[0] = (u64)nl;
                h[1] = (u64)nl;
                h[3] = 0;
            }
            BARRIER();
        }
#else
        for (i32 j = (i32)lid; j < W; j += LANES) {
            s_q[j] = h[CQ_P + j];
        }
        BARRIER();
        i32 k = 0;
        i32 nl = 0; /* lane 0's count of listed vertices */
        for (;;) {
            if (lid == 0) {
                u64 left = 0;
                for (int j = 0; j < W; j++) {
                    left |= s_q[j];
                }
                s_b[0] = left != 0;
            }
            BARRIER();
            const i32 more = (i32)s_b[0];
            BARRIER();
            if (!more) {
                break;
            }
            k++;
            for (i32 j = (i32)lid; j < W; j += LANES) {
                s_r[j] = s_q[j];
            }
            BARRIER();
            i32 lo = 0;
            for (;;) {
                if (lid == 0) {
                    while (lo < W && s_r[lo] == 0) {
                        lo++;
                    }
                    u32 v = CQ_NOVERT;
                    if (lo < W) {
                        const u64 bit = s_r[lo] & (~s_r[lo] + 1);
                        v = (u32)(lo * 64 + CTZ64(bit));
                        s_r[lo] &= ~bit;
                        s_q[lo] &= ~bit;
                        if (k >= kmin) {
                            lst[nl++] = v | (u32)k << 16;
                        }
                    }
                    s_b[1] = v;
                }
                BARRIER();
                const u32 v = (u32)s_b[1];
                if (v == CQ_NOVERT) {
                    break;
                }
                GLOBAL const u64* row = adj + (size_t)v * W;
                for (i32 j = (i32)lid; j < W; j += LANES) {
                    s_r[j] &= ~row[j];
                }
                BARRIER();
            }
        }
        if (lid == 0) {
            h[0] = (u64)nl;
            h[1] = (u64)nl;
            h[3] = 0;
        }
        BARRIER();
#endif
        w.phase = CQ_NEXT;
    }

    ds_end(&w);
}
