// Command arbor runs exact search-tree graph algorithms on CUDA, OpenCL or
// CPU devices from one static binary.
//
// Exit status: 0 an answer was returned (proven or not), 1 failure, 2
// usage error, 3 --require-optimal and the question was not settled. The
// whole contract (flags, JSON fields, numbering) is docs/cli.md.
package main

//go:generate go run ./internal/gendocs

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/arbor-gpu/arbor/algorithms/all"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/internal/bench"
)

// version is set at link time (-ldflags "-X main.version=..."); without it
// the build's own record says which (buildVersion).
var version = ""

type command struct {
	summary string
	Run     func(e *cli.Env) error
}

// commands is the table of subcommands: the registered algorithms
// (cli.Register, linked by algorithms/all) and the built-in commands, each
// in its own file.
func commands() map[string]command {
	cmds := map[string]command{
		"bench":    {"time and check engines (and other solvers) on instance suites; plots and a summary", runBench},
		"devices":  {"list every backend, its devices and capabilities, or why it is absent", runDevices},
		"demo":     {"run the algorithms on embedded sample data with the auto-selected backend", runDemo},
		"version":  {"print Arbor's version", runVersion},
		"info":     {"read a graph file and describe it", runInfo},
		"generate": {"write a generated graph (R-MAT, G(n,p)) to a file", runGenerate},
		"verify":   {"check every kernel on every device against its CPU twin", runVerify},
		"kernels":  {"list kernel sources, or --dump the exact source a backend compiles", runKernels},
		"worker":   {"take search tasks from a NATS JetStream cluster (see mcs --cluster)", runWorker},
		"server":   {"run a NATS JetStream server for a cluster (where no NATS deployment exists)", runServer},
		"jobs":     {"list, cancel or purge a cluster's jobs", runJobs},
	}
	for _, a := range cli.Algorithms() {
		cmds[a.Name] = command{a.Summary, a.Run}
	}
	return cmds
}

func main() {
	os.Exit(process(os.Args[1:]))
}

// interruptGrace is how long a command has, after SIGINT or SIGTERM, to
// return before the process ends without it (see process).
const interruptGrace = 300 * time.Millisecond

