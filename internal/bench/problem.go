package bench

import (
	"slices"
	"sort"
	"strings"
	"sync"
)

// Problem is what bench knows of an algorithm: how an instance of its
// kind is run (the arbor command of the same name with --json) and
// checked. Algorithms register one through cli.Register (the Bench field
// of their descriptor); Register is called from there.
type Problem struct {
	// Kind is the problem, and the arbor command that solves it (set by
	// cli.Register from the command's name).
	Kind Kind
	// Aliases are other names a list file may give the kind.
	Aliases []string
	// Files is how many graph files an instance names (0: one).
	Files int
	// Minimise: smaller answers are better (a cover), else larger (a
	// clique); an answer better than a proven known one is wrong.
	Minimise bool
	// Engines are what --engines may name for the kind, the default
	// first.
	Engines []string
	// DeviceEngines are those of Engines that run on a device: each runs
	// once per --backends value.
	DeviceEngines []string
	// CPUThreads: the command's --threads is a CPU thread count, so a
	// --threads list runs each value (else one run, the command's own
	// default).
	CPUThreads bool
	// Check, when set, checks an answer independently of the solver
	// against the instance's graphs (a cover covers, a count agrees with a
	// second count): it returns why the answer is wrong, or nil.
	Check func(in Instance, a Answer) error
	// Parse, when set, reads the command's --json output into an Answer
	// (nil: the fields every search command prints: size, status, proven,
	// nodes, seconds, threads, engine, device, verified).
	Parse func(out []byte) (Answer, error)
	// Peers are parsers of other solvers' outputs for this kind, by
	// --compare-format name ("pace", "mcsplit"), besides --compare-regex.
	Peers map[string]func(out []byte) (Answer, error)
}

var (
	problemsMu sync.RWMutex
	problems   = map[Kind]*Problem{}
)

// Register adds a problem kind to bench (cli.Register calls it).
func Register(p *Problem) {
	problemsMu.Lock()
	defer problemsMu.Unlock()
	problems[p.Kind] = p
}

// problemOf returns the registered problem of a kind.
func problemOf(k Kind) (*Problem, bool) {
	problemsMu.RLock()
	defer problemsMu.RUnlock()
	p, ok := problems[k]
	return p, ok
}

// registeredKinds lists the registered kinds by name.
func registeredKinds() []Kind {
	problemsMu.RLock()
	defer problemsMu.RUnlock()
	out := make([]Kind, 0, len(problems))
	for k := range problems {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// allKinds lists bench's own kinds, then the other registered ones.
func allKinds() []Kind {
	out := slices.Clone(kinds)
	for _, k := range registeredKinds() {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// kindList names the kinds for a message: "mcs, vc, clique or match".
func kindList() string {
	ks := allKinds()
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = string(k)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// engines lists the engines bench offers for a kind, the default first.
func (k Kind) engines() []string {
	if es, ok := kindEngines[k]; ok {
		return es
	}
	if p, ok := problemOf(k); ok {
		return p.Engines
	}
	return nil
}

// defaultEngine is the engine a kind runs when --engines names none of
// its own.
func (k Kind) defaultEngine() string {
	if e, ok := kindDefault[k]; ok {
		return e
	}
	if es := k.engines(); len(es) > 0 {
		return es[0]
	}
	return ""
}

// cpuThreads reports whether the kind's --threads counts CPU threads.
func (k Kind) cpuThreads() bool {
	switch k {
	case KindMCS, KindVC, KindClique:
		return true
	case KindMatch:
		return false
	}
	p, ok := problemOf(k)
	return ok && p.CPUThreads
}

// registeredDevice reports whether engine e of a kind bench does not know
// itself runs on a device, so that it runs once per --backends value.
func (k Kind) registeredDevice(e string) bool {
	if slices.Contains(kinds, k) {
		return false
	}
	p, ok := problemOf(k)
	return ok && slices.Contains(p.DeviceEngines, e)
}

// KnownFormat reports whether f names a peer output format: one of
// bench's own (pace, mcsplit, json) or a registered problem's Peers.
func KnownFormat(f Format) bool {
	switch f {
	case FormatPACE, FormatMcSplit, FormatJSON:
		return true
	}
	for _, k := range registeredKinds() {
		if p, _ := problemOf(k); p.Peers[string(f)] != nil {
			return true
		}
	}
	return false
}
