package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
)

// errFlagHelp is returned when -h was asked for: usage was printed, exit 0.
var errFlagHelp = errors.New("help requested")

// newFlags makes a flag set that reports errors instead of exiting. Its
// usage (-h) goes to stdout; a bad flag is a usage error that run prints
// on stderr, without the whole usage.
func newFlags(e *env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The output is stderr, for notes such as clampThreads'; parseArgs
	// silences it while parsing (run prints the one-line error).
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, "usage: arbor %s %s\n", name, synopsis)
		out := fs.Output()
		fs.SetOutput(e.stdout)
		fs.PrintDefaults()
		fs.SetOutput(out)
	}
	if readsGraphs[name] {
		e.limits.register(fs)
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
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
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
	// The flag package prints the usage on any error; only -h shows it.
	help := fs.Usage
	fs.Usage = func() {}
	out := fs.Output()
	fs.SetOutput(io.Discard)
	defer func() { fs.Usage = help; fs.SetOutput(out) }()
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				help()
				return nil, errFlagHelp
			}
			return nil, usageError{err.Error()}
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

// deviceFlags are the selection flags every device-using command takes.
type deviceFlags struct{ backend, device string }

func (d *deviceFlags) register(fs *flag.FlagSet) {
	d.registerWith(fs, "device index or name substring (default $ARBOR_DEVICE or the first)")
}

// registerMany is register for commands whose engines spread one search
// over several devices: --device also takes "all" or a list.
func (d *deviceFlags) registerMany(fs *flag.FlagSet) {
	d.registerWith(fs, "device index or name substring, 'all' (every device of the type the first pick has: every GPU), "+
		"or a comma-separated list (default $ARBOR_DEVICE or the first)")
}

func (d *deviceFlags) registerWith(fs *flag.FlagSet, deviceUsage string) {
	fs.StringVar(&d.backend, "backend", "", "backend: auto, cuda, opencl or cpu (default $ARBOR_BACKEND or auto)")
	fs.StringVar(&d.device, "device", "", deviceUsage)
}

// openMany selects and opens the devices of --device (one unless it says
// "all" or lists several), and says which on stderr unless quiet.
func (d *deviceFlags) openMany(e *env, quiet bool) ([]backend.Device, error) {
	devs, cs, err := backend.SelectAll(backend.SelectionFromEnv(d.backend, d.device))
	if err != nil {
		return nil, err
	}
	if !quiet {
		for _, c := range cs {
			fmt.Fprintf(e.stderr, "arbor: using %s (%s)\n", c.Info, c.Why)
		}
	}
	return devs, nil
}

// open selects and opens the device, and says which on stderr.
func (d *deviceFlags) open(e *env, quiet bool) (backend.Device, backend.Choice, error) {
	dev, c, err := backend.Select(backend.SelectionFromEnv(d.backend, d.device))
	if err != nil {
		return nil, c, err
	}
	if !quiet {
		fmt.Fprintf(e.stderr, "arbor: using %s (%s)\n", c.Info, c.Why)
	}
	return dev, c, nil
}

// lsDevice is the opener of vertexcover.Options.LSDevice for
// --ls-device mode (auto: only a GPU; on: any device; off: none). The
// solver calls it only when a kernel needs it, so an easy instance never
// pays for a CUDA context.
func (d *deviceFlags) lsDevice(e *env, mode string, quiet bool) func() (backend.Device, error) {
	if mode == "off" {
		return nil
	}
	return func() (backend.Device, error) {
		dev, c, err := d.open(e, true)
		if err != nil {
			return nil, err
		}
		if mode == "auto" && c.Info.Type != backend.TypeGPU {
			dev.Close()
			return nil, fmt.Errorf("%s is not a GPU (--ls-device on uses it anyway)", c.Info)
		}
		if !quiet {
			fmt.Fprintf(e.stderr, "arbor: local search also on %s (%s)\n", c.Info, c.Why)
		}
		return dev, nil
	}
}

// opening is a device being opened in the background.
type opening struct {
	done   chan struct{}
	dev    backend.Device
	choice backend.Choice
	err    error
	e      *env
	quiet  bool
}

// openAsync starts opening the device while the caller does something
// else (reads the input: a CUDA context takes about a second to create,
// a large file several to read); wait returns it.
func (d *deviceFlags) openAsync(e *env, quiet bool) *opening {
	o := &opening{done: make(chan struct{}), e: e, quiet: quiet}
	go func() {
		defer close(o.done)
		o.dev, o.choice, o.err = d.open(e, true)
	}()
	return o
}

// wait returns the device once it is open, saying which (unless quiet)
// only now, so that nothing is said of a device a failed read never used.
func (o *opening) wait() (backend.Device, backend.Choice, error) {
	<-o.done
	if o.err == nil && !o.quiet {
		fmt.Fprintf(o.e.stderr, "arbor: using %s (%s)\n", o.choice.Info, o.choice.Why)
		o.quiet = true
	}
	return o.dev, o.choice, o.err
}

// abandon closes the device, if it opened, once it has: for a caller that
// stops before using it.
func (o *opening) abandon() {
	<-o.done
	if o.err == nil {
		o.dev.Close()
	}
}

// isTerminal reports whether w is a terminal: progress is shown only then.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"
}

// humanBytes prints a byte count in binary units.
func humanBytes(n uint64) string {
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

func joinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}
