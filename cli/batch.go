package cli

// Many instances in one process (issue #35, item 3): `mcs --batch`,
// `vc --batch`, `clique --batch` and `mcs --against`. The devices are
// opened once for the whole batch; instances are ordered by a cheap bound
// and run concurrently, CPU slots (one thread each) taking the smallest
// first and device slots the largest (internal/batch). Every instance goes
// through its command's own solve-and-guard function (solveMCS, solveVC,
// solveClique) and prints its command's own JSON object, with its place in
// the list added.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/search"
	"github.com/arbor-gpu/arbor/device/startup"
	"github.com/arbor-gpu/arbor/internal/batch"
)

// BatchFlags are --batch, --device-slots and (mcs) the screening flags.
type BatchFlags struct {
	List        string
	DeviceSlots int
	Against     string
	MinSize     int
	Top         int
	HandOff     time.Duration
	fs          *flag.FlagSet // the command's flags, for the rows' options
}

// defaultHandOff is how long a CPU slot tries an instance before handing
// it to the device slots. Measured on the H200 machine: the device engine
// costs 50–150 ms per instance however small (buffers, epochs, the result),
// and the 100 hardest of the 732 MIVIA pairs under 1 s (73 % of the CPU
// time of all 732) took 79 CPU-seconds on single threads, 3.0 s on four
// device slots. A single thread settles most pairs within a few
// milliseconds; one still open after 50 ms is one the device's cost is
// worth paying for, and the cheap bound (the graphs' order) does not tell
// those apart in advance.
const defaultHandOff = 50 * time.Millisecond

func (b *BatchFlags) Register(fs *flag.FlagSet, cmd string) {
	b.fs = fs
	what := "one graph file per line"
	if cmd == "mcs" {
		what = "a pair g,h per line"
	}
	fs.StringVar(&b.List, "batch", "", "solve every instance of `LIST`, a CSV file with "+what+
		" (an optional header line, '#' comments, paths relative to LIST's folder; '-': standard input), in one process: "+
		"every other flag applies to each instance (--timeout per instance); JSON Lines with --json, one text line each otherwise; with -o, "+
		"the rows also go to that JSON Lines file and a rerun skips the instances it already answered")
	fs.IntVar(&b.DeviceSlots, "device-slots", 0, "--batch with a device engine: instances on the device at once, each with the device's workers divided among them (0: 4 on a GPU, 1 on another device)")
	fs.DurationVar(&b.HandOff, "hand-off", defaultHandOff, "--batch with device slots: a CPU slot tries each instance for `D`, then hands one it has not settled to the device slots (0: never)")
	if cmd != "mcs" {
		return
	}
	fs.StringVar(&b.Against, "against", "", "screening: solve the one graph QUERY against each graph of `LIST|DIR` (a list of one file per line, or every graph file in the folder DIR)")
	fs.IntVar(&b.MinSize, "min-size", 0, "--against: report the pairs with a common subgraph of at least `K` vertices, with their maximum; each pair stops as soon as it cannot reach K (a floor that rises, not --goal's frozen bar)")
	fs.IntVar(&b.Top, "top", 0, "--against: report the best `N` pairs, largest first; once N are known each next pair only has to beat the Nth (its goal)")
}

// Active reports whether any batch flag was given: the batch path then
// checks them (a --top without --against is a usage error, not ignored).
func (b *BatchFlags) Active() bool {
	return b.List != "" || b.Against != "" || b.MinSize != 0 || b.Top != 0 || b.DeviceSlots != 0 || b.HandOff != defaultHandOff
}

// answerNeutral are the flags that leave a batch row's answer as it is:
// where and how fast it runs, what else is printed, the list itself. A
// row's options (batchFlags.options) are the other flags given; the time
// limit is recorded apart, since a settled row is settled whatever it was.
var answerNeutral = map[string]bool{
	"o": true, "json": true, "v": true, "verify": true, "require-optimal": true,
	"batch": true, "device-slots": true, "hand-off": true, "threads": true, "workers": true,
	"backend": true, "device": true, "max-input": true, "max-memory": true, "timeout": true,
}

