package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/clique"
	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// Status is how a run ended.
type Status string

const (
	StatusOK      Status = "ok"      // finished; the answer passed every check (proven or not)
	StatusWrong   Status = "wrong"   // the answer failed a check: never counted as solved
	StatusTimeout Status = "timeout" // stopped at the time limit (the best answer found is kept)
	StatusMemout  Status = "memout"  // passed the memory cap
	StatusCrash   Status = "crash"   // died of a signal or a runtime panic
	StatusError   Status = "error"   // exited with an error, or printed no answer
)

// Result is one run: an instance solved by one engine configuration or
// one peer.
type Result struct {
	Instance string `json:"instance"`
	Kind     Kind   `json:"kind"`
	Engine   string `json:"engine"`  // arbor:ENGINE, or a peer's name
	Backend  string `json:"backend"` // the backend asked for ("auto"), "cpu" for CPU-only commands, "-" for peers
	Device   string `json:"device"`  // the device the run reports
	Threads  int    `json:"threads"` // asked for (0: the default, all cores)
	Size     int    `json:"size"`    // -1: no solution
	Proven   bool   `json:"proven"`
	Nodes    int64  `json:"nodes"`
	// Seconds is the run's wall-clock time, process start to exit (what a
	// user waits for: reading, solving, and for arbor its --verify check).
	Seconds float64 `json:"seconds"`
	// SolverSeconds is the solver's own time where it reports one.
	SolverSeconds float64 `json:"solver_seconds"`
	Status        Status  `json:"status"`
	// AnswerOK is yes when the answer was checked against a known answer
	// or other runs and agreed, no when wrong, - when there was nothing
	// to check it against.
	AnswerOK string `json:"answer_ok"`
	Known    int    `json:"known"` // the known answer, -1 unknown
	Edges    int    `json:"edges"` // matching: the graph's edges
	// PeakMem is the run's maximum resident set in bytes, from the
	// kernel's accounting at exit; it is never below the bench process's
	// own resident memory when the run started (tens of MB), which Linux
	// counts in a child's peak (see resetPeak).
	PeakMem int64  `json:"peak_mem"`
	Note    string `json:"note"`

	// checked says the solution itself was checked against the graphs
	// (arbor's --verify, or the bench on a peer's cover or mapping), so
	// it can show another run's proven optimum wrong.
	checked bool
}

// Solved says the run counts as solving its instance.
func (r Result) Solved() bool { return r.Status == StatusOK && r.Proven }

// Series names the configuration a run belongs to, for tables and plots:
// the kind first, so that one list of mixed kinds keeps them apart.
func (r Result) Series() string {
	s := string(r.Kind) + " " + r.Engine
	if r.Backend != "" && r.Backend != "-" && r.Backend != "cpu" && r.Backend != "auto" {
		s += "@" + r.Backend
	}
	if r.Threads > 0 {
		s += "/t" + strconv.Itoa(r.Threads)
	}
	return s
}

// Peer is another solver run on the same instances.
type Peer struct {
	Name string
	// Template is a shell command: {g} and {h} become an mcs pair's
	// files, {gr} the instance's file (write <{gr} to give it on standard
	// input), {timeout} the limit in whole seconds; paths are quoted.
	Template string
	Format   Format         // FormatAuto detects
	Regex    *regexp.Regexp // with FormatRegex
}

// Config is how to run a suite.
type Config struct {
	// Exe is the command that runs arbor (default: this executable).
	Exe      []string
	Engines  []string // engine names; each kind runs those it has (default: its default engine)
	Backends []string // for mcs (device engines) and match; default: auto
	// Device is --device for every run that opens a device ("": each
	// backend's default, a GPU before a CPU device); the rows' device
	// says which ran.
	Device  string
	Threads []int         // for mcs, vc and clique; default: 0 (all cores)
	Timeout time.Duration // per run; 0: none
	// Grace is how long past Timeout a child may take to stop by itself
	// (arbor's commands report their best answer at --timeout) before it
	// is killed; default max(2s, Timeout/10).
	Grace    time.Duration
	MemLimit int64 // bytes per run; 0: none
	Peers    []Peer
	// Progress is called before each run and after each instance.
	Progress func(Progress)
	// Warn receives the loud reports: wrong answers, crashes.
	Warn io.Writer
	// Done holds the rows of an earlier run of the suite (its
	// results.csv): a run with the same instance, engine, backend and
	// threads is not repeated, its row is kept.
	Done []Result
}

