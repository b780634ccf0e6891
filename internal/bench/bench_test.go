package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/internal/dataset"
	"github.com/arbor-gpu/arbor/internal/testfile"
	"github.com/arbor-gpu/arbor/internal/testrole"
)

// The runner's tests re-execute this test binary as a fake arbor: in the
// role "solver" (internal/testrole), TestMain answers like 'arbor KIND FILE… --json' from a
// script in the instance's file instead of running the tests.
func TestMain(m *testing.M) {
	if testrole.Is("solver") {
		os.Exit(fakeArbor(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// fakeArbor reads the first file argument, one directive per line:
// "size N", "unproven", "nodes N", "unverified", "sleep", "crash",
// "fail MESSAGE"; and prints arbor's --json shape.
func fakeArbor(args []string, stdout, stderr io.Writer) int {
	if err := ApplyChildLimits(); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if len(args) < 2 {
		fmt.Fprintln(stderr, "fake arbor: no file")
		return 2
	}
	script, err := os.ReadFile(args[1])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	out := map[string]any{"size": -1, "proven": true, "nodes": 1, "seconds": 0.001, "verified": true, "engine": "cpu"}
	for _, line := range strings.Split(string(script), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "c" { // directives may hide in PACE comments
			f = f[1:]
		}
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "size", "nodes":
			n, _ := strconv.Atoi(f[1])
			out[f[0]] = n
		case "prune":
			out["prune"] = map[string]any{"mode": f[1]}
		case "unproven":
			out["proven"] = false
		case "unverified":
			out["verified"] = false
		case "sleep":
			time.Sleep(time.Minute)
		case "crash":
			panic("fake arbor crashes as asked")
		case "alloc": // MiB, touched, then held a while
			n, _ := strconv.Atoi(f[1])
			b := make([]byte, n<<20)
			for i := range b {
				b[i] = 1
			}
			time.Sleep(3 * time.Second)
			out["nodes"] = int(b[len(b)-1])
		case "fail":
			fmt.Fprintln(stderr, "arbor: "+strings.Join(f[1:], " "))
			return 1
		}
	}
	if err := json.NewEncoder(stdout).Encode(out); err != nil {
		return 1
	}
	return 0
}

// writeTestFile writes an executable test file (a fake solver, say).
var writeTestFile = testfile.Executable

func fakeConfig(t *testing.T) Config {
	t.Helper()
	t.Setenv(testrole.Var, "solver")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The fake children answer at once: the limit is short, so that the
	// hanging one costs little, but not shorter than a child takes to
	// start (seconds under the race detector, whose binaries are slow to
	// start, or on a loaded machine).
	limit := 200 * time.Millisecond
	if raceEnabled {
		limit = 3 * time.Second
	}
	return Config{Exe: []string{exe}, Timeout: limit, Grace: 300 * time.Millisecond}
}

func vcInstance(dir, name, script string, known int) Instance {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(script), 0o644); err != nil {
		panic(err)
	}
	return Instance{Name: name, Kind: KindVC, Files: []string{p}, Known: Known{Size: known, Proven: known >= 0}}
}

func byInstance(rs []Result) map[string][]Result {
	m := map[string][]Result{}
	for _, r := range rs {
		m[r.Instance] = append(m[r.Instance], r)
	}
	return m
}

// TestRunStatuses: every way a child can end is a recorded row, and the
// suite goes on after a hang and a crash.
func TestRunStatuses(t *testing.T) {
	dir := t.TempDir()
	c := fakeConfig(t)
	var warn bytes.Buffer
	c.Warn = &warn
	var seen []Progress
	c.Progress = func(p Progress) { seen = append(seen, p) }
	ins := []Instance{
		vcInstance(dir, "right", "size 3\n", 3),
		vcInstance(dir, "wrong-known", "size 3\n", 4),
		vcInstance(dir, "hang", "sleep\n", 3),
		vcInstance(dir, "crash", "crash\n", 3),
		vcInstance(dir, "unproven", "size 5\nunproven\n", 3),
		vcInstance(dir, "beats-optimum", "size 2\nunproven\n", 3),
		vcInstance(dir, "verify-fails", "fail x.gr: verification failed: edge {1,2} uncovered\n", 3),
		vcInstance(dir, "unverified", "size 3\nunverified\n", 3),
		vcInstance(dir, "error", "fail cannot read x.gr\n", 3),
		vcInstance(dir, "no-known", "size 7\n", -1),
	}
	rs, err := Run(context.Background(), c, ins)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(ins) {
		t.Fatalf("%d results for %d instances", len(rs), len(ins))
	}
	want := map[string]Status{"right": StatusOK, "wrong-known": StatusWrong, "hang": StatusTimeout, "crash": StatusCrash,
		"unproven": StatusTimeout, "beats-optimum": StatusWrong, "verify-fails": StatusWrong, "unverified": StatusWrong,
		"error": StatusError, "no-known": StatusOK}
	for _, r := range rs {
		if r.Status != want[r.Instance] {
			t.Errorf("%s: status %s (%s), want %s", r.Instance, r.Status, r.Note, want[r.Instance])
		}
		if r.Engine != "arbor:auto" || r.Kind != KindVC || r.Seconds <= 0 {
			t.Errorf("%s: row %+v", r.Instance, r)
		}
	}
	m := byInstance(rs)
	if r := m["crash"][0]; !strings.Contains(r.Note, "panic: fake arbor crashes") {
		t.Errorf("crash note %q", r.Note)
	}
	if r := m["right"][0]; !r.Solved() || r.AnswerOK != "yes" || r.Size != 3 || r.Device != "cpu" || r.PeakMem <= 0 {
		t.Errorf("right: %+v", r)
	}
	if r := m["no-known"][0]; r.AnswerOK != "-" {
		t.Errorf("no-known: answer_ok %q with nothing to compare", r.AnswerOK)
	}
	if r := m["unproven"][0]; r.Size != 5 || r.Proven {
		t.Errorf("unproven: %+v", r)
	}
	for _, name := range []string{"wrong-known", "beats-optimum", "verify-fails"} {
		if !strings.Contains(warn.String(), "WRONG ANSWER: "+name) {
			t.Errorf("no loud report of %s in %q", name, warn.String())
		}
	}
	if !strings.Contains(warn.String(), "crash: crash") {
		t.Errorf("the crash is not reported: %q", warn.String())
	}
	last := seen[len(seen)-1]
	if last.Done != len(ins) || last.Total != len(ins) || last.Solved != 2 || last.Wrong != 4 {
		t.Errorf("last progress %+v", last)
	}
}

// TestMemoryCap: an arbor child past --mem-limit dies of its own address
// space cap; a peer (which sets no limit on itself) is killed by the
// parent's watch on its resident memory. Both are memout, and the suite
// goes on.
func TestMemoryCap(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector cannot run under an address space cap (its children fail with 'too many address space collisions')")
	}
	dir := t.TempDir()
	c := fakeConfig(t)
	c.Timeout, c.MemLimit = 20*time.Second, 64<<20
	// vc's auto may open a device, whose driver maps more address space
	// than any cap allows, so only a CPU-backend child caps its own.
	c.Backends = []string{"cpu"}
	exe := c.Exe[0]
	big := vcInstance(dir, "big", "alloc 512\nsize 3\n", 3)
	c.Peers = []Peer{{Name: "hog", Template: "'" + exe + "' vc {gr}"}}
	rs, err := Run(context.Background(), c, []Instance{big, vcInstance(dir, "small", "size 3\n", 3)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 {
		t.Fatalf("%d rows: %+v", len(rs), rs)
	}
	for _, r := range rs[:2] {
		if r.Status != StatusMemout {
			t.Errorf("%s by %s: status %s (%s), want memout", r.Instance, r.Engine, r.Status, r.Note)
		}
	}
	if !strings.Contains(rs[0].Note, "out of memory") {
		t.Errorf("arbor child's note %q does not say why", rs[0].Note)
	}
	if rs[2].Status != StatusOK || rs[3].Status != StatusOK {
		t.Errorf("after the memouts: %+v", rs[2:])
	}
}

// TestNodeCount: the sequential McSplit engine on the original tree
// (--prune none) must reproduce the known node count; other thread counts
// and the pruned tree (rr, the default) are not held to it.
func TestNodeCount(t *testing.T) {
	dir := t.TempDir()
	c := fakeConfig(t)
	c.Threads = []int{1, 2}
	for _, tc := range []struct {
		prune string
		wrong bool
	}{{"none", true}, {"rr", false}} {
		g := writeTestFile(t, dir, "g-"+tc.prune, "size 4\nnodes 99\nprune "+tc.prune+"\n")
		h := writeTestFile(t, dir, "h", "")
		rs, err := Run(context.Background(), c, []Instance{{Name: "p", Kind: KindMCS, Files: []string{g, h}, Known: Known{Size: 4, Proven: true, Nodes: 100}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 2 || rs[0].Threads != 1 || rs[1].Status != StatusOK {
			t.Fatalf("prune %s: %+v", tc.prune, rs)
		}
		if got := rs[0].Status == StatusWrong && strings.Contains(rs[0].Note, "search nodes"); got != tc.wrong {
			t.Errorf("prune %s: one thread, 99 nodes against 100: %+v", tc.prune, rs[0])
		}
	}
}

// TestPeers runs shell-script solvers: a right PACE one, a lying one, a
// crashing and a hanging one, a regex one and one that disagrees.
func TestPeers(t *testing.T) {
	dir := t.TempDir()
	c := fakeConfig(t)
	// A path: 1-2, 2-3; minimum cover {2}.
	gr := writeTestFile(t, dir, "path.gr", "p td 3 2\n1 2\n2 3\n")
	in := Instance{Name: "path", Kind: KindVC, Files: []string{gr}, Known: Known{Size: 1, Proven: true}}
	// The fake arbor reads its answer from the instance file: give it one.
	if err := os.WriteFile(gr, []byte("c size 1\np td 3 2\n1 2\n2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := writeTestFile(t, dir, "good.sh", "#!/bin/sh\ntest -f \"$1\" || exit 3\nprintf 'c fake\\ns vc 3 1\\n2\\n'\n")
	stdin := writeTestFile(t, dir, "stdin.sh", "#!/bin/sh\ngrep -q '^c size 1' || exit 4\nprintf 's vc 3 1\\n2\\n'\n")
	liar := writeTestFile(t, dir, "liar.sh", "#!/bin/sh\nprintf 's vc 3 1\\n1\\n'\n")
	c.Peers = []Peer{
		{Name: "good", Template: good + " {gr}"},
		{Name: "stdin", Template: stdin + " <{gr}"},
		{Name: "liar", Template: liar + " {gr}"},
		{Name: "segv", Template: "kill -SEGV $$"},
		{Name: "hang", Template: "sleep 30; echo never"},
		{Name: "regex", Template: "echo 'done: size=1 in 3ms'", Format: FormatRegex, Regex: regexp.MustCompile(`size=(\d+)`)},
		{Name: "noanswer", Template: "echo hello"},
	}
	rs, err := Run(context.Background(), c, []Instance{in})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Status{"arbor:auto": StatusOK, "good": StatusOK, "stdin": StatusOK, "liar": StatusWrong,
		"segv": StatusCrash, "hang": StatusTimeout, "regex": StatusOK, "noanswer": StatusError}
	if len(rs) != len(want) {
		t.Fatalf("%d rows: %+v", len(rs), rs)
	}
	for _, r := range rs {
		if r.Status != want[r.Engine] {
			t.Errorf("%s: status %s (%s), want %s", r.Engine, r.Status, r.Note, want[r.Engine])
		}
	}
	if r := rs[3]; r.Engine != "liar" || !strings.Contains(r.Note, "independent check") {
		t.Errorf("liar: %+v", r)
	}

	// Disagreement without a known answer: the odd one out is wrong.
	in.Known = unknown
	two := writeTestFile(t, dir, "two.sh", "#!/bin/sh\nprintf 's vc 3 2\\n1\\n3\\n'\n")
	c.Peers = []Peer{{Name: "good", Template: good + " {gr}"}, {Name: "two", Template: two}}
	rs, err = Run(context.Background(), c, []Instance{in})
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Status != StatusOK || rs[0].AnswerOK != "yes" || rs[1].Status != StatusOK || rs[2].Status != StatusWrong {
		t.Errorf("cross-check: %+v", rs)
	}
}

func TestExpand(t *testing.T) {
	in := Instance{Kind: KindMCS, Files: []string{"/d/a b.A00", "/d/it's.B00"}}
	got := expand("mcsplit -t {timeout} min_max {g} {h}", in, 1500*time.Millisecond)
	if got != `mcsplit -t 2 min_max '/d/a b.A00' '/d/it'\''s.B00'` {
		t.Errorf("mcs: %s", got)
	}
	in = Instance{Kind: KindVC, Files: []string{"/d/x.gr"}}
	if got := expand("solver <{gr}", in, 0); got != "solver <'/d/x.gr'" {
		t.Errorf("vc: %s", got)
	}
}

func TestParsers(t *testing.T) {
	a, err := ParsePACE([]byte("c solved\ns vc 5 2\n1\n4\n"))
	if err != nil || a.Size != 2 || !a.Proven || len(a.Cover) != 2 || a.Cover[1] != 4 {
		t.Errorf("PACE: %+v %v", a, err)
	}
	for _, bad := range []string{"", "s vc 3\n", "s vc 3 2\n1\n", "s vc 3 1\n7\n", "s vc 3 1\nx\n", "s td 3 1\n1\n"} {
		if _, err := ParsePACE([]byte(bad)); err == nil {
			t.Errorf("PACE accepted %q", bad)
		}
	}
	out := "Solution size 3\n(0 -> 2) (1 -> 0) (2 -> 1) \nNodes:                      1234\nCPU time (ms):              15\n"
	a, err = ParseMcSplit([]byte(out))
	if err != nil || a.Size != 3 || a.Nodes != 1234 || !a.Proven || len(a.Mapping) != 3 || a.Mapping[1] != [2]int{1, 0} || a.Seconds != 0.015 {
		t.Errorf("McSplit: %+v %v", a, err)
	}
	a, err = ParseMcSplit([]byte("Nodes: 5\nCPU time (ms): 1\nTIMEOUT\nSolution size 2\n"))
	if err != nil || a.Size != 2 || a.Proven || a.Mapping != nil {
		t.Errorf("McSplit timeout: %+v %v", a, err)
	}
	if _, err := ParseMcSplit([]byte("Solution size 2\n(0 -> 1)\n")); err == nil {
		t.Error("McSplit: size 2 with one pair accepted")
	}
	a, err = ParseRegex(regexp.MustCompile(`omega=(\d+)`), []byte("ok omega=12\n"))
	if err != nil || a.Size != 12 || !a.Proven {
		t.Errorf("regex: %+v %v", a, err)
	}
	if _, err := ParseRegex(regexp.MustCompile(`omega=\d+`), []byte("omega=12")); err == nil {
		t.Error("regex without a group accepted")
	}
	a, err = ParseOutput(KindVC, FormatAuto, nil, []byte(`{"size":4,"status":"optimal","proven":true,"edges":11,"nodes":7,"verified":true,"cover":[1,2,3,4]}`))
	if err != nil || a.Size != 4 || a.Nodes != 7 || len(a.Cover) != 4 || a.Edges != 11 {
		t.Errorf("arbor vc JSON: %+v %v", a, err)
	}
	// vc -k without a cover: no size, a status.
	a, err = ParseOutput(KindVC, FormatAuto, nil, []byte(`{"status":"infeasible","proven":true,"goal":3,"goal_met":false,"edges":11,"nodes":7,"verified":false}`))
	if err != nil || a.Size != -1 || !a.Proven || a.Cover != nil {
		t.Errorf("arbor vc -k JSON without a cover: %+v %v", a, err)
	}
	a, err = ParseOutput(KindMatch, FormatAuto, nil, []byte(`{"size":3,"edges":9,"weight":4.5,"backend":"cpu","device":"cpu:x","seconds":0.002,"verified":true,"mate":[1,0]}`))
	if err != nil || a.Size != 3 || a.Edges != 9 || a.Device != "cpu:x" || a.Seconds != 0.002 || !a.Verified || len(a.Mate) != 2 {
		t.Errorf("arbor match JSON: %+v %v", a, err)
	}
	if _, err := ParseOutput(KindVC, FormatAuto, nil, []byte("hello")); err == nil || !strings.Contains(err.Error(), "--compare-regex") {
		t.Errorf("unrecognised output: %v", err)
	}
}

func FuzzParsers(f *testing.F) {
	for _, s := range []string{"s vc 5 2\n1\n4\n", "c x\ns vc 0 0\n", "Solution size 3\n(0 -> 2) (1 -> 0) (2 -> 1)\nNodes: 9\n", "TIMEOUT\nSolution size 0\n",
		`{"size":3,"proven":true}`, `{"size":1,"edges":2}`, "size=12", "s vc 99999999999999999999 1\n"} {
		f.Add([]byte(s))
	}
	re := regexp.MustCompile(`size=(\d+)`)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, k := range kinds {
			for _, fm := range []Format{FormatAuto, FormatJSON, FormatPACE, FormatMcSplit, FormatRegex} {
				a, err := ParseOutput(k, fm, re, b)
				if err == nil && fm == FormatPACE && len(a.Cover) != a.Size {
					t.Fatalf("PACE: size %d with %d vertices", a.Size, len(a.Cover))
				}
				if err == nil && fm == FormatMcSplit && a.Mapping != nil && len(a.Mapping) != a.Size {
					t.Fatalf("McSplit: size %d with %d pairs", a.Size, len(a.Mapping))
				}
			}
		}
	})
}

func TestReadList(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, dir, "a.gr", "")
	writeTestFile(t, dir, "g", "")
	writeTestFile(t, dir, "h", "")
	list := writeTestFile(t, dir, "list.csv", "kind,file,answer\n# a comment\nvc,a.gr,3\nmcs,g,h,12?\nclique,a.gr,,--complement --threads 1\nmatching,a.gr\nvc,a.gr,-\n")
	ins, err := ReadList(list)
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 5 {
		t.Fatalf("%d instances: %+v", len(ins), ins)
	}
	if ins[0].Kind != KindVC || ins[0].Known != (Known{Size: 3, Proven: true}) || ins[0].Files[0] != filepath.Join(dir, "a.gr") {
		t.Errorf("vc row: %+v", ins[0])
	}
	if ins[1].Kind != KindMCS || len(ins[1].Files) != 2 || ins[1].Known.Proven || ins[1].Known.Size != 12 {
		t.Errorf("mcs row: %+v", ins[1])
	}
	if ins[2].Known.Size != -1 || strings.Join(ins[2].Args, " ") != "--complement --threads 1" {
		t.Errorf("clique row: %+v", ins[2])
	}
	if ins[3].Kind != KindMatch || ins[4].Name == ins[0].Name {
		t.Errorf("names must be unique: %q %q", ins[4].Name, ins[0].Name)
	}
	for body, want := range map[string]string{
		"vc,a.gr,3\nsat,a.gr\n":   `list.csv:2: kind "sat"`,
		"mcs,g\n":                 "list.csv:1: mcs needs 2 file column(s)",
		"vc,missing.gr,3\n":       "list.csv:1:",
		"vc,a.gr,three\n":         `list.csv:1: answer "three"`,
		"vc,a.gr,1,x,y\n":         "list.csv:1: 5 fields",
		"# nothing\n":             "no instances",
		"vc,\"a.gr\n":             "list.csv",
		"vc,,3\n":                 "list.csv:1: empty file name",
		"kind,file\nvc,a.gr,-1\n": `list.csv:2: answer "-1"`,
	} {
		p := writeTestFile(t, dir, "list.csv", body)
		_, err := ReadList(p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to say %q", body, err, want)
		}
	}
}

func FuzzReadList(f *testing.F) {
	f.Add("kind,file,answer\nvc,a.gr,3\nmcs,a.gr,a.gr,2?\n")
	f.Add("clique,a.gr,,--complement\n")
	f.Fuzz(func(t *testing.T, s string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "a.gr"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		ins, err := parseList(strings.NewReader(s), "list.csv", dir)
		if err == nil && len(ins) == 0 {
			t.Fatal("no error and no instances")
		}
	})
}

// sampleResults is a small results set: two engines, one peer, one
// wrong answer, one matching instance.
func sampleResults() []Result {
	rs := []Result{
		{Instance: "a", Kind: KindVC, Engine: "arbor:auto", Backend: "cpu", Size: 3, Proven: true, Seconds: 0.5, Status: StatusOK, AnswerOK: "yes", Known: 3},
		{Instance: "b", Kind: KindVC, Engine: "arbor:auto", Backend: "cpu", Size: 4, Proven: true, Seconds: 2, Status: StatusOK, AnswerOK: "yes", Known: 4},
		{Instance: "a", Kind: KindVC, Engine: "peer", Backend: "-", Size: 3, Proven: true, Seconds: 1, Status: StatusOK, AnswerOK: "yes", Known: 3},
		{Instance: "b", Kind: KindVC, Engine: "peer", Backend: "-", Size: 5, Proven: true, Seconds: 1, Status: StatusWrong, AnswerOK: "no", Known: 4, Note: `proven size 5, "the known" optimum is 4`},
		{Instance: "m", Kind: KindMatch, Engine: "arbor:fast", Backend: "auto", Device: "cpu:x", Size: 10, Proven: true, Seconds: 0.1, SolverSeconds: 0.01, Status: StatusOK, AnswerOK: "-", Known: -1, Edges: 1000, PeakMem: 1 << 20},
		{Instance: "m", Kind: KindMatch, Engine: "arbor:spec", Backend: "auto", Size: -1, Seconds: 3, Status: StatusTimeout, AnswerOK: "-", Known: -1, Edges: 1000},
	}
	return rs
}

func TestSummaryAndReport(t *testing.T) {
	sum := Summarise(sampleResults())
	if len(sum.Series) != 4 || len(sum.Speedups) != 2 {
		t.Fatalf("%d series: %+v", len(sum.Series), sum.Series)
	}
	a, p := sum.Series[0], sum.Series[1]
	if a.Series != "vc arbor:auto" || a.Solved != 2 || a.Wrong != 0 || a.Mean != 1.25 || a.Median != 1.25 || a.GeoMean != 1 {
		t.Errorf("arbor: %+v", a)
	}
	if p.Series != "vc peer" || p.Solved != 1 || p.Wrong != 1 {
		t.Errorf("peer: %+v", p)
	}
	if sp := sum.Speedups[0]; sp.A != "vc arbor:auto" || sp.B != "vc peer" || sp.Common != 1 || sp.AFaster != 1 || sp.GeoMean != 2 {
		t.Errorf("speedup: %+v", sp)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, sum); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| vc arbor:auto | 2 | 2 | 0 | 0 | 0 | 1.25 | 1.25 | 1 |") || !strings.Contains(md.String(), "| vc arbor:auto | vc peer | 1 | 1 | 2.00× |") {
		t.Errorf("markdown:\n%s", md.String())
	}
}

// TestSaveReadPlot: the CSV reads back equal, and the plots are SVG.
func TestSaveReadPlot(t *testing.T) {
	dir := t.TempDir()
	rs := sampleResults()
	if err := Save(dir, rs); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSV(filepath.Join(dir, CSVName))
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(rs) {
		t.Fatalf("%d rows back, wrote %d", len(back), len(rs))
	}
	for i := range rs {
		if back[i] != rs[i] {
			t.Errorf("row %d: read %+v, wrote %+v", i, back[i], rs[i])
		}
	}
	var fromJSON []Result
	b, err := os.ReadFile(filepath.Join(dir, JSONName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &fromJSON); err != nil || len(fromJSON) != len(rs) || fromJSON[3].Note != rs[3].Note || fromJSON[4].PeakMem != 1<<20 {
		t.Fatalf("results.json: %v %+v", err, fromJSON)
	}
	for _, col := range []string{"instance", "engine", "backend", "device", "threads", "size", "proven", "nodes", "seconds", "answer_ok", "status", "peak_mem"} {
		if !strings.Contains(strings.SplitN(string(mustRead(t, filepath.Join(dir, CSVName))), "\n", 2)[0], col) {
			t.Errorf("results.csv has no column %s", col)
		}
	}
	files, err := WritePlots(dir, back)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range files {
		names[filepath.Base(f)] = true
		checkSVG(t, f)
	}
	for _, want := range []string{"solved.svg", "scatter-vc_arbor_auto-vs-vc_peer.svg", "match-throughput.svg"} {
		if !names[want] {
			t.Errorf("no %s among %v", want, files)
		}
	}
	// Nothing solved at all still draws (log axes need a range).
	empty := []Result{{Instance: "x", Kind: KindVC, Engine: "e", Size: -1, Status: StatusCrash}}
	if _, err := WritePlots(t.TempDir(), empty); err != nil {
		t.Errorf("plots of an all-failed run: %v", err)
	}

	bad := writeTestFile(t, dir, "bad.csv", "instance,kind\nx,vc\n")
	if _, err := ReadCSV(bad); err == nil || !strings.Contains(err.Error(), "bad.csv:1: no column") {
		t.Errorf("bad results file: %v", err)
	}
	bad = writeTestFile(t, dir, "bad2.csv", strings.Join(columns, ",")+"\nx,vc,e,cpu,cpu,one,1,true,1,1,1,ok,yes,1,1,1,\n")
	if _, err := ReadCSV(bad); err == nil || !strings.Contains(err.Error(), "bad2.csv:2: column threads") {
		t.Errorf("bad results row: %v", err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkSVG parses the file as XML and wants an <svg> root element.
func checkSVG(t *testing.T, path string) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(mustRead(t, path)))
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q, want svg", path, root)
	}
}

func TestParseSuiteErrors(t *testing.T) {
	if _, err := Suite("mcs-trivial", SuiteOptions{Data: t.TempDir()}); err == nil || !strings.Contains(err.Error(), `unknown suite "mcs-trivial"`) {
		t.Errorf("unknown suite: %v", err)
	}
	if _, err := Suite("vc-pace", SuiteOptions{Data: t.TempDir(), Limit: -1}); err == nil || !strings.Contains(err.Error(), "vc/pace2019 not found") {
		t.Errorf("absent data: %v", err)
	}
	if _, err := Suite("vc-pace", SuiteOptions{Limit: -1}); err == nil || !strings.Contains(err.Error(), "--data") {
		t.Errorf("no data folder: %v", err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "vc/pace2019"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, "vc/pace2019"), "optima.csv", "instance,n,m,min_vc\nvc-exact_001,x,1,2\n")
	if _, err := Suite("vc-small", SuiteOptions{Data: dir, Limit: -1}); err == nil || !strings.Contains(err.Error(), "optima.csv:2: column n") {
		t.Errorf("malformed optima: %v", err)
	}
}

func TestMatchLargeGenerates(t *testing.T) {
	gen := t.TempDir()
	ins, err := Suite("match-large", SuiteOptions{Data: t.TempDir(), Limit: 1, GenDir: gen})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 1 || ins[0].Name != "rmat-s13" || ins[0].Edges < 100000 || ins[0].Kind != KindMatch {
		t.Fatalf("%+v", ins)
	}
	st, err := os.Stat(ins[0].Files[0])
	if err != nil || st.Size() == 0 {
		t.Fatalf("generated file: %v", err)
	}
	again, err := Suite("match-large", SuiteOptions{Data: t.TempDir(), Limit: 1, GenDir: gen})
	if err != nil || again[0].Edges != ins[0].Edges {
		t.Fatalf("reuse: %+v %v", again, err)
	}
}

func TestSpread(t *testing.T) {
	var in []Instance
	for i := range 10 {
		in = append(in, Instance{Name: strconv.Itoa(i)})
	}
	got := spread(in, 3)
	if len(got) != 3 || got[0].Name != "0" || got[1].Name != "3" || got[2].Name != "6" {
		t.Errorf("%+v", got)
	}
	if len(spread(in, 0)) != 10 || len(spread(in, 20)) != 10 {
		t.Error("limit 0 or above the count must keep all")
	}
}

// TestSuitesOnData builds every named suite from the shared data (no
// runs) and checks their sizes and known answers against the data README.
func TestSuitesOnData(t *testing.T) {
	dataset.Require(t, "mcs/mivia")
	dataset.Require(t, "vc/pace2019")
	data := dataset.Dir()
	o := SuiteOptions{Data: data, Limit: -1, GenDir: t.TempDir()}
	count := func(name string) []Instance {
		t.Helper()
		ins, err := Suite(name, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return ins
	}
	easy := count("mcs-easy")
	if len(easy) != 20 {
		t.Errorf("mcs-easy: %d pairs, want the default sample of 20", len(easy))
	}
	for _, in := range easy {
		if in.Kind != KindMCS || len(in.Files) != 2 || !in.Known.Proven || in.Known.Nodes <= 0 {
			t.Errorf("mcs-easy: %+v", in)
		}
	}
	for _, in := range count("mcs-hard") {
		if in.Known.Size <= 0 {
			t.Errorf("mcs-hard: %+v", in)
		}
	}
	if n := len(count("vc-small")); n != 28 {
		t.Errorf("vc-small: %d instances, want the 28 PACE ones of ≤ 450 vertices", n)
	}
	if ins := count("vc-pace"); len(ins) != 100 || ins[0].Known.Size != 2586 {
		t.Errorf("vc-pace: %d instances, first %+v", len(ins), ins[0])
	}
	if dataset.Optional(t, "vc/bhoslib") != "" {
		ins := count("vc-bhoslib")
		if ins[0].Name != "frb30-15-1.mis" || ins[0].Known.Size != 420 || ins[len(ins)-1].Name != "frb100-40.mis" || ins[len(ins)-1].Known.Size != 3900 {
			t.Errorf("vc-bhoslib: first %+v last %+v", ins[0], ins[len(ins)-1])
		}
	}
	if dataset.Optional(t, "clique") != "" {
		for _, in := range count("clique-dimacs") {
			if in.Kind != KindClique || in.Args[0] != "--complement" || in.Known.Size <= 0 {
				t.Errorf("clique-dimacs: %+v", in)
			}
		}
	}
	if dataset.Optional(t, "matching/cs314") != "" {
		for _, in := range count("match-cs314") {
			if in.Known.Mate == "" || in.Known.Size <= 0 {
				t.Errorf("match-cs314: %+v", in)
			}
		}
	}
	o.Limit = 3
	if n := len(count("mcs-medium")); n != 3 {
		t.Errorf("mcs-medium --limit 3: %d", n)
	}
}

// TestResume: the rows of an earlier run are kept and their runs not
// repeated (a peer that counts its calls is not called again); a run
// missing from them is made.
func TestResume(t *testing.T) {
	dir := t.TempDir()
	c := fakeConfig(t)
	gr := writeTestFile(t, dir, "path.gr", "c size 1\np td 3 2\n1 2\n2 3\n")
	calls := filepath.Join(dir, "calls")
	counter := writeTestFile(t, dir, "count.sh", "#!/bin/sh\necho x >> '"+calls+"'\nprintf 's vc 3 1\\n2\\n'\n")
	in := Instance{Name: "path", Kind: KindVC, Files: []string{gr}, Known: Known{Size: 1, Proven: true}}
	c.Peers = []Peer{{Name: "count", Template: counter + " {gr}"}}
	first, err := Run(context.Background(), c, []Instance{in})
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 2 {
		t.Fatalf("%d rows, want arbor's and the peer's", len(first))
	}
	out := filepath.Join(dir, "out")
	if err := Save(out, first); err != nil {
		t.Fatal(err)
	}
	done, err := ReadCSV(filepath.Join(out, CSVName))
	if err != nil {
		t.Fatal(err)
	}
	c.Done = done
	c.Threads = []int{0, 1} // one new configuration
	again, err := Run(context.Background(), c, []Instance{in})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := os.ReadFile(calls); strings.Count(string(n), "x") != 1 {
		t.Errorf("the peer ran %d times; its first row should have been kept", strings.Count(string(n), "x"))
	}
	if len(again) != 3 {
		t.Fatalf("%d rows, want the 2 kept and 1 new", len(again))
	}
	for _, r := range again {
		if r.Status != StatusOK {
			t.Errorf("%s: status %s (%s)", r.Series(), r.Status, r.Note)
		}
	}
}
