package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/search"
)

// errFlagHelp is returned when -h was asked for: usage was printed, exit 0.
var ErrHelp = errors.New("help requested")

// newFlags makes a flag set that reports errors instead of exiting. Its
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
	if readsGraphs(name) || readsGraphsLegacy[name] {
		e.limits.Register(fs)
	}
	return fs
}

// parse parses flags, allowing them after positional arguments too
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

// searchFlags are the flags every search command (mcs, clique, vc)
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

// searchHelp is what a command says of the shared search flags.
type SearchHelp struct {
	What, Out       string // the solution's name (--verify) and -o's usage
	Threads         string
	Timeout         string
	Engine, Engines string // --engine's usage and its default
	Workers         string
	Goal            string // "": no --goal
}

// register adds the shared search flags to fs.
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

// check is the shared flags' rules, after parsing (the durations'
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

// place opens the devices of --backend/--device for an engine that may
// run on one and lets the algorithm's rule (mcs.Place, clique.Place,
// vertexcover.Place) decide which the engine gets. It says what was
// decided on stderr (a fallback always; with -v the devices opened and
// why some were left out) and returns the engine's devices and a
// function that closes every device it opened.
func (s *SearchFlags) Place(e *Env, rule func([]backend.Device, error) (search.Placement, error)) ([]backend.Device, func(), error) {
	opened, err := s.Dev.OpenMany(e, true)
	closeAll := func() {
		for _, d := range opened {
			d.Close()
		}
	}
	p, err := rule(opened, err)
	if err != nil {
		closeAll()
		return nil, func() {}, err
	}
	if p.Fallback != "" {
		fmt.Fprintf(e.Stderr, "arbor: %s\n", p.Fallback)
	}
	SayDevices(e, s.Verbose, opened)
	if p.Note != "" && s.Verbose {
		fmt.Fprintf(e.Stderr, "arbor: %s\n", p.Note)
	}
	return p.Devices, closeAll, nil
}

// deviceOpening is the devices of --backend/--device being opened in the
// background while the command reads its input and its CPU engine starts
// (search.Opening): no one waits for a GPU an instance may never need.
type DeviceOpening struct {
	*search.Opening
	required bool     // ARBOR_REQUIRE names a backend
	said     []string // what to say on stderr once it is over (written before Ready)
}

// openInBackground starts opening the devices of --backend/--device and
// applies the algorithm's rule (mcs.Place, clique.Place, vertexcover.Place)
// once they are open. Release it when done: that never waits.
func (s *SearchFlags) OpenInBackground(rule func([]backend.Device, error) (search.Placement, error)) *DeviceOpening {
	d := s.OpenWhenAsked(rule)
	d.Start()
	return d
}

// autoHeadStart is how long an auto engine's CPU search runs before the
// device starts opening. An instance settled within it never touches the
// driver; one settled while the driver is initialising pays at exit for
// the kernel to finish that call and tear down what it made (measured on
// the H200: clique cop_hat500-2 --complement, 33 ms on the CPU engine, took
// 92 ms with the device opening from the start). Long searches lose the
// head start's worth of device time, within auto's 5 % margin on the
// medium MIVIA pairs (0.6–1.2 s).
const autoHeadStart = 40 * time.Millisecond

// openAfterHeadStart is openInBackground for an auto engine: the opening
// starts after autoHeadStart, or at once if the engine asks for the
// devices before (Wait starts it). Release before then opens nothing.
func (s *SearchFlags) OpenAfterHeadStart(rule func([]backend.Device, error) (search.Placement, error)) *DeviceOpening {
	d := s.OpenWhenAsked(rule)
	time.AfterFunc(autoHeadStart, d.Start)
	return d
}

// openWhenAsked prepares the opening of the devices of --backend/--device
// (under the algorithm's rule) and starts it only when the engine asks
// (search.OpenWhenAsked): vc's auto, which uses a device on dense kernels
// only; openInBackground and openAfterHeadStart start it themselves.
func (s *SearchFlags) OpenWhenAsked(rule func([]backend.Device, error) (search.Placement, error)) *DeviceOpening {
	sel := backend.SelectionFromEnv(s.Dev.Backend, s.Dev.Device)
	d := &DeviceOpening{required: sel.Require != ""}
	// Two steps: choosing the devices (for a GPU, the driver's
	// initialisation) tells an engine what it will get, opening them (the
	// context) follows.
	var choices []backend.Choice
	var chooseErr error
	choose := func() ([]backend.Info, error) {
		choices, chooseErr = backend.ChooseAll(sel)
		infos := make([]backend.Info, len(choices))
		for i, c := range choices {
			infos[i] = c.Info
		}
		return infos, chooseErr
	}
	d.Opening = search.OpenWhenAsked(func() ([]backend.Device, func(), error) {
		var opened []backend.Device
		closeAll := func() {
			for _, dev := range opened {
				dev.Close()
			}
		}
		err := chooseErr
		for _, c := range choices {
			if err != nil {
				break
			}
			var dev backend.Device
			if dev, err = backend.Open(c); err == nil {
				opened = append(opened, dev)
			}
		}
		if err != nil {
			closeAll()
			opened = nil
		}
		p, err := rule(opened, err)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		if p.Fallback != "" {
			d.said = append(d.said, p.Fallback)
		}
		if s.Verbose {
			for _, dev := range opened {
				d.said = append(d.said, fmt.Sprintf("using %s", dev.Info()))
			}
			if p.Note != "" {
				d.said = append(d.said, p.Note)
			}
		}
		return p.Devices, closeAll, nil
	})
	d.WithChoice(choose)
	return d
}

