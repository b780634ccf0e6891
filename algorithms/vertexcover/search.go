package vertexcover

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// shared is what every engine of one Solve call shares: the stop flag
// (timeout, Ctrl-C) and the node counter.
type shared struct {
	stop  atomic.Bool
	nodes atomic.Int64
	// limit: Options.NodeLimit (0: none); limited is set when it stopped
	// the search.
	limit   int64
	limited atomic.Bool
	start   time.Time
	devLS   *deviceLS // Options.LSDevice; nil: none
}

// count adds n searched nodes, and stops the search at the node limit.
func (sh *shared) count(n int64) {
	if t := sh.nodes.Add(n); sh.limit > 0 && t >= sh.limit && !sh.limited.Load() {
		sh.limited.Store(true)
		sh.stop.Store(true)
	}
}

// flushMask: a worker adds its nodes to the shared count every
// flushMask+1 nodes; under a node limit every 16, so that a small limit
// (a cluster task's budget) stops near where it says.
func (sh *shared) flushMask() int64 {
	if sh.limit > 0 {
		return 15
	}
	return 1023
}

// engine solves one graph: the input, or a connected component split off
// inside the search (parent set). Its workers share the tree through a
// task pool and one incumbent.
type engine struct {
	g       *core.Graph
	sh      *shared
	parent  *engine
	threads int // the cores this engine may use
	// workers is the tree's share of them, set when the search starts (the
	// rest may run local searches beside it): the pool counts idle workers
	// against it.
	workers int
	ls      time.Duration
	seed    uint64
	param   bool // parameterized: stop at the first cover under ub
	mirrors bool // branch on v with its mirrors
	// noPacking: no packing constraints (packing.go), for tests
	noPacking bool
	route     *denseRoute // the engine choice for kernels (dense.go); nil: branch only

	best   atomic.Int64 // incumbent size: only covers smaller than it are wanted
	halt   atomic.Bool  // this engine is done (target reached)
	target int          // a cover of this size ends the search
	rootLB atomic.Int64 // read by the progress reporter
	kernel int

	mu    sync.Mutex
	cover []int32 // best cover found, input ids; nil when none

	// task pool
	poolMu sync.Mutex
	cond   *sync.Cond
	tasks  []task
	idle   int
	hungry atomic.Int32
	queued atomic.Int32 // len(tasks), read without the lock by donors
	done   bool
}

// task is a subtree: the ops leading from the root kernel to it.
type task struct {
	ops   []op
	depth int
	// the packing constraints on the path (worker fields of those names)
	pack             []packing
	packMem, packVer []int32
	// part: the clique cover the parent node saved (worker.parts), nil
	// when none
	part []int32
	// v >= 0: the task is the second child of the node that ops lead to
	// (depth is that node's): the taker takes nb (N(v)) and adds the
	// child's packing constraints itself, as the donor would have.
	v  int32
	nb []int32
}

func newEngine(g *core.Graph, sh *shared, parent *engine, ub, threads int, ls time.Duration, seed uint64) *engine {
	e := &engine{g: g, sh: sh, parent: parent, threads: threads, ls: ls, seed: seed}
	e.best.Store(int64(ub))
	e.cond = sync.NewCond(&e.poolMu)
	return e
}

func (e *engine) stopped() bool {
	for x := e; x != nil; x = x.parent {
		if x.halt.Load() {
			return true
		}
	}
	return e.sh.stop.Load()
}

func (e *engine) progress() Progress {
	p := Progress{Best: -1, LowerBound: int(e.rootLB.Load()), Nodes: e.sh.nodes.Load(), Elapsed: time.Since(e.sh.start)}
	e.mu.Lock()
	if e.cover != nil {
		p.Best = len(e.cover)
	}
	e.mu.Unlock()
	return p
}

// offer records the current leaf's cover (s.m == 0) if it beats the
// incumbent.
func (e *engine) offer(s *state) {
	size := s.cover
	if int64(size) >= e.best.Load() {
		return
	}
	in := make([]bool, s.n)
	resolve(s.ops, in)
	e.offerSet(in, size)
}

func (e *engine) offerSet(in []bool, size int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if int64(size) >= e.best.Load() {
		return
	}
	cover := make([]int32, 0, size)
	for v, c := range in {
		if c {
			cover = append(cover, int32(v))
		}
	}
	e.cover = cover
	e.best.Store(int64(len(cover)))
	if len(cover) <= e.target {
		e.halt.Store(true)
	}
}