// runKey names one run of an instance: what makes two rows the same run.
type runKey struct {
	instance, engine, backend string
	threads                   int
}

func keyOf(r Result) runKey { return runKey{r.Instance, r.Engine, r.Backend, r.Threads} }

// Progress is where a suite stands.
type Progress struct {
	Done, Total    int // instances
	Solved, Wrong  int // runs
	Instance, What string
}

// kindEngines lists the engines bench offers per kind: what the algorithm
// packages export (their Engines), so that an engine added there is offered
// here without a second list. bbmc is bench's name for clique's CPU engine
// (run without --engine); clique's auto and cpu are not offered beside it.
var kindEngines = map[Kind][]string{
	KindMCS:    engineNames(mcs.Engines),
	KindVC:     engineNames(vertexcover.Engines),
	KindMatch:  {"fast", "spec"},
	KindClique: append([]string{"bbmc"}, deviceEngines(engineNames(clique.Engines))...),
}

func engineNames[E ~string](es []E) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e)
	}
	return out
}

// deviceEngines keeps the engines that run on a device (gpu, hybrid):
// those that take --backend.
func deviceEngines(es []string) []string {
	var out []string
	for _, e := range es {
		if isDeviceEngine(e) {
			out = append(out, e)
		}
	}
	return out
}

func isDeviceEngine(e string) bool { return e == "gpu" || e == "hybrid" }

var kindDefault = map[Kind]string{KindMCS: "auto", KindVC: "auto", KindMatch: "fast", KindClique: "bbmc"}

