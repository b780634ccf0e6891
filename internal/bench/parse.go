package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Answer is what a solver's output says.
type Answer struct {
	Size   int  // -1: no solution
	Proven bool // the solver claims optimality (or, for matching, completion)
	Nodes  int64
	// Seconds is the solver's own time where it reports one (0: none).
	Seconds float64
	Device  string
	Engine  string // the engine the solver says it ran (arbor's why)
	// Prune is mcs's pruning mode ("rr", "none", …; prune.mode in its
	// --json): only "none" walks the original McSplit's tree.
	Prune   string
	Threads int
	Edges   int     // matching: the graph's undirected edges
	Weight  float64 // matching: the matching's weight
	// Verified says the solver checked its answer independently (arbor's
	// --verify); Cover (1-based) or Mapping let the bench check it.
	Verified bool
	Cover    []int
	Mapping  [][2]int
	Mate     []int32
}

// Format names a peer's output format.
type Format string

const (
	FormatAuto    Format = ""        // detect: arbor JSON, PACE, McSplit
	FormatJSON    Format = "json"    // arbor's --json
	FormatPACE    Format = "pace"    // PACE vertex cover: s vc N K, then K vertices
	FormatMcSplit Format = "mcsplit" // McSplit: Solution size N, (v -> w) pairs, Nodes: N
	FormatRegex   Format = "regex"   // --compare-regex: the first group is the size
)

// ParseOutput reads a solver's stdout. re is used with FormatRegex.
func ParseOutput(kind Kind, f Format, re *regexp.Regexp, out []byte) (Answer, error) {
	if f == FormatAuto {
		f = detect(out)
	}
	if p, ok := problemOf(kind); ok && p.Peers[string(f)] != nil {
		return p.Peers[string(f)](out)
	}
	switch f {
	case FormatJSON:
		return ParseArborJSON(kind, out)
	case FormatPACE:
		return ParsePACE(out)
	case FormatMcSplit:
		return ParseMcSplit(out)
	case FormatRegex:
		return ParseRegex(re, out)
	}
	return Answer{Size: -1}, fmt.Errorf("no answer recognised in the output (want arbor --json, PACE 's vc N K' or McSplit 'Solution size N'; or give --compare-regex NAME='size=(\\d+)'): %q", head(out))
}

func detect(out []byte) Format {
	t := bytes.TrimSpace(out)
	switch {
	case bytes.HasPrefix(t, []byte("{")):
		return FormatJSON
	case bytes.Contains(out, []byte("Solution size")):
		return FormatMcSplit
	case paceLine.Match(out):
		return FormatPACE
	}
	return "unknown"
}

var paceLine = regexp.MustCompile(`(?m)^s\s+vc\s`)

func head(b []byte) string {
	const n = 200
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// ParseArborJSON reads the --json output of arbor's command for kind.
func ParseArborJSON(kind Kind, out []byte) (Answer, error) {
	a := Answer{Size: -1}
	if p, ok := problemOf(kind); ok && p.Parse != nil {
		return p.Parse(out)
	}
	if kind == KindMatch {
		// arbor match --json (docs/schema/match.json).
		var m struct {
			arborJSON
			Weight float64 `json:"weight"`
			Mate   []int32 `json:"mate"`
		}
		if err := json.Unmarshal(out, &m); err != nil {
			return a, fmt.Errorf("arbor match --json output: %w: %q", err, head(out))
		}
		if m.Size == nil {
			return a, fmt.Errorf("arbor match --json output has no size: %q", head(out))
		}
		a = m.answer(true)
		a.Weight, a.Mate = m.Weight, m.Mate
		return a, nil
	}
	// mcs, vc and clique share these fields.
	// A vc -k run that found no cover has no size (docs/cli.md); edges is
	// the edges of vc and clique's graph.
	var j struct {
		arborJSON
		Status  string   `json:"status"`
		Proven  bool     `json:"proven"`
		Nodes   int64    `json:"nodes"`
		Cover   []int    `json:"cover"`
		Clique  []int    `json:"clique"`
		Mapping [][2]int `json:"mapping"`
		Prune   struct {
			Mode string `json:"mode"`
		} `json:"prune"`
	}
	if err := json.Unmarshal(out, &j); err != nil {
		return a, fmt.Errorf("arbor %s --json output: %w: %q", kind, err, head(out))
	}
	if j.Size == nil && j.Status == "" {
		return a, fmt.Errorf("arbor %s --json output has no size: %q", kind, head(out))
	}
	a = j.answer(j.Proven)
	a.Nodes, a.Cover, a.Mapping, a.Prune = j.Nodes, j.Cover, j.Mapping, j.Prune.Mode
	return a, nil
}

// arborJSON is the fields of every arbor command's --json that an answer
// takes (size: absent where a vc -k run found no cover).
type arborJSON struct {
	Size     *int    `json:"size"`
	Edges    int     `json:"edges"`
	Threads  int     `json:"threads"`
	Engine   string  `json:"engine"`
	Device   string  `json:"device"`
	Seconds  float64 `json:"seconds"`
	Verified bool    `json:"verified"`
}

// answer is the Answer of those fields (Size -1 without a size).
func (c arborJSON) answer(proven bool) Answer {
	a := Answer{Size: -1, Proven: proven, Seconds: c.Seconds, Device: c.Device, Engine: c.Engine, Threads: c.Threads,
		Edges: c.Edges, Verified: c.Verified}
	if c.Size != nil {
		a.Size = *c.Size
	}
	return a
}

func joinDevice(backend, name string) string {
	switch {
	case backend == "":
		return name
	case name == "":
		return backend
	}
	return backend + ":" + name
}

// ParsePACE reads a PACE vertex cover solution: comment lines start with
// c, then "s vc N K", then K lines of one 1-based vertex each.
func ParsePACE(out []byte) (Answer, error) {
	a := Answer{Size: -1}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	line, n, k := 0, -1, -1
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || t[0] == 'c' {
			continue
		}
		f := strings.Fields(t)
		if k < 0 {
			if len(f) != 4 || f[0] != "s" || f[1] != "vc" {
				return a, fmt.Errorf("PACE output line %d: want \"s vc N K\", got %q", line, t)
			}
			var err1, err2 error
			n, err1 = strconv.Atoi(f[2])
			k, err2 = strconv.Atoi(f[3])
			if err1 != nil || err2 != nil || n < 0 || k < 0 || k > n {
				return a, fmt.Errorf("PACE output line %d: bad solution line %q (want 0 ≤ K ≤ N)", line, t)
			}
			a.Cover = make([]int, 0, min(k, 1<<16))
			continue
		}
		if len(f) != 1 {
			return a, fmt.Errorf("PACE output line %d: want one vertex, got %q", line, t)
		}
		v, err := strconv.Atoi(f[0])
		if err != nil || v < 1 || v > n {
			return a, fmt.Errorf("PACE output line %d: vertex %q not in 1..%d", line, f[0], n)
		}
		a.Cover = append(a.Cover, v)
	}
	if err := sc.Err(); err != nil {
		return a, fmt.Errorf("PACE output: %w", err)
	}
	if k < 0 {
		return a, errors.New("PACE output: no \"s vc N K\" line")
	}
	if len(a.Cover) != k {
		return a, fmt.Errorf("PACE output: \"s vc %d %d\" but %d vertices follow", n, k, len(a.Cover))
	}
	a.Size, a.Proven = k, true
	return a, nil
}

