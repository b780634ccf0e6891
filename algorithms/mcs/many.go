package mcs

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/halt"
	"github.com/arbor-gpu/arbor/internal/pool"
	"github.com/arbor-gpu/arbor/internal/ticker"
)

// SolveMany's search generalises McSplit from two graphs to k ≥ 2. A class
// (the k-graph bidomain) holds, for every graph, the vertices that share a
// label and an adjacency history towards the matched tuples; any choice of
// one vertex per graph inside a class extends the common subgraph. A node
// picks v, the smallest vertex of the first graph in the class the
// heuristic chooses, then a vertex of the class in graph 2, then in graph
// 3, … (nested loops, each in increasing order), and finally leaves v
// unmatched. The bound is |M| + Σ over classes of the smallest of the
// class's k set sizes. For k = 2 this is, step for step, the pair engine's
// tree (same vertex order, same bidomains, same choice and candidate
// order), so its node counts equal Solve's sequential ones. For k ≥ 3 the
// nested loops also prune between levels: once the vertices of graphs
// 1..j are chosen, their splits are known, and a class can contribute no
// more than the split parts of graphs 1..j allow nor more than its
// unsplit sets in graphs j+1..k hold; such pruned prefixes are not nodes.
// In parallel the workers share work as the pair engine's do, by paths of
// k-vertex ops (many_share.go).

// MultiResult is the answer of SolveMany.
type MultiResult struct {
	Size int
	// Tuples holds one row per matched vertex: Tuples[i][j] is a vertex of
	// graphs[j] (input ids); rows sorted by the first graph's vertex.
	Tuples [][]int
	Nodes  int64
	// Elapsed is the wall time of the whole call.
	Elapsed time.Duration
	// Proven is true only for an exact search that ran to the end; the
	// approximate method never proves anything.
	Proven      bool
	Approximate bool
	// Status is optimal when Proven, else feasible (SolveMany takes no
	// goal).
	Status  core.Status
	Threads int
	Shared  int64 // subtrees one worker gave to another (parallel)
	// Order is the order the graphs were searched in (input indices).
	Order []int
	// Prune says which rules of Options.Prune ran: the approximate
	// method's pair searches run them all, the exact k-graph search none.
	Prune PruneReport
}

// Column returns the vertices of graph j in the tuples, in row order.
func (r MultiResult) Column(j int) []int {
	col := make([]int, len(r.Tuples))
	for i, t := range r.Tuples {
		col[i] = t[j]
	}
	return col
}

// Pairs returns the mapping between graphs i and j as Solve reports it.
func (r MultiResult) Pairs(i, j int) [][2]int {
	out := make([][2]int, len(r.Tuples))
	for k, t := range r.Tuples {
		out[k] = [2]int{t[i], t[j]}
	}
	return out
}

// GraphOrder returns the order SolveMany searches graphs in: the input
// order with plain, else the oscillating size rule of the multi-graph
// McSplit seed: smallest, largest, second smallest, second largest, …
// (ties in input order). The first graph is the one branched on, so
// starting with the smallest keeps the top of the tree narrow, and
// alternating keeps each prefix of graphs balanced for the bound.
func GraphOrder(graphs []*core.Graph, plain bool) []int {
	idx := make([]int, len(graphs))
	for i := range idx {
		idx[i] = i
	}
	if plain {
		return idx
	}
	sort.SliceStable(idx, func(a, b int) bool { return graphs[idx[a]].N < graphs[idx[b]].N })
	out := make([]int, 0, len(idx))
	for lo, hi := 0, len(idx)-1; lo <= hi; lo, hi = lo+1, hi-1 {
		out = append(out, idx[lo])
		if hi != lo {
			out = append(out, idx[hi])
		}
	}
	return out
}

