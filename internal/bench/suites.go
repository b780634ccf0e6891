package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/atomicfile"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// SuiteOptions says where a named suite finds its data and how much of it
// to take.
type SuiteOptions struct {
	Data string // the shared data folder (see its README)
	// Limit caps the instances: a spread sample over the suite's order
	// (match-large: the smallest). -1 takes the suite's default (the easy
	// suites sample so that they finish quickly), 0 takes all.
	Limit int
	// GenDir is where generated instances are written (match-large);
	// files already there are reused.
	GenDir string
}

type suite struct {
	summary string
	limit   int // default Limit
	build   func(o SuiteOptions) ([]Instance, error)
	sets    []string // the data sets it reads (DataSets' Dir), for 'arbor bench fetch'
}

func suites() map[string]suite {
	return map[string]suite{
		"mcs-easy": {"MIVIA pairs the original McSplit proved in under 0.5 s (a sample)", 20, func(o SuiteOptions) ([]Instance, error) {
			return miviaSuite(o, func(p dataset.MIVIAPair) bool { return p.Proven && p.Seconds < 0.5 })
		}, []string{"mcs/mivia"}},
		"mcs-medium": {"MIVIA pairs the original McSplit proved in 5 to 60 s", 0, func(o SuiteOptions) ([]Instance, error) {
			return miviaSuite(o, func(p dataset.MIVIAPair) bool { return p.Proven && p.Seconds >= 5 && p.Seconds <= 60 })
		}, []string{"mcs/mivia"}},
		"mcs-hard": {"MIVIA pairs that took the original McSplit over 100 s (most unfinished in 1000 s)", 0, func(o SuiteOptions) ([]Instance, error) {
			return miviaSuite(o, func(p dataset.MIVIAPair) bool { return p.Seconds > 100 })
		}, []string{"mcs/mivia"}},
		"match-cs314":   {"the CS314 matching inputs, checked against their reference matchings", 0, cs314Suite, []string{"matching/cs314"}},
		"match-large":   {"generated R-MAT and G(n,p) graphs from 10^5 to 8·10^6 edges, weights 1..1000 (default: up to 10^6)", 4, largeMatchSuite, nil},
		"vc-small":      {"the 28 PACE 2019 vertex cover instances of at most 450 vertices (the hard cores)", 0, func(o SuiteOptions) ([]Instance, error) { return paceSuite(o, 450) }, []string{"vc/pace2019"}},
		"vc-pace":       {"all 100 public PACE 2019 vertex cover instances", 0, func(o SuiteOptions) ([]Instance, error) { return paceSuite(o, 0) }, []string{"vc/pace2019"}},
		"vc-yamout":     {"the graphs of Yamout et al.'s GPU vertex cover study (IPDPS 2022)", 0, yamoutSuite, []string{"vc/yamout2022"}},
		"vc-bhoslib":    {"BHOSLIB frb instances (minimum cover n − N by construction)", 0, bhoslibSuite, []string{"vc/bhoslib"}},
		"clique-dimacs": {"maximum clique of complements with known clique numbers (clique/optima.csv)", 0, cliqueSuite, []string{"clique", "vc/yamout2022", "vc/bhoslib"}},
	}
}

// SuiteNames lists the named suites with their summaries, sorted.
func SuiteNames() []string {
	var out []string
	for name, s := range suites() {
		out = append(out, fmt.Sprintf("%-14s %s", name, s.summary))
	}
	sort.Strings(out)
	return out
}

// IsSuite reports whether name is a named suite.
func IsSuite(name string) bool { _, ok := suites()[name]; return ok }

// Suite builds the named suite's instances.
func Suite(name string, o SuiteOptions) ([]Instance, error) {
	s, ok := suites()[name]
	if !ok {
		var names []string
		for n := range suites() {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("unknown suite %q (want one of %s, or a CSV list file)", name, strings.Join(names, ", "))
	}
	if o.Limit < 0 {
		o.Limit = s.limit
	}
	ins, err := s.build(o)
	if err != nil {
		return nil, fmt.Errorf("suite %s: %w", name, err)
	}
	if len(ins) == 0 {
		return nil, fmt.Errorf("suite %s: no instances found under %s", name, o.Data)
	}
	if name != "match-large" { // that one is built smallest first and cut there
		ins = spread(ins, o.Limit)
	}
	return ins, nil
}

// spread takes limit items spaced evenly over in (all when limit ≤ 0),
// so a sample covers the suite's range rather than its first families.
func spread(in []Instance, limit int) []Instance {
	if limit <= 0 || limit >= len(in) {
		return in
	}
	out := make([]Instance, 0, limit)
	for i := range limit {
		out = append(out, in[i*len(in)/limit])
	}
	return out
}

// sub returns data/rel, or an error naming it when it is absent.
func sub(o SuiteOptions, rel string) (string, error) {
	if o.Data == "" {
		return "", fmt.Errorf("needs the data set %s: no data folder found; 'arbor bench fetch' with this suite places it in %s (or give --data DIR, or set $%s)", rel, CacheDir(), dataset.EnvDir)
	}
	p := filepath.Join(o.Data, rel)
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%s not found (the data folder is %s; 'arbor bench fetch' with this suite places the data set there with --data)", p, o.Data)
	}
	return p, nil
}