// EngineNames lists every engine name some kind accepts.
func EngineNames() []string {
	var out []string
	for _, k := range allKinds() {
		for _, e := range k.engines() {
			if !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	sort.Strings(out)
	return out
}

// runConfig is one arbor configuration: engine, backend and threads.
type runConfig struct {
	engine, backend string
	threads         int
}

func configs(kind Kind, c Config) []runConfig {
	var engines []string
	for _, e := range c.Engines {
		if slices.Contains(kind.engines(), e) {
			engines = append(engines, e)
		}
	}
	if len(engines) == 0 {
		engines = []string{kind.defaultEngine()}
	}
	threads := c.Threads
	if len(threads) == 0 || kind == KindMatch || !kind.cpuThreads() { // match's --threads is work-items, not a core count
		threads = []int{0}
	}
	var out []runConfig
	for _, e := range engines {
		threads := threads
		if (kind == KindMCS || kind == KindClique || kind == KindVC) && e == "gpu" {
			threads = []int{0} // the device engine takes no thread count
		}
		backends := []string{"cpu"}
		if kind == KindMatch || (kind == KindMCS && e != "cpu") || (kind == KindClique && e != "bbmc") || (kind == KindVC && (isDeviceEngine(e) || e == "auto")) || kind.registeredDevice(e) {
			backends = c.Backends
			if len(backends) == 0 {
				backends = []string{"auto"}
			}
		}
		for _, b := range backends {
			for _, t := range threads {
				out = append(out, runConfig{e, b, t})
			}
		}
	}
	return out
}

// Run solves every instance with every configuration and peer, one
// process each, and checks every answer. It returns the results so far
// with ctx's error when interrupted.
func Run(ctx context.Context, c Config, ins []Instance) ([]Result, error) {
	if len(c.Exe) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding the arbor executable to run: %w", err)
		}
		c.Exe = []string{exe}
	}
	if c.Grace <= 0 {
		c.Grace = max(2*time.Second, c.Timeout/10)
	}
	if c.Warn == nil {
		c.Warn = io.Discard
	}
	var all []Result
	done := map[runKey]Result{}
	for _, r := range c.Done {
		done[keyOf(r)] = r
	}
	// reuse returns the earlier row of the run r would be, if any.
	reuse := func(r Result) (Result, bool) {
		old, ok := done[keyOf(r)]
		return old, ok
	}
	solved, wrong := 0, 0
	report := func(done int, in, what string) {
		if c.Progress != nil {
			c.Progress(Progress{Done: done, Total: len(ins), Solved: solved, Wrong: wrong, Instance: in, What: what})
		}
	}
	for i, in := range ins {
		var rows []Result
		v := &verifier{in: in}
		for _, rc := range configs(in.Kind, c) {
			r := newResult(in)
			r.Engine, r.Backend, r.Threads = "arbor:"+rc.engine, rc.backend, rc.threads
			if old, ok := reuse(r); ok {
				rows = append(rows, old)
				continue
			}
			report(i, in.Name, "arbor:"+rc.engine)
			r, err := runArbor(ctx, c, in, rc)
			if err != nil {
				return interrupted(all, in, rows, err)
			}
			rows = append(rows, r)
		}
		for _, p := range c.Peers {
			r := newResult(in)
			r.Engine, r.Backend = p.Name, "-"
			if old, ok := reuse(r); ok {
				rows = append(rows, old)
				continue
			}
			report(i, in.Name, p.Name)
			r, err := runPeer(ctx, c, in, p, v)
			if err != nil {
				return interrupted(all, in, rows, err)
			}
			rows = append(rows, r)
		}
		crossCheck(in, rows)
		shareEdges(rows)
		for _, r := range rows {
			switch {
			case r.Status == StatusWrong:
				wrong++
				fmt.Fprintf(c.Warn, "arbor bench: WRONG ANSWER: %s by %s: %s\n", r.Instance, r.Series(), r.Note)
			case r.Status == StatusCrash:
				fmt.Fprintf(c.Warn, "arbor bench: crash: %s by %s: %s\n", r.Instance, r.Series(), r.Note)
			case r.Solved():
				solved++
			}
		}
		all = append(all, rows...)
		report(i+1, "", "")
	}
	return all, nil
}

// shareEdges gives every run of an instance the edge count one of them
// reported (peers report none), for the throughput plot.
func shareEdges(rows []Result) {
	edges := 0
	for _, r := range rows {
		edges = max(edges, r.Edges)
	}
	for i := range rows {
		if rows[i].Edges == 0 {
			rows[i].Edges = edges
		}
	}
}

// interrupted keeps the finished runs of the instance under way.
func interrupted(all []Result, in Instance, rows []Result, err error) ([]Result, error) {
	crossCheck(in, rows)
	return append(all, rows...), err
}

func newResult(in Instance) Result {
	return Result{Instance: in.Name, Kind: in.Kind, Size: -1, Known: in.Known.Size, Edges: in.Edges, AnswerOK: "-"}
}

// arborArgs is the command line of arbor's own command for the run: the
// same command and --json output users run, with --verify.
func arborArgs(c Config, in Instance, rc runConfig) []string {
	args := append([]string{string(in.Kind)}, in.Files...)
	args = append(args, "--json", "--verify")
	if in.Kind != KindClique || rc.engine != "bbmc" {
		args = append(args, "--engine", rc.engine)
	}
	if rc.backend != "cpu" && (in.Kind == KindMCS || in.Kind == KindMatch || in.Kind == KindClique || in.Kind == KindVC || in.Kind.registeredDevice(rc.engine)) && rc.backend != "auto" {
		args = append(args, "--backend", rc.backend)
	}
	if c.Device != "" && rc.backend != "cpu" {
		args = append(args, "--device", c.Device)
	}
	if rc.threads > 0 {
		args = append(args, "--threads", strconv.Itoa(rc.threads))
	}
	if c.Timeout > 0 && in.Kind != KindMatch {
		args = append(args, "--timeout", c.Timeout.String())
	}
	if in.Kind == KindMatch && in.Known.Mate == "" {
		// The vertex list is needed only to compare with a reference.
		args = append(args, "-o", os.DevNull)
	}
	if in.Kind == KindMatch {
		// The references (CS314's) number partners from 0.
		args = append(args, "--zero-based")
	}
	return append(args, in.Args...)
}