// run solves e.g: root reductions, bounds, local search, then the shared
// search. It returns the best cover (nil if none under the initial bound)
// and whether the search finished (so the result is proven).
func (e *engine) run(top bool) ([]int32, bool) {
	s := newState(e.g)
	budget := func() int { return int(e.best.Load()) - 1 - s.cover }
	// The root reductions watch the context (a PACE kernel takes them up
	// to a second on 2 cores); stopped there, the cover so far with every
	// vertex left is the answer.
	s.stop = e.sh.stop.Load
	lb, ok := s.rootReductions(budget)
	if ok && s.m > 0 {
		var rb int
		rb, ok = s.rootBound(budget)
		lb = max(lb, rb)
		if ok && top && sparseGraph(e.g) {
			// A clique partition of the graph before the reductions is a
			// lower bound too, and it can be the higher: the reductions
			// (folds, twins) break up cliques of a planted partition, so
			// that the kernel's bound ends below the optimum the
			// transversal search reaches (a planted 3-SAT encoding of
			// 3,100 vertices: 1,999 on the kernel, 2,000 here).
			_, k := sparsePartition(e.g)
			lb = max(lb, e.g.N-k)
		}
	}
	s.stop = nil
	if !ok {
		if e.sh.stop.Load() {
			e.offerSet(s.takeRest(), s.cover+s.nAlive)
			return e.cover, false
		}
		return nil, true
	}
	e.kernel = s.nAlive
	if s.m == 0 {
		e.offer(s)
		e.rootLB.Store(int64(s.cover))
		return e.cover, true
	}
	e.rootLB.Store(int64(lb))
	e.target = lb
	if e.param {
		e.target = max(lb, int(e.best.Load())-1)
	}
	if int64(lb) >= e.best.Load() {
		return nil, true
	}
	root := len(s.ops)
	rootOps := slices.Clone(s.ops)
	// Dense kernels go to the clique route (dense.go).
	cover, proven, ok, waitClique := e.dense(s, rootOps, lb, top)
	if ok {
		return cover, proven
	}
	defer waitClique()
	// The reduction-interleaved greedy: on large sparse kernels often the
	// optimum (then the root bound proves it at once), and a far better
	// start for the local search than a plain greedy.
	diveIn, diveSize := s.greedyDive()
	if int64(s.cover+diveSize) < e.best.Load() {
		in := slices.Clone(diveIn)
		resolve(rootOps, in)
		e.offerSet(in, s.cover+diveSize)
	}
	treeThreads := e.threads
	if j := e.route.join; j != nil && e.parent == nil && j.started.Load() && treeThreads >= 8 {
		// A device may join this dense kernel (auto.go): leave its host
		// loop a core, as search.ThreadsBeside does for the hybrids (on
		// the H200, cop_hat500-3 took the device 1.6–2.2 s beside branch
		// and reduce on every core, 0.9–1.2 s with one core left). The
		// engine's threads are fixed before the device is known, so only
		// where one core is at most an eighth of them.
		treeThreads--
	}
	// nuStop also stops the extra NuMVC copies that give way to the
	// partition search (below).
	var lsStop, lsThrottle, nuStop atomic.Bool
	var lsWG sync.WaitGroup
	defer func() {
		lsStop.Store(true)
		nuStop.Store(true)
		lsWG.Wait()
	}()
	if e.ls > 0 && !e.halt.Load() {
		// The local search runs alone for e.ls, then goes on beside the
		// exact search until it ends: at full speed with many cores (one
		// thread costs little) or when the gap is within 1% of the lower
		// bound on a large kernel (BHOSLIB: there the local search, not
		// the tree, closes it, and with many cores several copies with
		// different seeds run); throttled otherwise.
		kg, ids := s.extract(nil)
		lsInit := make([]bool, kg.N)
		for i, v := range ids {
			lsInit[i] = diveIn[v]
		}
		base, n := s.cover, s.n
		improved := make(chan struct{}, 1)
		firstDone := make(chan struct{})
		// The best kernel cover of the local searches, for the LNS.
		var kbMu sync.Mutex
		var kBest []bool
		kBestSize := kg.N + 1
		lsStart := time.Now()
		var lastGain atomic.Int64 // since lsStart, of the local search's last better cover
		offerKernel := func(c []bool, size int) {
			if int64(base+size) >= e.best.Load() {
				return
			}
			lastGain.Store(int64(time.Since(lsStart)))
			kbMu.Lock()
			if size < kBestSize {
				kBest, kBestSize = slices.Clone(c), size
			}
			kbMu.Unlock()
			in := make([]bool, n)
			for i, x := range c {
				if x {
					in[ids[i]] = true
				}
			}
			resolve(rootOps, in)
			e.offerSet(in, base+size)
			if e.halt.Load() {
				select {
				case improved <- struct{}{}:
				default:
				}
			}
		}
		latest := func(size int) []bool {
			kbMu.Lock()
			defer kbMu.Unlock()
			if kBestSize < size {
				return slices.Clone(kBest)
			}
			return nil
		}
		// Covers of the best size the local search passes on its
		// plateau: the LNS works on them too, for diversity.
		var kPlat []bool
		kPlatSize, kPlatVer := 0, 0
		plateau := func(c []bool) {
			kbMu.Lock()
			defer kbMu.Unlock()
			kPlat = append(kPlat[:0], c...)
			kPlatSize = 0
			for _, x := range c {
				if x {
					kPlatSize++
				}
			}
			kPlatVer++
		}
		start := func(k uint64, done chan struct{}) {
			lsWG.Add(1)
			go func() {
				defer lsWG.Done()
				if done != nil {
					defer close(done)
				}
				localSearch(kg, e.target-base, time.Now().Add(time.Duration(1<<62)), &lsThrottle, e.seed+0x9e3779b97f4a7c15*(k+1), &lsStop, lsInit, latest, plateau, offerKernel)
			}()
		}
		// Large sparse kernels also run the iterated local search of
		// ils.go (one copy): where NuMVC's exchanges stall on kernels of
		// thousands of vertices, its (1,2)-swaps around a forced vertex
		// keep finding improvements (docs/results/vertexcover.md).
		sparseLarge := kg.N >= lnsMinKernel && len(kg.Adj) <= lnsMaxDegree*kg.N
		ilsOn := false
		startILS := func(c uint64) {
			lsWG.Add(1)
			go func() {
				defer lsWG.Done()
				part, k := bestPartition(kg)
				ilsSearch(kg, part, k, e.target-base, time.Now().Add(time.Duration(1<<62)), &lsStop, e.seed+0x2d358dccaa6c78a5*(c+1), lsInit, latest, offerKernel)
			}()
		}
		// The first local search stops with lsStop, and also with nuStop
		// where the partition search takes over (below); then it runs
		// thenPart, if set, in its place.
		var firstStop atomic.Bool
		var thenPart atomic.Pointer[func()]
		lsWG.Add(2)
		go func() {
			defer lsWG.Done()
			for !lsStop.Load() && !nuStop.Load() {
				time.Sleep(5 * time.Millisecond)
			}
			firstStop.Store(true)
		}()
		// A large sparse kernel with a clique partition whose bound is at
		// or near the root bound: the transversal search (transversal.go),
		// measured to reach the optimum of the PACE triangle family (3-SAT
		// encoded as vertex cover) where NuMVC and the ILS stall above it.
		var tPart []int32
		tK := 0
		if sparseLarge {
			p, k := sparsePartition(kg)
			if gap := e.target - base - (kg.N - k); gap <= max(2, k/transMaxGap) {
				tPart, tK = p, k
			}
		}
		startTrans := func(c uint64, stop *atomic.Bool) {
			transversalSearch(kg, tPart, tK, e.seed+0x7f4a7c159e3779b9*(c+1), stop, time.Now().Add(time.Duration(1<<62)), lsInit, offerKernel)
		}
		go func() {
			defer lsWG.Done()
			if tPart != nil && e.threads < 4 {
				// With few cores, the first local search is the
				// transversal search (with more, it runs beside the ILS,
				// below).
				startTrans(0, &firstStop)
			} else if sparseLarge && e.threads >= 4 {
				// With cores to spare (it cannot be throttled), the first
				// local search on a large sparse kernel is an ILS too.
				part, k := bestPartition(kg)
				ilsSearch(kg, part, k, e.target-base, time.Now().Add(time.Duration(1<<62)), &firstStop, e.seed+0x9e3779b97f4a7c15, lsInit, latest, offerKernel)
			} else {
				localSearch(kg, e.target-base, time.Now().Add(time.Duration(1<<62)), &lsThrottle, e.seed+0x9e3779b97f4a7c15, &firstStop, lsInit, latest, plateau, offerKernel)
			}
			close(firstDone)
			if f := thenPart.Load(); f != nil && !lsStop.Load() {
				(*f)()
			}
		}()
		// The local search has the cores alone for e.ls, unless it ends or
		// reaches the target first, or another route (the clique race of
		// dense.go) settles the kernel meanwhile.
		lsAlone := time.NewTimer(e.ls)
		poll := time.NewTicker(5 * time.Millisecond)
		stalled := false
	alone:
		for {
			select {
			case <-lsAlone.C:
				break alone
			case <-improved:
				break alone
			case <-firstDone:
				break alone
			case <-poll.C:
				if e.stopped() {
					break alone
				}
				// Stalled: nothing better for twice as long as the last
				// gain took, and for lsStall at least. On the 200-vertex
				// PACE kernels the search finds its best in milliseconds
				// and then held both cores for the rest of e.ls (a third
				// of the time of the fastest); on large kernels that keep
				// improving it keeps its slot.
				since := time.Since(lsStart)
				if last := time.Duration(lastGain.Load()); since-last >= max(lsStall, 2*last) {
					stalled = true
					break alone
				}
			}
		}
		lsAlone.Stop()
		poll.Stop()
		gap := e.best.Load() - int64(lb)
		smallGap := gap*100 <= int64(lb) && s.nAlive >= 400
		if e.threads < 4 && !smallGap {
			lsThrottle.Store(true)
			if stalled && s.nAlive <= maxBitsetVertices && edgeDensity(s.nAlive, s.m) < DenseThreshold {
				// A small sparse kernel whose local search stalled: the
				// tree finds a better cover if there is one, and the
				// throttled search beside it took a quarter of a core
				// from it. With 2 threads, stopping it: vc-exact_083
				// 1.34 → 1.23 s, _091 1.84 → 1.66 s, _093 1.05 → 0.95 s,
				// the same nodes. Not on dense ones: on BHOSLIB frb30
				// (450 vertices) the tree alone did not close the gap in
				// 20 s where the local search finds the optimum.
				lsStop.Store(true)
			}
		}
		if smallGap && !e.halt.Load() {
			// Three quarters of the cores search locally, the tree keeps
			// the rest: with the bound this close, a better cover is what
			// ends the search (BHOSLIB: the root bound is the optimum), and
			// on 16 cores with half of them, frb50-23-2 and -3 were not
			// closed in 60 s. Where a clique partition's bound is the
			// target (BHOSLIB's planted cliques), most of the local
			// searches look for the one-vertex-per-clique independent set
			// that closes the gap (measured 2–3× faster than NuMVC to the
			// optimum on frb45–frb50), and so does the device of
			// Options.LSDevice.
			treeThreads = max(1, e.threads/4)
			part, k := bestPartition(kg)
			// The partition search's premise, a clique partition whose
			// bound is the optimum, is BHOSLIB's (dense planted cliques);
			// on large sparse kernels a partition may meet the root bound
			// while the optimum lies well above it (vc-exact_153: bound
			// 17,938, optimum 17,993), and the chains would look for a
			// transversal that does not exist.
			if kg.N-k != e.target-base || sparseLarge {
				for c := 1; c < max(2, e.threads-treeThreads); c++ {
					if sparseLarge {
						// On large sparse kernels the copies are ILS
						// (ils.go): measured better than NuMVC on every
						// such PACE kernel (docs/results/vertexcover.md).
						startILS(uint64(c))
						ilsOn = true
						continue
					}
					start(uint64(c), nil)
				}
			} else {
				// The tree can close this gap only by finding the same
				// transversal (or refuting it, hopeless at BHOSLIB's
				// sizes): it keeps an eighth of the cores. NuMVC copies
				// (a third) work only while the incumbent is above the
				// target + 1, which the partition search cannot improve
				// on; then they, and the first local search, turn into
				// partition searches too. On the
				// GPU machine's Xeon a partition step is 2.3× faster than
				// NuMVC's and, on frb53-24-1, 1 hit in 554 core-seconds
				// against none for NuMVC.
				treeThreads = max(1, e.threads/8)
				copies := max(2, e.threads-treeThreads)
				// Seeds of the copies that give way: after the partition
				// searches' own.
				var gaveWay atomic.Int64
				gaveWay.Store(int64(copies))
				partSeed := func(c int64) uint64 { return e.seed + 0x2545f4914f6cdd1d*uint64(c+1) }
				// Every other chain has the degree bias (partDegBeta),
				// which gains on most BHOSLIB instances and loses where the
				// solution is not of low degree (frb45-21-3), so the
				// chains hedge. Weights on pairs of cliques (pairSearch)
				// take fewer steps on frb50–frb56 but lose where the bar
				// is, on the largest: on the GPU machine's Xeon, 16 seeds
				// at once, 30 s and 60 s each on frb56-25-1, frb59-26-1,
				// -2, -4, 11 hits in 4,956 core-seconds for edge weights
				// against 4 in 5,172 for pairs (docs/results/vertexcover.md), so every chain
				// weighs edges.
				var nPart atomic.Int64
				runPart := func(seed uint64) {
					beta := 0.0
					if nPart.Add(1)%2 == 0 {
						beta = partDegBeta
					}
					cover := partitionSearch(kg, part, k, seed, &lsStop, time.Now().Add(time.Duration(1<<62)), beta)
					if cover != nil {
						offerKernel(cover, kg.N-k)
					}
				}
				// The first local search (NuMVC) gives way too.
				thenPart.Store(new(func() { runPart(partSeed(gaveWay.Add(1))) }))
				// Stop the NuMVC searches once the incumbent is one above
				// the target.
				lsWG.Add(1)
				go func() {
					defer lsWG.Done()
					for !nuStop.Load() && e.best.Load() > int64(e.target)+1 {
						time.Sleep(10 * time.Millisecond)
					}
					nuStop.Store(true)
				}()
				if e.best.Load() > int64(e.target)+1 {
					for c := 1; c < copies/3; c++ {
						lsWG.Add(1)
						go func(c int) {
							defer lsWG.Done()
							localSearch(kg, e.target-base, time.Now().Add(time.Duration(1<<62)), &lsThrottle, e.seed+0x9e3779b97f4a7c15*uint64(c+1), &nuStop, lsInit, latest, nil, offerKernel)
							if !lsStop.Load() {
								runPart(partSeed(gaveWay.Add(1)))
							}
						}(c)
					}
					copies -= max(copies/3-1, 0)
				}
				for c := 1; c < copies; c++ {
					lsWG.Add(1)
					go func(seed uint64) {
						defer lsWG.Done()
						runPart(seed)
					}(partSeed(int64(c)))
				}
				if e.sh.devLS != nil && e.parent == nil {
					lsWG.Add(1)
					go func() {
						defer lsWG.Done()
						e.sh.devLS.run(kg, part, k, e.seed, &lsStop, func(c []bool) { offerKernel(c, kg.N-k) })
					}()
				}
			}
		}
		if tPart != nil && e.threads >= 4 && !e.halt.Load() {
			// The transversal search beside the ILS, on one of the tree's
			// cores (the tree proves nothing on these kernels until a
			// cover meets the bound).
			lsWG.Add(1)
			go func() {
				defer lsWG.Done()
				startTrans(1, &lsStop)
			}()
			treeThreads = max(1, treeThreads-1)
		}
		if sparseLarge && !ilsOn && e.threads >= 4 && !e.halt.Load() {
			// With the gap still wide the ILS takes one of the tree's
			// cores: on kernels this large the tree proves nothing until
			// a cover meets its bound.
			startILS(1)
			treeThreads = max(1, treeThreads-1)
		}
		if sparseLarge && !e.halt.Load() {
			// Large sparse kernels: the LNS polishes the local search's
			// best cover with the exact solver on balls of the kernel (on
			// dense ones a ball takes too long to solve).
			kbMu.Lock()
			cur := slices.Clone(kBest)
			kbMu.Unlock()
			if cur == nil {
				cur = slices.Clone(lsInit)
			}
			lsWG.Add(1)
			go func() {
				defer lsWG.Done()
				seen := 0
				lnsLatest := func(size int) []bool {
					if c := latest(size); c != nil {
						return c
					}
					kbMu.Lock()
					defer kbMu.Unlock()
					if kPlatVer != seen && kPlatSize <= size {
						seen = kPlatVer
						return slices.Clone(kPlat)
					}
					return nil
				}
				lns(kg, cur, e.seed+0x51ed27, &lsStop, e.stopped, lnsLatest, offerKernel)
			}()
		}
	}
	if e.halt.Load() || e.stopped() {
		return e.cover, !e.sh.stop.Load()
	}
	e.tasks = append(e.tasks, task{ops: nil, depth: 0, v: -1})
	e.queued.Store(1)
	e.workers = treeThreads
	threads := e.workers
	var wg sync.WaitGroup
	for t := 0; t < threads; t++ {
		ws := s
		if t > 0 {
			ws = newState(e.g)
			for _, o := range rootOps {
				ws.apply(o)
			}
			ws.clearQueue()
		}
		w := &worker{e: e, s: ws, root: root, top: top, flush: e.sh.flushMask()}
		w.budget = func() int { return int(e.best.Load()) - 1 - w.s.cover }
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loop()
		}()
	}
	wg.Wait()
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cover, !e.sh.stop.Load() && (e.parent == nil || !e.parent.stopped())
}