// subRows is sub(o, rel) and the rows read from it by read.
func subRows[T any](o SuiteOptions, rel string, read func(dir string) ([]T, error)) (string, []T, error) {
	dir, err := sub(o, rel)
	if err != nil {
		return "", nil, err
	}
	rows, err := read(dir)
	return dir, rows, err
}

// exists drops instances whose files are absent: the GPU machine's data
// folder holds a subset of the sets.
func exists(in Instance) bool {
	for _, f := range in.Files {
		if _, err := os.Stat(f); err != nil {
			return false
		}
	}
	return true
}

func miviaSuite(o SuiteOptions, keep func(dataset.MIVIAPair) bool) ([]Instance, error) {
	dir, pairs, err := subRows(o, "mcs/mivia", dataset.ReadMIVIA)
	if err != nil {
		return nil, err
	}
	var out []Instance
	for _, p := range pairs {
		if !keep(p) {
			continue
		}
		in := Instance{Name: p.G, Kind: KindMCS, Files: []string{filepath.Join(dir, p.G), filepath.Join(dir, p.H)},
			Known: Known{Size: p.Size, Proven: p.Proven}}
		if p.Proven {
			// Unfinished runs' node counts depend on when they stopped.
			in.Known.Nodes = p.Nodes
		}
		if exists(in) {
			out = append(out, in)
		}
	}
	return out, nil
}

func cs314Suite(o SuiteOptions) ([]Instance, error) {
	dir, err := sub(o, "matching/cs314")
	if err != nil {
		return nil, err
	}
	var out []Instance
	for k := 1; ; k++ {
		g := filepath.Join(dir, fmt.Sprintf("input%d.mtx", k))
		if _, err := os.Stat(g); err != nil {
			break
		}
		ref := filepath.Join(dir, fmt.Sprintf("match%d.txt", k))
		mate, err := dataset.ReadInts(ref)
		if err != nil {
			return nil, err
		}
		pairs := 0
		for v, p := range mate {
			if int(p) > v {
				pairs++
			}
		}
		out = append(out, Instance{Name: filepath.Base(g), Kind: KindMatch, Files: []string{g},
			Known: Known{Size: pairs, Proven: true, Mate: ref}})
	}
	return out, nil
}

// largeMatchSuite writes R-MAT (Graph500 parameters) and G(n,p) graphs of
// average degree 16, as the matching benchmarks use, in Matrix Market form
// with integer weights: the children read them as users' files.
func largeMatchSuite(o SuiteOptions) ([]Instance, error) {
	if o.GenDir == "" {
		return nil, fmt.Errorf("no folder to write the generated graphs to")
	}
	if err := os.MkdirAll(o.GenDir, 0o755); err != nil {
		return nil, err
	}
	type gen struct {
		name  string
		build func() *core.Graph
	}
	var gens []gen
	for _, scale := range []int{13, 16, 19} {
		n := (16 << scale) / 8
		gens = append(gens,
			gen{fmt.Sprintf("rmat-s%d", scale), func() *core.Graph { return core.RMAT(scale, 16, 0.57, 0.19, 0.19, 1) }},
			gen{fmt.Sprintf("gnp-n%d", n), func() *core.Graph { return core.GNP(n, 16/float64(n-1), 2) }})
	}
	if o.Limit > 0 && o.Limit < len(gens) {
		gens = gens[:o.Limit]
	}
	var out []Instance
	for _, g := range gens {
		path := filepath.Join(o.GenDir, g.name+".mtx")
		edges, err := generated(path, g.build)
		if err != nil {
			return nil, err
		}
		out = append(out, Instance{Name: g.name, Kind: KindMatch, Files: []string{path}, Known: unknown, Edges: edges})
	}
	// The graphs are on disk: give their memory back before the runs,
	// whose peak memory would otherwise include it (see resetPeak).
	debug.FreeOSMemory()
	return out, nil
}