// SolveMany finds a maximum common induced subgraph of all the graphs (at
// least two): a largest set of vertex tuples, one vertex per graph, such
// that every pair of graphs' induced subgraphs are isomorphic through
// them. Options are Solve's; BigFirst, Goal and the device engines are
// not supported. With Options.Approximate it runs the linear-in-k
// approximation instead (see Options.Keep) and reports it unproven.
func SolveMany(ctx context.Context, graphs []*core.Graph, opts Options) (MultiResult, error) {
	start := time.Now()
	if err := checkMany(graphs, opts); err != nil {
		return MultiResult{}, err
	}
	if err := CheckMemory(graphs, opts); err != nil {
		return MultiResult{}, fmt.Errorf("mcs: %w", err)
	}
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	var res MultiResult
	var err error
	if opts.Approximate {
		res, err = approximate(ctx, graphs, opts)
	} else {
		res, _, err = solveManyExact(ctx, graphs, opts, 1)
	}
	if err != nil {
		return MultiResult{}, err
	}
	res.Elapsed = time.Since(start)
	res.Status = core.MaxStatus(res.Proven, res.Size, 0)
	res.Prune = manyPrune(opts.Prune)
	return res, nil
}

func checkMany(graphs []*core.Graph, opts Options) error {
	if len(graphs) < 2 {
		return fmt.Errorf("mcs: %d graphs: a common subgraph needs at least two", len(graphs))
	}
	cells := 0
	for i, g := range graphs {
		if g == nil {
			return fmt.Errorf("mcs: graph %d is nil", i+1)
		}
		if g.N > maxVertices {
			return fmt.Errorf("mcs: graph %d has %d vertices: McSplit handles at most %d", i+1, g.N, maxVertices)
		}
		cells += g.N * g.N
	}
	cell := 1
	if opts.Directed || opts.EdgeLabels {
		cell = 4
	}
	if need := cells * cell; need > maxMatrixBytes {
		return fmt.Errorf("mcs: the graphs need %d MiB of adjacency matrices; the limit is %d MiB", need>>20, maxMatrixBytes>>20)
	}
	if opts.Heuristic != MinMax && opts.Heuristic != MinProduct {
		return fmt.Errorf("mcs: unknown heuristic %v", opts.Heuristic)
	}
	if opts.BigFirst || opts.Goal > 0 || opts.Floor > 0 {
		return errors.New("mcs: big-first, a fixed goal and a floor are not supported for the multi-graph search")
	}
	if opts.Engine != "" && opts.Engine != EngineAuto && opts.Engine != EngineCPU {
		return fmt.Errorf("mcs: the multi-graph search runs on the CPU only (engine %q asked for)", opts.Engine)
	}
	if opts.Keep < 0 {
		return fmt.Errorf("mcs: keep %d: want ≥ 0", opts.Keep)
	}
	return nil
}

// solveManyExact runs the exact search, collecting up to keep distinct
// maximum solutions (distinct as vertex sets of the first searched graph),
// all of which it returns besides the result (which holds the first).
func solveManyExact(ctx context.Context, graphs []*core.Graph, opts Options, keep int) (MultiResult, [][][]int, error) {
	order := GraphOrder(graphs, opts.PlainOrder)
	sorted := make([]*core.Graph, len(graphs))
	for i, j := range order {
		sorted[i] = graphs[j]
	}
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if opts.Directed || opts.EdgeLabels {
		p, err := newManyProblem[uint32](sorted, opts)
		if err != nil {
			return MultiResult{}, nil, err
		}
		res, all := p.run(ctx, threads, keep, order)
		return res, all, nil
	}
	p, err := newManyProblem[uint8](sorted, opts)
	if err != nil {
		return MultiResult{}, nil, err
	}
	res, all := p.run(ctx, threads, keep, order)
	return res, all, nil
}

// manyProblem is k graphs prepared as newProblem prepares two.
type manyProblem[C cell] struct {
	opts     Options
	k        int
	n        []int
	adj      [][]C   // per graph, row-major n×n in the new numbering
	order    [][]int // per graph, new index → input vertex id
	sets     [][]int32
	root     level
	multiway bool
	mutate   mutation // tests only (many_prune.go)
}

// span is one graph's set of a class: sets[j][lo:lo+n].
type span struct{ lo, n int32 }