// settle waits for the opening when ARBOR_REQUIRE names a backend: a
// failure to open it must surface whatever an instance the CPU settles
// first would hide. (Names that do not exist are refused at parse time,
// checkSelection.) Otherwise the device stays in the background.
func (d *DeviceOpening) Settle() error {
	if !d.required {
		return nil
	}
	_, err := d.Wait()
	return err
}

// devices are the devices the engine got, once the opening is over (nil
// before).
func (d *DeviceOpening) Devices() []backend.Device {
	if !d.Done() {
		return nil
	}
	devs, _ := d.Wait()
	return devs
}

// say prints, once the opening is over, what it decided (the fallback;
// with -v the devices): after the search, so that nothing else writes to
// stderr at the same time, and not at all for a device the run never
// waited for.
func (d *DeviceOpening) Say(e *Env) {
	if !d.Done() {
		return
	}
	for _, line := range d.said {
		fmt.Fprintf(e.Stderr, "arbor: %s\n", line)
	}
	d.said = nil
}

// lsDevice is the opener of vertexcover.Options.LSDevice on the opening's
// first device, under mode's rule (vertexcover.LSMode.Opener), said on
// stderr once accepted unless quiet: the search's own context, lent, not a
// second one (the solver's Close leaves it open; Release closes it).
func (d *DeviceOpening) LSDevice(e *Env, mode vertexcover.LSMode, quiet bool) func() (backend.Device, error) {
	open := mode.Opener(func() (backend.Device, error) {
		devs, err := d.Wait()
		if err != nil {
			return nil, err
		}
		if len(devs) == 0 {
			return nil, errors.New("no device opened")
		}
		return LentDevice{devs[0]}, nil
	})
	if open == nil {
		return nil
	}
	return func() (backend.Device, error) {
		dev, err := open()
		if err == nil && !quiet {
			fmt.Fprintf(e.Stderr, "arbor: local search also on %s\n", dev.Info())
		}
		return dev, err
	}
}

// lentDevice is a device lent to a user that closes what it is given: its
// owner closes it.
type LentDevice struct{ backend.Device }

func (LentDevice) Close() error { return nil }

// sayDevices says on stderr, with -v, which devices a command opened.
func SayDevices(e *Env, verbose bool, devs []backend.Device) {
	if !verbose {
		return
	}
	for _, d := range devs {
		fmt.Fprintf(e.Stderr, "arbor: using %s\n", d.Info())
	}
}

// backendOf is the JSON field backend: the backend of the devices an
// engine ran on ("" on the CPU engine).
func BackendOf(devs []backend.Device, ranOn string) string {
	if len(devs) == 0 || ranOn == "" {
		return ""
	}
	return devs[0].Info().Backend
}

// deviceFlags are the selection flags every device-using command takes.
type DeviceFlags struct{ Backend, Device string }

func (d *DeviceFlags) Register(fs *flag.FlagSet) {
	d.registerWith(fs, "device index or name substring (default $ARBOR_DEVICE, else the backend's first GPU, accelerator, then CPU device)")
}

// registerMany is register for commands whose engines spread one search
// over several devices: --device also takes "all" or a list.
func (d *DeviceFlags) RegisterMany(fs *flag.FlagSet) {
	d.registerWith(fs, "device index or name substring, 'all' (every device of the type the first pick has: every GPU), "+
		"or a comma-separated list (default $ARBOR_DEVICE, else the backend's first GPU, accelerator, then CPU device)")
}

func (d *DeviceFlags) registerWith(fs *flag.FlagSet, deviceUsage string) {
	fs.StringVar(&d.Backend, "backend", "", "backend: auto, cuda, opencl or cpu (default $ARBOR_BACKEND or auto)")
	fs.StringVar(&d.Device, "device", "", deviceUsage)
}

// openMany selects and opens the devices of --device (one unless it says
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

// open selects and opens the device, and says which on stderr.
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

// lsDevice is the opener of vertexcover.Options.LSDevice: the device of
// --backend/--device under mode's rule (vertexcover.LSMode.Opener), said
// on stderr once accepted unless quiet. The solver calls it only when a
// kernel needs it, so an easy instance never pays for a CUDA context.
func (d *DeviceFlags) LSDevice(e *Env, mode vertexcover.LSMode, quiet bool) func() (backend.Device, error) {
	var c backend.Choice
	open := mode.Opener(func() (dev backend.Device, err error) {
		dev, c, err = d.Open(e, true)
		return dev, err
	})
	if open == nil {
		return nil
	}
	return func() (backend.Device, error) {
		dev, err := open()
		if err == nil && !quiet {
			fmt.Fprintf(e.Stderr, "arbor: local search also on %s (%s)\n", c.Info, c.Why)
		}
		return dev, err
	}
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

// openAsync starts opening the device while the caller does something
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

// wait returns the device once it is open, saying which (unless quiet)
// only now, so that nothing is said of a device a failed read never used.
func (o *AsyncDevice) Wait() (backend.Device, backend.Choice, error) {
	<-o.Done
	if o.Err == nil && !o.quiet {
		fmt.Fprintf(o.e.Stderr, "arbor: using %s (%s)\n", o.choice.Info, o.choice.Why)
		o.quiet = true
	}
	return o.Devs, o.choice, o.Err
}

// abandon closes the device, if it opened, once it has: for a caller that
// stops before using it.
func (o *AsyncDevice) Abandon() {
	<-o.Done
	if o.Err == nil {
		o.Devs.Close()
	}
}

// isTerminal reports whether w is a terminal: progress is shown only then.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"
}

// humanBytes prints a byte count in binary units.
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
