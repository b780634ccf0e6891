/* vcls.cl: many independent chains of the partition local search for
   vertex cover (algorithms/vertexcover/partition.go), one work-group of
   LANES work-items per chain.

   The problem: K cliques partition the N vertices; choose one vertex per
   clique so that no two chosen vertices are adjacent. The graph holds only
   the A arcs between different cliques (CSR off/adj, ascending lists;
   rev[i] is the arc opposite arc i). A step takes a random violated pair
   of cliques and re-chooses in one of them (weighted scores,
   configuration checking, ties to the oldest); then every violated
   edge's weight rises by one, and the weights are scaled by 0.3 when
   their total passes forget_at. A chain with a degree bias (cs[CS_BETA]
   above 0) compares members by score·1024 + bias·ddeg[v] instead of the
   score alone, bias = beta·total_w / (A/2) (beta in 1024ths of the mean
   edge weight) and ddeg[v] v's degree above the least in its clique
   (partition.go's partDegBeta: BHOSLIB's answers lean to low degrees).

   Per chain, in global memory and kept between launches: w[A] (both arcs
   of an edge hold the same weight), score[N] (weight of v's edges to
   chosen vertices), age[N], conf[N], chosen[K], the violated-pair bit
   matrix vm[K][KW] (symmetric; bit q2 of row q1 set when chosen[q1] and
   chosen[q2] are adjacent), arc[K][K] (for a violated pair, the arc from
   chosen[q1] to chosen[q2]: raising the weights needs no search of the
   lists), and the scalars cs[VCLS_CSW].

   Every decision is taken by all lanes alike from the same values, so
   control flow stays uniform (barriers inside loops are safe) and the
   result does not depend on LANES: the lanes only share loops whose
   iterations write disjoint words, and the reductions compare whole
   keys (score, age, vertex), which have one minimum however they are
   grouped. chosen, vm and the per-row counts live in local memory for
   the launch, and so do score, age and conf where they fit (VCLS_LOCAL).
   Where lanes of one phase update the same word they use atomics on
   integers, whose sums do not depend on the order. */

#ifndef LANES
#define LANES 64
#endif

#if LANES == 1
#undef BARRIER
#define BARRIER()
#endif

/* The chain scalars (must match vcls.go). */
#define CS_RNG 0
#define CS_STEP 1
#define CS_TOTALW 2
#define CS_SOLVED 3
#define CS_V 4
#define CS_BETA 5
#define VCLS_CSW 8

#define VCLS_GOLDEN ((u64)0x9E3779B97F4A7C15UL)

/* splitmix64: one 64-bit state, so a chain's generator is one word to keep. */
INLINE u64 vcls_next(u64* s)
{
    *s += VCLS_GOLDEN;
    u64 z = *s;
    z = (z ^ (z >> 30)) * (u64)0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * (u64)0x94D049BB133111EBUL;
    return z ^ (z >> 31);
}

/* vcls_rand: uniform in [0, n) for 0 < n < 2^31, by multiply-shift (no division). */
INLINE i32 vcls_rand(u64* s, i32 n)
{
    return (i32)(((vcls_next(s) >> 32) * (u64)n) >> 32);
}

/* A candidate is its key: (score key, age, vertex). vcls_better: is (s1,
   a1, x1) before (s2, a2, x2): fewer weighted conflicts (with the degree
   bias, vcls_key), then older, then the smaller vertex, which is the
   earlier member? x = -1 is none. */
INLINE int vcls_better(i64 s1, i64 a1, i32 x1, i64 s2, i64 a2, i32 x2)
{
    if (x1 < 0) {
        return 0;
    }
    if (x2 < 0) {
        return 1;
    }
    if (s1 != s2) {
        return s1 < s2;
    }
    if (a1 != a2) {
        return a1 < a2;
    }
    return x1 < x2;
}