type worker struct {
	e      *engine
	s      *state
	root   int // len(ops) of the root kernel
	top    bool
	budget func() int
	nodes  int64
	flush  int64 // shared.flushMask
	buf    []int32
	nbs    [][]int32

	// packing constraints on the path (packing.go)
	pack     []packing
	packMem  []int32
	packVer  []int32
	packLeft []int32
	// parts[d]: the clique cover the node at depth d on the path saved
	// for its children (clique per vertex, then the number of clique
	// indices); a task's first node, at depth partFrom, has no parent's.
	parts    [][]int32
	partFrom int
	// the member of an open constraint with ≤ 3 members left to branch
	// on, or -1 (applyPacking)
	pair, pairScore int32
	// packDone[i]: constraint i was found retired at a node on the path
	// (a member dropped or folded away; that lasts for the subtree), so
	// applyPacking skips it; doneTrail lists them, for search to clear
	// what its node set when it returns.
	packDone  []bool
	doneTrail []int32
	// frames[d]: the branching node at depth d on the path, for donating
	// its second child while the first is searched; from the current
	// task's first depth (minDepth) on.
	frames   []frame
	minDepth int
}

// frame is an open branching node: what its second child needs.
type frame struct {
	v       int32
	mark    int  // len(s.ops) at the branch
	np, nm  int  // len(pack), len(packMem) at the branch
	pending bool // the second child is still to be searched here
}

