package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/clique"
	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/startup"
	"github.com/arbor-gpu/arbor/internal/batch"
)

// runMCSBatch is 'arbor mcs --batch LIST' and 'arbor mcs QUERY --against
// LIST|DIR': opts is what every pair runs with (the flags as parsed),
// graphs the positional arguments' graphs (--against: the query).
func runMCSBatch(e *env, sr *searchFlags, bf *batchFlags, pos []string, graphs []*core.Graph, opts mcs.Options, ro core.ReadOptions) error {
	sf := &sr.solverFlags
	if err := bf.check("mcs", pos, sf); err != nil {
		return err
	}
	screening := bf.against != ""
	switch {
	case screening && opts.Goal > 0:
		return usagef("--against sets each pair's goal itself (--min-size, --top): leave out --goal")
	case screening && (opts.Engine == mcs.EnginePortfolio || opts.BigFirst):
		return usagef("--against runs each pair with a floor (mcs.Options.Floor), which the portfolio and --big-first do not take: use auto, cpu, gpu or hybrid")
	}
	list, cols := bf.list, 2
	if screening {
		list, cols = bf.against, 1
	}
	r, jobs, skipped, err := newBatchRunner(e, "mcs", sf, bf, list, cols, !screening)
	if err != nil {
		return err
	}
	defer r.out.close()
	r.ro = ro
	devs, dslots, dworkers, closeAll, err := batchDevices(e, sr, bf, opts.Engine.OpensDevice(), opts.Engine == mcs.EngineAuto, func(opened []backend.Device, err error) (startup.Placement, error) {
		return mcs.Place(opts.Engine, opened, err, sr.df.backend != "")
	})
	if err != nil {
		return err
	}
	defer closeAll()
	r.cpu, r.dev = cpuSlots(opts.Threads), dslots
	// The cheap bound: the smaller graph's order (no common subgraph is
	// larger), the edges breaking ties.
	r.bound = func(st []graphStat) int64 {
		return int64(min(st[0].n, st[1].n))<<32 | int64(min(st[0].m+st[1].m, 1<<32-1))
	}
	if opts.Engine == mcs.EngineGPU || opts.Engine == mcs.EngineHybrid {
		r.fits = func(st []graphStat) error {
			if n := max(st[0].n, st[1].n); n > mcs.DeviceMaxVertices {
				return fmt.Errorf("too large for the device engine (--engine %s): a graph of %d vertices, over its %d; use --engine auto or cpu", opts.Engine, n, mcs.DeviceMaxVertices)
			}
			return nil
		}
	}
	var sc *screen
	if screening {
		r.cache.graphs[pos[0]] = graphs[0] // read once for every pair
		for _, j := range jobs {
			if j.err == nil {
				j.files = []string{pos[0], j.files[0]}
			}
		}
		sc = &screen{minSize: bf.minSize, top: bf.top}
		if sc.top > 0 {
			r.hold, r.release = sc.hold, sc.release
			// On the CPU alone, the largest pairs first: large answers
			// early raise every later pair's goal.
			r.descending = r.dev == 0
		} else {
			r.keep = sc.keep
		}
	}
	r.solve = func(ctx context.Context, j *batchJob, gs []*core.Graph, slot batch.Slot) (batchSolved, error) {
		o := opts
		o.Threads = 1
		if slot.Device {
			o.Devices, o.Workers = devs, dworkers
		} else {
			o.Devices = nil
			if o.Engine == mcs.EngineGPU || o.Engine == mcs.EngineHybrid {
				o.Engine = mcs.EngineCPU
			}
		}
		if sc != nil {
			// A floor, not a fixed goal: the bar rises with every larger
			// solution, so a pair far above the cut costs no more than a
			// plain search (a frozen goal explored everything that could
			// reach it).
			o.Floor = sc.goal(j.index)
		}
		if err := e.checkMCSMatrices(gs, o); err != nil {
			return batchSolved{}, err
		}
		res, err := solveMCS(ctx, j.files, gs[0], gs[1], o)
		if err != nil {
			return batchSolved{}, err
		}
		res.Why = slotWhy(slot, res.Why)
		g := max(o.Goal, o.Floor)
		v := newVerdict(res.Status, g > 0, g, g > 0 && res.Size >= g)
		m := shiftedPairs(res.Mapping, sf.base(gs[0]), sf.base(gs[1]))
		text := fmt.Sprintf("size %s  %s  nodes %d  %v  engine %s%s", sizeText(v.size(res.Size)),
			statusText(v, "maximum", fmt.Sprintf("common subgraph of ≥ %d vertices", g)),
			res.Nodes, res.Elapsed.Round(time.Microsecond), res.Engine, deviceSuffix(res.Device))
		return batchSolved{obj: mcsObject(sf, j.files, gs[0], gs[1], o, res, v, m), text: text, v: v, size: res.Size}, nil
	}
	r.prepare(jobs)
	err = r.run(jobs, skipped)
	if sc != nil && sf.verbose {
		fmt.Fprintf(e.stderr, "arbor mcs: screened %s: %d reported, %d proven unable to make the cut, %d failed\n",
			plural(len(jobs), "pair"), sc.reported(r.out), sc.cut, r.out.failed)
	}
	return err
}