func runArbor(ctx context.Context, c Config, in Instance, rc runConfig) (Result, error) {
	r := newResult(in)
	r.Engine, r.Backend, r.Threads = "arbor:"+rc.engine, rc.backend, rc.threads
	s := spawn{argv: append(slices.Clone(c.Exe), arborArgs(c, in, rc)...), memLimit: c.MemLimit}
	if c.Timeout > 0 {
		s.hard = c.Timeout + c.Grace
	}
	if c.MemLimit > 0 {
		s.env = append(s.env, EnvMemLimit+"="+strconv.FormatInt(c.MemLimit, 10))
		if rc.backend == "cpu" || (in.Kind == KindMCS && rc.engine == "cpu") {
			s.env = append(s.env, EnvAddressSpace+"=1")
		}
	}
	p := runProc(ctx, s)
	if p.err != nil && ctx.Err() != nil {
		return r, p.err
	}
	a, ok := classify(&r, p, true, func(out []byte) (Answer, error) { return ParseArborJSON(in.Kind, out) })
	if !ok {
		return r, nil
	}
	fill(&r, a, c.Timeout, p)
	if a.Size >= 0 && !a.Verified {
		wrongf(&r, "arbor --verify did not confirm the answer")
	}
	r.checked = a.Size >= 0 && a.Verified
	checkKnown(in, &r, a, rc)
	if pr, ok := problemOf(in.Kind); ok && pr.Check != nil && r.Status != StatusWrong && a.Size >= 0 {
		if err := pr.Check(in, a); err != nil {
			wrongf(&r, "%v", err)
		}
	}
	return r, nil
}

// classify sets the status of a run that did not finish normally and
// parses the output of one that did; ok says there is an answer.
func classify(r *Result, p proc, arbor bool, parse func([]byte) (Answer, error)) (Answer, bool) {
	r.Seconds = p.wall.Seconds()
	r.PeakMem = p.maxRSS
	switch {
	case p.err != nil:
		r.Status, r.Note = StatusError, p.err.Error()
		return Answer{}, false
	case p.timedOut:
		r.Status, r.Note = StatusTimeout, "killed at the hard time limit"
		return Answer{}, false
	case p.memOut:
		r.Status, r.Note = StatusMemout, "killed: resident memory passed the cap"
		return Answer{}, false
	}
	if !p.state.Success() {
		signaled, desc := exitInfo(p.state)
		msg := string(p.stderr)
		last := keyLine(p.stderr)
		switch {
		case strings.Contains(msg, "out of memory") || strings.Contains(msg, "cannot allocate memory"):
			r.Status = StatusMemout
		case signaled || strings.Contains(msg, "panic:") || strings.Contains(msg, "fatal error:") || strings.Contains(msg, "SIGSEGV"):
			r.Status = StatusCrash
		case arbor && (strings.Contains(msg, "verification failed") || strings.Contains(msg, "verify:")):
			r.Status = StatusWrong
			r.AnswerOK = "no"
		default:
			r.Status = StatusError
		}
		r.Note = joinNote(desc, last)
		return Answer{}, false
	}
	a, err := parse(p.stdout)
	if err != nil {
		r.Status, r.Note = StatusError, err.Error()
		return Answer{}, false
	}
	return a, true
}

func joinNote(a, b string) string {
	if b == "" {
		return a
	}
	return a + ": " + b
}

