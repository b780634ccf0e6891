package bench

import (
	"sort"
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