// slotWhy is a row's why as docs/cli.md words it: on a CPU slot it
// begins "a CPU slot of the batch", and the engines' "no device" (auto
// without a device to join) says that the batch has no device slots.
func slotWhy(slot batch.Slot, why string) string {
	if slot.Device {
		return why
	}
	if why == "no device" {
		return "a CPU slot of the batch (no device slots)"
	}
	return "a CPU slot of the batch: " + why
}

// screen is --against's cut: a fixed --min-size K, or the best --top N so
// far, which every later pair has to beat.
type screen struct {
	minSize, top int

	mu   sync.Mutex
	held []batchRow // --top: the rows that may be among the best
	best []ranked   // their sizes and indexes, best first (ranks)
	cut  int        // pairs proven unable to make the cut
}

// ranked is a pair's place in --top's order: larger first, ties by index.
type ranked struct{ size, index int }

// ranks orders a before b when a is larger, or as large with a smaller
// index: the order of --top's rows, whatever order the pairs ran in.
func ranks(a, b ranked) int {
	if a.size != b.size {
		return b.size - a.size
	}
	return a.index - b.index
}

// goal is the goal (floor) of the pair of the given index: K, or once N
// pairs are known what beats the Nth best (0 before: the pair's plain
// maximum). A pair with a smaller index than the Nth beats it at an equal
// size (ties go by index), a later one only with a larger size.
func (s *screen) goal(index int) int {
	if s.minSize > 0 {
		return s.minSize
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.best) < s.top {
		return 0
	}
	nth := s.best[s.top-1]
	if index < nth.index {
		return nth.size
	}
	return nth.size + 1
}

// keep (--min-size) prints a pair unless it is proven unable to reach K.
func (s *screen) keep(row batchRow) bool {
	if row.solved.v.Status != core.StatusInfeasible {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cut++
	return false
}

// hold (--top) keeps a pair unless it is proven unable to beat the Nth
// best at the time it ran.
func (s *screen) hold(row batchRow) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if row.err == nil && row.solved.v.Status == core.StatusInfeasible {
		s.cut++
		return
	}
	s.held = append(s.held, row)
	if row.err == nil {
		r := ranked{row.solved.size, row.job.index}
		i, _ := slices.BinarySearchFunc(s.best, r, ranks)
		s.best = slices.Insert(s.best, i, r)
	}
}