// Options are the flags given that may change a row's answer, as one
// string ("--engine=cpu --goal=3"; "" for the defaults), and --timeout (0:
// none): a resumed -o keeps a row only if it was answered with the same.
func (b *BatchFlags) Options() (string, time.Duration) {
	if b.fs == nil {
		return "", 0
	}
	var parts []string
	b.fs.Visit(func(f *flag.Flag) {
		if !answerNeutral[f.Name] {
			parts = append(parts, "--"+f.Name+"="+f.Value.String())
		}
	})
	sort.Strings(parts)
	var timeout time.Duration
	if f := b.fs.Lookup("timeout"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			timeout, _ = g.Get().(time.Duration)
		}
	}
	return strings.Join(parts, " "), timeout
}

// Check is the batch flags' rules; pos are the positional arguments.
func (b *BatchFlags) Check(cmd string, pos []string, sf *SolverFlags) error {
	switch {
	case b.List != "" && b.Against != "":
		return Usagef("--batch and --against are two modes: give one")
	case b.List == "" && b.Against == "":
		return Usagef("--device-slots, --min-size and --top take --batch or --against")
	case b.DeviceSlots < 0 || b.MinSize < 0 || b.Top < 0 || b.HandOff < 0:
		return Usagef("--device-slots, --hand-off, --min-size and --top must be ≥ 0")
	case b.Against == "" && (b.MinSize > 0 || b.Top > 0):
		return Usagef("--min-size and --top take --against")
	case b.MinSize > 0 && b.Top > 0:
		return Usagef("--min-size and --top are two questions: give one")
	case b.List != "" && len(pos) > 0:
		return Usagef("%s --batch takes its instances from the list, not as arguments (got %s)", cmd, Plural(len(pos), "argument"))
	case b.Against != "" && len(pos) != 1:
		return Usagef("mcs --against takes one query graph (got %s)", Plural(len(pos), "argument"))
	case b.Against != "" && b.MinSize == 0 && b.Top == 0:
		return Usagef("--against needs --min-size K or --top N")
	}
	return nil
}

// BatchJob is one instance of a batch.
type BatchJob struct {
	Index int    // its place among the list's instances (bad lines included), from 0
	List  string // the list's name in messages
	Line  int    // the list's line (0: a folder's file)
	Files []string
	Err   error // the list line's error, or reading one of its graphs'
	// unread: Ctrl-C came before its graphs were read; it is not run.
	unread bool
	Stats  []GraphStat
	Bound  int64
}

// GraphStat is what the cheap bounds need of a graph.
type GraphStat struct{ N, M int }

// BatchSolved is what an instance's solve returns.
type BatchSolved struct {
	Obj  any    // the command's single-instance JSON object
	Text string // one line of text
	V    Verdict
	Size int
}

// BatchRow is a finished instance, as printed.
type BatchRow struct {
	Job         *BatchJob
	Solved      BatchSolved
	Err         error
	interrupted bool // Ctrl-C stopped it: unproven, or no answer at all
}

// jsonLine is the row's JSON Lines object: the command's object with index
// and line first (then stamp, the batch's options: rowStamp), or for a
// failed row its files and error.
func (r BatchRow) jsonLine(stamp string) ([]byte, error) {
	head := fmt.Sprintf(`{"index":%d`, r.Job.Index)
	if r.Job.Line > 0 {
		head += fmt.Sprintf(`,"line":%d`, r.Job.Line)
	}
	if r.interrupted {
		head += `,"interrupted":true`
	}
	head += stamp
	var body []byte
	var err error
	if r.Err != nil {
		files := r.Job.Files
		if files == nil {
			files = []string{}
		}
		body, err = json.Marshal(struct {
			Files []string `json:"files"`
			Error string   `json:"error"`
		}{files, r.Err.Error()})
	} else {
		body, err = json.Marshal(r.Solved.Obj)
	}
	if err != nil {
		return nil, err
	}
	return append(append([]byte(head+","), body[1:]...), '\n'), nil
}

// rowStamp is the part of every row that says what it was answered with:
// "options" and, with a time limit, "timeout" (seconds).
func rowStamp(options string, timeout time.Duration) string {
	b, _ := json.Marshal(options)
	s := `,"options":` + string(b)
	if timeout > 0 {
		s += fmt.Sprintf(`,"timeout":%g`, timeout.Seconds())
	}
	return s
}

// textLine is the row's one line of text.
func (r BatchRow) textLine() string {
	if r.Err != nil {
		s := fmt.Sprintf("%d  error: %v", r.Job.Index, r.Err)
		if r.interrupted {
			s += " (interrupted)"
		}
		return s + "\n"
	}
	s := fmt.Sprintf("%d  %s  %s", r.Job.Index, strings.Join(r.Job.Files, " "), r.Solved.Text)
	if r.interrupted {
		s += "  (interrupted)"
	}
	return s + "\n"
}

