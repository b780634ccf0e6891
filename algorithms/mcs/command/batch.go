package mcscmd

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/startup"
	"github.com/arbor-gpu/arbor/internal/batch"
)

// deviceEngines are the engines that search on a device: a CPU slot of a
// batch runs the CPU engine instead.
var deviceEngines = []mcs.Engine{mcs.EngineGPU, mcs.EngineHybrid}

// runMCSBatch is 'arbor mcs --batch LIST' and 'arbor mcs QUERY --against
// LIST|DIR': opts is what every pair runs with (the flags as parsed),
// graphs the positional arguments' graphs (--against: the query).
func runMCSBatch(e *cli.Env, sr *cli.SearchFlags, bf *cli.BatchFlags, pos []string, graphs []*core.Graph, opts mcs.Options, ro core.ReadOptions) error {
	sf := &sr.SolverFlags
	if err := bf.Check("mcs", pos, sf); err != nil {
		return err
	}
	screening := bf.Against != ""
	switch {
	case screening && opts.Goal > 0:
		return cli.Usagef("--against sets each pair's goal itself (--min-size, --top): leave out --goal")
	case screening && (opts.Engine == mcs.EnginePortfolio || opts.BigFirst):
		return cli.Usagef("--against runs each pair with a floor (mcs.Options.Floor), which the portfolio and --big-first do not take: use auto, cpu, gpu or hybrid")
	}
	list, cols := bf.List, 2
	if screening {
		list, cols = bf.Against, 1
	}
	r, jobs, skipped, err := cli.NewBatchRunner(e, "mcs", sf, bf, list, cols, !screening)
	if err != nil {
		return err
	}
	defer r.Out.Close()
	r.ReadOptions = ro
	devs, dslots, dworkers, closeAll, err := cli.BatchDevices(e, sr, bf, opts.Engine.OpensDevice(), opts.Engine == mcs.EngineAuto, func(opened []backend.Device, err error) (startup.Placement, error) {
		return mcs.Place(opts.Engine, opened, err, sr.Dev.Backend != "")
	})
	if err != nil {
		return err
	}
	defer closeAll()
	r.CPU, r.Devs = cli.CPUSlots(opts.Threads), dslots
	// The cheap bound: the smaller graph's order (no common subgraph is
	// larger), the edges breaking ties.
	r.Bound = func(st []cli.GraphStat) int64 {
		return int64(min(st[0].N, st[1].N))<<32 | int64(min(st[0].M+st[1].M, 1<<32-1))
	}
	if slices.Contains(deviceEngines, opts.Engine) {
		r.Fits = func(st []cli.GraphStat) error {
			if n := max(st[0].N, st[1].N); n > mcs.DeviceMaxVertices {
				return fmt.Errorf("too large for the device engine (--engine %s): a graph of %d vertices, over its %d; use --engine auto or cpu", opts.Engine, n, mcs.DeviceMaxVertices)
			}
			return nil
		}
	}
	var sc *screen
	if screening {
		sc = startScreen(r, bf, jobs, pos[0], graphs[0])
	}
	r.Solve = solveMCSPairs(e, sf, opts, devs, dworkers, sc)
	r.Prepare(jobs)
	err = r.Run(jobs, skipped)
	if sc != nil && sf.Verbose {
		fmt.Fprintf(e.Stderr, "arbor mcs: screened %s: %d reported, %d proven unable to make the cut, %d failed\n",
			cli.Plural(len(jobs), "pair"), sc.reported(r.Out), sc.cut, r.Out.Failed)
	}
	return err
}

// startScreen sets r up for --against: every job pairs the query (read
// once) with its graph, and the screen's cut decides which rows are kept.
func startScreen(r *cli.BatchRunner, bf *cli.BatchFlags, jobs []*cli.BatchJob, query string, qg *core.Graph) *screen {
	r.Preload(query, qg) // read once for every pair
	for _, j := range jobs {
		if j.Err == nil {
			j.Files = []string{query, j.Files[0]}
		}
	}
	sc := &screen{MinSize: bf.MinSize, Top: bf.Top}
	if sc.Top > 0 {
		r.Hold, r.Release = sc.Hold, sc.Release
		// On the CPU alone, the largest pairs first: large answers
		// early raise every later pair's goal.
		r.Descending = r.Devs == 0
	} else {
		r.Keep = sc.Keep
	}
	return sc
}

