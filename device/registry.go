package device

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
)

// The source registry: every package that holds kernel sources (the
// toolkit, the primitives, the search layer, each algorithm's kernel
// package) registers them in its init, so that Text, Names, `arbor
// kernels` and `arbor verify` see whatever the binary links, and no list
// of sources is kept by hand.
type source struct {
	owner   string          // the registering package, e.g. "algorithms/mcs/kernel"
	text    string          // the .cl body, includes unresolved
	library bool            // only included by other sources: no entry points
	names   func() []string // entry points a scan of the text cannot see (macros)
}

var (
	regMu   sync.RWMutex
	sources = map[string]*source{}
	checks  = map[string]func(dataDir string) []Check{}
)

// RegisterSources registers every NAME.cl at the root of fsys (the owner's
// embedded files) as source NAME; the names in libraries are sources that
// other sources only include (#include "NAME.cl"): they are resolved by
// Text but neither listed nor built alone. It panics on a duplicate name,
// a programming error caught at start-up.
func RegisterSources(owner string, fsys fs.FS, libraries ...string) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		panic(fmt.Sprintf("device: %s: reading its sources: %v", owner, err))
	}
	regMu.Lock()
	defer regMu.Unlock()
	for _, e := range entries {
		if path.Ext(e.Name()) != ".cl" {
			continue
		}
		name := strings.TrimSuffix(e.Name(), ".cl")
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			panic(fmt.Sprintf("device: %s: %v", owner, err))
		}
		if old, dup := sources[name]; dup {
			panic(fmt.Sprintf("device: source %s.cl registered by %s and %s", name, old.owner, owner))
		}
		lib := false
		for _, l := range libraries {
			lib = lib || l == name
		}
		sources[name] = &source{owner: owner, text: string(b), library: lib}
	}
}

// RegisterKernelNames gives the entry points of a source that instantiates
// its kernels through macros (scan.cl), which KernelNames cannot find in
// the text.
func RegisterKernelNames(name string, names func() []string) {
	regMu.Lock()
	defer regMu.Unlock()
	s, ok := sources[name]
	if !ok {
		panic("device: RegisterKernelNames for unregistered source " + name)
	}
	s.names = names
}

// RegisterChecks adds a package's conformance checks (the cases `arbor
// verify` and the conformance tests run on every device against the CPU
// twins) under owner, the package's path in the module.
func RegisterChecks(owner string, fn func(dataDir string) []Check) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := checks[owner]; dup {
		panic("device: RegisterChecks called twice for " + owner)
	}
	checks[owner] = fn
}

// RegisterKernels registers a kernel package: its sources (as
// RegisterSources, no libraries) and its conformance checks (as
// RegisterChecks), both under owner. Each algorithm's kernel package
// calls it from init, so that `arbor kernels`, `arbor verify` and the
// conformance tests find them.
func RegisterKernels(owner string, fsys fs.FS, checks func(dataDir string) []Check) {
	RegisterSources(owner, fsys)
	RegisterChecks(owner, checks)
}

func lookupSource(name string) (*source, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	s, ok := sources[name]
	return s, ok
}

// Names lists the registered kernel sources (the libraries they include
// aside), sorted.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	var out []string
	for name, s := range sources {
		if !s.library {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Owner is the package that registered source name, or "".
func Owner(name string) string {
	if s, ok := lookupSource(name); ok {
		return s.owner
	}
	return ""
}

// Checks lists every registered check: the toolkit's own (device, then
// device/...) first, then each algorithm's, by package path. dataDir is
// ../shared/data or "" when absent; checks on real graphs are added only
// when it holds them.
func Checks(dataDir string) []Check {
	regMu.RLock()
	owners := make([]string, 0, len(checks))
	for o := range checks {
		owners = append(owners, o)
	}
	fns := checks
	regMu.RUnlock()
	sort.Slice(owners, func(i, j int) bool {
		ti, tj := strings.HasPrefix(owners[i], "device"), strings.HasPrefix(owners[j], "device")
		if ti != tj {
			return ti
		}
		return owners[i] < owners[j]
	})
	var all []Check
	for _, o := range owners {
		all = append(all, fns[o](dataDir)...)
	}
	return all
}