// BatchRunner runs a batch for one command.
type BatchRunner struct {
	e           *Env
	cmd         string
	sf          *SolverFlags
	bf          *BatchFlags
	ReadOptions core.ReadOptions
	// bound is an instance's cheap bound, from its graphs' sizes.
	Bound func([]GraphStat) int64
	// fits, when set, says why an instance cannot run as asked (too
	// large for the device engine named by --engine): it is then a failed
	// row whatever slot would have taken it, as a single run fails.
	Fits func([]GraphStat) error
	// solve runs one instance on its graphs, in a CPU or a device slot.
	Solve func(ctx context.Context, j *BatchJob, gs []*core.Graph, slot batch.Slot) (BatchSolved, error)
	// cpu and dev are the slots; descending makes the CPU slots take the
	// largest bounds first (--top: large answers early raise the goal).
	CPU, Devs  int
	Descending bool
	// handOff is how long a CPU slot tries an instance before it hands it
	// to the device slots (with device slots only; 0: never).
	HandOff time.Duration
	// keep, when set, decides which rows are printed as they finish
	// (--min-size: the pairs reaching K); hold collects them instead, and
	// release returns those to print at the end (--top).
	Keep    func(BatchRow) bool
	Hold    func(BatchRow)
	Release func() []BatchRow

	cache *graphCache
	Out   *BatchOut
}

// graphCacheBudget is how many vertices and edges of graphs a batch keeps
// in memory after reading them for the bounds; past it a graph is read
// again when its instance runs (a library of large graphs must not all
// sit in memory at once).
const graphCacheBudget = 1 << 26

// graphCache holds the graphs a batch read, each file read once however
// many instances name it (all pairs of a set, one query against many).
type graphCache struct {
	mu     sync.Mutex
	graphs map[string]*core.Graph
	used   int64
}

func (c *graphCache) get(path string) *core.Graph {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.graphs[path]
}

func (c *graphCache) put(path string, g *core.Graph) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if size := int64(g.N + g.Edges()); c.used+size <= graphCacheBudget {
		c.graphs[path] = g
		c.used += size
	}
}

// read reads a graph of a list (never standard input: the list may be it).
func (r *BatchRunner) read(path string) (*core.Graph, error) {
	if g := r.cache.get(path); g != nil {
		return g, nil
	}
	if path == "-" {
		return nil, errors.New("'-' (standard input) cannot be an instance's file in a list")
	}
	if err := regularFile(path); err != nil {
		return nil, err
	}
	return r.e.ReadGraph(path, r.ReadOptions)
}

// regularFile refuses a list's or a folder's entry that is not a regular
// file: a FIFO would hold the whole batch until some writer came, and a
// device (/dev/zero) or a pipe reads to the input limit for nothing. Its
// row says why and the batch goes on. Named on the command line instead,
// such a file is read as any input (within --max-input, Ctrl-C ending it).
func regularFile(path string) error {
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() {
		return err // a missing file fails as it would when read
	}
	kind := "not a regular file"
	switch m := st.Mode(); {
	case m&os.ModeNamedPipe != 0:
		kind = "a FIFO (named pipe)"
	case m&os.ModeCharDevice != 0:
		kind = "a character device"
	case m&os.ModeDevice != 0:
		kind = "a device"
	case m&os.ModeSocket != 0:
		kind = "a socket"
	case m.IsDir():
		kind = "a folder"
	}
	return fmt.Errorf("%s: skipped: %s; a batch reads only regular files", path, kind)
}