// fill copies an answer into a result: ok, or timeout when the solver
// stopped at the limit without proof.
func fill(r *Result, a Answer, limit time.Duration, p proc) {
	r.Size, r.Proven, r.Nodes, r.SolverSeconds = a.Size, a.Proven, a.Nodes, a.Seconds
	r.Device = a.Device
	if r.Device == "" && (r.Backend == "cpu" || a.Engine == string(mcs.EngineCPU)) {
		r.Device = "cpu" // the CPU-only commands and engines name no device
	}
	if a.Edges > 0 {
		r.Edges = a.Edges
	}
	r.Status = StatusOK
	if !a.Proven {
		r.Status = StatusTimeout
		r.Note = "stopped at the time limit, unproven"
		if limit == 0 {
			r.Note = "stopped unproven"
		}
	}
}

func wrongf(r *Result, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.Status, r.AnswerOK = StatusWrong, "no"
	if r.Note != "" && !strings.HasPrefix(r.Note, "stopped") {
		msg = r.Note + "; " + msg
	}
	r.Note = msg
}

// checkKnown compares an answer with the instance's known one. rc is the
// arbor configuration (the zero one for peers).
func checkKnown(in Instance, r *Result, a Answer, rc runConfig) {
	k := in.Known
	if r.Status == StatusWrong {
		return
	}
	if k.Size >= 0 && a.Size >= 0 {
		better := a.Size > k.Size
		if in.Kind.minimise() {
			better = a.Size < k.Size
		}
		switch {
		case k.Proven && better:
			wrongf(r, "size %d beats the known optimum %d", a.Size, k.Size)
		case k.Proven && a.Proven && a.Size != k.Size:
			wrongf(r, "proven size %d, the known optimum is %d", a.Size, k.Size)
		case !k.Proven && a.Proven && !better && a.Size != k.Size:
			wrongf(r, "proven size %d, but a solution of %d is known", a.Size, k.Size)
		case a.Proven && (k.Proven || a.Size == k.Size):
			r.AnswerOK = "yes"
		}
	}
	if k.Size >= 0 && a.Size < 0 && a.Proven && in.Kind != KindVC {
		wrongf(r, "proved there is no solution, but one of size %d is known", k.Size)
	}
	// The sequential McSplit engine walks the original program's tree
	// with --prune none (the default, rr, walks a smaller one).
	if in.Kind == KindMCS && k.Nodes > 0 && k.Proven && a.Proven && rc.threads == 1 && a.Engine == string(mcs.EngineCPU) && a.Prune == "none" && r.Status != StatusWrong {
		if a.Nodes != k.Nodes {
			wrongf(r, "sequential engine: %d search nodes, the original McSplit's is %d", a.Nodes, k.Nodes)
		}
	}
	if in.Kind == KindMatch && k.Mate != "" && r.Status != StatusWrong {
		want, err := dataset.ReadInts(k.Mate)
		switch {
		case err != nil:
			r.Note = "reference unreadable: " + err.Error()
		case a.Mate == nil:
			// A peer: only the size is compared.
		case !slices.Equal(a.Mate, want):
			wrongf(r, "matching differs from the reference %s", k.Mate)
		default:
			r.AnswerOK = "yes"
		}
	}
}

// crossCheck compares the runs of one instance: proven answers must agree
// with each other and no checked solution may beat a proven optimum. The
// answers against the majority are wrong (all of them on a tie).
func crossCheck(in Instance, rows []Result) {
	counts := map[int]int{}
	for _, r := range rows {
		if r.Status == StatusOK && r.Proven {
			counts[r.Size]++
		}
	}
	if len(counts) == 0 {
		return
	}
	bestCount, majority, tie := 0, 0, false
	for size, n := range counts {
		switch {
		case n > bestCount:
			bestCount, majority, tie = n, size, false
		case n == bestCount:
			tie = true
		}
	}
	for i := range rows {
		r := &rows[i]
		if r.Status != StatusOK || !r.Proven {
			continue
		}
		switch {
		case r.Size == majority && !tie:
			if r.AnswerOK == "-" && bestCount > 1 {
				r.AnswerOK = "yes" // confirmed by another run
			}
		default:
			wrongf(r, "proven size %d disagrees with the other runs (%s)", r.Size, sizeCounts(counts))
		}
	}
	// A solution (checked by arbor's --verify or by the bench) better than
	// a proven optimum shows that optimum wrong.
	for i := range rows {
		r := &rows[i]
		if r.Status != StatusOK || !r.Proven {
			continue
		}
		for _, o := range rows {
			if !o.checked || o.Size < 0 || o.Status == StatusWrong {
				continue
			}
			if (in.Kind.minimise() && o.Size < r.Size) || (!in.Kind.minimise() && o.Size > r.Size && in.Kind != KindMatch) {
				wrongf(r, "proven size %d, but %s found %d", r.Size, o.Series(), o.Size)
				break
			}
		}
	}
}