// release (--top) returns the best N pairs, largest first (ties by
// index), then the failed ones.
func (s *screen) release() []batchRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ok, failed []batchRow
	for _, r := range s.held {
		if r.err != nil {
			failed = append(failed, r)
		} else {
			ok = append(ok, r)
		}
	}
	slices.SortFunc(ok, func(a, b batchRow) int {
		return ranks(ranked{a.solved.size, a.job.index}, ranked{b.solved.size, b.job.index})
	})
	if len(ok) > s.top {
		ok = ok[:s.top]
	}
	slices.SortFunc(failed, func(a, b batchRow) int { return a.job.index - b.job.index })
	return append(ok, failed...)
}

// reported is how many pairs were printed (less the failed ones).
func (s *screen) reported(o *batchOut) int {
	if s.top > 0 {
		s.mu.Lock()
		defer s.mu.Unlock()
		return min(s.top, len(s.best))
	}
	return o.done - o.dropped - o.failed
}

// oneFileBatch is what vc's and clique's batches share: the list of one
// graph per line, -o, the devices (opened once, under the command's rule)
// and the slots, the bound (the edges searched). closeAll closes the
// runner's output and the devices.
type oneFileBatch struct {
	r        *batchRunner
	jobs     []*batchJob
	skipped  int
	devs     []backend.Device
	dworkers int
	closeAll func()
}

func newOneFileBatch(e *env, cmd string, sr *searchFlags, bf *batchFlags, pos []string, threads int, opens, auto, complement bool,
	rule startup.Rule) (*oneFileBatch, error) {
	sf := &sr.solverFlags
	if err := bf.check(cmd, pos, sf); err != nil {
		return nil, err
	}
	r, jobs, skipped, err := newBatchRunner(e, cmd, sf, bf, bf.list, 1, true)
	if err != nil {
		return nil, err
	}
	r.ro = core.ReadOptions{Format: *sr.format}
	devs, dslots, dworkers, closeDevs, err := batchDevices(e, sr, bf, opens, auto, rule)
	if err != nil {
		r.out.close()
		return nil, err
	}
	r.cpu, r.dev = cpuSlots(threads), dslots
	r.bound = func(st []graphStat) int64 { return edgesBound(st[0], complement) }
	return &oneFileBatch{r: r, jobs: jobs, skipped: skipped, devs: devs, dworkers: dworkers,
		closeAll: func() { r.out.close(); closeDevs() }}, nil
}