/* vcls_key: a member's score key, the score in 1024ths plus the degree bias. */
INLINE i64 vcls_key(i32 score, i64 bias, i32 ddeg) { return ((i64)score << 10) + bias * (i64)ddeg; }

/* The reduction's first level: VCLS_G groups of VCLS_S lanes (LANES a
   power of two). Two levels of short serial scans take two barriers where
   a binary tree takes 1 + log2(LANES); the scans' local loads are
   independent of each other, so they overlap. */
#if LANES >= 16
#define VCLS_G 8
#else
#define VCLS_G (LANES > 1 ? LANES / 2 : 1)
#endif
#define VCLS_S (LANES / VCLS_G)

/* vcls_reduce2 combines every lane's two candidates (*x for the first
   clique, *y for the second, with their score keys and ages) into the
   group's best of each, returned to every lane in the same variables.
   Level 0: vertices in ids[0] and ids[LANES], ages in ages[0],
   ages[LANES], keys in ages[2·LANES], ages[3·LANES]; level 1 (lanes below
   2·VCLS_G, one group each): vertices in ids[2·LANES + 2 + o·VCLS_G],
   ages in ages[4·LANES + o·VCLS_G], keys 2·VCLS_G further on (o 0 for x,
   1 for y); then every lane scans level 1 itself. The keys travel with the vertices, so no
   global memory is read between the barriers, and the key is total, so
   the grouping does not change the winner. Level 1 is only written after
   the first barrier of the next call, by which every lane has read it. */
INLINE void vcls_reduce2(LOCAL_REF(i32) ids, LOCAL_REF(i64) ages, i32* x, i64* sx, i64* ax, i32* y, i64* sy, i64* ay,
                         i32 lid)
{
#if LANES > 1
    ids[lid] = *x, ages[2 * LANES + lid] = *sx, ages[lid] = *ax;
    ids[LANES + lid] = *y, ages[3 * LANES + lid] = *sy, ages[LANES + lid] = *ay;
    BARRIER();
    LOCAL_REF(i32) l1 = ids + 2 * LANES + 2;
    LOCAL_REF(i64) a1 = ages + 4 * LANES;
    if (lid < 2 * VCLS_G) {
        const i32 o = lid / VCLS_G, g = lid % VCLS_G, base = o * LANES + g * VCLS_S;
        i32 b = ids[base];
        i64 sb = ages[2 * LANES + base], ab = ages[base];
        for (i32 k = 1; k < VCLS_S; k++) {
            const i32 j = base + k, xj = ids[j];
            const i64 sj = ages[2 * LANES + j], aj = ages[j];
            if (vcls_better(sj, aj, xj, sb, ab, b)) {
                b = xj, sb = sj, ab = aj;
            }
        }
        l1[lid] = b, a1[2 * VCLS_G + lid] = sb, a1[lid] = ab;
    }
    BARRIER();
    for (i32 o = 0; o < 2; o++) {
        i32 b = l1[o * VCLS_G];
        i64 sb = a1[2 * VCLS_G + o * VCLS_G], ab = a1[o * VCLS_G];
        for (i32 g = 1; g < VCLS_G; g++) {
            const i32 j = o * VCLS_G + g, xj = l1[j];
            const i64 sj = a1[2 * VCLS_G + j], aj = a1[j];
            if (vcls_better(sj, aj, xj, sb, ab, b)) {
                b = xj, sb = sj, ab = aj;
            }
        }
        if (o == 0) {
            *x = b, *sx = sb, *ax = ab;
        } else {
            *y = b, *sy = sb, *ay = ab;
        }
    }
#else
    (void)ids, (void)ages, (void)x, (void)sx, (void)ax, (void)y, (void)sy, (void)ay, (void)lid;
#endif
}