// classInfo is what a class holds besides its spans.
type classInfo struct {
	minL       int32 // smallest vertex of the first graph's set
	adj        bool  // adjacent to a matched vertex (Connected)
	minA, minN int32 // the first graph's split by the node's v (simple)
}

// level is a list of classes: cs[i]'s set in graph j is sp[i*k+j].
type level struct {
	cs []classInfo
	sp []span
}

func newManyProblem[C cell](graphs []*core.Graph, opts Options) (*manyProblem[C], error) {
	k := len(graphs)
	multiway := opts.Directed || opts.EdgeLabels
	codes := map[int32]uint32{}
	if opts.EdgeLabels {
		var err error
		if codes, err = edgeLabelCodes(graphs); err != nil {
			return nil, err
		}
	}
	p := &manyProblem[C]{opts: opts, k: k, multiway: multiway,
		n: make([]int, k), adj: make([][]C, k), order: make([][]int, k), sets: make([][]int32, k)}
	mats := make([][]C, k)
	keys := make([][]vertexKey, k)
	degs := make([][]int, k)
	dense := make([]bool, k)
	for j, g := range graphs {
		p.n[j] = g.N
		mats[j], keys[j] = matrix[C](g, opts, codes)
		degs[j] = degrees(mats[j], g.N, opts.Directed)
		s := 0
		for _, d := range degs[j] {
			s += d
		}
		dense[j] = s > g.N*(g.N-1)
	}
	// As newProblem: by degree, descending, unless another graph is dense
	// (which for two graphs is exactly the pair rule).
	for j := range graphs {
		asc := false
		for t := range graphs {
			asc = asc || (t != j && dense[t])
		}
		p.order[j] = order(degs[j], asc)
		p.adj[j] = permute(mats[j], p.order[j])
	}
	byKey := make([]map[vertexKey][]int32, k)
	for j := range graphs {
		byKey[j] = map[vertexKey][]int32{}
		for i, v := range p.order[j] {
			byKey[j][keys[j][v]] = append(byKey[j][keys[j][v]], int32(i))
		}
	}
	var common []vertexKey
	for key := range byKey[0] {
		all := true
		for j := 1; j < k; j++ {
			_, ok := byKey[j][key]
			all = all && ok
		}
		if all {
			common = append(common, key)
		}
	}
	sort.Slice(common, func(a, b int) bool { return keyLess(common[a], common[b]) })
	for _, key := range common {
		p.root.cs = append(p.root.cs, classInfo{minL: byKey[0][key][0]})
		for j := range graphs {
			vs := byKey[j][key]
			p.root.sp = append(p.root.sp, span{lo: int32(len(p.sets[j])), n: int32(len(vs))})
			p.sets[j] = append(p.sets[j], vs...)
		}
	}
	return p, nil
}

// manyShared is what the workers of one SolveMany share.
type manyShared struct {
	best  atomic.Int32
	stop  atomic.Bool
	_     [56]byte
	nodes atomic.Int64
	limit int64
	_     [48]byte

	mu   sync.Mutex
	keep int
	sols [][]int32 // up to keep solutions of size best, flat tuples
	full atomic.Bool
	// Work sharing (parallel): given-away subtrees, named by their paths.
	q pool.Queue[[]int32]
}