// process is the whole process (main, and the tests' CLI child): limits,
// signals, the profile, the command; it returns the exit status.
//
// The first SIGINT or SIGTERM cancels the command's context: reading stops
// at once, a search returns its best result. A phase that does not watch
// the context (a solver's preprocessing on a large graph) does not hold
// the process: if the command has not returned within interruptGrace and
// has printed nothing, the process ends with status 1 and a message.
// Once it prints its result it may finish. And the signals' default
// action is restored, so a second one ends the process at once.
func process(args []string) int {
	// A child of 'arbor bench' caps its own memory (the parent cannot
	// without cgo); nothing happens outside a bench run.
	if err := bench.ApplyChildLimits(); err != nil {
		fmt.Fprintf(os.Stderr, "arbor: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	stopProfile, err := startProfile(os.Getenv("ARBOR_CPUPROFILE"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "arbor: %v\n", err)
		return 1
	}
	defer stopProfile()
	stdout := &startedWriter{W: os.Stdout}
	code := make(chan int, 1)
	go func() { code <- run(ctx, args, stdout, os.Stderr) }()
	select {
	case c := <-code:
		return c
	case <-ctx.Done():
	}
	select {
	case c := <-code:
		return c
	case <-time.After(interruptGrace):
		if stdout.started.Load() {
			return <-code // printing its result: let it
		}
	}
	name := "arbor"
	if len(args) > 0 {
		name += " " + args[0]
	}
	fmt.Fprintf(os.Stderr, "%s: %v: stopped before a result\n", name, context.Cause(ctx))
	return 1
}

// startedWriter notes that something was written through it.
type startedWriter struct {
	W       io.Writer
	started atomic.Bool
}

func (s *startedWriter) Write(p []byte) (int, error) {
	s.started.Store(true)
	return s.W.Write(p)
}

// startProfile writes a CPU profile of the whole command to path
// (ARBOR_CPUPROFILE; "" does nothing), for `go tool pprof` against the
// same binary: where a run's time goes on a user's machine.
func startProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("ARBOR_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("ARBOR_CPUPROFILE: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runIO(ctx, args, nil, stdout, stderr)
}

// runIO is run with standard input (nil: os.Stdin).
func runIO(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 {
		usage(stderr, cmds)
		return 2
	}
	// printed writes what prints on stdout outside a command (the usage,
	// help's own): a write error is a failure, as in every command.
	printed := func(print func(io.Writer)) int {
		out := &cli.CheckedWriter{W: stdout}
		print(out)
		code, msg := cli.ExitStatus(nil, out.Err)
		if msg != "" {
			fmt.Fprintf(stderr, "arbor: %s\n", msg)
		}
		return code
	}
	switch args[0] {
	case "-h", "-help", "--help":
		return printed(func(w io.Writer) { usage(w, cmds) })
	case "--version", "-version":
		args = []string{"version"}
	case "help":
		// arbor help CMD is arbor CMD -h.
		if len(args) == 1 {
			return printed(func(w io.Writer) { usage(w, cmds) })
		}
		if len(args) == 2 && (args[1] == "help" || args[1] == "-h" || args[1] == "--help") {
			return printed(func(w io.Writer) {
				fmt.Fprintln(w, "usage: arbor help [COMMAND]\n\nWithout COMMAND, the list of commands; with one, its options (the same as arbor COMMAND -h).")
			})
		}
		if _, ok := cmds[args[1]]; !ok || len(args) > 2 {
			fmt.Fprintf(stderr, "arbor help: unknown command %q (arbor help lists them)\n", strings.Join(args[1:], " "))
			return 2
		}
		args = []string{args[1], "-h"}
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "arbor: unknown command %q\n\n", args[0])
		usage(stderr, cmds)
		return 2
	}
	out := &cli.CheckedWriter{W: stdout}
	err := c.Run(&cli.Env{Ctx: ctx, Name: args[0], Args: args[1:], Stdin: stdin, Stdout: out, Stderr: stderr})
	code, msg := cli.ExitStatus(err, out.Err)
	if code == 2 {
		msg += fmt.Sprintf(" (arbor %s -h lists the options)", args[0])
	}
	if msg != "" {
		fmt.Fprintf(stderr, "arbor %s: %s\n", args[0], msg)
	}
	return code
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: arbor COMMAND [options]\n\ncommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nbackend selection: --backend auto|cuda|opencl|cpu (ARBOR_BACKEND), --device INDEX|NAME (ARBOR_DEVICE);")
	fmt.Fprintln(w, "ARBOR_REQUIRE=cuda|opencl makes a missing backend an error instead of a fallback.")
	fmt.Fprintln(w, "Run 'arbor help COMMAND' (or 'arbor COMMAND -h') for a command's options; docs/cli.md is the reference.")
	fmt.Fprintln(w, "Exit status: 0 an answer (proven or not), 1 failure, 2 usage error, 3 --require-optimal and not settled.")
}

func runVersion(e *cli.Env) error {
	fs := cli.NewFlags(e, "version", "[--json] (also: arbor --version)")
	asJSON := fs.Bool("json", false, "print {\"version\": …}")
	if err := cli.ParseNone(fs, e.Args, ""); err != nil {
		return err
	}
	info, _ := debug.ReadBuildInfo()
	v := buildVersion(version, info)
	if *asJSON {
		return json.NewEncoder(e.Stdout).Encode(struct {
			Version string `json:"version"`
		}{v})
	}
	_, err := fmt.Fprintf(e.Stdout, "arbor %s\n", v)
	return err
}

// buildVersion is what arbor version says: the release stamped at link
// time; else the module version Go records for `go install
// module@version`; else the VCS revision of the checkout it was built
// from, with the commit's time and "+dirty" for uncommitted changes (Go
// stamps these into every build of a main package inside a repository);
// else "dev" (a build without that record, as go run or go test make).
func buildVersion(stamped string, info *debug.BuildInfo) string {
	if v := strings.TrimSpace(stamped); v != "" {
		return v
	}
	if info == nil {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	v := "dev-" + rev[:min(len(rev), 12)]
	if dirty {
		v += "+dirty"
	}
	if at != "" {
		v += " (" + at + ")"
	}
	return v
}