func (w *worker) loop() {
	e := w.e
	for {
		t, ok := e.take()
		if !ok {
			break
		}
		w.s.undoTo(w.root)
		for _, o := range t.ops {
			w.s.apply(o)
		}
		if t.depth == 0 {
			w.s.queueAll()
		}
		w.pack = append(w.pack[:0], t.pack...)
		w.packMem = append(w.packMem[:0], t.packMem...)
		w.packVer = append(w.packVer[:0], t.packVer...)
		if t.v >= 0 {
			w.secondChild(t)
			continue
		}
		w.minDepth = t.depth
		w.partFrom = t.depth
		if t.part != nil && t.depth > 0 {
			// The donor's cover, one level up, so the task's first
			// node inherits it like any child.
			for len(w.parts) < t.depth {
				w.parts = append(w.parts, make([]int32, len(t.part)))
			}
			copy(w.parts[t.depth-1], t.part)
			w.partFrom = t.depth - 1
		}
		w.search(t.depth)
	}
	// The rest, past the limit check: the search is over, so it is not
	// cut off for these.
	e.sh.nodes.Add(w.nodes & w.flush)
}

// take blocks for a task; false once the pool is empty and every worker
// idle, or the search stopped.
func (e *engine) take() (task, bool) {
	e.poolMu.Lock()
	defer e.poolMu.Unlock()
	for {
		if e.done {
			return task{}, false
		}
		if e.stopped() {
			e.done = true
			e.cond.Broadcast()
			return task{}, false
		}
		if n := len(e.tasks); n > 0 {
			t := e.tasks[n-1]
			e.tasks = e.tasks[:n-1]
			e.queued.Add(-1)
			return t, true
		}
		e.idle++
		e.hungry.Add(1)
		if e.idle == e.workers {
			e.done = true
			e.cond.Broadcast()
			return task{}, false
		}
		e.cond.Wait()
		e.idle--
		e.hungry.Add(-1)
	}
}

