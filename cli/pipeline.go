package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/batch"
)

// Problem is an algorithm's command as the steps Pipeline runs: O holds
// its options (what its own flags set), I its input, R its result.
type Problem[O, I, R any] struct {
	// Files is how many graph files the command takes (its positional
	// arguments, and the columns of a --batch list); 0: one.
	Files int
	// Flags declares the algorithm's own flags on fs, each once with its
	// help, into o. The shared ones are the pipeline's: --engine,
	// --threads (Algorithm.Threads), --timeout, --format, --json,
	// --verify, -v, --backend and --device (an engine with Device), and
	// --batch LIST.
	Flags func(fs *flag.FlagSet, o *O)
	// Check applies the flags' rules after parsing: a UsageError (Usagef)
	// for values or combinations that cannot run. Optional.
	Check func(o *O) error
	// Input makes the input from the graphs read from the files (in the
	// files' order): a clear error, naming the file, for a graph the
	// algorithm cannot take.
	Input func(o *O, files []string, graphs []*core.Graph) (I, error)
	// Solve solves; s says with which engine, threads, time limit
	// (s.Ctx ends at it) and device.
	Solve func(s *Session, o *O, in I) (R, error)
	// Verify checks a result independently of the solver (against the
	// input, by a second method): it runs on every result, and --verify
	// says so in the output (s.Verified).
	Verify func(o *O, in I, r R) error
	// Text prints the result for people.
	Text func(w io.Writer, s *Session, o *O, in I, r R) error
	// JSON is the --json object, as the algorithm's Schema describes it.
	JSON func(s *Session, o *O, in I, r R) any
	// Line is a --batch text row's body (after the index and the files);
	// nil: the first line of Text.
	Line func(s *Session, o *O, in I, r R) string
}

// Session is what Solve, Text and JSON get besides the options: the run's
// context (Ctrl-C and --timeout end it), the engine, the CPU threads, the
// device when the engine runs on one, and what happened.
type Session struct {
	Ctx     context.Context
	Engine  Engine
	Threads int // --threads (0: the engine's default)
	Files   []string
	// Device is the device of --backend/--device, opened for an engine
	// with Device (nil otherwise).
	Device backend.Device
	// Verbose is -v: say on Stderr which device runs and why.
	Verbose bool
	Stderr  io.Writer
	// Elapsed is Solve's wall time; Verified, that --verify checked the
	// result (set before Text and JSON).
	Elapsed  time.Duration
	Verified bool
}

// pipelineFlags are the shared flags a Pipeline command takes.
type pipelineFlags struct {
	sf      SolverFlags
	bf      BatchFlags
	Dev     DeviceFlags
	Engine  string
	Threads int
	Timeout time.Duration
	Format  string
}

// Pipeline makes an Algorithm's Run from a Problem: parse the shared and
// the algorithm's flags, read the graph files, solve (with the engine's
// device opened), verify, print as text or JSON; or, with --batch LIST,
// the same for every line of LIST, in parallel slots, as JSON Lines or
// one text line each.
func Pipeline[O, I, R any](p Problem[O, I, R]) func(e *Env) error {
	return func(e *Env) error {
		a, ok := Lookup(commandName(e))
		if !ok {
			return fmt.Errorf("cli: Pipeline runs a registered algorithm (Env.Name %q is none)", e.Name)
		}
		var o O
		var pf pipelineFlags
		fs := pf.declare(e, a)
		if p.Flags != nil {
			p.Flags(fs, &o)
		}
		pos, err := Parse(fs, e.Args)
		if err != nil {
			return err
		}
		eng, err := pf.Check(a)
		if err != nil {
			return err
		}
		if p.Check != nil {
			if err := p.Check(&o); err != nil {
				return err
			}
		}
		run := pipelineRun[O, I, R]{p: p, a: a, e: e, pf: &pf, o: &o, eng: eng}
		if pf.bf.Active() {
			if err := pf.bf.Check(a.Name, pos, &pf.sf); err != nil {
				return err
			}
			return run.batch()
		}
		if want := max(p.Files, 1); len(pos) != want {
			return Usagef("%s takes %s (usage: arbor %s %s)", a.Name, Plural(want, "graph file"), a.Name, a.Synopsis)
		}
		return run.one(pos)
	}
}

// commandName is the command an Env runs (cmd/arbor sets Env.Name).
func commandName(e *Env) string { return e.Name }

// declare makes the command's flag set with the shared flags.
func (pf *pipelineFlags) declare(e *Env, a *Algorithm) *flag.FlagSet {
	fs := NewFlags(e, a.Name, a.Synopsis)
	names := make([]string, len(a.Engines))
	device := false
	for i, en := range a.Engines {
		names[i] = en.Name + " (" + en.Help + ")"
		device = device || en.Device
	}
	if len(a.Engines) > 0 {
		fs.StringVar(&pf.Engine, "engine", a.Engines[0].Name, "where to solve: "+strings.Join(names, ", "))
	}
	if a.Threads {
		fs.IntVar(&pf.Threads, "threads", 0, "CPU threads (0: every core)")
	}
	fs.DurationVar(&pf.Timeout, "timeout", 0, "stop after `D` with what was found, marked unproven (0: no limit)")
	fs.StringVar(&pf.Format, "format", "", "input format (default: detected); one of "+fmt.Sprint(core.Formats()))
	fs.BoolVar(&pf.sf.JSON, "json", false, "print the result as JSON (fields: docs/cli.md, docs/schema/)")
	fs.BoolVar(&pf.sf.Verify, "verify", false, "say that the result was checked independently (the check runs on every result)")
	fs.BoolVar(&pf.sf.Verbose, "v", false, "say on stderr which device runs and why")
	if device {
		pf.Dev.Register(fs)
	}
	pf.bf.Register(fs, a.Name)
	return fs
}