var (
	mcsplitSize  = regexp.MustCompile(`(?m)^\s*Solution size\s+(\d+)`)
	mcsplitNodes = regexp.MustCompile(`(?m)^\s*Nodes:\s+(\d+)`)
	mcsplitPair  = regexp.MustCompile(`\(\s*(\d+)\s*->\s*(\d+)\s*\)`)
	mcsplitTime  = regexp.MustCompile(`(?m)^\s*CPU time \(ms\):\s+(\d+)`)
	mcsplitAbort = regexp.MustCompile(`(?m)^\s*TIMEOUT\b`)
)

// ParseMcSplit reads the original McSplit's output: "Solution size N", the
// mapping as "(v -> w)" pairs, "Nodes: N", "CPU time (ms): T" and
// "TIMEOUT" when it stopped early.
func ParseMcSplit(out []byte) (Answer, error) {
	a := Answer{Size: -1}
	m := mcsplitSize.FindSubmatch(out)
	if m == nil {
		return a, fmt.Errorf("McSplit output: no \"Solution size N\" line: %q", head(out))
	}
	size, err := strconv.Atoi(string(m[1]))
	if err != nil {
		return a, fmt.Errorf("McSplit output: solution size %q: %w", m[1], err)
	}
	a.Size = size
	if m := mcsplitNodes.FindSubmatch(out); m != nil {
		if a.Nodes, err = strconv.ParseInt(string(m[1]), 10, 64); err != nil {
			return a, fmt.Errorf("McSplit output: node count %q: %w", m[1], err)
		}
	}
	if m := mcsplitTime.FindSubmatch(out); m != nil {
		if ms, err := strconv.ParseInt(string(m[1]), 10, 64); err == nil {
			a.Seconds = float64(ms) / 1000
		}
	}
	for _, p := range mcsplitPair.FindAllSubmatch(out, -1) {
		v, err1 := strconv.Atoi(string(p[1]))
		w, err2 := strconv.Atoi(string(p[2]))
		if err1 != nil || err2 != nil {
			return a, fmt.Errorf("McSplit output: mapping pair %q out of range", p[0])
		}
		a.Mapping = append(a.Mapping, [2]int{v, w})
	}
	if a.Mapping != nil && len(a.Mapping) != size {
		return a, fmt.Errorf("McSplit output: solution size %d but %d mapping pairs", size, len(a.Mapping))
	}
	a.Proven = !mcsplitAbort.Match(out)
	return a, nil
}

// ParseRegex takes the size from re's first group (its first match); the
// answer counts as proven when the solver exits normally.
func ParseRegex(re *regexp.Regexp, out []byte) (Answer, error) {
	a := Answer{Size: -1}
	if re == nil || re.NumSubexp() < 1 {
		return a, errors.New("--compare-regex needs a regular expression with a group, e.g. 'size=(\\d+)'")
	}
	m := re.FindSubmatch(out)
	if m == nil {
		return a, fmt.Errorf("%q does not match the output: %q", re, head(out))
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(m[1])))
	if err != nil || v < 0 {
		return a, fmt.Errorf("%q matched %q: want a non-negative integer", re, m[1])
	}
	a.Size, a.Proven = v, true
	return a, nil
}