// Prepare reads every distinct file of the jobs (in parallel), sets each
// job's stats and bound, and marks the jobs whose files fail.
func (r *BatchRunner) Prepare(jobs []*BatchJob) {
	var paths []string
	seen := map[string]bool{}
	for _, j := range jobs {
		if j.Err != nil {
			continue
		}
		for _, f := range j.Files {
			if !seen[f] {
				seen[f] = true
				paths = append(paths, f)
			}
		}
	}
	stats := make(map[string]GraphStat, len(paths))
	errs := make(map[string]error)
	var mu sync.Mutex
	ch := make(chan string)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(paths), 1)) {
		wg.Go(func() {
			for p := range ch {
				g, err := r.read(p)
				mu.Lock()
				if err != nil {
					errs[p] = err
				} else {
					stats[p] = GraphStat{g.N, g.Edges()}
				}
				mu.Unlock()
				if err == nil {
					r.cache.put(p, g)
				}
			}
		})
	}
	for _, p := range paths {
		if r.e.Ctx.Err() != nil {
			break
		}
		ch <- p
	}
	close(ch)
	wg.Wait()
	for _, j := range jobs {
		if j.Err != nil {
			continue
		}
		for _, f := range j.Files {
			st, ok := stats[f]
			if !ok {
				if err := errs[f]; err != nil {
					j.Err = j.Where(err)
				} else {
					j.unread = true // Ctrl-C came before it was read
				}
				break
			}
			j.Stats = append(j.Stats, st)
		}
		if j.Err != nil || j.unread {
			continue
		}
		if r.Fits != nil {
			if err := r.Fits(j.Stats); err != nil {
				j.Err = j.Where(fmt.Errorf("%s: %w", strings.Join(j.Files, ", "), err))
				continue
			}
		}
		j.Bound = r.Bound(j.Stats)
	}
}

// Where prefixes err with the job's list line, where it has one.
func (j *BatchJob) Where(err error) error {
	if j.Line > 0 {
		return fmt.Errorf("%s:%d: %w", j.List, j.Line, err)
	}
	return err
}

// Run runs the jobs: those with errors become rows at once, the others go
// to the scheduler. It returns the command's error (the exit status).
func (r *BatchRunner) Run(jobs []*BatchJob, skipped int) error {
	r.Out.total = len(jobs)
	var todo []batch.Job
	unread := 0
	for _, j := range jobs {
		if j.Err != nil {
			r.finish(BatchRow{Job: j, Err: j.Err})
			continue
		}
		if j.unread {
			unread++
			continue
		}
		b := j.Bound
		if r.Descending {
			b = -b
		}
		todo = append(todo, batch.Job{Index: len(todo), Bound: b})
	}
	live := make([]*BatchJob, 0, len(todo))
	for _, j := range jobs {
		if j.Err == nil && !j.unread {
			live = append(live, j)
		}
	}
	ctx := r.e.Ctx
	// The progress line moves while long instances run, not only when one
	// finishes.
	tick := make(chan struct{})
	if r.Out.prog.on {
		go func() {
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				select {
				case <-tick:
					return
				case <-t.C:
					r.Out.mu.Lock()
					r.Out.Progress()
					r.Out.mu.Unlock()
				}
			}
		}()
	}
	started := batch.RunHandOff(ctx, todo, r.CPU, r.Devs, func(ctx context.Context, bj batch.Job, slot batch.Slot) bool {
		row, handOff := r.runOne(ctx, live[bj.Index], slot)
		if !handOff {
			r.finish(row)
		}
		return handOff
	})
	close(tick)
	if r.Hold != nil && r.Release != nil {
		r.Out.mu.Lock()
		for _, row := range r.Release() {
			r.Out.write(row)
		}
		r.Out.mu.Unlock()
	}
	r.Out.Close()
	notRun := len(todo) - started + unread
	return r.Out.Verdict(notRun, skipped)
}

// runOne runs one instance. On a CPU slot of a batch with device slots it
// first tries for r.handOff only, and hands an instance it has not
// settled by then on to the device slots (handOff: no row yet).
func (r *BatchRunner) runOne(ctx context.Context, j *BatchJob, slot batch.Slot) (row BatchRow, handOff bool) {
	gs := make([]*core.Graph, len(j.Files))
	for i, f := range j.Files {
		g, err := r.read(f)
		if err != nil {
			return BatchRow{Job: j, Err: j.Where(err)}, false
		}
		gs[i] = g
	}
	try := ctx
	if !slot.Device && r.Devs > 0 && r.HandOff > 0 {
		var cancel context.CancelFunc
		try, cancel = context.WithTimeout(ctx, r.HandOff)
		defer cancel()
	}
	s, err := r.Solve(try, j, gs, slot)
	if err == nil && !s.V.Settled() && ctx.Err() == nil && try.Err() != nil {
		return BatchRow{}, true
	}
	row = BatchRow{Job: j, Solved: s, Err: err}
	if err != nil {
		row.Err = j.Where(err)
	}
	row.interrupted = ctx.Err() != nil && (err != nil || !s.V.Proven)
	return row, false
}

