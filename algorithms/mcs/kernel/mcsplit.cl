/* mcsplit.cl: McSplit (maximum common induced subgraph) on the device
   search-tree layer (devsearch.cl). One work-group of LANES work-items is
   one worker running a depth-first search over its own stack.

   A node is a list of bidomains, each a pair of bitsets (L over g's
   vertices, R over h's, W words each). As in McSplit, the node's bound is
   m + sum min(|L|, |R|); the branching bidomain has the smallest
   max(|L|, |R|) (or |L|·|R| with MINPRODUCT), ties to the smallest left
   vertex; v is that bidomain's smallest left vertex; the children are v
   matched to each w of R in increasing order, then "v unmatched". The sets
   alone decide the tree, so this explores exactly the nodes of the CPU
   engine (algorithms/mcs) when the incumbent is fixed.

   The bounds of all children of a node are computed at once (one item per
   child and bidomain) and the pruned ones are never built: each child is
   counted as a node when its parent generates it, as the CPU engine counts
   a child that fails its bound.

   Per worker, in global memory: MAXDEPTH frame headers of FH words
     h[0] = number of bidomains | arena offset << 32
     h[1] = v | chosen bidomain << 32
     h[2] = the w being explored | "v unmatched" pending << 32
     h[4 .. 4+W) = the candidates w not yet started
     h[3] = the node's bound (R5; 0: unknown)
   and an arena of ARENA bidomains (L then R, DW words each), level after
   level; the task's own matched pairs (base) and its best certificate.

   A task (TASKW words):
     t[0] = m | bidomains << 32;  t[1] = v | chosen << 32;
     t[2] = TASK_PARTIAL | TASK_COUNTED | TASK_SKIP bits;  t[3] = bound
     t[4 .. 4+W) = candidates (partial);  then NMIN pair words (v | w << 32);
     then the bidomains.
   A fresh task is a node to enter (counted by the host if TASK_COUNTED); a
   partial one is a node already expanded whose remaining children are the
   candidates and, with TASK_SKIP, "v unmatched": what a donor gives away.

   RRSplit's reductions (shape[8] = RR_* bits; docs/design/mcs.md states
   each rule and why it loses no optimum, algorithms/mcs/prune.go is the
   CPU engine's form, whose tree this one equals node for node with a
   fixed incumbent). With RR_TW0, adjg holds after its n0 rows one more
   row per vertex of g: the bitset of its twin class (empty if it has
   none); with RR_TW1, adjh holds after its rows, per vertex w of h, the
   bitset of w's twins below w.
     R1  v's candidates are above the largest image of v's twins matched
         on the path (the floor: a reduction over the path's pairs);
     B1  the chosen bidomain's bound with that restriction;
     R2  "v unmatched" also removes v's twins from its left set;
     R3  a child that keeps every bidomain whole ends the node: the later
         candidates and "v unmatched" are dropped (decided for all
         children at once, in the pass that computes their bounds);
     R4  of the candidates, only the first of each twin class of h;
     R5  (not with a fixed incumbent) a node ends once the incumbent
         reaches its bound: checked before each child. */

/* The wrapper (mcsplit.go) defines these; the defaults serve
   `arbor kernels --dump` and the syntax checks. */
#ifndef LANES
#define LANES 32
#endif
#ifndef W
#define W 2
#endif
#ifndef MINPRODUCT
#define MINPRODUCT 0
#endif

/* A worker of one work-item (CPU devices) needs no barriers, and without
   them PoCL builds no work-item loops around them (whose analysis failed
   with "Could not find a dominating alternative variable" for W > 1). */

#include "devsearch.cl"

#define DW (2 * W)
#define FH (4 + W)
#define NOVERT 0x7fffffffu

#define TASK_PARTIAL 1
#define TASK_COUNTED 2
#define TASK_SKIP 4
#define T_CAND 4
#define T_PAIRS (4 + W)
#define T_DOMS (4 + W + NMIN) /* NMIN is a variable of the kernel */