/* vcls_upper: the set bits of row q above q (its pairs q < q2). */
INLINE i32 vcls_upper(LOCAL_REF(u32) row, i32 q, i32 KW)
{
    i32 c = 0;
    for (i32 j = q >> 5; j < KW; j++) {
        u32 x = row[j];
        if (j == (q >> 5)) {
            x &= ~((2u << (q & 31)) - 1u);
        }
        c += POPCOUNT32(x);
    }
    return c;
}

/* vcls_pop: the set bits of a whole row (the pairs of its clique). */
INLINE i32 vcls_pop(LOCAL_REF(u32) row, i32 KW)
{
    i32 c = 0;
    for (i32 j = 0; j < KW; j++) {
        c += POPCOUNT32(row[j]);
    }
    return c;
}

/* VCLS_LOCAL 1 (the wrapper's choice, when they fit): vcls_epoch keeps
   the chain's score, age and conf in local memory for the launch, copied
   in at the start and out at the end, so the candidate scans and the arc
   loops wait on shared memory instead of L2; conf is a byte there, to
   keep 9 bytes a vertex (ages of 32 bits, below). VCLS_LOCAL 0: they stay
   in global memory. */
#ifndef VCLS_LOCAL
#define VCLS_LOCAL 0
#endif
#if VCLS_LOCAL
#define VSTATE(type) LOCAL_REF(type)
typedef unsigned char vcls_conf_t;
/* Ages are steps, which the wrapper keeps below 2^32 while the state is
   local (PartitionLS.Run), so 4 bytes hold them exactly: 9 bytes a vertex
   instead of 13, more chains a multiprocessor. */
typedef u32 vcls_age_t;
#else
#define VSTATE(type) GLOBAL type*
typedef i32 vcls_conf_t;
typedef i64 vcls_age_t;
#endif

/* unchoose and choose run in one phase (no barrier between them), so a
   vertex next to both from and to gets both score updates from two
   lanes: atomics (integer sums, so the result is the same in any order).
   The new row of the moved clique is ORed together the same way. One lane
   needs neither. */
#if LANES == 1
#define VCLS_SCORE_ADD(p, v) (*(p) += (v))
#define VCLS_ROW_OR(p, v) (*(p) |= (v))
#define VCLS_W_INC(p) ((*(p))++)
#else
#if VCLS_LOCAL
#define VCLS_SCORE_ADD(p, v) LOCAL_ATOMIC_ADD_I32(p, v)
#else
#define VCLS_SCORE_ADD(p, v) ATOMIC_ADD_I32(p, v)
#endif
#define VCLS_ROW_OR(p, v) LOCAL_ATOMIC_OR_U32(p, v)
/* The weight raise has one writer per arc, but an atomic whose result is
   unused is fire-and-forget (CUDA's RED): the lane does not wait for the
   old weight to come back from L2 before its next pair. */
#define VCLS_W_INC(p) ATOMIC_ADD_I32(p, 1)
#endif

/* Arcs a lane loads per side before it updates, in vcls_epoch's move loop. */
#define VCLS_UNROLL 4

/* The arguments both kernels take, and the per-chain views of the state.
   Every state array is a buffer of its own, so the per-chain pointers are
   RESTRICT: the compiler may then overlap the loads of different
   iterations of the arc loops with the stores of earlier ones. padj[i] is
   part[adj[i]], the clique at the end of arc i: loaded beside adj[i]
   instead of after it, one round trip to memory less in choose's loop.
   ddeg[v] is v's degree above the least in its clique (the bias's). */
