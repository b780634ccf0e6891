// Package cli is Arbor's command line as a library: the algorithm
// registry that cmd/arbor dispatches over, and the kit an algorithm's
// command is written with (Env, NewFlags and Parse with the rules every
// command shares, device flags and openings, verdicts, atomic output).
//
// # How an algorithm registers
//
// Like a database/sql driver, an algorithm registers one descriptor from
// init, in a package of its own folder (by convention
// algorithms/NAME/command, package NAMEcmd):
//
//	func init() {
//		cli.Register(&cli.Algorithm{
//			Name:     "kcount",
//			Summary:  "number of k-cliques",
//			Synopsis: "GRAPH -k K [--engine cpu|gpu] [--json]",
//			Engines: []cli.Engine{
//				{Name: "cpu", Help: "the Go search on every core"},
//				{Name: "gpu", Help: "the device search", Device: true},
//			},
//			Schema: "kcount.json",
//			Run: cli.Pipeline(cli.Problem[options, *core.Graph, result]{
//				Files: 1, Flags: declare, Input: input, Solve: solve,
//				Verify: verify, Text: text, JSON: object,
//			}),
//			Bench: &bench.Problem{Files: 1, Engines: []string{"cpu", "gpu"}},
//		})
//	}
//
// algorithms/all imports every algorithm folder's packages: after adding a
// folder, run go generate ./... (it rewrites algorithms/all/all.go and
// docs/cli.md's generated sections). cmd/arbor imports algorithms/all, so
// the command is then listed by arbor help, runs as arbor NAME, has its
// section in docs/cli.md, its --json output checked against
// docs/schema/Schema by the schema tests, and its Bench problem in arbor
// bench — with no edit outside the folder (and the schema file).
//
// Run is the whole command. Pipeline builds it from a Problem: the
// shared flags (--engine from Engines, --backend and --device when an
// engine runs on a device, --threads, --timeout, --format, --json,
// --verify, -v, --batch LIST), the algorithm's own flags, reading the
// graph files (Problem.Input makes the algorithm's input of them),
// solving, checking (Verify runs on every result) and printing, with the
// exit codes of docs/cli.md; --batch runs a list in the batch runner's
// slots. A command whose flow does not fit (mcs's screening, the cluster
// runs, match's device opening while the file is read) writes Run itself
// with the kit: NewFlags and Parse, SearchFlags or DeviceFlags,
// Env.ReadGraph, Verdict, WriteAtomic.
//
// The registry is the only global state here besides the backends'.
package cli

import (
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cluster"
	"github.com/arbor-gpu/arbor/internal/bench"
)

// Algorithm is what an algorithm registers: one command of arbor.
type Algorithm struct {
	// Name is the command: arbor Name. It is also the bench problem's
	// kind and the batch rows' command.
	Name string
	// Summary is arbor help's line for it.
	Summary string
	// Synopsis is the usage after "arbor Name " (-h's first line).
	Synopsis string
	// Search, for a command that takes the shared search flags
	// (SearchFlags: -o, --json, --verify, --threads, --engine, …), is
	// what it says of them: NewSearchFlags declares them from it.
	Search *SearchHelp
	// Engines are the values of --engine, the default first.
	Engines []Engine
	// Schema is the file in docs/schema that the --json output follows
	// ("" none); the schema tests check every registered command's.
	Schema string
	// SchemaJSON, when set, is that schema's text, kept in the
	// algorithm's folder (go:embed): go generate ./cmd/arbor writes it to
	// docs/schema/Schema, and TestDocsCoverHelp fails while the two
	// differ. A new algorithm then needs no file outside its folder.
	SchemaJSON []byte
	// Doc is docs/cli.md's text for the command beyond its -h (markdown;
	// go generate ./cmd/arbor writes the section from it and -h).
	Doc string
	// Examples writes small inputs into dir and returns the arguments of
	// runs on them (without --json) whose --json outputs the schema tests
	// check against Schema: one for each shape the output takes.
	Examples func(dir string) ([][]string, error)
	// ReadsGraphs: the command reads graph files, so it takes the
	// readers' limits --max-input and --max-memory.
	ReadsGraphs bool
	// Threads: the command's --threads is a count of CPU threads, clamped
	// to what the machine can use (not a count of work-items).
	Threads bool
	// Run is the command (Pipeline builds one from a Problem). It returns
	// nil (exit 0), a UsageError (2), an UnsettledError after printing (3)
	// or another error (1); ErrHelp after printing -h.
	Run func(e *Env) error
	// Bench is what arbor bench needs to run and check the command on an
	// instance suite (nil: no bench support). Register fills its Kind.
	Bench *bench.Problem
	// Demo runs the algorithm on embedded sample data on dev, for arbor
	// demo (nil: not in the demo).
	Demo func(e *Env, dev backend.Device) error
	// Cluster names the cluster problem that --cluster runs ("" none):
	// its codec, registered with cluster.RegisterCodec before the command
	// registers (mcs and vc are package cluster's own; another problem's
	// codec package is imported by its command package, so Go's
	// initialisation order registers it first). Register panics when no
	// codec has the name.
	Cluster string
}

