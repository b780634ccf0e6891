// Package matching computes the one-way handshaking weighted matching of the
// CS314 specification on any backend: every unmatched vertex points to its
// heaviest remaining neighbour (the smallest index on ties); mutual pairs are
// matched; arcs touching a matched vertex are removed (mark, exclusive scan,
// pack); the passes repeat until no arc is left.
//
// Two engines give identical results: EngineSpec runs the CS314 kernels
// (algorithms/matching/kernel/cs314.cl) exactly as specified, stride by stride; EngineFast runs a
// segmented argmax over 64-bit (rank, ^neighbour) keys and a work-efficient
// filter (algorithms/matching/kernel/match_fast.cl): by default one launch per pass that finds
// each tile's offset by decoupled look-back, compacts the arcs and computes
// the next pass's argmax; Options.Filter = FilterScan splits it into mark,
// scan and pack for devices that do not let work-groups wait on each other.
//
// The handshake result equals sequential greedy matching over the edges in
// decreasing strength (Greedy), which the tests use as the oracle.
package matching

import (
	"context"
	"fmt"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
)

// Engine selects the implementation.
type Engine string

const (
	EngineFast Engine = "fast" // CSR segmented argmax + work-efficient scan/compaction (default)
	EngineSpec Engine = "spec" // the CS314 kernels, stride by stride
)

// Tie selects how equal weights are ordered.
type Tie int

const (
	// TieIndex: on equal weights the smaller neighbour index wins, as the
	// CS314 specification says; this reproduces its reference outputs.
	TieIndex Tie = iota
	// TieHashed: equal weights are ordered by a hash of the edge's endpoint
	// pair (then by the endpoints). On uniform weights this breaks the
	// index-order chains that make TieIndex need many passes, so it takes
	// far fewer passes; the matching is a different (equally greedy) one and
	// does not reproduce the reference files.
	TieHashed
)

func (t Tie) String() string {
	if t == TieHashed {
		return "hashed"
	}
	return "index"
}

// Filter is how the fast engine removes the arcs of matched vertices.
type Filter string

const (
	// FilterLookback (the default) filters each pass in one launch: a
	// decoupled look-back scan fused with the compaction and the next
	// pass's argmax, so the arcs come from memory once per pass. It relies
	// on work-groups that, once started, keep running while others wait on
	// them: CUDA, AMD and Intel GPUs, PoCL and the CPU backend do; OpenCL
	// does not promise it in general.
	FilterLookback Filter = "lookback"
	// FilterScan marks the arcs, scans the tile counts and packs in three
	// launches: the arcs are read twice, and no work-group ever waits for
	// another.
	FilterScan Filter = "scan"
)

// Options control Handshake.
type Options struct {
	Engine Engine // "" means EngineFast
	Tie    Tie
	// Threads is the total number of work-items per launch; every kernel
	// is a grid-stride loop, so any value gives the same result. 0: the
	// default (enough to fill the device).
	Threads int
	// StrongOnly stops after the first pass's strongest-neighbour step and
	// returns each vertex's strongest neighbour (the specification's gsn
	// program) instead of a matching.
	StrongOnly bool
	// Filter selects the fast engine's filter; the result is the same.
	Filter Filter
	// Ctx, when set, is checked between passes: a cancelled run returns
	// its error (a partial matching is not a result worth returning: the
	// whole run takes a few passes).
	Ctx context.Context
	// tagBits, when above 0, caps the fast engine's best[] tag bits (tests:
	// one bit makes the tags wrap every pass).
	tagBits int
}

// interrupted returns the context's error once it is cancelled.
func (o *Options) interrupted() error {
	if o.Ctx == nil {
		return nil
	}
	if err := o.Ctx.Err(); err != nil {
		return fmt.Errorf("interrupted: %w", err)
	}
	return nil
}

// Phase is the time one phase took, summed over the passes.
type Phase struct {
	Name string        `json:"name"`
	Time time.Duration `json:"ns"`
}