// solveMCSPairs is the batch's Solve: one pair on its slot (a device slot
// gets the devices; a CPU slot the CPU engine), under the screen's floor
// when screening.
func solveMCSPairs(e *cli.Env, sf *cli.SolverFlags, opts mcs.Options, devs []backend.Device, dworkers int, sc *screen) func(context.Context, *cli.BatchJob, []*core.Graph, batch.Slot) (cli.BatchSolved, error) {
	kit := cli.SlotKit[mcs.Engine]{Devs: devs, Workers: dworkers, CPU: mcs.EngineCPU, DeviceEngines: deviceEngines}
	return func(ctx context.Context, j *cli.BatchJob, gs []*core.Graph, slot batch.Slot) (cli.BatchSolved, error) {
		o := opts
		o.Threads = 1
		kit.Apply(slot, &o.Engine, &o.Devices, &o.Workers)
		if sc != nil {
			// A floor, not a fixed goal: the bar rises with every larger
			// solution, so a pair far above the cut costs no more than a
			// plain search (a frozen goal explored everything that could
			// reach it).
			o.Floor = sc.Goal(j.Index)
		}
		if err := mcs.CheckMemory(gs, o); err != nil {
			return cli.BatchSolved{}, err
		}
		res, err := solveMCS(ctx, j.Files, gs[0], gs[1], o)
		if err != nil {
			return cli.BatchSolved{}, err
		}
		res.Why = cli.SlotWhy(slot, res.Why)
		g := max(o.Goal, o.Floor)
		v := cli.NewVerdict(res.Status, g > 0, g, g > 0 && res.Size >= g)
		m := cli.ShiftedPairs(res.Mapping, sf.Base(gs[0]), sf.Base(gs[1]))
		text := fmt.Sprintf("size %s  %s  nodes %d  %v  engine %s%s", cli.SizeText(v.Size(res.Size)),
			cli.StatusText(v, "maximum", fmt.Sprintf("common subgraph of ≥ %d vertices", g)),
			res.Nodes, res.Elapsed.Round(time.Microsecond), res.Engine, cli.DeviceSuffix(res.Device))
		return cli.BatchSolved{Obj: mcsObject(sf, j.Files, gs[0], gs[1], o, res, v, m), Text: text, V: v, Size: res.Size}, nil
	}
}

// screen is --against's cut: a fixed --min-size K, or the best --top N so
// far, which every later pair has to beat.
type screen struct {
	MinSize, Top int

	mu   sync.Mutex
	held []cli.BatchRow // --top: the rows that may be among the best
	best []ranked       // their sizes and indexes, best first (ranks)
	cut  int            // pairs proven unable to make the cut
}

// ranked is a pair's place in --top's order: larger first, ties by index.
type ranked struct{ Size, Index int }

// ranks orders a before b when a is larger, or as large with a smaller
// index: the order of --top's rows, whatever order the pairs ran in.
func ranks(a, b ranked) int {
	if a.Size != b.Size {
		return b.Size - a.Size
	}
	return a.Index - b.Index
}

// Goal is the goal (floor) of the pair of the given index: K, or once N
// pairs are known what beats the Nth best (0 before: the pair's plain
// maximum). A pair with a smaller index than the Nth beats it at an equal
// size (ties go by index), a later one only with a larger size.
func (s *screen) Goal(index int) int {
	if s.MinSize > 0 {
		return s.MinSize
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.best) < s.Top {
		return 0
	}
	nth := s.best[s.Top-1]
	if index < nth.Index {
		return nth.Size
	}
	return nth.Size + 1
}

// Keep (--min-size) prints a pair unless it is proven unable to reach K.
func (s *screen) Keep(row cli.BatchRow) bool {
	if row.Solved.V.Status != core.StatusInfeasible {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cut++
	return false
}

// Hold (--top) keeps a pair unless it is proven unable to beat the Nth
// best at the time it ran.
func (s *screen) Hold(row cli.BatchRow) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if row.Err == nil && row.Solved.V.Status == core.StatusInfeasible {
		s.cut++
		return
	}
	s.held = append(s.held, row)
	if row.Err == nil {
		r := ranked{row.Solved.Size, row.Job.Index}
		i, _ := slices.BinarySearchFunc(s.best, r, ranks)
		s.best = slices.Insert(s.best, i, r)
	}
}

// Release (--top) returns the best N pairs, largest first (ties by
// index), then the failed ones.
func (s *screen) Release() []cli.BatchRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ok, failed []cli.BatchRow
	for _, r := range s.held {
		if r.Err != nil {
			failed = append(failed, r)
		} else {
			ok = append(ok, r)
		}
	}
	slices.SortFunc(ok, func(a, b cli.BatchRow) int {
		return ranks(ranked{a.Solved.Size, a.Job.Index}, ranked{b.Solved.Size, b.Job.Index})
	})
	if len(ok) > s.Top {
		ok = ok[:s.Top]
	}
	slices.SortFunc(failed, func(a, b cli.BatchRow) int { return a.Job.Index - b.Job.Index })
	return append(ok, failed...)
}

// reported is how many pairs were printed (less the failed ones).
func (s *screen) reported(o *cli.BatchOut) int {
	if s.Top > 0 {
		s.mu.Lock()
		defer s.mu.Unlock()
		return min(s.Top, len(s.best))
	}
	return o.Done - o.Dropped - o.Failed
}