// EnginesOf is the Engines of a command that declares --engine itself
// (SearchFlags), from the algorithm's own list (the default first): each
// helped "see --engine" (the flag's usage says what it does), on a device
// where device says so; and their names, for bench.
func EnginesOf[E ~string](list []E, device func(E) bool) ([]Engine, []string) {
	engines := make([]Engine, len(list))
	names := make([]string, len(list))
	for i, en := range list {
		engines[i] = Engine{Name: string(en), Help: "see --engine", Device: device(en)}
		names[i] = string(en)
	}
	return engines, names
}

// Engine is one value of an algorithm's --engine.
type Engine struct {
	Name string
	// Help says what the engine does, for --engine's usage.
	Help string
	// Device: the engine runs on the device of --backend/--device, so the
	// command takes those flags and opens the device for it.
	Device bool
}

var (
	registryMu sync.RWMutex
	registry   = map[string]*Algorithm{}
)

// Register makes an algorithm a command of arbor. It panics on a second
// registration of a name, or a descriptor without Name, Summary or Run:
// a porting error, found by the first test that loads the package.
func Register(a *Algorithm) {
	if a == nil || a.Name == "" || a.Summary == "" || a.Run == nil {
		panic("cli: Register needs an Algorithm with Name, Summary and Run")
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[a.Name]; dup {
		panic(fmt.Sprintf("cli: Register called twice for %q", a.Name))
	}
	if a.Cluster != "" && !slices.Contains(cluster.Problems(), a.Cluster) {
		panic(fmt.Sprintf("cli: %s names cluster problem %q, which has no codec (cluster.RegisterCodec)", a.Name, a.Cluster))
	}
	registry[a.Name] = a
	if a.Bench != nil {
		a.Bench.Kind = bench.Kind(a.Name)
		bench.Register(a.Bench)
	}
}

// Lookup returns the registered algorithm of a command name.
func Lookup(name string) (*Algorithm, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	a, ok := registry[name]
	return a, ok
}

// Algorithms returns every registered algorithm, sorted by name.
func Algorithms() []*Algorithm {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]*Algorithm, 0, len(registry))
	for _, a := range registry {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// readsGraphs reports whether the command reads graph files: a
// registered algorithm that says so, or info.
func readsGraphs(name string) bool {
	if a, ok := Lookup(name); ok {
		return a.ReadsGraphs
	}
	return name == "info"
}

// threadCommand reports whether the command's --threads counts CPU
// threads: a registered algorithm that says so, or arbor worker.
func threadCommand(name string) bool {
	if a, ok := Lookup(name); ok {
		return a.Threads
	}
	return name == "worker"
}