// finish prints a row (or holds it, for --top).
func (r *BatchRunner) finish(row BatchRow) {
	if r.Hold != nil {
		r.Out.record(row, false)
		r.Hold(row)
		return
	}
	r.Out.record(row, row.Err != nil || r.Keep == nil || r.Keep(row))
}

// BatchOut prints rows: stdout (JSON Lines or text), -o (JSON Lines,
// appended one whole line per write) and the progress line.
type BatchOut struct {
	mu    sync.Mutex
	e     *Env
	sf    *SolverFlags
	file  *os.File
	path  string
	ferr  error
	prog  *Progress
	start time.Time
	stamp string // rowStamp: the batch's options in every row

	total, Done, Failed, unsettled, interrupted, Dropped int
}

// record counts a finished row in the totals and the progress line and,
// if print, prints it.
func (o *BatchOut) record(row BatchRow, print bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.Done++
	switch {
	case row.Err != nil:
		o.Failed++
	case !row.Solved.V.Settled():
		o.unsettled++
	}
	if row.interrupted {
		o.interrupted++
	}
	if !print && row.Err == nil {
		o.Dropped++
	}
	if print {
		o.write(row)
	}
	o.Progress()
}

// write prints a row on stdout and to -o. Called with o.mu held.
func (o *BatchOut) write(row BatchRow) {
	line, err := row.jsonLine(o.stamp)
	if err != nil {
		row = BatchRow{Job: row.Job, Err: fmt.Errorf("encoding the result: %w", err), interrupted: row.interrupted}
		line, _ = row.jsonLine(o.stamp)
	}
	o.clearProgress()
	if o.sf.JSON {
		o.e.Stdout.Write(line)
	} else {
		io.WriteString(o.e.Stdout, row.textLine())
	}
	if o.file != nil && o.ferr == nil {
		if _, err := o.file.Write(line); err != nil {
			o.ferr = fmt.Errorf("writing %s: %w", o.path, err)
		}
	}
}

// Progress updates the progress line: instances done of all, the rate,
// the time left at that rate. Called with o.mu held.
func (o *BatchOut) Progress() {
	el := time.Since(o.start)
	r := float64(o.Done) / max(el.Seconds(), 1e-9)
	eta := "-"
	if o.Done > 0 {
		eta = (time.Duration(float64(o.total-o.Done)/r*1e9) * time.Nanosecond).Round(time.Second).String()
	}
	line := fmt.Sprintf("%d/%d instances  %.1f/s  ETA %s", o.Done, o.total, r, eta)
	if o.Failed > 0 {
		line += fmt.Sprintf("  %d failed", o.Failed)
	}
	o.prog.Update(line)
}

// clearProgress clears the progress line before a row is printed, so that
// rows and the line do not share a line of the terminal.
func (o *BatchOut) clearProgress() {
	p := o.prog
	if p == nil || !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.W, "\r\x1b[K")
		p.shown = false
	}
}

func (o *BatchOut) Close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.prog.Done()
	if o.file == nil {
		return
	}
	err := o.file.Sync()
	if cerr := o.file.Close(); err == nil {
		err = cerr
	}
	if err != nil && o.ferr == nil && !errors.Is(err, os.ErrInvalid) {
		// Sync fails on some special files (a pipe): only a regular
		// file's failure counts.
		if st, serr := os.Stat(o.path); serr == nil && st.Mode().IsRegular() {
			o.ferr = fmt.Errorf("writing %s: %w", o.path, err)
		}
	}
	o.file = nil
}

// Verdict is the batch's exit: 1 if an instance failed, was not run
// (Ctrl-C) or -o failed; else 3 with --require-optimal if a question was
// left unsettled; else 0.
func (o *BatchOut) Verdict(notRun, skipped int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ferr != nil {
		return o.ferr
	}
	rerun := ""
	if o.sf.Out != "" {
		rerun = "; rerun with the same -o to run the rest"
	}
	switch {
	case notRun > 0:
		return fmt.Errorf("interrupted: %d of %d instances not run, %s%s", notRun, o.total, Plural(o.interrupted, "instance")+" stopped unproven", rerun)
	case o.Failed > 0:
		return fmt.Errorf("%d of %d instances failed (their rows say why)", o.Failed, o.total)
	case o.sf.RequireOptimal && o.unsettled > 0:
		return UnsettledError{fmt.Sprintf("--require-optimal: %d of %d instances not settled", o.unsettled, o.total)}
	}
	return nil
}

