package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/startup"
)

// errFlagHelp is returned when -h was asked for: usage was printed, exit 0.
var ErrHelp = errors.New("help requested")

// NewFlags makes a flag set that reports errors instead of exiting. Its
// usage (-h) goes to stdout; a bad flag is a usage error that run prints
// on stderr, without the whole usage.
func NewFlags(e *Env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag set's output is stderr, for the flag rules' notes
	// (clampThreads); parseArgs silences it while parsing.
	fs.SetOutput(e.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.Stdout, "usage: arbor %s %s\n", name, synopsis)
		out := fs.Output()
		fs.SetOutput(e.Stdout)
		fs.PrintDefaults()
		fs.SetOutput(out)
	}
	if readsGraphs(name) {
		e.limits.Register(fs)
	}
	return fs
}

// Parse parses flags, allowing them after positional arguments too
// (arbor mcs G H --threads 1), and returns the positionals.
//
// Every command's flags share these rules, applied here so that no command
// can differ: durations take bare seconds and are never negative (see
// durationValue), CPU thread counts are clamped (clampThreads), and a
// backend or device that does not exist is a usage error even where the
// command would not open a device (checkSelection).
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	sharedDurations(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return nil, err
	}
	clampThreads(fs)
	if err := checkSelection(fs); err != nil {
		return nil, err
	}
	return pos, nil
}

// ParseNone is Parse for a command that takes flags alone: a positional
// argument is a usage error, "NAME takes no arguments" followed by more
// (a format given the first argument, e.g. " (got %q)"; "": nothing).
func ParseNone(fs *flag.FlagSet, args []string, more string) error {
	pos, err := Parse(fs, args)
	if err != nil || len(pos) == 0 {
		return err
	}
	if more != "" {
		more = fmt.Sprintf(more, pos[0])
	}
	return Usagef("%s takes no arguments%s", fs.Name(), more)
}

func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	// The flag package prints the error and the usage on any error; run
	// prints the error alone, and only -h shows the usage.
	help, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	defer func() { fs.Usage = help; fs.SetOutput(out) }()
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				help()
				return nil, ErrHelp
			}
			return nil, UsageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
		if pos[len(pos)-1] == "--" {
			pos = append(pos[:len(pos)-1], args...)
			return pos, nil
		}
	}
}

// flagSet reports whether the flag name was given on the command line
// (not left at its default).
func IsSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// SearchFlags are the flags every search command (mcs, clique, vc)
// takes, defined here once: the input format, CPU threads, the time
// limit, the engine, its device workers and the devices (--backend,
// --device), and the output contract (solverFlags: --json, --verify,
// --require-optimal, --zero-based, -v, -o). Each command's page passes
// what its help says of them (searchHelp); the rules they follow are the
// same everywhere (check, place). Pointers, as the flag package returns
// them.
type SearchFlags struct {
	SolverFlags
	Dev     DeviceFlags
	Format  *string
	Threads *int
	Timeout *time.Duration
	Engine  *string
	Workers *int
	Goal    *int // nil unless the command takes --goal
}

// SearchHelp is what a command says of the shared search flags.
type SearchHelp struct {
	What, Out       string // the solution's name (--verify) and -o's usage
	Threads         string
	Timeout         string
	Engine, Engines string // --engine's usage and its default
	Workers         string
	Goal            string // "": no --goal
}

// Register adds the shared search flags to fs.
func (s *SearchFlags) Register(fs *flag.FlagSet, h SearchHelp) {
	s.SolverFlags.Register(fs, h.What, h.Out)
	s.Dev.RegisterMany(fs)
	s.Format = fs.String("format", "", "input format (default: detected); one of "+fmt.Sprint(core.Formats()))
	s.Threads = fs.Int("threads", 0, h.Threads)
	s.Timeout = fs.Duration("timeout", 0, h.Timeout)
	s.Engine = fs.String("engine", h.Engines, h.Engine)
	s.Workers = fs.Int("workers", 0, h.Workers)
	if h.Goal != "" {
		s.Goal = fs.Int("goal", 0, h.Goal)
	}
}