// generated writes build()'s graph to path unless a complete file is
// there already, and returns its edge count (kept in path + ".edges").
func generated(path string, build func() *core.Graph) (int, error) {
	if b, err := os.ReadFile(path + ".edges"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			if _, err := os.Stat(path); err == nil {
				return n, nil
			}
		}
	}
	g := core.RandomIntWeights(build(), 1, 1000, 3)
	if err := atomicfile.Write(path, func(w io.Writer) error { return core.WriteGraph(w, g, core.FormatMTX) }); err != nil {
		return 0, err
	}
	// The count is written last: its presence says the graph is whole.
	if err := os.WriteFile(path+".edges", []byte(strconv.Itoa(g.Edges())+"\n"), 0o644); err != nil {
		return 0, err
	}
	return g.Edges(), nil
}

func paceSuite(o SuiteOptions, maxN int) ([]Instance, error) {
	dir, err := sub(o, "vc/pace2019")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "optima.csv")
	var rowErr error
	rows, err := dataset.ReadOptima(dir, "optima.csv", "instance", "min_vc", ".gr", func(r dataset.Row) bool {
		if maxN == 0 {
			return true
		}
		n, err := r.Int(path, "n")
		if err != nil && rowErr == nil {
			rowErr = err
		}
		return err == nil && n <= maxN
	})
	if err != nil {
		return nil, err
	}
	if rowErr != nil {
		return nil, rowErr
	}
	return optimaInstances(rows, KindVC), nil
}

func optimaInstances(rows []dataset.Optimum, kind Kind) []Instance {
	var out []Instance
	for _, r := range rows {
		in := Instance{Name: filepath.Base(r.Path), Kind: kind, Files: []string{r.Path}, Known: Known{Size: r.Opt, Proven: true}}
		if exists(in) {
			out = append(out, in)
		}
	}
	return out
}

func yamoutSuite(o SuiteOptions) ([]Instance, error) {
	_, rows, err := subRows(o, "vc/yamout2022", func(dir string) ([]dataset.Optimum, error) {
		return dataset.ReadOptima(dir, "optima.csv", "file", "min_vc", "", nil)
	})
	if err != nil {
		return nil, err
	}
	return optimaInstances(rows, KindVC), nil
}

func bhoslibSuite(o SuiteOptions) ([]Instance, error) {
	dir, err := sub(o, "vc/bhoslib")
	if err != nil {
		return nil, err
	}
	// The files as they are, or gzip-compressed (the GPU machine gets them
	// so: the device tool carries 64 MiB).
	files, err := filepath.Glob(filepath.Join(dir, "frb*.mis"))
	if err != nil {
		return nil, err
	}
	gz, err := filepath.Glob(filepath.Join(dir, "frb*.mis.gz"))
	if err != nil {
		return nil, err
	}
	files = append(files, gz...)
	// Smallest families first, so a --limit sample spans the sizes.
	sort.Slice(files, func(i, j int) bool {
		a, _ := dataset.BHOSLIBMinCover(files[i])
		b, _ := dataset.BHOSLIBMinCover(files[j])
		if a != b {
			return a < b
		}
		return files[i] < files[j]
	})
	var out []Instance
	for _, f := range files {
		opt, ok := dataset.BHOSLIBMinCover(f)
		if !ok {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f), ".gz")
		out = append(out, Instance{Name: name, Kind: KindVC, Files: []string{f}, Known: Known{Size: opt, Proven: true}})
	}
	return out, nil
}

// cliqueSuite solves the complements of clique/optima.csv's files. Each
// file is read here (they are small) because a Yamout file with a spare
// vertex 0 has a clique number one above the table's.
func cliqueSuite(o SuiteOptions) ([]Instance, error) {
	_, rows, err := subRows(o, "clique", dataset.ReadCliqueOptima)
	if err != nil {
		return nil, err
	}
	var out []Instance
	for _, r := range rows {
		if _, err := os.Stat(r.Path); err != nil {
			continue
		}
		g, err := core.ReadGraph(r.Path, core.ReadOptions{})
		if err != nil {
			return nil, err
		}
		omega, err := r.OmegaFor(g.N, g.N > 0 && g.Degree(0) == 0)
		if err != nil {
			return nil, err
		}
		out = append(out, Instance{Name: filepath.Base(r.Path), Kind: KindClique, Files: []string{r.Path}, Args: []string{"--complement"},
			Known: Known{Size: omega, Proven: true}})
	}
	return out, nil
}