// Result is a matching and how it was found.
type Result struct {
	// Mate is the partner of each vertex, -1 when unmatched. With
	// StrongOnly it is each vertex's strongest neighbour instead (-1 for
	// isolated vertices), and is not a matching.
	Mate       Matching `json:"-"`
	StrongOnly bool     `json:"strong_only"`
	Vertices   int      `json:"vertices"`
	Edges      int      `json:"edges"`  // undirected edges (self-loops ignored)
	Passes     int      `json:"passes"` // strongest-neighbour rounds
	Pairs      int      `json:"pairs"`
	Weight     float64  `json:"weight"` // sum of the original weights of the matched edges
	Engine     Engine   `json:"engine"`
	Filter     Filter   `json:"filter,omitempty"` // the fast engine's
	Tie        string   `json:"tie"`
	Threads    int      `json:"threads"` // 0: the default
	Phases     []Phase  `json:"phases"`
	// Loop is the device loop's time (every pass, excluding upload and the
	// final download); ArcsProcessed the arcs the passes went through in
	// total (the sum over passes of the arcs remaining at their start).
	Loop          time.Duration `json:"loop_ns"`
	ArcsProcessed int64         `json:"arcs_processed"`
	ArcsPerPass   []int         `json:"arcs_per_pass"` // arcs left at the start of each pass
	// PassTimes is each pass's device time (the first includes the first
	// strongest-neighbour step).
	PassTimes []time.Duration `json:"pass_ns"`
	// Wall splits Run's wall-clock time into what the caller waits for:
	// setup (queue, kernels, buffers), upload (the input to the device,
	// ready for the kernels), loop (the passes, host waits included),
	// download (the result back) and total (pairs and weight on the host),
	// plus release (freeing the buffers); WallTotal is their sum.
	Wall      []Phase       `json:"wall"`
	WallTotal time.Duration `json:"wall_ns"`
	Device    backend.Info  `json:"device"`
}

// Handshake runs the handshaking matching of g on dev.
func Handshake(dev backend.Device, g *core.Graph, opt Options) (*Result, error) {
	in, err := Prepare(g, opt.Tie)
	if err != nil {
		return nil, err
	}
	return Run(dev, in, opt)
}

// Run runs the handshaking matching of a prepared input on dev.
func Run(dev backend.Device, in *Input, opt Options) (*Result, error) {
	if opt.Engine == "" {
		opt.Engine = EngineFast
	}
	if opt.Filter == "" {
		opt.Filter = FilterLookback
	}
	if opt.Filter != FilterLookback && opt.Filter != FilterScan {
		return nil, fmt.Errorf("matching: unknown filter %q (lookback or scan)", opt.Filter)
	}
	if opt.Threads < 0 {
		return nil, fmt.Errorf("matching: %d threads", opt.Threads)
	}
	if opt.Tie != in.Tie {
		return nil, fmt.Errorf("matching: input prepared for tie %s, options ask for %s", in.Tie, opt.Tie)
	}
	res := &Result{Vertices: in.N, Edges: in.Arcs() / 2, Engine: opt.Engine, Tie: opt.Tie.String(),
		Threads: opt.Threads, StrongOnly: opt.StrongOnly, Device: dev.Info()}
	wall := NewClock()
	if opt.Engine == EngineFast {
		res.Filter = opt.Filter
	}
	var err error
	switch opt.Engine {
	case EngineSpec:
		err = runEngine(dev, res, wall, specLoopPhases, func(s *session) error { return runSpec(s, in, opt, res) })
	case EngineFast:
		err = runEngine(dev, res, wall, loopPhases, func(s *session) error { return runFast(s, in, opt, res) })
	default:
		return nil, fmt.Errorf("matching: unknown engine %q (spec or fast)", opt.Engine)
	}
	if err != nil {
		return nil, fmt.Errorf("matching (%s engine) on %s: %w", opt.Engine, dev.Info(), err)
	}
	if !opt.StrongOnly {
		res.Pairs, res.Weight = in.total(res.Mate)
	}
	wall.Mark("total")
	res.Wall, res.WallTotal = wall.Phases, wall.Sum()
	return res, nil
}

// session is what an engine runs with: the device, one queue, the phase
// clock on it and the buffers the engine allocates (freed after the run).
type session struct {
	dev   backend.Device
	q     backend.Queue
	clock *phaseClock
	wall  *Clock
	bs    *backend.Buffers
}

// Clock splits wall-clock time into named phases, in order: what a caller
// waits for, where the phase clock measures the device. Result.Wall is
// Run's; the CLI continues it from file to written output.
type Clock struct {
	last   time.Time
	Phases []Phase
}

// NewClock starts a clock now.
func NewClock() *Clock { return &Clock{last: time.Now()} }