// NewSearchFlags is the flag set of the registered command e runs
// (Env.Name), its name and synopsis the registry's, with the shared
// search flags declared as its Algorithm.Search says.
func NewSearchFlags(e *Env) (*flag.FlagSet, *SearchFlags) {
	a, ok := Lookup(e.Name)
	if !ok || a.Search == nil {
		panic(fmt.Sprintf("cli: NewSearchFlags runs a registered command with Search help (Env.Name %q)", e.Name))
	}
	fs := NewFlags(e, a.Name, a.Synopsis)
	var sr SearchFlags
	sr.Register(fs, *a.Search)
	return fs, &sr
}

// Check is the shared flags' rules, after parsing (the durations'
// are parse's).
func (s *SearchFlags) Check() error {
	if *s.Threads < 0 {
		return Usagef("--threads must be ≥ 0")
	}
	if s.Goal != nil && (*s.Goal < 0 || *s.Workers < 0) {
		return Usagef("--goal and --workers must be ≥ 0")
	}
	return nil
}

// Selection is the devices of --backend/--device (over ARBOR_BACKEND,
// ARBOR_DEVICE, ARBOR_REQUIRE) that an engine may open: the algorithms
// open them themselves, under their start-up policy (mcs.OpenDevices,
// clique.OpenDevices, vertexcover.OpenDevices).
func (s *SearchFlags) Selection() *startup.Selection {
	return &startup.Selection{Selection: backend.SelectionFromEnv(s.Dev.Backend, s.Dev.Device), Named: s.Dev.Backend != ""}
}

// Place opens the devices of --backend/--device at once for an engine
// that may run on one and lets the algorithm's rule (mcs.Place,
// clique.Place, vertexcover.Place) decide which the engine gets. It says
// what was decided on stderr (a fallback always; with -v the devices
// opened and why some were left out) and returns the engine's devices and
// a function that closes every device it opened.
func (s *SearchFlags) Place(e *Env, rule startup.Rule) ([]backend.Device, func(), error) {
	devs, closeAll, r, err := startup.OpenNow(*s.Selection(), rule)
	if err != nil {
		return nil, closeAll, err
	}
	Say(e, s.Verbose, r)
	return devs, closeAll, nil
}

// Say prints what opening the devices decided (startup.Report: the
// fallback; with -v the devices and the note). For a device opened in the
// background the command says it after the search, so that nothing else
// writes to stderr at the same time; a report of an opening that is not
// over is empty (nothing is said of a device the run never waited for).
func Say(e *Env, verbose bool, r startup.Report) {
	for _, line := range r.Lines(verbose) {
		fmt.Fprintf(e.Stderr, "arbor: %s\n", line)
	}
}

// StartSearch begins a search on the devices opening (nil: none, the
// CPU alone): it waits for the opening to settle (its error is the run's)
// and starts the search's progress line. EndSearch ends it.
func StartSearch(e *Env, opening *startup.Opening) (*Progress, error) {
	if opening != nil {
		if err := opening.Settle(); err != nil {
			return nil, err
		}
	}
	return NewProgress(e), nil
}

// EndSearch ends the progress line of StartSearch and, with an opening,
// says what it did (Say) and returns the devices the search had.
func EndSearch(e *Env, verbose bool, prog *Progress, opening *startup.Opening) []backend.Device {
	prog.Done()
	if opening == nil {
		return nil
	}
	Say(e, verbose, opening.Report())
	return opening.Devices()
}

// BackendOf is the JSON field backend: the backend of the devices an
// engine ran on ("" on the CPU engine).
func BackendOf(devs []backend.Device, ranOn string) string {
	if len(devs) == 0 || ranOn == "" {
		return ""
	}
	return devs[0].Info().Backend
}

// DeviceFlags are the selection flags every device-using command takes.
type DeviceFlags struct{ Backend, Device string }