#define VCLS_ARGS                                                                                                    \
    GLOBAL const i32 *RESTRICT shape, GLOBAL const i32 *RESTRICT part, GLOBAL const i32 *RESTRICT members,          \
        GLOBAL const i32 *RESTRICT start, GLOBAL const i32 *RESTRICT off, GLOBAL const i32 *RESTRICT adj,           \
        GLOBAL const i32 *RESTRICT rev, GLOBAL i32 *RESTRICT w_all, GLOBAL i32 *RESTRICT score_all,                 \
        GLOBAL i64 *RESTRICT age_all, GLOBAL i32 *RESTRICT conf_all, GLOBAL i32 *RESTRICT chosen_all,               \
        GLOBAL u32 *RESTRICT vm_all, GLOBAL i32 *RESTRICT arc_all, GLOBAL i64 *RESTRICT cs_all, GLOBAL i32 *found,  \
        const i64 steps, const i32 stop_early, const i64 forget_at, LOCAL_PTR(i64, lsum), LOCAL_PTR(i32, lchosen),  \
        LOCAL_PTR(i32, lrowc), LOCAL_PTR(i32, lflag), LOCAL_PTR(u32, lvm), LOCAL_PTR(i32, lbest),                   \
        LOCAL_PTR(vcls_age_t, lage), LOCAL_PTR(i32, lscore), LOCAL_PTR(vcls_conf_t, lconf), GLOBAL const i32 *RESTRICT padj, \
        GLOBAL const i32 *RESTRICT ddeg
#define VCLS_VIEWS                                                     \
    LOCAL_BIND(i64, lsum);                                             \
    LOCAL_BIND(i32, lchosen);                                          \
    LOCAL_BIND(i32, lrowc);                                            \
    LOCAL_BIND(i32, lflag);                                            \
    LOCAL_BIND(u32, lvm);                                              \
    LOCAL_BIND(i32, lbest);                                            \
    LOCAL_BIND(vcls_age_t, lage);                                             \
    LOCAL_BIND(i32, lscore);                                           \
    LOCAL_BIND(vcls_conf_t, lconf);                                    \
    const i32 N = shape[0], K = shape[1], KW = shape[2], A = shape[3]; \
    const size_t ch = get_group_id(0);                                 \
    const i32 lid = (i32)get_local_id(0);                              \
    GLOBAL i32* RESTRICT w = w_all + ch * (size_t)A;                   \
    GLOBAL i32* RESTRICT score = score_all + ch * (size_t)N;           \
    GLOBAL i64* RESTRICT age = age_all + ch * (size_t)N;               \
    GLOBAL i32* RESTRICT conf = conf_all + ch * (size_t)N;             \
    GLOBAL i32* RESTRICT chosen = chosen_all + ch * (size_t)K;         \
    GLOBAL u32* RESTRICT vm = vm_all + ch * (size_t)K * KW;            \
    GLOBAL i32* RESTRICT arc = arc_all + ch * (size_t)K * K;           \
    GLOBAL i64* RESTRICT cs = cs_all + ch * (size_t)VCLS_CSW

/* vcls_init builds every chain's start (launched once, by NewPartitionLS):
   unit weights, then a greedy choice over the cliques in a random order
   (each takes its member of least score), then the violated pairs. A
   kernel of its own keeps vcls_epoch free of a branch with barriers. It
   works on the global state (once per chain, not worth the copies). */
