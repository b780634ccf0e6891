package bench

// Where a suite's files come from on a user's machine (issue #45, item
// 11): each suite names the data sets it reads; each set names its public
// source; data.sha256 (generated from a data folder by go generate, never
// edited by hand) holds a SHA-256 per file. 'arbor bench fetch' copies a
// suite's files from a folder that holds them (a download of the source,
// or the development data folder) into the cache, checking every one, and
// the suites find them there later.

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/arbor-gpu/arbor/internal/atomicfile"
)

//go:generate go run ./internal/manifestgen -o data.sha256

// manifestText is data.sha256: "SHA256  SET/FILE" lines, as sha256sum
// writes them, sorted by path.
//
//go:embed data.sha256
var manifestText string

// DataSet is one folder of the data folder that suites read, and where its
// files come from.
type DataSet struct {
	Dir    string // relative to the data folder: "mcs/mivia"
	Source string // the public benchmark's address (and what was derived from it)
}

// DataSets are the sets the suites read, in the data folder's layout
// (/work/shared/data's README says more of each).
var DataSets = []DataSet{
	{"mcs/mivia", "https://github.com/searow/cp2016-max-common-connected-subgraph-paper (datasets/graphsdb: the MIVIA ARG pairs); expected.csv from https://github.com/tararelan/mcsplit-unified-framework (hpc/validation/results/mcsplit_all.csv)"},
	{"matching/cs314", "https://github.com/stevencui2/Parallel-Graph-Matching (testcases)"},
	{"vc/pace2019", "https://github.com/daajoe/pace2019_vc_instances (0_instance_selection/optil_deployment/exact); optima.csv: the PACE 2019 results"},
	{"vc/yamout2022", "https://github.com/pky00/Parallel-Vertex-Cover-Algorithms-on-GPUs (the graphs and minimum covers of Yamout et al., IPDPS 2022)"},
	{"vc/bhoslib", "https://github.com/hvidberrrg/benchmark-graphs (benchmark_graphs/bhoslib/graphs, the *.mis files)"},
	{"clique", "optima.csv: the clique numbers of the complements of vc/yamout2022's and vc/bhoslib's graphs (derived from them)"},
}

// FileSum is one file of the manifest.
type FileSum struct {
	Path   string // relative to the data folder, with slashes
	SHA256 string // hex
}

// Manifest is the files of each data set with their checksums.
type Manifest map[string][]FileSum

// ParseManifest reads "SHA256  SET/…/FILE" lines; a file belongs to the
// longest set of sets that is a prefix of its path.
func ParseManifest(text string, sets []DataSet) (Manifest, error) {
	m := Manifest{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sum, path, ok := strings.Cut(line, "  ")
		if _, err := hex.DecodeString(sum); !ok || err != nil || len(sum) != 64 {
			return nil, fmt.Errorf("manifest line %d: want \"SHA256  PATH\", got %q", n, line)
		}
		set := ""
		for _, s := range sets {
			if strings.HasPrefix(path, s.Dir+"/") && len(s.Dir) > len(set) {
				set = s.Dir
			}
		}
		if set == "" {
			return nil, fmt.Errorf("manifest line %d: %s is in no data set", n, path)
		}
		m[set] = append(m[set], FileSum{Path: path, SHA256: sum})
	}
	return m, sc.Err()
}

// DefaultManifest is data.sha256, parsed.
func DefaultManifest() Manifest {
	m, err := ParseManifest(manifestText, DataSets)
	if err != nil {
		panic("internal/bench/data.sha256: " + err.Error()) // generated: a test reads it
	}
	return m
}

// SuiteSets are the data sets a named suite reads (none: it generates its
// instances).
func SuiteSets(name string) ([]DataSet, error) {
	s, ok := suites()[name]
	if !ok {
		return nil, fmt.Errorf("unknown suite %q (want one of %s)", name, strings.Join(suiteList(), ", "))
	}
	var out []DataSet
	for _, dir := range s.sets {
		for _, d := range DataSets {
			if d.Dir == dir {
				out = append(out, d)
			}
		}
	}
	return out, nil
}

// CacheDir is where 'arbor bench fetch' puts the data by default:
// $XDG_CACHE_HOME/arbor/data, else ~/.cache/arbor/data ("" when neither
// is known).
func CacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "arbor", "data")
}

// FetchResult is what Fetch did.
type FetchResult struct {
	Present, Placed int       // files already right in the destination, and copied there
	Missing         []FileSum // files found nowhere with the right checksum
}

// Fetch places the files of sets (m's checksums) under dest, taken from
// the folder from ("" : none): each file at its own path under from, or
// anywhere under it by name (a download keeps its own layout), accepted
// only with its checksum. Files already in dest with the right checksum
// stay. Each copy is written to a temporary file and renamed, so dest
// never holds half a file.
func Fetch(m Manifest, sets []DataSet, from, dest string) (FetchResult, error) {
	var res FetchResult
	var byName map[string][]string // from's files by base name, read once when needed
	for _, set := range sets {
		for _, f := range m[set.Dir] {
			dst := filepath.Join(dest, filepath.FromSlash(f.Path))
			if sum, err := FileSHA256(dst); err == nil && sum == f.SHA256 {
				res.Present++
				continue
			}
			if from == "" {
				res.Missing = append(res.Missing, f)
				continue
			}
			cands := []string{filepath.Join(from, filepath.FromSlash(f.Path))}
			if byName == nil {
				byName = indexByName(from)
			}
			cands = append(cands, byName[filepath.Base(f.Path)]...)
			src := ""
			for _, c := range cands {
				if sum, err := FileSHA256(c); err == nil && sum == f.SHA256 {
					src = c
					break
				}
			}
			if src == "" {
				res.Missing = append(res.Missing, f)
				continue
			}
			if err := copyFile(src, dst); err != nil {
				return res, err
			}
			res.Placed++
		}
	}
	return res, nil
}

// MissingMessage says what to download and where to put it, for files
// Fetch could not place.
func MissingMessage(suite string, sets []DataSet, missing []FileSum, dest string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "suite %s: %d file(s) not found with the right checksum (first: %s)", suite, len(missing), missing[0].Path)
	need := map[string]bool{}
	for _, f := range missing {
		for _, s := range sets {
			if strings.HasPrefix(f.Path, s.Dir+"/") {
				need[s.Dir] = true
			}
		}
	}
	for _, s := range sets {
		if need[s.Dir] {
			fmt.Fprintf(&sb, "\n  %s: download %s", s.Dir, s.Source)
		}
	}
	fmt.Fprintf(&sb, "\nthen run 'arbor bench fetch %s --from DIR' with DIR the downloaded folder (its files are found by name and checked), or put them under %s in the layout above", suite, dest)
	return sb.String()
}

// indexByName lists the regular files under dir by base name.
func indexByName(dir string) map[string][]string {
	out := map[string][]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out[d.Name()] = append(out[d.Name()], p)
		}
		return nil
	})
	return out
}

// FileSHA256 is a regular file's SHA-256 in hex (the manifest's checksum).
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", errors.New("not a regular file")
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// copyFile copies src to dst, whole or not at all.
func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := atomicfile.Write(dst, func(w io.Writer) error { _, err := io.Copy(w, in); return err }); err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	return nil
}

// suiteList is the suites' names, sorted.
func suiteList() []string {
	var names []string
	for n := range suites() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