// NewDeviceFlags is NewFlags for a command that runs on one device: the
// flag set with --backend and --device declared.
func NewDeviceFlags(e *Env, name, synopsis string) (*flag.FlagSet, *DeviceFlags) {
	fs := NewFlags(e, name, synopsis)
	var df DeviceFlags
	df.Register(fs)
	return fs, &df
}

func (d *DeviceFlags) Register(fs *flag.FlagSet) {
	d.registerWith(fs, "device index or name substring (default $ARBOR_DEVICE, else the backend's first GPU, accelerator, then CPU device)")
}

// RegisterMany is register for commands whose engines spread one search
// over several devices: --device also takes "all" or a list.
func (d *DeviceFlags) RegisterMany(fs *flag.FlagSet) {
	d.registerWith(fs, "device index or name substring, 'all' (every device of the type the first pick has: every GPU), "+
		"or a comma-separated list (default $ARBOR_DEVICE, else the backend's first GPU, accelerator, then CPU device)")
}

func (d *DeviceFlags) registerWith(fs *flag.FlagSet, deviceUsage string) {
	fs.StringVar(&d.Backend, "backend", "", "backend: auto, cuda, opencl or cpu (default $ARBOR_BACKEND or auto)")
	fs.StringVar(&d.Device, "device", "", deviceUsage)
}

// OpenMany selects and opens the devices of --device (one unless it says
// "all" or lists several), and says which on stderr unless quiet.
func (d *DeviceFlags) OpenMany(e *Env, quiet bool) ([]backend.Device, error) {
	devs, cs, err := backend.SelectAll(backend.SelectionFromEnv(d.Backend, d.Device))
	if err != nil {
		return nil, err
	}
	if !quiet {
		for _, c := range cs {
			fmt.Fprintf(e.Stderr, "arbor: using %s (%s)\n", c.Info, c.Why)
		}
	}
	return devs, nil
}

// Open selects and opens the device, and says which on stderr.
func (d *DeviceFlags) Open(e *Env, quiet bool) (backend.Device, backend.Choice, error) {
	dev, c, err := backend.Select(backend.SelectionFromEnv(d.Backend, d.Device))
	if err != nil {
		return nil, c, err
	}
	if !quiet {
		fmt.Fprintf(e.Stderr, "arbor: using %s (%s)\n", c.Info, c.Why)
	}
	return dev, c, nil
}

// opening is a device being opened in the background.
type AsyncDevice struct {
	Done   chan struct{}
	Devs   backend.Device
	choice backend.Choice
	Err    error
	e      *Env
	quiet  bool
}

// OpenAsync starts opening the device while the caller does something
// else (reads the input: a CUDA context takes about a second to create,
// a large file several to read); wait returns it.
func (d *DeviceFlags) OpenAsync(e *Env, quiet bool) *AsyncDevice {
	o := &AsyncDevice{Done: make(chan struct{}), e: e, quiet: quiet}
	go func() {
		defer close(o.Done)
		o.Devs, o.choice, o.Err = d.Open(e, true)
	}()
	return o
}

// Wait returns the device once it is open, saying which (unless quiet)
// only now, so that nothing is said of a device a failed read never used.
func (o *AsyncDevice) Wait() (backend.Device, backend.Choice, error) {
	<-o.Done
	if o.Err == nil && !o.quiet {
		fmt.Fprintf(o.e.Stderr, "arbor: using %s (%s)\n", o.choice.Info, o.choice.Why)
		o.quiet = true
	}
	return o.Devs, o.choice, o.Err
}

// Abandon closes the device, if it opened, once it has: for a caller that
// stops before using it.
func (o *AsyncDevice) Abandon() {
	<-o.Done
	if o.Err == nil {
		o.Devs.Close()
	}
}

// IsTerminal reports whether w is a terminal: progress is shown only then.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"
}

// HumanBytes prints a byte count in binary units.
func HumanBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func JoinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}
