package cli

import (
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
)

// durationValue is the one duration flag type of every command. parse
// puts it in place of each flag.Duration a command declares, so the rules
// hold everywhere without each command restating them:
//   - a bare number is seconds ("30" is 30s, "1.5" 1.5s): the common
//     mistake, and unambiguous;
//   - anything else unparsable says to add a unit;
//   - negative durations are refused (status 2), except for the flags in
//     negativeDurations, where a negative value has a documented meaning.
type durationValue struct {
	inner    flag.Value // the flag package's own value: it holds the variable
	negative bool
}

// negativeDurations lists the duration flags for which a negative value
// means something: vc --ls (negative: no local search).
var negativeDurations = map[string]bool{"ls": true}

func (d *durationValue) String() string {
	if d == nil || d.inner == nil {
		return time.Duration(0).String() // the zero value, for flag's isZeroValue
	}
	return d.inner.String()
}

func (d *durationValue) Get() any { return d.inner.(flag.Getter).Get() }

func (d *durationValue) Set(s string) error {
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	if v < 0 && !d.negative {
		return fmt.Errorf("a negative duration is not allowed (0: no limit)")
	}
	return d.inner.Set(v.String())
}

// ParseDuration reads a Go duration ("1m30s") or bare seconds ("30",
// "0.5").
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.Abs(f) > math.MaxInt64/1e9 {
			return 0, fmt.Errorf("%q is not a number of seconds Arbor can wait", s)
		}
		return time.Duration(f * 1e9), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		if wellFormedDuration.MatchString(s) {
			// Units and all, but past what a time.Duration holds.
			return 0, fmt.Errorf("%q is out of range: a duration is at most %dh (about 292 years)", s, int64(math.MaxInt64/time.Hour))
		}
		return 0, fmt.Errorf("%q is not a duration: add a unit (30s, 1m30s, 2h) or give bare seconds (30)", s)
	}
	return d, nil
}

// wellFormedDuration is the shape time.ParseDuration reads: numbers, each
// with a unit.
var wellFormedDuration = regexp.MustCompile(`^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$`)

// sharedDurations replaces every flag.Duration of fs by a durationValue.
func sharedDurations(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if _, done := f.Value.(*durationValue); done {
			return
		}
		g, ok := f.Value.(flag.Getter)
		if !ok {
			return
		}
		if _, ok := g.Get().(time.Duration); !ok {
			return
		}
		f.Value = &durationValue{inner: f.Value, negative: negativeDurations[f.Name]}
		// The help names the type (the flag package does that only for
		// its own duration type) and the bare-seconds rule.
		if strings.Contains(f.Usage, "`") {
			f.Usage += " (bare numbers are seconds)"
		} else {
			f.Usage += " (a `duration`: 30s, 1m30s; bare numbers are seconds)"
		}
	})
}

// threadsPerCore: more CPU search threads than this many per logical core
// only add memory and contention (each thread keeps its own search state:
// --threads 100000 on a 20-vertex pair took 42 s and 2.15 GB), so a larger
// --threads is clamped, with a note.
const threadsPerCore = 4

// MaxThreads is the largest --threads a command runs with.
func MaxThreads() int { return threadsPerCore * runtime.NumCPU() }

// clampThreads clamps --threads to maxThreads, saying so on stderr.
func clampThreads(fs *flag.FlagSet) {
	if !threadCommand(fs.Name()) {
		return
	}
	f := fs.Lookup("threads")
	if f == nil {
		return
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return
	}
	n, ok := g.Get().(int)
	if limit := MaxThreads(); ok && n > limit {
		if err := f.Value.Set(strconv.Itoa(limit)); err == nil {
			fmt.Fprintf(fs.Output(), "arbor %s: --threads %d is more than %d per logical core (%d cores): using %d\n",
				fs.Name(), n, threadsPerCore, runtime.NumCPU(), limit)
		}
	}
}

// checkSelection refuses, as a usage error, a --backend or --device (or
// ARBOR_BACKEND, ARBOR_DEVICE, ARBOR_REQUIRE) that names a backend or
// device that does not exist, in every command that takes them: auto is
// the only fallback, and a command that may never open a device (vc on
// the CPU engine) must not ignore the name silently either.
func checkSelection(fs *flag.FlagSet) error {
	b, d := fs.Lookup("backend"), fs.Lookup("device")
	if b == nil || d == nil {
		return nil
	}
	err := backend.SelectionFromEnv(b.Value.String(), d.Value.String()).Check()
	if err == nil {
		return nil
	}
	var from []string
	for _, v := range []struct{ flag, Env string }{{b.Value.String(), backend.EnvBackend}, {d.Value.String(), backend.EnvDevice}} {
		if val := os.Getenv(v.Env); v.flag == "" && val != "" {
			from = append(from, v.Env+"="+val)
		}
	}
	if len(from) > 0 {
		return fmt.Errorf("%w (from %s)", err, strings.Join(from, ", "))
	}
	return err
}

// ReadLimits are --max-input and --max-memory (core.ReadOptions' MaxInput
// and MaxMemory; 0: $ARBOR_MAX_INPUT or core.DefaultMaxInput,
// $ARBOR_MAX_MEMORY or half the available memory).
type ReadLimits struct{ maxInput, maxMemory sizeValue }

func (l *ReadLimits) Register(fs *flag.FlagSet) {
	fs.Var(&l.maxInput, "max-input", "most bytes any input may hold: a file, standard input, a pipe or device, or what gzip expands to (`SIZE`: 512M, 16G; default $"+
		core.EnvMaxInput+" or 1G)")
	fs.Var(&l.maxMemory, "max-memory", fmt.Sprintf("most memory for the %d bytes a vertex that a header's vertex count asks for, and for an n² structure built from a graph (a complement, an adjacency or bit matrix) (`SIZE`: 512M, 16G; default $%s or half the available memory)",
		core.BytesPerVertex, core.EnvMaxMemory))
}

// ReadGraph is core.ReadGraph with the command's --max-input and
// --max-memory, or standard input for "-" (read once; format detection
// then goes by content alone). Ctrl-C or SIGTERM (e.Ctx) ends it at once
// in any phase, a FIFO waiting for its writer included, with a
// *core.StoppedError.
func (e *Env) ReadGraph(path string, ro core.ReadOptions) (*core.Graph, error) {
	ro = e.WithLimits(ro)
	if path != "-" {
		return core.ReadGraphContext(e.Ctx, path, ro)
	}
	if e.StdinUsed {
		return nil, Usagef("standard input (-) can be read only once")
	}
	e.StdinUsed = true
	in := e.Stdin
	if in == nil {
		in = os.Stdin
	}
	return core.ParseGraphContext(e.Ctx, in, StdinName, ro)
}

// WithLimits sets ro's limits that the caller left unset to the command's
// --max-input and --max-memory.
func (e *Env) WithLimits(ro core.ReadOptions) core.ReadOptions {
	if ro.MaxInput == 0 {
		ro.MaxInput = int64(e.limits.maxInput)
	}
	if ro.MaxMemory == 0 {
		ro.MaxMemory = int64(e.limits.maxMemory)
	}
	return ro
}

// sizeValue is a flag of bytes, as core.ParseSize reads them.
type sizeValue int64

func (s *sizeValue) String() string {
	if s == nil || *s == 0 {
		return ""
	}
	return strconv.FormatInt(int64(*s), 10)
}

func (s *sizeValue) Set(v string) error {
	n, err := core.ParseSize(v)
	if err != nil {
		return err
	}
	*s = sizeValue(n)
	return nil
}