func (e *engine) give(t task) {
	e.poolMu.Lock()
	e.tasks = append(e.tasks, t)
	e.queued.Add(1)
	e.poolMu.Unlock()
	e.cond.Signal()
}

// lsStall is the shortest time without a better cover after which the
// local search gives up the cores it has alone at the root.
const lsStall = 20 * time.Millisecond

func (w *worker) search(depth int) {
	e, s := w.e, w.s
	w.nodes++
	defer w.reviveTo(len(w.doneTrail))
	if w.nodes&w.flush == 0 {
		e.sh.count(w.flush + 1)
	}
	// The stop flag is read at every node, not every 1024: on large kernels
	// (PACE vc-exact_161: 69k vertices) one node's reductions and bounds take
	// milliseconds, and a batched check overran a 1 s timeout by 3 s.
	if e.stopped() {
		return
	}
	if e.workers > 1 && e.hungry.Load() > e.queued.Load() {
		w.donate(depth)
	}
	if !w.reduceAll() {
		return
	}
	if s.m == 0 {
		e.offer(s)
		return
	}
	// On bitset states the clique cover of the bound passes from node to
	// node (prunePart): on vc-exact_043 51 k nodes in 1.5 s against 86 k
	// in 2.5 s with a fresh cover at every node.
	var inherit, save []int32
	if s.bits != nil {
		for len(w.parts) <= depth {
			w.parts = append(w.parts, make([]int32, s.n+1))
		}
		save = w.parts[depth]
		if depth > w.partFrom {
			inherit = w.parts[depth-1]
		}
	}
	for {
		if s.prunePart(e.best.Load(), inherit, save) {
			return
		}
		if len(s.cc.forced) == 0 {
			break
		}
		// The bound's failed literals put vertices in the cover: take
		// them, reduce again and bound again from this node's cover.
		for _, v := range s.cc.forced {
			if s.alive[v] {
				s.take(v)
			}
		}
		if !w.reduceAll() {
			return
		}
		if s.m == 0 {
			e.offer(s)
			return
		}
		if save != nil {
			inherit = save
		}
	}
	if w.split(depth) {
		return
	}
	// A member of a nearly tight packing constraint if there is one (on
	// vc-exact_031 76 k → 55 k nodes), else the largest-degree vertex
	// whose failed literal conflicted in the bound, else a maximum-degree
	// vertex. The child that puts a failed literal in the independent set
	// (takes its neighbours) meets that conflict again, so its bound is
	// one higher and it closes quickly: 1 thread, no local search,
	// vc-exact_091 117 k → 106 k nodes, _083 68 k → 63 k.
	v := w.pair
	if v < 0 {
		for _, a := range s.cc.failed {
			if s.alive[a] && (v < 0 || s.deg[a] > s.deg[v]) {
				v = a
			}
		}
	}
	if v < 0 {
		v = s.branchVertex()
	}
	mark := len(s.ops)
	// Child 1 takes v and its mirrors, child 2 takes N(v); while child 1
	// is searched, an idle worker may take child 2 (donate).
	// One neighbour buffer per depth: no allocation per node.
	for len(w.nbs) <= depth {
		w.nbs = append(w.nbs, nil)
	}
	w.nbs[depth] = s.liveNeighbors(v, w.nbs[depth][:0])
	nb := w.nbs[depth]
	var mirrors []int32
	if e.mirrors {
		mirrors = s.mirrors(v, nb)
	}
	np, nm := len(w.pack), len(w.packMem)
	undo := func() {
		w.pack, w.packMem, w.packVer = w.pack[:np], w.packMem[:nm], w.packVer[:nm]
		s.undoTo(mark)
	}
	// takeNeighbors makes child 2; false when its constraints already
	// rule it out.
	takeNeighbors := func() bool {
		for _, u := range nb {
			s.take(u)
		}
		return e.mirrors || e.noPacking || w.neighborPacking(v, nb)
	}
	for len(w.frames) <= depth {
		w.frames = append(w.frames, frame{})
	}
	w.frames[depth] = frame{v: v, mark: mark, np: np, nm: nm, pending: true}
	if 1+len(mirrors) <= w.budget() {
		s.take(v)
		for _, u := range mirrors {
			s.take(u)
		}
		if !e.noPacking {
			w.addPacking(nb)
		}
		w.search(depth + 1)
		undo()
	}
	donated := !w.frames[depth].pending
	w.frames[depth].pending = false
	if donated || e.stopped() || len(nb) > w.budget() {
		return
	}
	if takeNeighbors() {
		w.search(depth + 1)
	}
	undo()
}

