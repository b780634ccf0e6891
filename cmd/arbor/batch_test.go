package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/clique"
	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
)

// batchRowJSON is what the tests read of a batch row.
type batchRowJSON struct {
	Index       *int            `json:"index"`
	Line        int             `json:"line"`
	Interrupted bool            `json:"interrupted"`
	Files       []string        `json:"files"`
	Error       string          `json:"error"`
	Size        *int            `json:"size"`
	Status      string          `json:"status"`
	Proven      bool            `json:"proven"`
	Goal        *int            `json:"goal"`
	GoalMet     *bool           `json:"goal_met"`
	Base        json.RawMessage `json:"base"`
	Engine      string          `json:"engine"`
	Verified    bool            `json:"verified"`
	Mapping     [][2]int        `json:"mapping"`
	Cover       []int           `json:"cover"`
	Clique      []int           `json:"clique"`
	raw         map[string]any
}

// parseRows reads JSON Lines, validating each row against its schema: the
// command's for an answer, batch-error.json for a failed row.
func parseRows(t *testing.T, cmd, out string) []batchRowJSON {
	t.Helper()
	schema, errSchema := loadSchema(t, cmd), loadSchema(t, "batch-error")
	var rows []batchRowJSON
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var r batchRowJSON
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not a JSON line: %v\n%s", err, line)
		}
		if err := json.Unmarshal([]byte(line), &r.raw); err != nil {
			t.Fatal(err)
		}
		s := schema
		if r.Error != "" {
			s = errSchema
		}
		for _, e := range validate(s, any(r.raw), "$") {
			t.Errorf("row %s: %s", line[:min(len(line), 80)], e)
		}
		if r.Index == nil {
			t.Fatalf("row without index: %s", line)
		}
		rows = append(rows, r)
	}
	return rows
}

// randomGraph is G(n, p) from seed.
func randomGraph(t *testing.T, n int, p float64, seed uint64) *core.Graph {
	t.Helper()
	return gnp(t, n, p, rand.New(rand.NewPCG(seed, 35)))
}