// runVCBatch is 'arbor vc --batch LIST'.
func runVCBatch(e *env, sr *searchFlags, bf *batchFlags, pos []string, opts vertexcover.Options, complement bool) error {
	sf := &sr.solverFlags
	b, err := newOneFileBatch(e, "vc", sr, bf, pos, opts.Threads, opts.Engine.OpensDevice(), opts.Engine == vertexcover.EngineAuto, complement,
		func(opened []backend.Device, err error) (startup.Placement, error) {
			return vertexcover.Place(opts.Engine, opened, err)
		})
	if err != nil {
		return err
	}
	defer b.closeAll()
	r, jobs, skipped, devs, dworkers := b.r, b.jobs, b.skipped, b.devs, b.dworkers
	timeout := *sr.timeout
	r.solve = func(ctx context.Context, j *batchJob, gs []*core.Graph, slot batch.Slot) (batchSolved, error) {
		g := gs[0]
		if g.Directed {
			return batchSolved{}, fmt.Errorf("%s: vertex cover needs an undirected graph", j.files[0])
		}
		if complement {
			if err := e.checkComplement(j.files[0], g); err != nil {
				return batchSolved{}, err
			}
			g = vertexcover.Complement(g)
		}
		o := opts
		o.Threads = 1
		if slot.Device {
			o.Devices, o.Workers = devs, dworkers
		} else {
			o.Devices = nil
			if o.Engine.OpensDevice() {
				o.Engine = vertexcover.EngineAuto
			}
		}
		if timeout > 0 {
			var cancel func()
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		res, err := solveVC(ctx, j.files, g, o)
		if err != nil {
			return batchSolved{}, err
		}
		res.Why = slotWhy(slot, res.Why)
		k := -1
		if o.Parameterized {
			k = o.K
		}
		v := newVerdict(res.Status, k >= 0, k, k >= 0 && res.Cover != nil)
		size := "none"
		if res.Cover != nil {
			size = fmt.Sprint(len(res.Cover))
		}
		text := fmt.Sprintf("%d vertices, %d edges  cover %s  %s  nodes %d  %v  engine %s%s", g.N, g.Edges(), size,
			statusText(v, "minimum", fmt.Sprintf("cover of size ≤ %d", k)), res.Nodes, res.Elapsed.Round(time.Microsecond), res.Engine, deviceSuffix(res.Device))
		return batchSolved{obj: vcObject(sf, j.files, g, o, res, v, 1), text: text, v: v, size: len(res.Cover)}, nil
	}
	r.prepare(jobs)
	return r.run(jobs, skipped)
}

// edgesBound is vc's and clique's cheap bound: the edges of the graph
// searched (of the complement with --complement).
func edgesBound(st graphStat, complement bool) int64 {
	if complement {
		return int64(st.n)*int64(st.n-1)/2 - int64(st.m)
	}
	return int64(st.m)
}

// runCliqueBatch is 'arbor clique --batch LIST'.
func runCliqueBatch(e *env, sr *searchFlags, bf *batchFlags, pos []string, opts clique.Options) error {
	sf := &sr.solverFlags
	b, err := newOneFileBatch(e, "clique", sr, bf, pos, opts.Threads, opts.Engine.OpensDevice(), opts.Engine == clique.EngineAuto, opts.Complement,
		func(opened []backend.Device, err error) (startup.Placement, error) {
			return clique.Place(opts.Engine, opened, err)
		})
	if err != nil {
		return err
	}
	defer b.closeAll()
	r, jobs, skipped, devs, dworkers := b.r, b.jobs, b.skipped, b.devs, b.dworkers
	if opts.Goal > 0 && r.dev > 0 {
		r.cpu = 0 // the fixed goal is the device engine's alone
	}
	if opts.Engine == clique.EngineGPU || opts.Engine == clique.EngineHybrid {
		r.fits = func(st []graphStat) error {
			if st[0].n > clique.DeviceMaxVertices {
				return fmt.Errorf("too large for the device engine (--engine %s): %d vertices, over its %d; use --engine auto or cpu", opts.Engine, st[0].n, clique.DeviceMaxVertices)
			}
			return nil
		}
	}
	r.solve = func(ctx context.Context, j *batchJob, gs []*core.Graph, slot batch.Slot) (batchSolved, error) {
		g := gs[0]
		o := opts
		o.Threads = 1
		if slot.Device {
			o.Devices, o.Workers = devs, dworkers
		} else {
			o.Devices = nil
			if o.Engine == clique.EngineGPU || o.Engine == clique.EngineHybrid {
				o.Engine = clique.EngineCPU
			}
		}
		if err := e.checkCliqueMatrix(j.files[0], g); err != nil {
			return batchSolved{}, err
		}
		res, err := solveClique(ctx, j.files, g, o)
		if err != nil {
			return batchSolved{}, err
		}
		res.Why = slotWhy(slot, res.Why)
		v := newVerdict(res.Status, o.Goal > 0, o.Goal, o.Goal > 0 && res.Size >= o.Goal)
		shown := shifted(res.Clique, sf.base(g))
		text := fmt.Sprintf("%d vertices, %d edges  clique %s  %s  nodes %d  %v  engine %s%s", g.N, g.Edges(), sizeText(v.size(res.Size)),
			statusText(v, "maximum", fmt.Sprintf("clique of ≥ %d vertices", o.Goal)), res.Nodes, res.Elapsed.Round(time.Microsecond), res.Engine, deviceSuffix(res.Device))
		return batchSolved{obj: cliqueObject(sf, j.files, g, o, res, v, shown, o.Complement), text: text, v: v, size: res.Size}, nil
	}
	r.prepare(jobs)
	return r.run(jobs, skipped)
}