// donate gives an idle worker the second child of the shallowest open
// node on the path (classic work stealing: the largest subtree left).
// Donating the current node's second child instead gave small subtrees
// deep in the tree, and the idle worker came back 340–500 times per run
// on vc-exact_083/_091/_093. The ops up to that node's branch are still
// the prefix of s.ops, its constraints the prefix of the packing slices
// and its saved clique cover in parts: the taker rebuilds the child
// exactly as this worker would have (secondChild).
func (w *worker) donate(depth int) {
	s := w.s
	for d := w.minDepth; d < depth && d < len(w.frames); d++ {
		f := &w.frames[d]
		if !f.pending {
			continue
		}
		if len(w.nbs[d]) > w.budget() {
			// Pruned by the bound when its turn comes.
			continue
		}
		t := task{ops: slices.Clone(s.ops[w.root:f.mark]), depth: d,
			pack: slices.Clone(w.pack[:f.np]), packMem: slices.Clone(w.packMem[:f.nm]), packVer: slices.Clone(w.packVer[:f.nm]),
			v: f.v, nb: slices.Clone(w.nbs[d])}
		if s.bits != nil && d < len(w.parts) {
			t.part = slices.Clone(w.parts[d])
		}
		f.pending = false
		w.e.give(t)
		return
	}
}