// Check is the shared flags' rules; it returns the engine asked for.
func (pf *pipelineFlags) Check(a *Algorithm) (Engine, error) {
	if pf.Threads < 0 {
		return Engine{}, Usagef("--threads must be ≥ 0")
	}
	if len(a.Engines) == 0 {
		return Engine{}, nil
	}
	names := make([]string, len(a.Engines))
	for i, en := range a.Engines {
		if en.Name == pf.Engine || (pf.Engine == "" && i == 0) {
			return en, nil
		}
		names[i] = en.Name
	}
	return Engine{}, Usagef("--engine must be %s, got %q", strings.Join(names, " or "), pf.Engine)
}

// pipelineRun is one Pipeline command's run, after parsing.
type pipelineRun[O, I, R any] struct {
	p   Problem[O, I, R]
	a   *Algorithm
	e   *Env
	pf  *pipelineFlags
	o   *O
	eng Engine
}

// session makes a Session on ctx, with the time limit.
func (r *pipelineRun[O, I, R]) session(ctx context.Context, files []string, dev backend.Device) (*Session, func()) {
	cancel := func() {}
	if r.pf.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, r.pf.Timeout)
	}
	return &Session{Ctx: ctx, Engine: r.eng, Threads: r.pf.Threads, Files: files, Device: dev,
		Verbose: r.pf.sf.Verbose, Stderr: r.e.Stderr}, cancel
}

// Solve makes the input, solves and verifies.
func (r *pipelineRun[O, I, R]) Solve(s *Session, graphs []*core.Graph) (I, R, error) {
	var res R
	in, err := r.p.Input(r.o, s.Files, graphs)
	if err != nil {
		return in, res, err
	}
	start := time.Now()
	res, err = r.p.Solve(s, r.o, in)
	s.Elapsed = time.Since(start)
	if err != nil {
		return in, res, err
	}
	if r.p.Verify != nil {
		if err := r.p.Verify(r.o, in, res); err != nil {
			return in, res, Internalf("verify: %v", err)
		}
		s.Verified = r.pf.sf.Verify
	}
	return in, res, nil
}

// openDevice opens the engine's device, when it runs on one.
func (r *pipelineRun[O, I, R]) openDevice() (backend.Device, error) {
	if !r.eng.Device {
		return nil, nil
	}
	dev, c, err := r.pf.Dev.Open(r.e, true)
	if err != nil {
		return nil, fmt.Errorf("--engine %s: %w", r.eng.Name, err)
	}
	if r.pf.sf.Verbose {
		fmt.Fprintf(r.e.Stderr, "arbor: using %s (%s)\n", c.Info, c.Why)
	}
	return dev, nil
}

// one runs one instance and prints it.
func (r *pipelineRun[O, I, R]) one(files []string) error {
	graphs := make([]*core.Graph, len(files))
	for i, f := range files {
		g, err := r.e.ReadGraph(f, core.ReadOptions{Format: r.pf.Format})
		if err != nil {
			return err
		}
		graphs[i] = g
	}
	dev, err := r.openDevice()
	if err != nil {
		return err
	}
	if dev != nil {
		defer dev.Close()
	}
	s, cancel := r.session(r.e.Ctx, files, dev)
	defer cancel()
	in, res, err := r.Solve(s, graphs)
	if err != nil {
		return err
	}
	if r.pf.sf.JSON {
		return json.NewEncoder(r.e.Stdout).Encode(r.p.JSON(s, r.o, in, res))
	}
	return r.p.Text(r.e.Stdout, s, r.o, in, res)
}

// batch runs every instance of --batch LIST in the batch runner's slots:
// CPU slots, or one device slot for an engine on a device.
func (r *pipelineRun[O, I, R]) batch() error {
	br, jobs, skipped, err := NewBatchRunner(r.e, r.a.Name, &r.pf.sf, &r.pf.bf, r.pf.bf.List, max(r.p.Files, 1), true)
	if err != nil {
		return err
	}
	defer br.Out.Close()
	br.ReadOptions = core.ReadOptions{Format: r.pf.Format}
	br.Bound = func(st []GraphStat) int64 {
		var m int64
		for _, s := range st {
			m += int64(s.M)
		}
		return m
	}
	dev, err := r.openDevice()
	if err != nil {
		return err
	}
	if dev != nil {
		defer dev.Close()
		br.Devs = 1
	} else {
		br.CPU = CPUSlots(r.pf.Threads)
	}
	br.Solve = func(ctx context.Context, j *BatchJob, gs []*core.Graph, slot batch.Slot) (BatchSolved, error) {
		s, cancel := r.session(ctx, j.Files, dev)
		defer cancel()
		if !slot.Device {
			s.Threads = 1
		}
		in, res, err := r.Solve(s, gs)
		if err != nil {
			return BatchSolved{}, err
		}
		return BatchSolved{Obj: r.p.JSON(s, r.o, in, res), Text: r.Line(s, in, res), V: Verdict{Status: core.StatusOptimal, Proven: true}}, nil
	}
	br.Prepare(jobs)
	return br.Run(jobs, skipped)
}

// Line is a batch row's text.
func (r *pipelineRun[O, I, R]) Line(s *Session, in I, res R) string {
	if r.p.Line != nil {
		return r.p.Line(s, r.o, in, res)
	}
	var sb strings.Builder
	if err := r.p.Text(&sb, s, r.o, in, res); err != nil {
		return err.Error()
	}
	first, _, _ := strings.Cut(sb.String(), "\n")
	return first
}