// gnp is G(n, p) drawn from rng: each pair of vertices an edge with
// probability p.
func gnp(t *testing.T, n int, p float64, rng *rand.Rand) *core.Graph {
	t.Helper()
	b := core.NewBuilder(n, false)
	for u := range n {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < p {
				b.AddEdge(u, v)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// writeList writes a list file of lines in dir.
func writeList(t *testing.T, dir string, lines ...string) string {
	t.Helper()
	return writeFile(t, dir, "list.csv", strings.Join(lines, "\n")+"\n")
}

// singleMCS is the one-at-a-time answer: size and status.
func singleMCS(t *testing.T, g, h string, extra ...string) (int, string) {
	t.Helper()
	code, out, stderr := runCLI(t, append([]string{"mcs", g, h, "--engine", "cpu", "--threads", "1", "--json"}, extra...)...)
	var r batchRowJSON
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Size == nil {
		t.Fatalf("mcs %s %s: exit %d %s %s", g, h, code, out, stderr)
	}
	return *r.Size, r.Status
}

// checkMapping checks a row's mapping with the independent checker.
func checkMapping(t *testing.T, r batchRowJSON, opts mcs.Options) {
	t.Helper()
	var base []int
	if err := json.Unmarshal(r.Base, &base); err != nil || len(base) != 2 {
		t.Fatalf("row %d: base %s", *r.Index, r.Base)
	}
	g, err := core.ReadGraph(r.Files[0], core.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := core.ReadGraph(r.Files[1], core.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := make([][2]int, len(r.Mapping))
	for i, p := range r.Mapping {
		m[i] = [2]int{p[0] - base[0], p[1] - base[1]}
	}
	if err := mcs.Verify(g, h, m, opts); err != nil || len(m) != *r.Size {
		t.Errorf("row %d: mapping of %d pairs for size %d: %v", *r.Index, len(m), *r.Size, err)
	}
}

// mcsPairs writes n random pairs and returns their files.
func mcsPairs(t *testing.T, n int) (dir string, pairs [][2]string, lines []string) {
	t.Helper()
	var gs []*core.Graph
	for i := range n {
		gs = append(gs, randomGraph(t, 10+2*i, 0.3, uint64(2*i)), randomGraph(t, 12+i, 0.35, uint64(2*i+1)))
	}
	paths := writeGraphs(t, core.FormatMIVIA, "mivia", gs...)
	dir = filepath.Dir(paths[0])
	for i := range n {
		pairs = append(pairs, [2]string{paths[2*i], paths[2*i+1]})
		lines = append(lines, filepath.Base(paths[2*i])+","+filepath.Base(paths[2*i+1]))
	}
	return dir, pairs, lines
}

// TestBatchMCS: batch answers equal one-at-a-time answers (size and
// status), every mapping passes the checker, bad lines are rows with
// their errors, the batch goes on and exits 1; text gives one line each.
func TestBatchMCS(t *testing.T) {
	dir, pairs, lines := mcsPairs(t, 6)
	lines = append([]string{"# generated pairs", "g,h"}, lines...)
	lines = append(lines, "missing.mivia,"+filepath.Base(pairs[0][1]), "just-one-field", filepath.Base(pairs[1][0])+",notagraph.txt")
	writeFile(t, dir, "notagraph.txt", "hello\n")
	list := writeList(t, dir, lines...)
	code, out, stderr := runCLI(t, "mcs", "--batch", list, "--engine", "cpu", "--threads", "2", "--json", "--verify")
	if code != 1 || !strings.Contains(stderr, "3 of 9 instances failed") {
		t.Fatalf("exit %d, want 1 (three bad lines): %s", code, stderr)
	}
	rows := parseRows(t, "mcs", out)
	if len(rows) != 9 {
		t.Fatalf("%d rows, want 9:\n%s", len(rows), out)
	}
	seen := map[int]bool{}
	for _, r := range rows {
		i := *r.Index
		if seen[i] {
			t.Errorf("index %d twice", i)
		}
		seen[i] = true
		if r.Line != i+3 {
			t.Errorf("row %d: line %d, want %d", i, r.Line, i+3)
		}
		if i >= len(pairs) {
			wantErr := map[int]string{6: "missing.mivia", 7: "1 field, want", 8: "notagraph.txt"}[i]
			if r.Error == "" || !strings.Contains(r.Error, wantErr) || !strings.Contains(r.Error, fmt.Sprintf("list.csv:%d:", r.Line)) {
				t.Errorf("row %d: error %q, want one naming list.csv:%d and %q", i, r.Error, r.Line, wantErr)
			}
			continue
		}
		if r.Error != "" || r.Size == nil {
			t.Fatalf("row %d failed: %s", i, r.Error)
		}
		if r.Files[0] != pairs[i][0] || r.Files[1] != pairs[i][1] {
			t.Errorf("row %d: files %v, want %v", i, r.Files, pairs[i])
		}
		size, status := singleMCS(t, pairs[i][0], pairs[i][1])
		if *r.Size != size || r.Status != status || !r.Verified {
			t.Errorf("row %d: size %d status %s verified %v; one at a time: %d %s", i, *r.Size, r.Status, r.Verified, size, status)
		}
		checkMapping(t, r, mcs.Options{})
	}
	// Text: one line per instance; the list from standard input, paths
	// then relative to the working folder.
	var in bytes.Buffer
	for _, p := range pairs[:3] {
		fmt.Fprintf(&in, "%s,%s\n", p[0], p[1])
	}
	var o, e bytes.Buffer
	code = runIO(context.Background(), []string{"mcs", "--batch", "-", "--engine", "cpu", "--threads", "1"}, &in, &o, &e)
	if code != 0 || strings.Count(o.String(), "\n") != 3 || strings.Count(o.String(), "proven maximum") != 3 {
		t.Errorf("text from stdin: exit %d\n%s%s", code, o.String(), e.String())
	}
	// --require-optimal: a row stopped by its --timeout leaves the
	// question unsettled (3); usage errors are 2.
	ok := writeList(t, t.TempDir(), pairs[5][0]+","+pairs[5][1])
	if code, _, stderr := runCLI(t, "mcs", "--batch", ok, "--engine", "cpu", "--timeout", "1ns", "--require-optimal"); code != 3 {
		t.Errorf("--require-optimal with an unproven row: exit %d (%s), want 3", code, stderr)
	}
	wantExit(t, 2, [][]string{
		{"mcs", "--batch", ok, pairs[0][0]},
		{"mcs", "--batch", ok, "--against", ok},
		{"mcs", "--batch", ok, "--top", "3"},
		{"mcs", pairs[0][0], "--against", ok},
		{"mcs", "--batch", ok, "--device-slots", "-1"},
		{"vc", "--batch", ok, "--min-size", "3"},
	})
}

// batchBackends are the backends the device batches run on: the CPU
// backend's Go twins always, then OpenCL (PoCL here and in CI) and CUDA
// where they are present (the GPU machine).
func batchBackends(t *testing.T) []string {
	backends := []string{"cpu"}
	if backend.ProbeBackend("opencl").Available() {
		backends = append(backends, "opencl")
	} else if os.Getenv("ARBOR_REQUIRE") == "opencl" {
		t.Fatal("ARBOR_REQUIRE=opencl but OpenCL is unavailable")
	} else {
		t.Log("no OpenCL device")
	}
	if backend.ProbeBackend("cuda").Available() {
		backends = append(backends, "cuda")
	}
	return backends
}

// TestBatchMCSDevice: the same on the device engine (the CPU backend's Go
// twin, and PoCL where OpenCL is installed): rows that ran on the device
// say so, and every answer equals the CPU engine's one at a time.
func TestBatchMCSDevice(t *testing.T) {
	dir, pairs, lines := mcsPairs(t, 5)
	big := writeGraphs(t, core.FormatMIVIA, "mivia", randomGraph(t, 300, 0.01, 9))[0]
	lines = append(lines, big+","+filepath.Base(pairs[0][1]))
	list := writeList(t, dir, lines...)
	for _, be := range batchBackends(t) {
		for _, engine := range []string{"gpu", "hybrid"} {
			code, out, stderr := runCLI(t, "mcs", "--batch", list, "--backend", be, "--engine", engine, "--threads", "1", "--device-slots", "2", "--json")
			if code != 1 {
				t.Fatalf("%s %s: exit %d (want 1: a graph too large for the device): %s", be, engine, code, stderr)
			}
			rows := parseRows(t, "mcs", out)
			onDevice := 0
			for _, r := range rows {
				i := *r.Index
				if i == len(pairs) {
					if want := fmt.Sprintf("list.csv:%d: %s, %s: too large for the device engine", i+1, big, pairs[0][1]); !strings.HasSuffix(strings.SplitN(r.Error, " (--engine", 2)[0], want) {
						t.Errorf("%s %s: row %d error %q, want %q…", be, engine, i, r.Error, want)
					}
					continue
				}
				size, status := singleMCS(t, pairs[i][0], pairs[i][1])
				if r.Size == nil || *r.Size != size || r.Status != status {
					t.Errorf("%s %s row %d: %+v; one at a time %d %s", be, engine, i, r, size, status)
					continue
				}
				checkMapping(t, r, mcs.Options{})
				if r.Engine == engine {
					onDevice++
				}
			}
			if len(rows) != len(pairs)+1 || onDevice == 0 {
				t.Errorf("%s %s: %d rows, %d on the device", be, engine, len(rows), onDevice)
			}
		}
	}
}

// TestBatchMIVIA: a few proven MIVIA pairs of expected.csv in one batch,
// on the CPU engine and (where installed) PoCL's device engine: the sizes
// are the original McSplit's.
func TestBatchMIVIA(t *testing.T) {
	dir := "../../../shared/data/mcs/mivia"
	f, err := os.Open(filepath.Join(dir, "expected.csv"))
	if err != nil {
		t.Skipf("MIVIA data absent (%v): the shared data set is not here", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	var lines []string
	for _, r := range recs[1:] {
		secs, _ := strconv.ParseFloat(r[5], 64)
		if r[6] != "yes" || secs > 0.02 || len(lines) >= 12 {
			continue
		}
		size, _ := strconv.Atoi(r[3])
		abs, _ := filepath.Abs(filepath.Join(dir, r[0]))
		want[abs] = size
		lines = append(lines, abs+","+filepath.Join(filepath.Dir(abs), r[1]))
	}
	list := writeList(t, t.TempDir(), lines...)
	runs := [][]string{{"--engine", "cpu", "--threads", "2"}}
	for _, be := range batchBackends(t)[1:] {
		runs = append(runs, []string{"--backend", be, "--engine", "gpu", "--threads", "1"})
	}
	for _, args := range runs {
		code, out, stderr := runCLI(t, append([]string{"mcs", "--batch", list, "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		rows := parseRows(t, "mcs", out)
		if len(rows) != len(lines) {
			t.Fatalf("%v: %d rows, want %d", args, len(rows), len(lines))
		}
		for _, r := range rows {
			if r.Size == nil || *r.Size != want[r.Files[0]] || r.Status != "optimal" {
				t.Errorf("%v: %s: size %v status %s, want %d optimal", args, r.Files[0], r.Size, r.Status, want[r.Files[0]])
				continue
			}
			checkMapping(t, r, mcs.Options{})
		}
	}
}

// TestBatchResume: -o gets the JSON Lines; a rerun with the same -o skips
// the instances answered and runs the failed ones again, leaving one row
// per instance.
func TestBatchResume(t *testing.T) {
	dir, pairs, lines := mcsPairs(t, 4)
	lines = append(lines, "late.mivia,"+filepath.Base(pairs[0][1]))
	list := writeList(t, dir, lines...)
	outFile := filepath.Join(t.TempDir(), "rows.jsonl")
	code, out, stderr := runCLI(t, "mcs", "--batch", list, "--engine", "cpu", "-o", outFile)
	if code != 1 || strings.Count(out, "\n") != 5 {
		t.Fatalf("first run: exit %d, %q %s", code, out, stderr)
	}
	first, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	if rows := parseRows(t, "mcs", string(first)); len(rows) != 5 {
		t.Fatalf("-o holds %d rows, want 5", len(rows))
	}
	// The missing file appears; a cut-off line (a crash mid-write) is
	// dropped on resume.
	data, _ := os.ReadFile(pairs[0][0])
	if err := os.WriteFile(filepath.Join(dir, "late.mivia"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outFile, append(first, `{"index":9,"files":["x"`...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, "mcs", "--batch", list, "--engine", "cpu", "-o", outFile, "--json")
	if code != 0 || !strings.Contains(stderr, "4 instances already answered, skipped; 1 instance to run") {
		t.Fatalf("resume: exit %d, stderr %q", code, stderr)
	}
	if rows := parseRows(t, "mcs", out); len(rows) != 1 || *rows[0].Index != 4 || rows[0].Error != "" {
		t.Errorf("resume ran %s, want the one failed instance (index 4)", out)
	}
	all, _ := os.ReadFile(outFile)
	rows := parseRows(t, "mcs", string(all))
	var idx []int
	for _, r := range rows {
		if r.Error != "" {
			t.Errorf("a failed row is left in -o: %+v", r)
		}
		idx = append(idx, *r.Index)
	}
	sort.Ints(idx)
	if !slices.Equal(idx, []int{0, 1, 2, 3, 4}) {
		t.Errorf("-o has rows %v, want one for each of 0..4", idx)
	}
	code, out, stderr = runCLI(t, "mcs", "--batch", list, "--engine", "cpu", "-o", outFile)
	if code != 0 || out != "" || !strings.Contains(stderr, "5 instances already answered") {
		t.Errorf("a third run: exit %d %q %q, want nothing left to run", code, out, stderr)
	}
}

// TestBatchVCClique: vc and clique batches equal their one-at-a-time
// answers; every cover and clique passes its checker.
func TestBatchVCClique(t *testing.T) {
	var gs []*core.Graph
	for i := range 5 {
		gs = append(gs, randomGraph(t, 12+4*i, 0.25+0.05*float64(i), uint64(100+i)))
	}
	paths := writeGraphs(t, core.FormatDIMACS, "clq", gs...)
	dir := filepath.Dir(paths[0])
	var lines []string
	for _, p := range paths {
		lines = append(lines, filepath.Base(p))
	}
	list := writeList(t, dir, append(lines, "gone.clq")...)
	engines := [][]string{{"--engine", "cpu", "--threads", "2"}}
	for _, be := range batchBackends(t) {
		engines = append(engines, []string{"--engine", "gpu", "--backend", be, "--threads", "1"})
	}
	for _, cmd := range []string{"vc", "clique"} {
		for _, extra := range [][]string{nil, {"--complement"}} {
			for _, eng := range engines {
				extra := append(slices.Clone(extra), eng...)
				checkBatchVCClique(t, cmd, list, paths, gs, extra)
			}
		}
	}
}

// checkBatchVCClique runs one vc or clique batch and checks each row
// against the one-at-a-time answer (CPU engine) and the checker.
func checkBatchVCClique(t *testing.T, cmd, list string, paths []string, gs []*core.Graph, extra []string) {
	t.Helper()
	complement := slices.Contains(extra, "--complement")
	args := append([]string{cmd, "--batch", list, "--json"}, extra...)
	code, out, stderr := runCLI(t, args...)
	if code != 1 {
		t.Fatalf("%v: exit %d (want 1: gone.clq): %s", args, code, stderr)
	}
	rows := parseRows(t, cmd, out)
	if len(rows) != len(paths)+1 {
		t.Fatalf("%v: %d rows", args, len(rows))
	}
	onDevice := 0
	for _, r := range rows {
		if r.Engine == "gpu" {
			onDevice++
		}
	}
	if slices.Contains(extra, "gpu") && onDevice == 0 {
		t.Errorf("%v: no row ran on the device", args)
	}
	for _, r := range rows {
		i := *r.Index
		if i == len(paths) {
			if !strings.Contains(r.Error, "gone.clq") {
				t.Errorf("%v: row %d error %q", args, i, r.Error)
			}
			continue
		}
		singleArgs := []string{cmd, paths[i], "--json", "--threads", "1", "--engine", "cpu"}
		if complement {
			singleArgs = append(singleArgs, "--complement")
		}
		code, single, stderr := runCLI(t, singleArgs...)
		var s batchRowJSON
		if code != 0 || json.Unmarshal([]byte(single), &s) != nil {
			t.Fatalf("single %s: %d %s", paths[i], code, stderr)
		}
		if r.Size == nil || s.Size == nil || *r.Size != *s.Size || r.Status != s.Status {
			t.Errorf("%v row %d: %v %s, one at a time %v %s", args, i, r.Size, r.Status, s.Size, s.Status)
			continue
		}
		g := gs[i]
		var base int
		json.Unmarshal(r.Base, &base)
		if cmd == "vc" {
			if complement {
				g = vertexcover.Complement(g)
			}
			if err := vertexcover.Verify(g, cli.Shifted(r.Cover, -base)); err != nil {
				t.Errorf("%v row %d: %v", args, i, err)
			}
		} else if err := clique.Verify(g, cli.Shifted(r.Clique, -base), complement); err != nil {
			t.Errorf("%v row %d: %v", args, i, err)
		}
	}
}

// TestAgainst: screening one query against a library, --min-size and
// --top, checked against the maximum of every pair one at a time.
func TestAgainst(t *testing.T) {
	var gs []*core.Graph
	for i := range 9 {
		gs = append(gs, randomGraph(t, 11+i%4*2, 0.3, uint64(300+i)))
	}
	paths := writeGraphs(t, core.FormatMIVIA, "mivia", gs...)
	query, lib := paths[0], paths[1:]
	libDir := filepath.Dir(lib[0])
	os.Remove(query) // the folder holds the library alone
	qdir := t.TempDir()
	q := filepath.Join(qdir, "query.mivia")
	qf, err := os.Create(q)
	if err != nil {
		t.Fatal(err)
	}
	if err := core.WriteGraph(qf, gs[0], core.FormatMIVIA); err != nil {
		t.Fatal(err)
	}
	if err := qf.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(libDir, "expected.csv"), []byte("g\n"), 0o644); err != nil {
		t.Fatal(err) // not a graph: --against DIR skips it
	}
	sizes := map[string]int{}
	var all []int
	for _, p := range lib {
		s, _ := singleMCS(t, q, p)
		sizes[p] = s
		all = append(all, s)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(all)))
	k := all[len(all)/2]
	var lines []string
	for _, p := range lib {
		lines = append(lines, p)
	}
	list := writeList(t, t.TempDir(), lines...)
	for _, src := range []string{libDir, list} {
		code, out, stderr := runCLI(t, "mcs", q, "--against", src, "--min-size", strconv.Itoa(k), "--engine", "cpu", "--json")
		if code != 0 {
			t.Fatalf("--min-size: exit %d: %s", code, stderr)
		}
		got := map[string]int{}
		for _, r := range parseRows(t, "mcs", out) {
			if r.Files[0] != q || r.GoalMet == nil || !*r.GoalMet || r.Status != "optimal" {
				t.Errorf("--min-size row %+v", r)
			}
			got[r.Files[1]] = *r.Size
			checkMapping(t, r, mcs.Options{})
		}
		for p, s := range sizes {
			if (s >= k) != (got[p] > 0) || (s >= k && got[p] != s) {
				t.Errorf("%s: %s: maximum %d, screening with K=%d says %d (0: not reported)", src, p, s, k, got[p])
			}
		}
		for _, n := range []int{1, 3, len(lib) + 2} {
			code, out, stderr := runCLI(t, "mcs", q, "--against", src, "--top", strconv.Itoa(n), "--engine", "cpu", "--threads", "2", "--json")
			if code != 0 {
				t.Fatalf("--top %d: exit %d: %s", n, code, stderr)
			}
			var top []int
			for _, r := range parseRows(t, "mcs", out) {
				if *r.Size != sizes[r.Files[1]] || r.Status != "optimal" {
					t.Errorf("--top %d: %s size %d status %s, maximum %d", n, r.Files[1], *r.Size, r.Status, sizes[r.Files[1]])
				}
				top = append(top, *r.Size)
			}
			if want := all[:min(n, len(all))]; !slices.Equal(top, want) {
				t.Errorf("%s --top %d: sizes %v, want %v", src, n, top, want)
			}
		}
	}
	if code, _, _ := runCLI(t, "mcs", q, "--against", list, "--min-size", "3", "--engine", "portfolio"); code != 2 {
		t.Errorf("--against with the portfolio: exit %d, want 2", code)
	}
}

// cancelOnWrite cancels a context a little after the first row is
// written: Ctrl-C while the next instance runs.
type cancelOnWrite struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	cancel func()
	once   sync.Once
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.once.Do(func() { time.AfterFunc(300*time.Millisecond, c.cancel) })
	return c.buf.Write(p)
}

// TestBatchInterrupt: Ctrl-C keeps the rows already printed, reports the
// running instance as interrupted and unproven, runs nothing more, and
// exits 1 saying how many were not run.
func TestBatchInterrupt(t *testing.T) {
	easy := randomGraph(t, 8, 0.3, 1)
	hard := randomGraph(t, 70, 0.5, 2)
	hard2 := randomGraph(t, 70, 0.5, 3)
	paths := writeGraphs(t, core.FormatMIVIA, "mivia", easy, hard, hard2)
	list := writeList(t, t.TempDir(),
		paths[0]+","+paths[0],
		paths[1]+","+paths[2],
		paths[2]+","+paths[1],
		paths[1]+","+paths[1]+"x")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelOnWrite{cancel: cancel}
	var stderr bytes.Buffer
	start := time.Now()
	code := runIO(ctx, []string{"mcs", "--batch", list, "--engine", "cpu", "--threads", "1", "--json"}, nil, out, &stderr)
	if time.Since(start) > 20*time.Second {
		t.Errorf("the interrupted batch took %v", time.Since(start))
	}
	if code != 1 || !strings.Contains(stderr.String(), "interrupted: 1 of 4 instances not run") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	rows := parseRows(t, "mcs", out.buf.String())
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3 (the failed line, the easy pair, the interrupted one):\n%s", len(rows), out.buf.String())
	}
	var interrupted int
	for _, r := range rows {
		if r.Interrupted {
			interrupted++
			if r.Proven || r.Status != "feasible" || r.Error != "" {
				t.Errorf("interrupted row %+v: want unproven (feasible) with its best", r)
			}
			checkMapping(t, r, mcs.Options{})
		}
	}
	if interrupted != 1 {
		t.Errorf("%d interrupted rows, want 1", interrupted)
	}
	// Ctrl-C before anything was read: nothing runs, nothing is printed.
	done, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	var o, e bytes.Buffer
	if code := runIO(done, []string{"mcs", "--batch", list, "--engine", "cpu", "--json"}, nil, &o, &e); code != 1 || o.Len() != 0 ||
		!strings.Contains(e.String(), "interrupted: 4 of 4 instances not run") {
		t.Errorf("cancelled before the start: exit %d, %q %q", code, o.String(), e.String())
	}
}

// TestBatchHandOff: with a hand-off too short for any instance, every
// instance a CPU slot takes goes on to the device slot, which answers it
// (the rows say the device engine ran), and the answers equal one-at-a-time
// ones; with --hand-off 0 the CPU slot keeps what it takes.
func TestBatchHandOff(t *testing.T) {
	dir, pairs, lines := mcsPairs(t, 6)
	list := writeList(t, dir, lines...)
	for _, handOff := range []string{"1e-9", "0"} {
		code, out, stderr := runCLI(t, "mcs", "--batch", list, "--backend", "cpu", "--engine", "gpu", "--threads", "1",
			"--device-slots", "1", "--hand-off", handOff, "--json")
		if code != 0 {
			t.Fatalf("--hand-off %s: exit %d: %s", handOff, code, stderr)
		}
		rows := parseRows(t, "mcs", out)
		onCPU := 0
		for _, r := range rows {
			size, status := singleMCS(t, pairs[*r.Index][0], pairs[*r.Index][1])
			if r.Size == nil || *r.Size != size || r.Status != status {
				t.Fatalf("--hand-off %s row %d: %+v; one at a time %d %s", handOff, *r.Index, r, size, status)
			}
			checkMapping(t, r, mcs.Options{})
			if r.Engine == "cpu" {
				onCPU++
			}
		}
		if len(rows) != len(pairs) {
			t.Fatalf("--hand-off %s: %d rows, want %d", handOff, len(rows), len(pairs))
		}
		if handOff != "0" && onCPU != 0 {
			t.Errorf("--hand-off %s: %d rows answered on the CPU slot, want every one handed to the device", handOff, onCPU)
		}
		if handOff == "0" && onCPU == 0 {
			t.Errorf("--hand-off 0: the CPU slot answered nothing")
		}
	}
}