// secondChild searches a donated second child (donate): the parent
// node's state after its reductions (the queue then empty), its cover for
// the child to inherit, then N(v) taken and the child's constraints
// added, as search does.
func (w *worker) secondChild(t task) {
	s, e := w.s, w.e
	s.clearQueue()
	d := t.depth
	w.minDepth = d + 1
	w.partFrom = d + 1
	if t.part != nil {
		for len(w.parts) <= d {
			w.parts = append(w.parts, make([]int32, len(t.part)))
		}
		copy(w.parts[d], t.part)
		w.partFrom = d
	}
	if len(t.nb) > w.budget() {
		return
	}
	for _, u := range t.nb {
		s.take(u)
	}
	if e.mirrors || e.noPacking || w.neighborPacking(t.v, t.nb) {
		w.search(d + 1)
	}
}

// reduceAll runs the reductions and the packing constraints to a fixed
// point; false when the node is pruned.
func (w *worker) reduceAll() bool {
	s := w.s
	if !s.reduce(w.budget) {
		return false
	}
	for {
		ok, changed := w.applyPacking()
		if !ok {
			return false
		}
		if !changed {
			return true
		}
		if !s.reduce(w.budget) {
			return false
		}
	}
}

// neighborPacking adds child 2's constraints (v out of the cover, N(v)
// taken): for each u ∈ N(v), not all of N(u) \ N[v] in the cover. False
// when one is empty (N[u] ⊆ N[v]): then some cover in child 1 is as good.
func (w *worker) neighborPacking(v int32, nb []int32) bool {
	s := w.s
	for _, u := range nb {
		w.buf = w.buf[:0]
		for _, x := range s.adj[u] {
			if s.alive[x] && x != v {
				w.buf = append(w.buf, x)
			}
		}
		if len(w.buf) == 0 {
			return false
		}
		w.addPacking(w.buf)
	}
	return true
}

// mirrors returns the mirrors of v: vertices u at distance two with
// N(v) \ N(u) a clique. If v is in a minimum cover but N(v) is not, some
// minimum cover holds v and all its mirrors (Fomin, Grandoni, Kratsch),
// so the branch that takes v takes them too.
func (s *state) mirrors(v int32, nv []int32) []int32 {
	var out []int32
	s.stampS++
	ss := s.stampS
	s.seen[v] = ss
	for _, x := range nv {
		s.seen[x] = ss
	}
	var rest []int32
	for _, x := range nv {
		for _, u := range s.adj[x] {
			if !s.alive[u] || s.seen[u] == ss {
				continue
			}
			s.seen[u] = ss
			s.stamp2++
			st := s.stamp2
			for _, y := range s.adj[u] {
				if s.alive[y] {
					s.mark2[y] = st
				}
			}
			rest = rest[:0]
			for _, y := range nv {
				if s.mark2[y] != st {
					rest = append(rest, y)
				}
			}
			if s.isClique(rest) {
				out = append(out, u)
			}
		}
	}
	return out
}