// openOut opens -o for the batch. resume keeps the rows of a previous run
// that answered (no error, not interrupted) with the same options (a
// settled row whatever its time limit, an unsettled one unless this run
// has a longer limit), dropping the others (and a line a crash cut short)
// in one atomic rewrite, and returns their keys: those instances are
// skipped. Without resume the file starts empty.
func openOut(path string, resume bool, options string, timeout time.Duration) (*os.File, map[string]bool, error) {
	done := map[string]bool{}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		return f, done, err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if !resume {
		flags |= os.O_TRUNC
	} else if data, err := os.ReadFile(path); err == nil {
		var keep []byte
		dropped := false
		for _, line := range strings.SplitAfter(string(data), "\n") {
			if line == "" {
				continue
			}
			var row struct {
				Index       *int     `json:"index"`
				Files       []string `json:"files"`
				Error       string   `json:"error"`
				Interrupted bool     `json:"interrupted"`
				Options     *string  `json:"options"`
				Timeout     float64  `json:"timeout"`
				Verdict
			}
			if !strings.HasSuffix(line, "\n") || json.Unmarshal([]byte(line), &row) != nil || row.Index == nil || row.Error != "" || row.Interrupted ||
				row.Options == nil || *row.Options != options || (!row.Verdict.Settled() && longer(timeout, row.Timeout)) {
				dropped = true
				continue
			}
			done[rowKey(*row.Index, row.Files)] = true
			keep = append(keep, line...)
		}
		if dropped {
			if err := WriteAtomic(path, func(w io.Writer) error { _, err := w.Write(keep); return err }); err != nil {
				return nil, nil, err
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("-o: %w", err)
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("-o: %w", err)
	}
	return f, done, nil
}

// longer reports whether the time limit now (0: none) is longer than a
// row's, in seconds (0: none): an unsettled row is worth running again.
func longer(now time.Duration, row float64) bool {
	if row <= 0 {
		return false
	}
	return now <= 0 || now.Seconds() > row
}

// rowKey identifies an instance across runs: its index and its files.
func rowKey(index int, files []string) string {
	return fmt.Sprint(index, "\x00", strings.Join(files, "\x00"))
}

// ReadList reads --batch's list (or --against's): jobs numbered in list
// order, bad lines among them with their errors. A folder is every graph
// file in it, sorted by name.
func (e *Env) ReadList(list string, cols int) ([]*BatchJob, string, error) {
	name, dir := list, filepath.Dir(list)
	// The list is an input like any other: bounded by --max-input, and
	// Ctrl-C ends its read (a list from a pipe that never ends).
	var data []byte
	var err error
	if list == "-" {
		if e.StdinUsed {
			return nil, "", Usagef("standard input (-) can be read only once")
		}
		e.StdinUsed = true
		name, dir = StdinName, ""
		r := e.Stdin
		if r == nil {
			r = os.Stdin
		}
		if data, err = core.ReadAllInput(e.Ctx, r, name, e.WithLimits(core.ReadOptions{})); err != nil {
			return nil, "", fmt.Errorf("list: %w", err)
		}
	} else {
		st, err := os.Stat(list)
		if err != nil {
			return nil, "", fmt.Errorf("list: %w", err)
		}
		if st.IsDir() {
			if cols != 1 {
				return nil, "", Usagef("%s is a folder: a list of %d files per line is a file", list, cols)
			}
			jobs, err := dirJobs(list)
			return jobs, list, err
		}
		// A regular file is read even after Ctrl-C (it ends, within the
		// limit): the batch then says how many of its instances it did not
		// run. Anything else stops with the signal.
		ctx := e.Ctx
		if st.Mode().IsRegular() {
			ctx = context.WithoutCancel(ctx)
		}
		if data, err = core.ReadInput(ctx, list, e.WithLimits(core.ReadOptions{})); err != nil {
			return nil, "", fmt.Errorf("list: %w", err)
		}
	}
	entries, err := batch.ParseList(bytes.NewReader(data), name, dir, cols)
	if err != nil {
		return nil, "", err
	}
	jobs := make([]*BatchJob, len(entries))
	for i, en := range entries {
		jobs[i] = &BatchJob{Index: i, List: name, Line: en.Line, Files: en.Files, Err: en.Err}
	}
	return jobs, name, nil
}

// notGraphs are the extensions of files a library folder may hold beside
// its graphs (expected answers, notes): --against DIR skips them.
var notGraphs = map[string]bool{".csv": true, ".md": true, ".txt": true, ".json": true, ".jsonl": true, ".log": true}

// dirJobs lists every graph file of a folder (not hidden, not a folder, not
// one of notGraphs), sorted by name.
func dirJobs(dir string) ([]*BatchJob, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("--against: %w", err)
	}
	var names []string
	for _, en := range ents {
		n := en.Name()
		if strings.HasPrefix(n, ".") || en.IsDir() || notGraphs[strings.ToLower(filepath.Ext(n))] {
			continue
		}
		names = append(names, n)
	}
	sort.Strings(names)
	jobs := make([]*BatchJob, len(names))
	for i, n := range names {
		jobs[i] = &BatchJob{Index: i, Files: []string{filepath.Join(dir, n)}}
	}
	return jobs, nil
}

// BatchDevices opens the devices once for the whole batch, under the
// command's placement rule, and says how many instances run on them at
// once and with how many workers each. This is the one place a batch
// touches devices: every instance on a device slot gets the same opened
// devices through its Options.Devices.
//
// auto says the engine is auto, which runs on a GPU only (every command's
// auto leaves a CPU device to the CPU engine): on another device a batch
// gets no device slots, rather than slots that would run the CPU engine.
func BatchDevices(e *Env, sr *SearchFlags, bf *BatchFlags, opens, auto bool, rule startup.Rule) (devs []backend.Device, slots, workers int, closeAll func(), err error) {
	closeAll = func() {}
	if !opens {
		return nil, 0, 0, closeAll, nil
	}
	devs, closeAll, err = sr.Place(e, rule)
	if err != nil || len(devs) == 0 {
		return nil, 0, 0, closeAll, err
	}
	info := devs[0].Info()
	if auto && info.Type != backend.TypeGPU {
		closeAll()
		return nil, 0, 0, func() {}, nil
	}
	if slots = bf.DeviceSlots; slots == 0 {
		slots = 1
		if info.Type == backend.TypeGPU {
			slots = 4
		}
	}
	w := *sr.Workers
	if w <= 0 {
		w = search.DefaultWorkers(info)
	}
	return devs, slots, max(1, w/slots), closeAll, nil
}

// CPUSlots is the number of CPU slots: --threads, 0 for every core.
func CPUSlots(threads int) int {
	if threads <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return threads
}

// NewBatchRunner sets up a runner: the list's jobs (less those -o already
// answered), -o, the progress line. It returns the jobs to run and how many
// were skipped.
func NewBatchRunner(e *Env, cmd string, sf *SolverFlags, bf *BatchFlags, list string, cols int, resume bool) (*BatchRunner, []*BatchJob, int, error) {
	jobs, _, err := e.ReadList(list, cols)
	if err != nil {
		return nil, nil, 0, err
	}
	for _, j := range jobs {
		if err := CheckOutNotInput(sf.Out, j.Files...); err != nil {
			return nil, nil, 0, err
		}
	}
	options, timeout := bf.Options()
	out := &BatchOut{e: e, sf: sf, prog: NewProgress(e), start: time.Now(), path: sf.Out, stamp: rowStamp(options, timeout)}
	out.prog.delay = 500 * time.Millisecond
	skipped := 0
	if sf.Out != "" {
		f, done, err := openOut(sf.Out, resume, options, timeout)
		if err != nil {
			return nil, nil, 0, err
		}
		out.file = f
		kept := jobs[:0]
		for _, j := range jobs {
			if j.Err == nil && done[rowKey(j.Index, j.Files)] {
				skipped++
				continue
			}
			kept = append(kept, j)
		}
		jobs = kept
		if skipped > 0 {
			fmt.Fprintf(e.Stderr, "arbor %s: %s: %s already answered, skipped; %s to run\n", cmd, sf.Out, Plural(skipped, "instance"), Plural(len(jobs), "instance"))
		}
	}
	r := &BatchRunner{e: e, cmd: cmd, sf: sf, bf: bf, HandOff: bf.HandOff, cache: &graphCache{graphs: map[string]*core.Graph{}}, Out: out}
	return r, jobs, skipped, nil
}

// Preload gives the runner a graph already read (mcs --against's query):
// every instance naming path takes it instead of reading the file again.
func (r *BatchRunner) Preload(path string, g *core.Graph) {
	r.cache.mu.Lock()
	defer r.cache.mu.Unlock()
	r.cache.graphs[path] = g
}