// Mark ends phase name (it began at the previous mark), adding to an
// earlier phase of the same name.
func (c *Clock) Mark(name string) {
	now := time.Now()
	d := now.Sub(c.last)
	c.last = now
	for i := range c.Phases {
		if c.Phases[i].Name == name {
			c.Phases[i].Time += d
			return
		}
	}
	c.Phases = append(c.Phases, Phase{name, d})
}

// Add appends phases timed elsewhere that end now.
func (c *Clock) Add(ps []Phase) {
	c.Phases = append(c.Phases, ps...)
	c.last = time.Now()
}

// Get is the time of phase name (0 when there is none).
func (c *Clock) Get(name string) time.Duration {
	for _, p := range c.Phases {
		if p.Name == name {
			return p.Time
		}
	}
	return 0
}

// Sum is the time of every phase.
func (c *Clock) Sum() time.Duration {
	var d time.Duration
	for _, p := range c.Phases {
		d += p.Time
	}
	return d
}

// runEngine runs engine in a new session, waits for its queue and books
// the phase times into res: Loop is the sum of the loop phases. The
// engines end with a blocking read of the result, so no launch of the
// kernels they release is still queued when they return.
func runEngine(dev backend.Device, res *Result, wall *Clock, loop []string, engine func(*session) error) error {
	q, err := dev.NewQueue()
	if err != nil {
		return err
	}
	defer q.Release()
	clock, err := newPhaseClock(q)
	if err != nil {
		return err
	}
	defer clock.release()
	bs := backend.NewBuffers(dev, q)
	defer bs.Free()
	if err := engine(&session{dev: dev, q: q, clock: clock, wall: wall, bs: bs}); err != nil {
		return err
	}
	if err := q.Finish(); err != nil {
		return err
	}
	if err := clock.settle(); err != nil {
		return err
	}
	res.Phases = clock.phases()
	res.Loop = clock.sum(loop...)
	bs.Free()
	wall.Mark("release")
	return nil
}

// phaseClock accumulates device time per named phase from queue events.
type phaseClock struct {
	q      backend.Queue
	names  []string
	totals map[string]time.Duration
	last   backend.Event
	marks  []mark
	// Laps: with lapEnd set, settle appends to laps the time of the phases
	// in lapPhases since the previous mark named lapEnd, at each such mark
	// (one lap per pass, however many passes one settle covers).
	lapEnd    string
	lapPhases map[string]bool
	lapAcc    time.Duration
	laps      []time.Duration
}

type mark struct {
	name string
	ev   backend.Event
}

func newPhaseClock(q backend.Queue) (*phaseClock, error) {
	ev, err := q.Record()
	if err != nil {
		return nil, err
	}
	return &phaseClock{q: q, totals: map[string]time.Duration{}, last: ev}, nil
}

// end marks the end of phase name (it began at the previous mark).
func (c *phaseClock) end(name string) error {
	ev, err := c.q.Record()
	if err != nil {
		return err
	}
	c.marks = append(c.marks, mark{name, ev})
	return nil
}

// settle turns the recorded marks into durations; call it after a sync.
func (c *phaseClock) settle() error { return c.settleFirst(len(c.marks)) }

// settleFirst settles the k oldest marks (those the device has passed: it
// waits for them) and keeps the others.
func (c *phaseClock) settleFirst(k int) error {
	for _, m := range c.marks[:k] {
		if err := m.ev.Wait(); err != nil {
			return err
		}
		d, err := m.ev.Elapsed(c.last)
		if err != nil {
			return err
		}
		if _, ok := c.totals[m.name]; !ok {
			c.names = append(c.names, m.name)
		}
		c.totals[m.name] += d
		if c.lapPhases[m.name] {
			c.lapAcc += d
		}
		if c.lapEnd != "" && m.name == c.lapEnd {
			c.laps = append(c.laps, c.lapAcc)
			c.lapAcc = 0
		}
		c.last.Release()
		c.last = m.ev
	}
	c.marks = append(c.marks[:0], c.marks[k:]...)
	return nil
}

func (c *phaseClock) phases() []Phase {
	var out []Phase
	for _, n := range c.names {
		out = append(out, Phase{n, c.totals[n]})
	}
	return out
}

func (c *phaseClock) release() {
	for _, m := range c.marks {
		m.ev.Release()
	}
	c.last.Release()
}

// sum is the total of the named phases.
func (c *phaseClock) sum(names ...string) time.Duration {
	var d time.Duration
	for _, n := range names {
		d += c.totals[n]
	}
	return d
}