KERNEL void vcls_init(VCLS_ARGS)
{
    VCLS_VIEWS;
    (void)lrowc; /* vcls_epoch's, rebuilt at every launch */
    (void)lage, (void)lscore, (void)lconf, (void)ddeg;
    u64 rng = (u64)cs[CS_RNG];
    for (i32 i = lid; i < A; i += LANES) {
        w[i] = 1;
    }
    for (i32 v = lid; v < N; v += LANES) {
        score[v] = 0;
        age[v] = 0;
        conf[v] = 1;
    }
    for (i32 q = lid; q < K; q += LANES) {
        lflag[q] = q; /* the order of the cliques */
    }
    BARRIER();
    for (i32 i = K - 1; i > 0; i--) { /* every lane draws, so all keep the same generator */
        i32 j = vcls_rand(&rng, i + 1);
        if (lid == 0) {
            i32 t = lflag[i];
            lflag[i] = lflag[j];
            lflag[j] = t;
        }
    }
    BARRIER();
    for (i32 k = 0; k < K; k++) {
        const i32 q = lflag[k];
        i32 b = -1, y = -1;
        i64 sb = 0, sy = 0, ab = 0, ay = 0; /* every age is 0 here; no bias at the start */
        for (i32 i = start[q] + lid; i < start[q + 1]; i += LANES) {
            const i32 v = members[i];
            const i64 sv = score[v];
            if (vcls_better(sv, 0, v, sb, 0, b)) {
                b = v, sb = sv;
            }
        }
        vcls_reduce2(lbest, lsum, &b, &sb, &ab, &y, &sy, &ay, lid);
        for (i32 i = off[b] + lid; i < off[b + 1]; i += LANES) {
            score[adj[i]] += w[i];
            conf[adj[i]] = 1;
        }
        if (lid == 0) {
            lchosen[q] = b;
        }
        BARRIER();
    }
    /* The violated pairs: each lane builds its own rows. */
    i64 pairs = 0;
    for (i32 q = lid; q < K; q += LANES) {
        LOCAL_REF(u32) row = lvm + (size_t)q * KW;
        for (i32 j = 0; j < KW; j++) {
            row[j] = 0;
        }
        const i32 a = lchosen[q];
        for (i32 i = off[a]; i < off[a + 1]; i++) {
            const i32 u = adj[i], qu = part[u];
            if (lchosen[qu] == u) {
                row[qu >> 5] |= 1u << (qu & 31);
                arc[(size_t)q * K + qu] = i;
            }
        }
        pairs += vcls_upper(row, q, KW);
        chosen[q] = a;
        for (i32 j = 0; j < KW; j++) {
            vm[(size_t)q * KW + j] = row[j];
        }
    }
    const i64 V = arbor_group_sum_i64(lsum, pairs);
    if (lid == 0) {
        cs[CS_RNG] = (i64)rng;
        cs[CS_STEP] = 1;
        cs[CS_TOTALW] = A / 2;
        cs[CS_V] = V;
        cs[CS_SOLVED] = 0;
    }
}

/* vcls_epoch: every unsolved chain makes up to steps steps. The barriers
   of a step are all unconditional (work a step skips is skipped inside
   each phase): PoCL compiles a kernel whose barriers sit in branches by
   replicating code, which took minutes. Only forgetting, rare, has its
   own barriers in a branch.

   A step has four phases, five barriers with the reduction's two:
   decide (pick the pair, scan both cliques, reduce; clear the flags);
   move (unchoose and choose together, flag the new row's pairs); update
   (each lane its rows: the moved clique's column bit, or the row itself
   from the flags, then raise that row's pairs' weights; one lane per
   row, so the raise needs no barrier after the update); forget, rarely. */
