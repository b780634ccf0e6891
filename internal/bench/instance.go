// Package bench runs Arbor's solvers, and other people's, over suites of
// instances with known answers and records, checks and plots the results:
// the logic behind 'arbor bench'. Every run is a separate process (the
// arbor binary re-executed with a command's --json output, or an external
// solver's command line) with a wall-clock limit and a memory cap, so a
// hang or a crash is a recorded result, not the end of the suite.
package bench

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Kind is the problem an instance poses; it is also the arbor command
// that solves it.
type Kind string

const (
	KindMCS    Kind = "mcs"    // maximum common induced subgraph of two graphs
	KindVC     Kind = "vc"     // minimum vertex cover
	KindClique Kind = "clique" // maximum clique
	KindMatch  Kind = "match"  // handshaking (greedy) weighted matching
)

// kinds lists the kinds in a fixed order.
var kinds = []Kind{KindMCS, KindVC, KindClique, KindMatch}

func parseKind(s string) (Kind, bool) {
	for _, k := range allKinds() {
		if string(k) == s {
			return k, true
		}
		if p, ok := problemOf(k); ok && slices.Contains(p.Aliases, s) {
			return k, true
		}
	}
	switch s { // the algorithm names users may write instead
	case "mcsplit", "mcis":
		return KindMCS, true
	case "vertex-cover", "vertexcover":
		return KindVC, true
	case "matching":
		return KindMatch, true
	case "max-clique", "maxclique":
		return KindClique, true
	}
	return "", false
}

// minimise reports whether smaller answers are better for kind.
func (k Kind) minimise() bool {
	if p, ok := problemOf(k); ok {
		return p.Minimise
	}
	return k == KindVC
}

// files is how many graph files an instance of the kind names.
func (k Kind) files() int {
	if p, ok := problemOf(k); ok {
		return max(p.Files, 1)
	}
	if k == KindMCS {
		return 2
	}
	return 1
}

// Known is an instance's answer where one is known.
type Known struct {
	// Size is the answer's size (cover, clique, common subgraph, or the
	// number of matched pairs); -1 when unknown.
	Size int
	// Proven says Size is the optimum; else it is only a solution some
	// reference solver found (MIVIA pairs it did not finish), so a
	// proven answer worse than it is wrong.
	Proven bool
	// Nodes is the original sequential McSplit's search-node count: the
	// sequential engine (one thread, CPU) must reproduce it. 0: unknown.
	Nodes int64
	// Mate is a file of the reference matching (partner or -1 per
	// vertex, 0-based), "" when none.
	Mate string
}

// unknown is the Known of an instance without a reference answer.
var unknown = Known{Size: -1}

// Instance is one problem to solve.
type Instance struct {
	Name  string   // unique in a suite: the results' key
	Kind  Kind     // also the arbor command run
	Files []string // the graph files: G and H for mcs, else one
	Args  []string // further flags for the arbor command (e.g. --complement)
	Known Known
	Edges int // undirected edges where known beforehand (generated graphs), else 0
}

// ReadList reads a user's CSV list of instances. Each record is
//
//	kind,file[,file2],answer[,args]
//
// where kind is mcs, vc, clique or match (or an algorithm name such as
// matching), mcs takes two files and the others one, answer is the known
// size (empty or "-" when unknown; a trailing "?" marks a bound that is
// not proven optimal) and args are extra flags for the arbor command,
// space-separated (e.g. "--complement"). Lines starting with # and a
// header line starting with "kind" or "algorithm" are skipped. Relative
// paths are relative to the list's folder.
func ReadList(path string) ([]Instance, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseList(f, path, filepath.Dir(path))
}

func parseList(r io.Reader, name, base string) ([]Instance, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	var out []Instance
	seen := map[string]bool{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		k := strings.ToLower(strings.TrimSpace(rec[0]))
		if len(out) == 0 && (k == "kind" || k == "algorithm") {
			continue
		}
		kind, ok := parseKind(k)
		if !ok {
			return nil, fmt.Errorf("%s:%d: kind %q: want %s", name, line, rec[0], kindList())
		}
		nf := kind.files()
		if len(rec) < 1+nf {
			return nil, fmt.Errorf("%s:%d: %s needs %d file column(s) after the kind, got %d field(s) in all", name, line, kind, nf, len(rec))
		}
		if len(rec) > 1+nf+2 {
			return nil, fmt.Errorf("%s:%d: %d fields; want kind, %d file(s), an optional answer and optional arguments", name, line, len(rec), nf)
		}
		in := Instance{Kind: kind, Known: unknown}
		for _, p := range rec[1 : 1+nf] {
			p = strings.TrimSpace(p)
			if p == "" {
				return nil, fmt.Errorf("%s:%d: empty file name", name, line)
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(base, p)
			}
			if _, err := os.Stat(p); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			in.Files = append(in.Files, p)
		}
		if len(rec) > 1+nf {
			a := strings.TrimSpace(rec[1+nf])
			if a != "" && a != "-" {
				proven := !strings.HasSuffix(a, "?")
				v, err := strconv.Atoi(strings.TrimSuffix(a, "?"))
				if err != nil || v < 0 {
					return nil, fmt.Errorf("%s:%d: answer %q: want a non-negative integer, empty or -", name, line, a)
				}
				in.Known = Known{Size: v, Proven: proven}
			}
		}
		if len(rec) > 2+nf {
			in.Args = strings.Fields(rec[2+nf])
		}
		in.Name = instanceName(in)
		// Names key the results: a repeated instance is told apart by line.
		if seen[in.Name] {
			in.Name = fmt.Sprintf("%s#%d", in.Name, line)
		}
		seen[in.Name] = true
		out = append(out, in)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no instances (want lines kind,file[,file2],answer[,args])", name)
	}
	return out, nil
}

// instanceName is the file name(s) without folders, plus any arguments.
func instanceName(in Instance) string {
	var parts []string
	for _, f := range in.Files {
		parts = append(parts, filepath.Base(f))
	}
	s := strings.Join(parts, "+")
	if len(in.Args) > 0 {
		s += " " + strings.Join(in.Args, " ")
	}
	return s
}