// isClique reports whether the live vertices in c are pairwise adjacent.
func (s *state) isClique(c []int32) bool {
	if len(c) < 2 {
		return true
	}
	// Count, for each member, its neighbours inside c (marked in mark).
	s.stamp++
	st := s.stamp
	for _, x := range c {
		s.mark[x] = st
	}
	for _, x := range c {
		if int(s.deg[x]) < len(c)-1 {
			return false
		}
		k := 0
		for _, y := range s.adj[x] {
			if s.alive[y] && s.mark[y] == st {
				k++
			}
		}
		if k != len(c)-1 {
			return false
		}
	}
	return true
}

// split solves the live graph component by component when it is
// disconnected, and reports whether it did.
func (w *worker) split(depth int) bool {
	s, e := w.s, w.e
	// Is the live graph connected? One BFS from the first live vertex.
	s.stamp++
	st := s.stamp
	first := int32(-1)
	for v := 0; v < s.n; v++ {
		if s.alive[v] {
			first = int32(v)
			break
		}
	}
	if s.bits != nil {
		connected, queue := s.bitConnected(first, w.buf)
		w.buf = queue[:0]
		if connected {
			return false
		}
	} else {
		queue := append(w.buf[:0], first)
		s.mark[first] = st
		for h := 0; h < len(queue); h++ {
			for _, u := range s.adj[queue[h]] {
				if s.alive[u] && s.mark[u] != st {
					s.mark[u] = st
					queue = append(queue, u)
				}
			}
		}
		w.buf = queue[:0]
		if len(queue) == s.nAlive {
			return false
		}
	}
	// Disconnected: collect every component.
	id := make([]int32, s.n)
	var sizes []int
	for v := 0; v < s.n; v++ {
		if !s.alive[v] || id[v] != 0 {
			continue
		}
		c := int32(len(sizes) + 1)
		q := []int32{int32(v)}
		id[v] = c
		for h := 0; h < len(q); h++ {
			for _, u := range s.adj[q[h]] {
				if s.alive[u] && id[u] == 0 {
					id[u] = c
					q = append(q, u)
				}
			}
		}
		sizes = append(sizes, len(q))
	}
	type part struct {
		g   *core.Graph
		ids []int32
		lb  int
	}
	parts := make([]part, len(sizes))
	sum := 0
	for i := range sizes {
		c := int32(i + 1)
		g, ids := s.extract(func(v int32) bool { return id[v] == c })
		ps := newState(g)
		ps.degreeOrder()
		lb := ps.lowerBound()
		parts[i] = part{g, ids, lb}
		sum += lb
	}
	if int64(s.cover+sum) >= e.best.Load() {
		return true
	}
	slices.SortStableFunc(parts, func(a, b part) int { return a.g.N - b.g.N })
	mark := len(s.ops)
	rest, total := sum, s.nAlive
	for _, p := range parts {
		rest -= p.lb
		ub := int(e.best.Load()) - s.cover - rest // covers of this part must be < ub
		if ub <= p.lb {
			s.undoTo(mark)
			return true
		}
		threads, ls := 1, time.Duration(0)
		if w.top && depth == 0 {
			// Local search time in proportion to the part's size; tiny
			// parts are left to the exact search.
			threads = e.workers
			if p.g.N >= 64 {
				ls = max(time.Millisecond, time.Duration(int64(e.ls)*int64(p.g.N)/int64(total)))
			}
		}
		sub := newEngine(p.g, e.sh, e, ub, threads, ls, e.seed)
		sub.mirrors = e.mirrors
		sub.noPacking = e.noPacking
		sub.route = e.route
		cover, _ := sub.run(w.top && depth == 0)
		if cover == nil || e.stopped() {
			s.undoTo(mark)
			return true
		}
		in := make([]bool, p.g.N)
		for _, x := range cover {
			in[x] = true
		}
		for i, x := range in {
			if x {
				s.take(p.ids[i])
			}
		}
		for i, x := range in {
			if !x {
				s.drop(p.ids[i])
			}
		}
	}
	s.clearQueue()
	e.offer(s)
	s.undoTo(mark)
	return true
}

// rootReductions applies the root's reductions to a fresh state: every
// rule of reduce with the unconfined rule on, then up to eight rounds of
// the Nemhauser–Trotter LP reduction, each followed by reduce again. It
// returns the LP lower bound on the cover (of the whole graph) and false
// when budget is exceeded: no cover within it exists.
func (s *state) rootReductions(budget func() int) (int, bool) {
	s.queueAll()
	s.unconfinedOn = true
	defer func() { s.unconfinedOn = false }()
	if !s.reduce(budget) {
		return 0, false
	}
	lb := 0
	for round := 0; round < 8 && s.m > 0; round++ {
		before := s.cover
		changed, twiceLP := s.ntReduce()
		lb = max(lb, before+(twiceLP+1)/2)
		if !changed {
			break
		}
		if !s.reduce(budget) {
			return lb, false
		}
	}
	return lb, true
}