KERNEL void vcls_epoch(VCLS_ARGS)
{
    VCLS_VIEWS;
    u64 rng = (u64)cs[CS_RNG];
    i64 step = cs[CS_STEP], total_w = cs[CS_TOTALW];
    i32 V = (i32)cs[CS_V]; /* 0 for a solved chain: it leaves at once */
    const i64 beta = cs[CS_BETA], m = A / 2;
#if VCLS_LOCAL
    VSTATE(i32) RESTRICT sco = lscore;
    VSTATE(vcls_age_t) RESTRICT ag = lage;
    VSTATE(vcls_conf_t) RESTRICT cf = lconf;
    for (i32 v = lid; v < N; v += LANES) {
        sco[v] = score[v];
        ag[v] = (vcls_age_t)age[v];
        cf[v] = (vcls_conf_t)conf[v];
    }
#else
    VSTATE(i32) RESTRICT sco = score;
    VSTATE(vcls_age_t) RESTRICT ag = age;
    VSTATE(vcls_conf_t) RESTRICT cf = conf;
    (void)lage, (void)lscore, (void)lconf;
#endif
    /* lvm holds K rows and after them lnew, the moved clique's new row. */
    LOCAL_REF(u32) lnew = lvm + (size_t)K * KW;
    for (i32 q = lid; q < K; q += LANES) {
        lchosen[q] = chosen[q];
    }
    for (i32 i = lid; i < K * KW; i += LANES) {
        lvm[i] = vm[i];
    }
    /* The stop flag is read by lane 0 one step ahead into lbest[2·LANES +
       (step & 1)]: lanes reading the global flag apart could see different
       values and leave the loop apart; two slots, so the write for the
       next step never meets a read for this one. */
    if (lid == 0) {
        lbest[2 * LANES + (step & 1)] = stop_early ? *(volatile GLOBAL i32*)found : 0;
    }
    BARRIER();
    for (i32 q = lid; q < K; q += LANES) {
        lrowc[q] = vcls_upper(lvm + (size_t)q * KW, q, KW);
    }
    BARRIER();

    i32 solved = 0;
    for (i64 spent = 0;; spent++, step++) {
        if (V == 0) {
            solved = 1;
            break;
        }
        if (spent >= steps || (stop_early && (step & 255) == 0 && lbest[2 * LANES + (step & 1)] != 0)) {
            break;
        }
        /* The r-th violated pair (qa < qc) in row-major order, by every
           lane: first four rows at a time (four independent loads, so the
           walk waits on local memory a quarter as often), then row by row. */
        i32 r = vcls_rand(&rng, V), qa = 0, qc = -1;
        while (qa + 4 <= K) {
            const i32 s4 = lrowc[qa] + lrowc[qa + 1] + lrowc[qa + 2] + lrowc[qa + 3];
            if (r < s4) {
                break;
            }
            r -= s4;
            qa += 4;
        }
        while (r >= lrowc[qa]) {
            r -= lrowc[qa];
            qa++;
        }
        for (i32 j = qa >> 5; qc < 0; j++) {
            u32 x = lvm[(size_t)qa * KW + j];
            if (j == (qa >> 5)) {
                x &= ~((2u << (qa & 31)) - 1u);
            }
            const i32 pc = POPCOUNT32(x);
            if (r < pc) {
                for (i32 t = 0; t < r; t++) {
                    x &= x - 1u;
                }
                qc = j * 32 + CTZ64((u64)x);
            } else {
                r -= pc;
            }
        }
        const i32 a = lchosen[qa], c = lchosen[qc];
        const i64 bias = beta > 0 ? beta * total_w / m : 0;
        /* The best allowed member of each clique. conf, score and age are
           loaded together, not the latter two behind the test of conf:
           one round trip to memory instead of two. */
        i32 xa = -1, xc = -1;
        i64 sa = 0, sc = 0, aa = 0, ac = 0;
        /* Both cliques in one loop, so their members' loads overlap. */
        const i32 sa0 = start[qa], na = start[qa + 1] - sa0, sc0 = start[qc], nc = start[qc + 1] - sc0;
        for (i32 k = lid; k < ARBOR_MAX(na, nc); k += LANES) {
            const i32 v = k < na ? members[sa0 + k] : -1, u = k < nc ? members[sc0 + k] : -1;
            if (v >= 0) {
                const i32 cv = cf[v];
                const i64 sv = vcls_key(sco[v], bias, bias != 0 ? ddeg[v] : 0), av = ag[v];
                if (v != a && cv != 0 && vcls_better(sv, av, v, sa, aa, xa)) {
                    xa = v, sa = sv, aa = av;
                }
            }
            if (u >= 0) {
                const i32 cu = cf[u];
                const i64 su = vcls_key(sco[u], bias, bias != 0 ? ddeg[u] : 0), au = ag[u];
                if (u != c && cu != 0 && vcls_better(su, au, u, sc, ac, xc)) {
                    xc = u, sc = su, ac = au;
                }
            }
        }
        vcls_reduce2(lbest, lsum, &xa, &sa, &aa, &xc, &sc, &ac, lid);
        i32 from = a, to = xa, qf = qa;
        if (xa < 0 && xc < 0) {
            /* Nothing allowed on either side: a random member of qa, so the search cannot stall. */
            to = members[sa0 + vcls_rand(&rng, na)];
        } else if (xa < 0) {
            from = c, to = xc, qf = qc;
        } else if (xc >= 0) {
            const i64 da = sa - vcls_key(sco[a], bias, ddeg[a]), dc = sc - vcls_key(sco[c], bias, ddeg[c]);
            if (dc < da || (dc == da && ac < aa)) {
                from = c, to = xc, qf = qc;
            }
        }
        const i32 moved = to != from; /* else the step ends here, weights unchanged */
        const i32 oldpop = vcls_pop(lvm + (size_t)qf * KW, KW);
        if (lid == 0 && stop_early && ((step + 1) & 255) == 0) {
            lbest[2 * LANES + ((step + 1) & 1)] = *(volatile GLOBAL i32*)found;
        }
        /* The flags and the new row start empty; their readers (the
           previous step's update) are behind the previous step's last barrier. */
        for (i32 q = lid; q < K; q += LANES) {
            lflag[q] = 0;
        }
        for (i32 j = lid; j < KW; j += LANES) {
            lnew[j] = 0;
        }
        /* Everyone has read the scores, the rows and lrowc before anyone writes them. */
        BARRIER();
        if (moved) {
            /* unchoose(from) and choose(to) in one loop, flagging the
               cliques whose choice is to's neighbour (one vertex of a
               clique is chosen, so one writer per flag). A lane loads
               VCLS_UNROLL arcs of each side before it updates anything:
               the weights are per chain, mostly out of L2, and with ~140
               arcs a vertex and 64 lanes every load of the step is then
               in flight at once, one wait on memory instead of three.
               (The h loops have a constant count: the compilers unroll
               them and keep the arrays in registers; no #pragma unroll,
               which the tests' g++ check of the CUDA text rejects.) */
            const i32 of = off[from], nf = off[from + 1] - of, ot = off[to], nt = off[to + 1] - ot;
            for (i32 k0 = lid; k0 < ARBOR_MAX(nf, nt); k0 += VCLS_UNROLL * LANES) {
                i32 uf[VCLS_UNROLL], wf[VCLS_UNROLL], ut[VCLS_UNROLL], wt[VCLS_UNROLL], qt[VCLS_UNROLL];
                for (i32 h = 0; h < VCLS_UNROLL; h++) {
                    const i32 k = k0 + h * LANES;
                    uf[h] = k < nf ? adj[of + k] : -1;
                    wf[h] = k < nf ? w[of + k] : 0;
                    ut[h] = k < nt ? adj[ot + k] : -1;
                    wt[h] = k < nt ? w[ot + k] : 0;
                    qt[h] = k < nt ? padj[ot + k] : 0;
                }
                for (i32 h = 0; h < VCLS_UNROLL; h++) {
                    if (uf[h] >= 0) {
                        VCLS_SCORE_ADD(&sco[uf[h]], -wf[h]);
                        cf[uf[h]] = 1;
                    }
                    if (ut[h] >= 0) {
                        VCLS_SCORE_ADD(&sco[ut[h]], wt[h]);
                        cf[ut[h]] = 1;
                        if (lchosen[qt[h]] == ut[h]) {
                            lflag[qt[h]] = ot + k0 + h * LANES + 1; /* the arc, so that its weight is found without a search */
                            VCLS_ROW_OR(&lnew[qt[h] >> 5], 1u << (qt[h] & 31));
                        }
                    }
                }
            }
            if (lid == 0) {
                /* from and to share a clique: neither is the other's
                   neighbour, nor in the clique of one (qt != qf above). */
                cf[from] = 0;
                lchosen[qf] = to;
                ag[from] = (vcls_age_t)step;
                ag[to] = (vcls_age_t)step;
            }
        }
        BARRIER();
        if (moved) {
            V += vcls_pop(lnew, KW) - oldpop;
            const u32 bit = 1u << (qf & 31);
            for (i32 q = lid; q < K; q += LANES) {
                LOCAL_REF(u32) row = lvm + (size_t)q * KW;
                if (q == qf) {
                    for (i32 j = 0; j < KW; j++) {
                        row[j] = lnew[j];
                    }
                    lrowc[qf] = vcls_upper(lnew, qf, KW);
                } else { /* column qf: to has no arc into its own clique */
                    const i32 now = lflag[q] != 0, was = (row[qf >> 5] & bit) != 0;
                    if (now) {
                        arc[(size_t)qf * K + q] = lflag[q] - 1;
                        arc[(size_t)q * K + qf] = rev[lflag[q] - 1];
                    }
                    if (now != was) {
                        row[qf >> 5] ^= bit;
                        if (q < qf) {
                            lrowc[q] += now ? 1 : -1;
                        }
                    }
                }
                /* Raise every violated edge's weight: this lane its row's
                   upper pairs (one writer per edge); the chosen vertex
                   gains the row's count. The row and the arcs the lane
                   reads are its own writes, or older than the last
                   barrier; row qf's arcs (written by the other rows'
                   lanes just now) come from the flags instead. */
                const i32 x = lchosen[q];
                i32 all = 0;
                for (i32 j = 0; j < KW; j++) {
                    u32 bits = row[j];
                    all += POPCOUNT32(bits);
                    if (j == (q >> 5)) {
                        bits &= ~((2u << (q & 31)) - 1u);
                    } else if (j < (q >> 5)) {
                        bits = 0;
                    }
                    while (bits != 0) {
                        const i32 q2 = j * 32 + CTZ64((u64)bits);
                        bits &= bits - 1u;
                        if (q == qf) {
                            const i32 e = lflag[q2] - 1;
                            VCLS_W_INC(&w[e]);
                            VCLS_W_INC(&w[rev[e]]);
                        } else {
                            VCLS_W_INC(&w[arc[(size_t)q * K + q2]]);
                            VCLS_W_INC(&w[arc[(size_t)q2 * K + q]]);
                        }
                    }
                }
                if (all != 0) {
                    sco[x] += all;
                }
            }
            total_w += V;
        }
        BARRIER();
        if (total_w > forget_at) {
            /* Forget: scale every weight (the two arcs of an edge stay equal), then rescore. */
            i64 sum = 0;
            for (i32 i = lid; i < A; i += LANES) {
                const i32 x = ARBOR_MAX(1, (i32)(((i64)w[i] * 3) / 10));
                w[i] = x;
                sum += x;
            }
            total_w = arbor_group_sum_i64(lsum, sum) / 2;
            for (i32 v = lid; v < N; v += LANES) {
                i32 s = 0;
                for (i32 i = off[v]; i < off[v + 1]; i++) {
                    if (lchosen[padj[i]] == adj[i]) {
                        s += w[i];
                    }
                }
                sco[v] = s;
            }
            BARRIER();
        }
    }

    /* Every write to the state was before the last barrier. */
#if VCLS_LOCAL
    for (i32 v = lid; v < N; v += LANES) {
        score[v] = sco[v];
        age[v] = (i64)ag[v];
        conf[v] = (i32)cf[v];
    }
#endif
    for (i32 q = lid; q < K; q += LANES) {
        chosen[q] = lchosen[q];
    }
    for (i32 i = lid; i < K * KW; i += LANES) {
        vm[i] = lvm[i];
    }
    if (lid == 0) {
        cs[CS_RNG] = (i64)rng;
        cs[CS_STEP] = step;
        cs[CS_TOTALW] = total_w;
        cs[CS_V] = V;
        if (solved) {
            cs[CS_SOLVED] = 1;
            *found = 1;
        }
    }
}