#define PH_ENTER 0         /* enter the node at level, counting it */
#define PH_ENTER_COUNTED 1 /* enter it, already counted by its parent */
#define PH_NEXT 2          /* start the next child of the node at level */

#define RR_R3 1  /* a child splitting as its parent ends the node */
#define RR_R5 2  /* a node ends once the incumbent reaches its bound */
#define RR_TW0 4 /* twin classes of g: R1, R2, B1 */
#define RR_TW1 8 /* twin classes of h: R4 */
#define NOTWHOLE (1 << 16) /* R3: added to a child's bound sum per bidomain it splits */

INLINE i32 bits_count(const u64* s)
{
    i32 c = 0;
    for (int k = 0; k < W; k++) {
        c += POPCOUNT64(s[k]);
    }
    return c;
}

INLINE u32 bits_first(const u64* s)
{
    for (int k = 0; k < W; k++) {
        if (s[k] != 0) {
            return (u32)(k * 64 + CTZ64(s[k]));
        }
    }
    return NOVERT;
}

/* The size key of a bidomain for the branching choice. */
INLINE u64 dom_key(i32 ls, i32 rs, u32 minl)
{
#if MINPRODUCT
    u64 size = (u64)ls * (u64)rs;
#else
    u64 size = (u64)ARBOR_MAX(ls, rs);
#endif
    return size << 32 | (u64)minl;
}

/* shape holds the sizes that are not compiled in, so that one build
   serves every pair with the same number of words: W, n1, NMIN, the ring
   capacity CAP, TASKW, ARENA, MAXDEPTH, MINPRODUCT (the Go twin reads
   them all from here). */