func sizeCounts(m map[int]int) string {
	var keys []int
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d×%d", m[k], k))
	}
	return strings.Join(parts, ", ") + " runs×size"
}

// verifier checks peers' solutions against the instance's graphs, read
// once per instance when first needed.
type verifier struct {
	in     Instance
	graphs []*core.Graph
	err    error
}

func (v *verifier) load() error {
	if v.graphs != nil || v.err != nil {
		return v.err
	}
	for _, f := range v.in.Files {
		g, err := core.ReadGraph(f, core.ReadOptions{})
		if err != nil {
			v.err = err
			return err
		}
		v.graphs = append(v.graphs, g)
	}
	return nil
}

// check verifies a peer's cover or mapping where it printed one, and
// says whether it did.
func (v *verifier) check(a Answer) (bool, error) {
	if len(v.in.Args) > 0 {
		return false, nil // the peer's command line decides what it solved
	}
	switch {
	case v.in.Kind == KindVC && a.Cover != nil:
		if err := v.load(); err != nil {
			return false, err
		}
		cover := make([]int, len(a.Cover))
		for i, x := range a.Cover {
			cover[i] = x - 1
		}
		return true, vertexcover.Verify(v.graphs[0], cover)
	case v.in.Kind == KindMCS && a.Mapping != nil:
		if err := v.load(); err != nil {
			return false, err
		}
		if len(a.Mapping) != a.Size {
			return true, fmt.Errorf("size %d but %d mapped pairs", a.Size, len(a.Mapping))
		}
		return true, mcs.Verify(v.graphs[0], v.graphs[1], a.Mapping, mcs.Options{})
	}
	return false, nil
}

func runPeer(ctx context.Context, c Config, in Instance, p Peer, v *verifier) (Result, error) {
	r := newResult(in)
	r.Engine, r.Backend = p.Name, "-"
	cmd := expand(p.Template, in, c.Timeout)
	s := spawn{argv: []string{"/bin/sh", "-c", cmd}, memLimit: c.MemLimit}
	if c.Timeout > 0 {
		s.hard = c.Timeout + c.Grace
	}
	pr := runProc(ctx, s)
	if pr.err != nil && ctx.Err() != nil {
		return r, pr.err
	}
	a, ok := classify(&r, pr, false, func(out []byte) (Answer, error) { return ParseOutput(in.Kind, p.Format, p.Regex, out) })
	if !ok {
		return r, nil
	}
	fill(&r, a, c.Timeout, pr)
	r.SolverSeconds = a.Seconds
	if checked, err := v.check(a); err != nil {
		wrongf(&r, "solution fails the independent check: %v", err)
	} else {
		r.checked = checked
	}
	checkKnown(in, &r, a, runConfig{})
	return r, nil
}

// expand substitutes an instance into a peer's command template.
func expand(tmpl string, in Instance, timeout time.Duration) string {
	var pairs []string
	if in.Kind == KindMCS && len(in.Files) == 2 {
		pairs = append(pairs, "{g}", shellQuote(in.Files[0]), "{h}", shellQuote(in.Files[1]))
	}
	if len(in.Files) > 0 {
		pairs = append(pairs, "{gr}", shellQuote(in.Files[0]))
	}
	secs := int64(0)
	if timeout > 0 {
		secs = int64((timeout + time.Second - 1) / time.Second)
	}
	pairs = append(pairs, "{timeout}", strconv.FormatInt(secs, 10))
	return strings.NewReplacer(pairs...).Replace(tmpl)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