// offer records cur (flat tuples of k) when it beats the incumbent or,
// collecting several, ties it with a new vertex set of the first graph.
func (sh *manyShared) offer(cur []int32, k int) {
	m := int32(len(cur) / k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	best := sh.best.Load()
	switch {
	case m > best:
		sh.sols = append(sh.sols[:0], slices.Clone(cur))
		sh.best.Store(m)
	case m == best && m > 0 && len(sh.sols) < sh.keep:
		for _, s := range sh.sols {
			if sameFirst(s, cur, k) {
				return
			}
		}
		sh.sols = append(sh.sols, slices.Clone(cur))
	default:
		return
	}
	sh.full.Store(len(sh.sols) >= sh.keep)
}

// sameFirst reports whether two solutions use the same vertices of the
// first graph.
func sameFirst(a, b []int32, k int) bool {
	if len(a) != len(b) {
		return false
	}
	va, vb := make([]int32, 0, len(a)/k), make([]int32, 0, len(b)/k)
	for i := 0; i < len(a); i += k {
		va, vb = append(va, a[i]), append(vb, b[i])
	}
	slices.Sort(va)
	slices.Sort(vb)
	return slices.Equal(va, vb)
}

func (p *manyProblem[C]) run(ctx context.Context, threads, keep int, order []int) (MultiResult, [][][]int) {
	sh := &manyShared{limit: p.opts.NodeLimit, keep: keep}
	sh.q.Init(&sh.stop)
	sh.full.Store(keep <= 1)
	defer halt.OnDone(ctx, sh.q.Halt)()
	start := time.Now()
	if p.opts.Progress != nil {
		defer ticker.Every(p.opts.ProgressInterval, func() {
			p.opts.Progress(Progress{Incumbent: int(sh.best.Load()), Nodes: sh.nodes.Load(), Elapsed: time.Since(start)})
		})()
	}
	var nodes int64
	if threads <= 1 {
		w := p.newWorker(sh, false)
		w.rebuild(nil)
		w.search(0)
		w.flush()
		nodes = w.nodes
	} else {
		// As the pair engine: a worker out of work waits on the queue,
		// and busy workers give away not-yet-started children of the
		// shallowest node on their path (see donate), which the taker
		// rebuilds from the path.
		sh.q.Start(threads, [][]int32{{}}) // the root: the empty path
		nodes = sh.q.Work(threads, func(int) (func([]int32), func() int64) {
			w := p.newWorker(sh, true)
			return func(task []int32) { w.rebuild(task); w.search(0) }, func() int64 { w.flush(); return w.nodes }
		})
	}
	res := MultiResult{Size: int(sh.best.Load()), Nodes: nodes, Proven: !sh.stop.Load(), Threads: threads, Order: order, Shared: sh.q.Given()}
	var all [][][]int
	for _, sol := range sh.sols {
		all = append(all, p.tuples(sol, order))
	}
	if len(all) > 0 {
		res.Tuples = all[0]
	}
	return res, all
}

// tuples turns a flat solution in the search numbering into rows of input
// vertex ids, columns in input graph order, sorted by the first column.
func (p *manyProblem[C]) tuples(sol []int32, order []int) [][]int {
	k := p.k
	var out [][]int
	for i := 0; i < len(sol); i += k {
		row := make([]int, k)
		for j := 0; j < k; j++ {
			row[order[j]] = p.order[j][sol[i+j]]
		}
		out = append(out, row)
	}
	sort.Slice(out, func(a, b int) bool { return out[a][0] < out[b][0] })
	return out
}

// manyWorker searches with its own copy of the per-graph vertex arrays.
type manyWorker[C cell] struct {
	p         *manyProblem[C]
	sh        *manyShared
	sets      [][]int32
	levels    []level   // per depth
	splits    [][]int32 // per depth: split[i*k+j], the adjacent count of class i's set in graph j
	cands     [][]int32 // per depth*k+j: candidates of graph j, increasing
	groups    [][]group[C]
	los, lens []int32 // child's scratch: one group per graph
	cur       []int32 // matched tuples, flat, k per tuple
	nodes     int64
	published int64
	stopped   bool
	// Work sharing (parallel): the path of ops from the root (k entries
	// each: v and the tuple's other vertices, or v and −1s for "v
	// unmatched"), each depth's node, and each depth×k+level's next
	// candidate index.
	par    bool
	path   []int32
	frames []manyFrame
	next   []int
}

// manyFrame is a search node whose children are being explored.
type manyFrame struct {
	v         int32
	row       int  // its tuple's row in cur
	pathLen   int  // length of the path naming the node
	skipGiven bool // the "v unmatched" continuation was given away
	bound     int32
	ended     bool // R5 ended the node (many_prune.go)
}

func (p *manyProblem[C]) newWorker(sh *manyShared, par bool) *manyWorker[C] {
	minN := p.n[0]
	for _, n := range p.n {
		minN = min(minN, n)
	}
	depth := minN + 2
	w := &manyWorker[C]{p: p, sh: sh, sets: make([][]int32, p.k),
		levels: make([]level, depth), splits: make([][]int32, depth), cands: make([][]int32, depth*p.k),
		groups: make([][]group[C], p.k), los: make([]int32, p.k), lens: make([]int32, p.k), par: par,
		frames: make([]manyFrame, depth), next: make([]int, depth*p.k)}
	for j := range w.sets {
		w.sets[j] = slices.Clone(p.sets[j])
	}
	return w
}

func (w *manyWorker[C]) tick() bool {
	w.nodes++
	if w.nodes&1023 != 0 {
		return w.stopped
	}
	return w.poll()
}

func (w *manyWorker[C]) poll() bool {
	total := w.sh.nodes.Add(w.nodes - w.published)
	w.published = w.nodes
	if w.sh.limit > 0 && total >= w.sh.limit {
		w.sh.q.Halt()
	}
	if w.sh.stop.Load() {
		w.stopped = true
	}
	return w.stopped
}

func (w *manyWorker[C]) flush() {
	w.sh.nodes.Add(w.nodes - w.published)
	w.published = w.nodes
}

// search explores the node whose classes are w.levels[depth]; as in the
// pair engine, the "v unmatched" tail call is the next turn of the loop.
func (w *manyWorker[C]) search(depth int) {
	p := w.p
	k := p.k
	lv := &w.levels[depth]
	pathLen := len(w.path)
	defer func() { w.path = w.path[:pathLen] }()
	for {
		if w.tick() {
			return
		}
		if w.par && w.sh.q.Hungry() {
			w.donate(depth)
		}
		m := int32(len(w.cur) / k)
		best := w.sh.best.Load()
		full := w.sh.full.Load()
		if m > best || (!full && m == best && m > 0) {
			w.sh.offer(w.cur, k)
			best = w.sh.best.Load()
			full = w.sh.full.Load()
		}
		bound, chosen := w.boundAndChoice(lv, m)
		// Collecting several maxima, a node that can only tie still counts.
		if bound < best || (full && bound <= best) || chosen < 0 {
			return
		}
		c := &lv.cs[chosen]
		v := c.minL
		s0 := &lv.sp[chosen*k]
		seg := w.sets[0][s0.lo : s0.lo+s0.n]
		for j := range seg {
			if seg[j] == v {
				seg[j], seg[len(seg)-1] = seg[len(seg)-1], v
				break
			}
		}
		s0.n--
		split := w.splits[depth]
		if cap(split) < len(lv.cs)*k {
			split = make([]int32, len(lv.cs)*k)
		}
		split = split[:len(lv.cs)*k]
		w.splits[depth] = split
		if !p.multiway {
			w.splitFirst(lv, split, p.adj[0][int(v)*p.n[0]:int(v)*p.n[0]+p.n[0]])
		}
		// The candidates of every other graph, in increasing order; the
		// chosen one is kept just past the end of its set.
		for j := 1; j < k; j++ {
			s := &lv.sp[chosen*k+j]
			cs := append(w.cands[depth*k+j][:0], w.sets[j][s.lo:s.lo+s.n]...)
			insertionSort(cs)
			w.cands[depth*k+j] = cs
			s.n--
		}
		f := &w.frames[depth]
		*f = manyFrame{v: v, row: len(w.cur) / k, pathLen: len(w.path), bound: bound}
		w.cur = append(w.cur, make([]int32, k)...)
		w.cur[len(w.cur)-k] = v
		w.next[depth*k+1] = 0
		w.branch(depth, chosen, 1, m)
		w.cur = w.cur[:len(w.cur)-k]
		for j := 1; j < k; j++ {
			lv.sp[chosen*k+j].n++
		}
		if w.stopped || f.skipGiven || f.ended {
			return
		}
		if w.par {
			w.path = append(w.path, v)
			for j := 1; j < k; j++ {
				w.path = append(w.path, -1)
			}
		}
		// The branch where v stays unmatched.
		if s0.n == 0 {
			last := len(lv.cs) - 1
			lv.cs[chosen] = lv.cs[last]
			copy(lv.sp[chosen*k:chosen*k+k], lv.sp[last*k:last*k+k])
			lv.cs = lv.cs[:last]
			lv.sp = lv.sp[:last*k]
		} else if p.multiway {
			c.minL = minOf(w.sets[0][s0.lo : s0.lo+s0.n])
		} else {
			c.minL = min(c.minA, c.minN)
		}
	}
}

// boundAndChoice returns m + Σ min set size, and the class to branch on:
// smallest max set size (or product), ties to the smallest first-graph
// vertex; with Connected and m > 0 only classes adjacent to the matching.
func (w *manyWorker[C]) boundAndChoice(lv *level, m int32) (int32, int) {
	k := w.p.k
	bound := m
	chosen := -1
	bestKey := uint64(1<<64 - 1)
	restrict := w.p.opts.Connected && m > 0
	product := w.p.opts.Heuristic == MinProduct
	for i := range lv.cs {
		sp := lv.sp[i*k : i*k+k]
		lo, hi := sp[0].n, sp[0].n
		prod := uint64(1)
		for _, s := range sp {
			lo, hi = min(lo, s.n), max(hi, s.n)
			prod = min(prod*uint64(s.n), 1<<31)
		}
		bound += lo
		if restrict && !lv.cs[i].adj {
			continue
		}
		size := uint64(hi)
		if product {
			size = prod
		}
		if key := size<<32 | uint64(lv.cs[i].minL); key < bestKey {
			bestKey, chosen = key, i
		}
	}
	return bound, chosen
}

// splitFirst partitions every class's first-graph set into the vertices
// adjacent to v (row: v's matrix row, 0 or 1) and the others.
func (w *manyWorker[C]) splitFirst(lv *level, split []int32, row []C) {
	k := w.p.k
	for i := range lv.cs {
		s := lv.sp[i*k]
		a, minA, minN := splitAdjacentMin(w.sets[0][s.lo:s.lo+s.n], row)
		split[i*k] = int32(a)
		lv.cs[i].minA, lv.cs[i].minN = minA, minN
	}
}

// splitOther partitions every class's set in graph j by adjacency to x.
func (w *manyWorker[C]) splitOther(lv *level, split []int32, j int, row []C) {
	k := w.p.k
	for i := range lv.cs {
		s := lv.sp[i*k+j]
		seg := w.sets[j][s.lo : s.lo+s.n]
		a := 0
		for t, x := range seg {
			seg[t] = seg[a]
			seg[a] = x
			a += int(row[x])
		}
		split[i*k+j] = int32(a)
	}
}

// branch runs the nested loop over graph j's candidates (and deeper
// graphs'), then searches each complete tuple's child node.
func (w *manyWorker[C]) branch(depth, chosen, j int, m int32) {
	p := w.p
	k := p.k
	lv := &w.levels[depth]
	split := w.splits[depth]
	s := &lv.sp[chosen*k+j]
	cands := w.cands[depth*k+j]
	// An index loop on w.next: donate may take candidates of the
	// innermost level from under it.
	for w.next[depth*k+j] < len(cands) {
		x := cands[w.next[depth*k+j]]
		w.next[depth*k+j]++
		// Move x just past the end of its set, out of the children's view.
		seg := w.sets[j][s.lo : s.lo+s.n+1]
		for t := range seg {
			if seg[t] == x {
				seg[t], seg[s.n] = seg[s.n], x
				break
			}
		}
		w.cur[len(w.cur)-k+j] = x
		if !p.multiway {
			w.splitOther(lv, split, j, p.adj[j][int(x)*p.n[j]:int(x)*p.n[j]+p.n[j]])
		}
		if j < k-1 {
			if !p.multiway && w.prefixBound(lv, split, j, m) {
				continue
			}
			w.next[depth*k+j+1] = 0
			w.branch(depth, chosen, j+1, m)
		} else {
			w.child(depth)
			if w.par {
				w.path = append(w.path, w.cur[len(w.cur)-k:]...)
			}
			w.search(depth + 1)
			if w.par {
				w.path = w.path[:w.frames[depth].pathLen]
			}
		}
		if w.stopped || w.ended(depth) {
			return
		}
	}
}

// prefixBound reports whether every tuple extending the chosen vertices
// of graphs 0..j is pruned: the bound with each class limited by its split
// parts in graphs 0..j and by its whole sets in graphs j+1..k−1.
func (w *manyWorker[C]) prefixBound(lv *level, split []int32, j int, m int32) bool {
	k := w.p.k
	best := w.sh.best.Load()
	bound := m + 1
	for i := range lv.cs {
		sp := lv.sp[i*k : i*k+k]
		if sp[0].n == 0 {
			continue
		}
		a, non := int32(noVertex), int32(noVertex)
		for t := 0; t <= j; t++ {
			a = min(a, split[i*k+t])
			non = min(non, sp[t].n-split[i*k+t])
		}
		c := a + non
		for t := j + 1; t < k; t++ {
			c = min(c, sp[t].n)
		}
		bound += c
	}
	if w.sh.full.Load() {
		return bound <= best
	}
	return bound < best
}

// child builds the classes of the child node (the tuple in w.cur's last k
// entries) into w.levels[depth+1].
func (w *manyWorker[C]) child(depth int) {
	p := w.p
	k := p.k
	lv := &w.levels[depth]
	out := &w.levels[depth+1]
	out.cs, out.sp = out.cs[:0], out.sp[:0]
	if !p.multiway {
		split := w.splits[depth]
		for i := range lv.cs {
			sp := lv.sp[i*k : i*k+k]
			if sp[0].n == 0 {
				continue
			}
			okA, okN := true, true
			for t := 0; t < k; t++ {
				a := split[i*k+t]
				okA = okA && a > 0
				okN = okN && sp[t].n-a > 0
			}
			c := lv.cs[i]
			if okN {
				out.cs = append(out.cs, classInfo{minL: c.minN, adj: c.adj})
				for t := 0; t < k; t++ {
					a := split[i*k+t]
					out.sp = append(out.sp, span{lo: sp[t].lo + a, n: sp[t].n - a})
				}
			}
			if okA {
				out.cs = append(out.cs, classInfo{minL: c.minA, adj: true})
				for t := 0; t < k; t++ {
					out.sp = append(out.sp, span{lo: sp[t].lo, n: split[i*k+t]})
				}
			}
		}
		return
	}
	tup := w.cur[len(w.cur)-k:]
	for i := range lv.cs {
		sp := lv.sp[i*k : i*k+k]
		empty := false
		for t := 0; t < k; t++ {
			empty = empty || sp[t].n == 0
		}
		if empty {
			continue
		}
		for t := 0; t < k; t++ {
			row := p.adj[t][int(tup[t])*p.n[t] : int(tup[t])*p.n[t]+p.n[t]]
			w.groups[t] = groupByKey(w.sets[t][sp[t].lo:sp[t].lo+sp[t].n], row, w.groups[t][:0])
		}
		for _, a := range w.groups[0] {
			if a.hi == a.lo {
				continue
			}
			los, lens := w.los, w.lens
			los[0], lens[0] = a.lo, a.hi-a.lo
			all := true
			for t := 1; t < k && all; t++ {
				found := false
				for _, b := range w.groups[t] {
					if b.key == a.key && b.hi > b.lo {
						los[t], lens[t], found = b.lo, b.hi-b.lo, true
						break
					}
				}
				all = found
			}
			if !all {
				continue
			}
			first := w.sets[0][sp[0].lo+a.lo : sp[0].lo+a.hi]
			out.cs = append(out.cs, classInfo{minL: minOf(first), adj: a.key != 0 || lv.cs[i].adj})
			for t := 0; t < k; t++ {
				out.sp = append(out.sp, span{lo: sp[t].lo + los[t], n: lens[t]})
			}
		}
	}
}