KERNEL void mcsplit_epoch(GLOBAL const i32* RESTRICT shape, GLOBAL const u64* RESTRICT adjg, GLOBAL const u64* RESTRICT adjh,
                          DS_RING_PARAMS, GLOBAL u64* frames, GLOBAL u64* arena, GLOBAL u64* paths, GLOBAL u32* certs,
                          DS_GOAL_PARAMS)
{
    LOCAL i32 s_i[LANES];
    LOCAL u64 s_u[LANES];
    LOCAL i32 s_cw[64 * W]; /* the candidates of the node being expanded */
    LOCAL i32 s_cb[64 * W]; /* their bounds, summed over bidomains */
    LOCAL u32 s_keep[2 * W]; /* the candidates that survive their bound */
    LOCAL i64 s_b[4];      /* lane 0's decisions, broadcast */
    LOCAL i32 s_inc;       /* the incumbent as lane 0 read it */

    const i32 NMIN = shape[2];
    const u32 CAP = (u32)shape[3];
    const i32 TASKW = shape[4];
    const i32 ARENA = shape[5];
    const i32 MAXDEPTH = shape[6];
    const i32 RULES = shape[8];
    const i32 N0 = shape[9];
    GLOBAL const u64* twg = adjg + (size_t)N0 * W; /* RR_TW0: class of each vertex of g */
    GLOBAL const u64* twh = adjh + (size_t)shape[1] * W; /* RR_TW1: lower twins of each vertex of h */
    const u32 lid = (u32)get_local_id(0);
    const u32 wid = (u32)get_group_id(0);
    GLOBAL u64* fr = frames + (size_t)wid * MAXDEPTH * FH;
    GLOBAL u64* ar = arena + (size_t)wid * ARENA * DW;
    GLOBAL u64* base = paths + (size_t)wid * NMIN;
    GLOBAL u32* cert = certs + (size_t)wid * (NMIN + 1);

    /* wk.base: the task's own matched pairs (w is a vertex of h here) */
    ds_worker wk = ds_begin(DS_RING_ARGS, budget, idle_limit, CAP, TASKW, s_b);
    while (ds_next(&wk)) {
        if (wk.task) {
            /* Install the task as level 0. */
            volatile GLOBAL const u64* t = wk.task;
            u64 t0 = t[0], t1 = t[1], t2 = t[2];
            i32 m = (i32)(t0 & 0xffffffffu);
            i32 nd = (i32)(t0 >> 32);
            for (i32 i = (i32)lid; i < m; i += LANES) {
                base[i] = t[T_PAIRS + i];
            }
            for (i32 i = (i32)lid; i < nd * DW; i += LANES) {
                ar[i] = t[T_DOMS + i];
            }
            if (lid == 0) {
                fr[0] = (u64)(u32)nd;
                fr[1] = t1;
                fr[2] = (u64)((t2 & TASK_SKIP) ? 1 : 0) << 32;
                fr[3] = t[3];
                for (int k = 0; k < W; k++) {
                    fr[4 + k] = t[T_CAND + k];
                }
            }
            wk.base = m;
            ds_installed(&wk, (t2 & TASK_PARTIAL) ? PH_NEXT : (t2 & TASK_COUNTED) ? PH_ENTER_COUNTED : PH_ENTER);
            continue;
        }

        GLOBAL u64* h = fr + (size_t)wk.level * FH;
        const i32 nd = (i32)(h[0] & 0xffffffffu);
        const i32 off = (i32)(h[0] >> 32);
        GLOBAL u64* doms = ar + (size_t)off * DW;
        const i32 m = wk.base + wk.level;

        if (wk.phase == PH_NEXT) {
            if ((RULES & RR_R5) && !frozen && (i32)h[3] > 0) {
                /* R5: the incumbent reached the node's bound. */
                const i32 inc5 = ds_incumbent(ctrl, &s_inc, lid);
                if (inc5 >= (i32)h[3]) {
                    ds_up(&wk);
                    wk.phase = PH_NEXT;
                    continue;
                }
            }
            u64 cand[W];
            for (int k = 0; k < W; k++) {
                cand[k] = h[4 + k];
            }
            const u32 w = bits_first(cand);
            const i32 skip = (i32)(h[2] >> 32);
            if (w != NOVERT) {
                /* Descend into v→w: each bidomain splits by adjacency to
                   v (left) and w (right); parts with both sides non-empty
                   make the child. */
                const u32 v = (u32)(h[1] & 0xffffffffu);
                const i32 chosen = (i32)(h[1] >> 32);
                BARRIER();
                if (lid == 0) {
                    h[4 + (w >> 6)] &= ~((u64)1 << (w & 63));
                    h[2] = (u64)w | (u64)(u32)skip << 32;
                }
                GLOBAL const u64* av = adjg + (size_t)v * W;
                GLOBAL const u64* aw = adjh + (size_t)w * W;
                GLOBAL u64* out = ar + (size_t)(off + nd) * DW;
                i32 made = 0;
                for (i32 c = 0; c < nd; c += LANES) {
                    const i32 i = c + (i32)lid;
                    /* Count the parts, scan, then compute them again to
                       write them: no private array lives across the scan's
                       barriers (PoCL's compiler fails on such arrays when
                       W > 1). */
                    i32 cnt = 0;
                    GLOBAL const u64* d = doms + (size_t)ARBOR_MIN(i, nd - 1) * DW;
                    if (i < nd) {
                        u64 en = 0, ea = 0, fn = 0, fa = 0;
                        for (int k = 0; k < W; k++) {
                            u64 l = d[k], r = d[W + k];
                            if (i == chosen && (u32)k == (w >> 6)) {
                                r &= ~((u64)1 << (w & 63));
                            }
                            en |= l & ~av[k];
                            ea |= l & av[k];
                            fn |= r & ~aw[k];
                            fa |= r & aw[k];
                        }
                        cnt = (en != 0 && fn != 0 ? 1 : 0) + (ea != 0 && fa != 0 ? 2 : 0);
                    }
                    i32 total;
                    i32 at = ds_exscan_i32(s_i, cnt == 3 ? 2 : (cnt != 0 ? 1 : 0), &total);
                    if (cnt != 0) {
                        GLOBAL u64* on = out + (size_t)(made + at) * DW;
                        GLOBAL u64* oa = out + (size_t)(made + at + (cnt & 1)) * DW;
                        for (int k = 0; k < W; k++) {
                            u64 l = d[k], r = d[W + k];
                            if (i == chosen && (u32)k == (w >> 6)) {
                                r &= ~((u64)1 << (w & 63));
                            }
                            if (cnt & 1) {
                                on[k] = l & ~av[k];
                                on[W + k] = r & ~aw[k];
                            }
                            if (cnt & 2) {
                                oa[k] = l & av[k];
                                oa[W + k] = r & aw[k];
                            }
                        }
                    }
                    made += total;
                }
                if (lid == 0) {
                    GLOBAL u64* c = h + FH;
                    c[0] = (u64)(u32)made | (u64)(u32)(off + nd) << 32;
                }
                BARRIER();
                wk.level++;
                wk.phase = PH_ENTER_COUNTED;
                continue;
            }
            if (skip) {
                /* "v unmatched": the same bidomains, v already out of the
                   chosen left set; a left set left empty goes. */
                const i32 chosen = (i32)(h[1] >> 32);
                GLOBAL u64* d = doms + (size_t)chosen * DW;
                /* R2: v's twins leave with it (an empty mask without RR_TW0
                   or when v has none). */
                const u32 v = (u32)(h[1] & 0xffffffffu);
                GLOBAL const u64* tv = twg + (size_t)v * W;
                const i32 tw0 = (RULES & RR_TW0) != 0;
                i32 left = 0;
                for (int k = 0; k < W; k++) {
                    left |= (d[k] & ~(tw0 ? tv[k] : 0)) != 0;
                }
                BARRIER();
                if (!left && chosen != nd - 1) {
                    GLOBAL const u64* last = doms + (size_t)(nd - 1) * DW;
                    for (i32 k = (i32)lid; k < DW; k += LANES) {
                        d[k] = last[k];
                    }
                } else if (left && tw0) {
                    for (i32 k = (i32)lid; k < W; k += LANES) {
                        d[k] &= ~tv[k];
                    }
                }
                if (lid == 0) {
                    h[0] = (u64)(u32)(left ? nd : nd - 1) | (u64)(u32)off << 32;
                    h[2] = 0;
                }
                BARRIER();
                wk.phase = PH_ENTER;
                continue;
            }
            /* Every child done: back to the parent. */
            ds_up(&wk);
            wk.phase = PH_NEXT;
            continue;
        }

        /* Enter the node at this level. */
        if (wk.phase == PH_ENTER) {
            wk.nodes++;
            wk.spent++;
        }
        /* Lane 0 reads the incumbent for the whole worker (ds_incumbent
           says why). */
        const i32 inc = ds_incumbent(ctrl, &s_inc, lid);
        if (m > inc) {
            /* A larger common subgraph: publish its certificate in this
               worker's slot, then its size (the host reads the slot of
               the largest size once the launch is over). */
            for (i32 i = (i32)lid; i < m; i += LANES) {
                u64 p = i < wk.base ? base[i] : (fr[(size_t)(i - wk.base) * FH + 1] & 0xffffffffu) |
                                                   (fr[(size_t)(i - wk.base) * FH + 2] << 32);
                cert[1 + i] = (u32)(p & 0xffffu) | (u32)((p >> 32) & 0xffffu) << 16;
            }
            ds_publish(ctrl, (GLOBAL i32*)cert, m, lid);
        }
        const i32 best = frozen ? goal - 1 : ARBOR_MAX(inc, m);

        /* Donation: while workers wait and the ring holds fewer tasks than
           them, give away half of the untried children of the shallowest
           node on the path that has any (the "v unmatched" branch goes with
           the half given away, so the donor keeps the early candidates).
           Measured on the H100 over 21 medium MIVIA pairs: giving only the
           next child in the sequential order (as the CPU engine does) made
           tasks so small that the node rate fell 2-5x and the sum of times
           doubled, with no fewer nodes. */
        if (wk.level > 0) {
            if (ds_give_now(ctrl, &s_b[2], lid)) {
                i32 j = wk.level;
                for (i32 k = (i32)lid; k < wk.level; k += LANES) {
                    GLOBAL const u64* hk = fr + (size_t)k * FH;
                    u64 any = hk[2] >> 32;
                    for (int q = 0; q < W; q++) {
                        any |= hk[4 + q];
                    }
                    if (any) {
                        j = ARBOR_MIN(j, k);
                        break;
                    }
                }
                j = (i32)ds_min_u64(s_u, (u64)j);
                if (j < wk.level) {
                    GLOBAL u64* hj = fr + (size_t)j * FH;
                    const i64 pos = ds_reserve_slot(ctrl, seq, CAP, &s_b[3], lid);
                    if (pos >= 0) {
                        const i32 jnd = (i32)(hj[0] & 0xffffffffu);
                        const i32 joff = (i32)(hj[0] >> 32);
                        GLOBAL u64* t = ds_slot(slots, pos, CAP, TASKW);
                        const i32 jm = wk.base + j;
                        for (i32 i = (i32)lid; i < jm; i += LANES) {
                            t[T_PAIRS + i] = i < wk.base ? base[i]
                                                       : (fr[(size_t)(i - wk.base) * FH + 1] & 0xffffffffu) |
                                                             (fr[(size_t)(i - wk.base) * FH + 2] << 32);
                        }
                        GLOBAL const u64* jd = ar + (size_t)joff * DW;
                        for (i32 i = (i32)lid; i < jnd * DW; i += LANES) {
                            t[T_DOMS + i] = jd[i];
                        }
                        if (lid == 0) {
                            /* Split the candidates: the donor keeps the first
                               (c+1)/2; one lane does it, so that no private
                               array lives across a barrier. The copies above
                               read no word of level j's frame that it writes. */
                            u64 cand[W], givec[W];
                            for (int k = 0; k < W; k++) {
                                cand[k] = hj[4 + k];
                                givec[k] = 0;
                            }
                            const i32 skip = (i32)(hj[2] >> 32);
                            const i32 c = bits_count(cand);
                            if (c >= 2) {
                                i32 keep = (c + 1) / 2;
                                for (int k = 0; k < W; k++) {
                                    u64 x = cand[k];
                                    while (x != 0) {
                                        u64 low = x & (~x + 1);
                                        x ^= low;
                                        if (keep > 0) {
                                            keep--;
                                        } else {
                                            givec[k] |= low;
                                            cand[k] ^= low;
                                        }
                                    }
                                }
                            } else if (c == 1 && !skip) {
                                for (int k = 0; k < W; k++) {
                                    givec[k] = cand[k];
                                    cand[k] = 0;
                                }
                            }
                            t[0] = (u64)(u32)jm | (u64)(u32)jnd << 32;
                            t[1] = hj[1];
                            t[2] = TASK_PARTIAL | (skip ? TASK_SKIP : 0);
                            t[3] = hj[3];
                            for (int k = 0; k < W; k++) {
                                t[T_CAND + k] = givec[k];
                                hj[4 + k] = cand[k];
                            }
                            hj[2] &= 0xffffffffu; /* "v unmatched" always goes with the gift */
                        }
                        ds_finish_push(seq, CAP, pos, lid);
                        wk.donated++;
                    }
                    BARRIER();
                }
            }
        }

        /* The bound, and the bidomain to branch on. */
        i32 bsum = 0;
        u64 kmin = ~(u64)0;
        for (i32 i = (i32)lid; i < nd; i += LANES) {
            GLOBAL const u64* d = doms + (size_t)i * DW;
            u64 l[W];
            i32 ls = 0, rs = 0;
            for (int k = 0; k < W; k++) {
                l[k] = d[k];
                ls += POPCOUNT64(d[k]);
                rs += POPCOUNT64(d[W + k]);
            }
            bsum += ARBOR_MIN(ls, rs);
            kmin = ARBOR_MIN(kmin, dom_key(ls, rs, bits_first(l)));
        }
        i32 bound = m + ds_sum_i32(s_i, bsum);
        kmin = ds_min_u64(s_u, kmin);
        if (bound <= best || bound < goal || nd == 0) {
            /* Pruned (or a leaf): back to the parent's next child. */
            ds_up(&wk);
            wk.phase = PH_NEXT;
            continue;
        }
        const u32 v = (u32)(kmin & 0xffffffffu);
        /* Which bidomain holds v: the one whose left set has v's bit. */
        i32 chosen = nd;
        for (i32 i = (i32)lid; i < nd; i += LANES) {
            if ((doms[(size_t)i * DW + (v >> 6)] >> (v & 63)) & 1) {
                chosen = i;
            }
        }
        chosen = (i32)ds_min_u64(s_u, (u64)chosen);
        GLOBAL u64* cd = doms + (size_t)chosen * DW;
        /* The candidates: the chosen right set, in increasing order. */
        u64 rset[W];
        for (int k = 0; k < W; k++) {
            rset[k] = cd[W + k];
        }
        GLOBAL const u64* tv = twg + (size_t)v * W;
        i32 twins = 0;
        if (RULES & RR_TW0) {
            for (int k = 0; k < W; k++) {
                twins |= tv[k] != 0;
            }
        }
        if (twins) {
            /* R1: the floor is the largest image of v's twins on the path
               (their images increase along it). */
            u64 fl = 512;
            for (i32 i = (i32)lid; i < m; i += LANES) {
                u64 p = i < wk.base ? base[i] : (fr[(size_t)(i - wk.base) * FH + 1] & 0xffffffffu) |
                                                  (fr[(size_t)(i - wk.base) * FH + 2] << 32);
                const u32 u = (u32)(p & 0xffffffffu);
                if ((tv[u >> 6] >> (u & 63)) & 1) {
                    fl = ARBOR_MIN(fl, (u64)511 - (p >> 32));
                }
            }
            const i32 flr = 511 - (i32)ds_min_u64(s_u, fl); /* -1: none matched */
            /* B1: v's twins in its bidomain take only right vertices above
               the floor. */
            i32 ll = 0, rl = 0, cl = 0, cr = 0;
            for (int k = 0; k < W; k++) {
                const i32 lo = flr + 1 - k * 64; /* bits of word k above the floor start here */
                const u64 above = lo <= 0 ? ~(u64)0 : lo >= 64 ? 0 : ~(((u64)1 << lo) - 1);
                ll += POPCOUNT64(cd[k]);
                cl += POPCOUNT64(cd[k] & tv[k]);
                rl += POPCOUNT64(rset[k]);
                rset[k] &= above;
                cr += POPCOUNT64(rset[k]);
            }
            if (cl > cr) {
                bound += ARBOR_MIN(rl, ll - cl + cr) - ARBOR_MIN(ll, rl);
                if (bound <= best || bound < goal) {
                    ds_up(&wk);
                    wk.phase = PH_NEXT;
                    continue;
                }
            }
        }
        if (RULES & RR_TW1) {
            /* R4: a candidate with a twin below it among the candidates
               is dropped (its subtree is that twin's, mirrored). */
            for (i32 k = (i32)lid; k < 2 * W; k += LANES) {
                s_keep[k] = 0;
            }
            BARRIER();
            for (int k = 0; k < W; k++) {
                u64 x = rset[k];
                for (u32 b = lid; b < 64; b += LANES) {
                    if ((x >> b) & 1) {
                        GLOBAL const u64* tl = twh + (size_t)(k * 64 + b) * W;
                        u64 any = 0;
                        for (int q = 0; q < W; q++) {
                            any |= rset[q] & tl[q];
                        }
                        if (any) {
                            LOCAL_ATOMIC_OR_U32(&s_keep[2 * k + (b >> 5)], 1u << (b & 31));
                        }
                    }
                }
            }
            BARRIER();
            for (int k = 0; k < W; k++) {
                rset[k] &= ~((u64)s_keep[2 * k] | (u64)s_keep[2 * k + 1] << 32);
            }
            BARRIER();
        }
        i32 nc = 0;
        for (int k = 0; k < W; k++) {
            u64 x = rset[k];
            for (u32 b = lid; b < 64; b += LANES) {
                if ((x >> b) & 1) {
                    u64 below = b == 0 ? 0 : x & (((u64)1 << b) - 1);
                    s_cw[nc + POPCOUNT64(below)] = (i32)(k * 64 + b);
                }
            }
            nc += POPCOUNT64(x);
        }
        for (i32 j = (i32)lid; j < nc; j += LANES) {
            s_cb[j] = 0;
        }
        for (i32 k = (i32)lid; k < 2 * W; k += LANES) {
            s_keep[k] = 0;
        }
        BARRIER();
        if (lid == 0) {
            cd[v >> 6] &= ~((u64)1 << (v & 63));
            h[1] = (u64)v | (u64)(u32)chosen << 32;
            h[2] = (u64)1 << 32;
            h[3] = (u64)(u32)bound;
        }
        BARRIER();
        const i32 r3 = (RULES & RR_R3) != 0;
        /* Each child's bound: one item per (child, bidomain). */
        GLOBAL const u64* av = adjg + (size_t)v * W;
        for (i32 x = (i32)lid; x < nc * nd; x += LANES) {
            const i32 j = x / nd, i = x - j * nd;
            const u32 w = (u32)s_cw[j];
            GLOBAL const u64* aw = adjh + (size_t)w * W;
            GLOBAL const u64* d = doms + (size_t)i * DW;
            i32 lnc = 0, lac = 0, rnc = 0, rac = 0;
            for (int k = 0; k < W; k++) {
                u64 l = d[k], r = d[W + k];
                if (i == chosen && (u32)k == (w >> 6)) {
                    r &= ~((u64)1 << (w & 63));
                }
                lnc += POPCOUNT64(l & ~av[k]);
                lac += POPCOUNT64(l & av[k]);
                rnc += POPCOUNT64(r & ~aw[k]);
                rac += POPCOUNT64(r & aw[k]);
            }
            /* R3: the bidomain stays whole when it has an empty side or
               goes entirely to one part on both sides. */
            const i32 whole = (lnc + lac == 0) || (rnc + rac == 0) || (lnc == 0 && rnc == 0) || (lac == 0 && rac == 0);
            LOCAL_ATOMIC_ADD_I32(&s_cb[j], ARBOR_MIN(lnc, rnc) + ARBOR_MIN(lac, rac) + (r3 && !whole ? NOTWHOLE : 0));
        }
        BARRIER();
        /* R3: the first child that splits nothing ends the node: the
           candidates after it and "v unmatched" are never visited. */
        i32 stop = nc;
        if (r3) {
            u64 first = (u64)nc;
            for (i32 j = (i32)lid; j < nc; j += LANES) {
                if (s_cb[j] < NOTWHOLE) {
                    first = ARBOR_MIN(first, (u64)j);
                    break;
                }
            }
            stop = (i32)ds_min_u64(s_u, first);
            if (stop < nc) {
                stop++;
                if (lid == 0) {
                    h[2] = 0;
                }
            }
        }
        wk.nodes += stop;
        wk.spent += stop;
        for (i32 j = (i32)lid; j < stop; j += LANES) {
            const i32 cb = m + 1 + (s_cb[j] & (NOTWHOLE - 1));
            if (cb > best && cb >= goal) {
                const u32 w = (u32)s_cw[j];
                LOCAL_ATOMIC_OR_U32(&s_keep[w >> 5], 1u << (w & 31));
            }
        }
        BARRIER();
        if (lid == 0) {
            for (int k = 0; k < W; k++) {
                h[4 + k] = (u64)s_keep[2 * k] | (u64)s_keep[2 * k + 1] << 32;
            }
        }
        BARRIER();
        wk.phase = PH_NEXT;
    }

    ds_end(&wk);
}
