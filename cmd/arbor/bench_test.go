package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/internal/dataset"
	"github.com/arbor-gpu/arbor/internal/testrole"
)

// envCLI makes this test binary behave as the arbor CLI: 'arbor bench'
// re-executes os.Executable() for every run, which in a test is the test
// binary, so its children come here (internal/testrole, the role "1").
const envCLI = testrole.Var

func TestMain(m *testing.M) {
	if os.Getenv(envCLI) == "1" {
		os.Exit(process(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// readResults reads results.csv as maps keyed by column.
func readResults(t *testing.T, dir string) []map[string]string {
	t.Helper()
	rows, err := dataset.ReadCSV(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range rows {
		out = append(out, r.Fields)
	}
	return out
}

func isSVG(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			t.Fatalf("%s: no root element", path)
		}
		if err != nil {
			t.Fatalf("%s: not XML: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if se.Name.Local != "svg" {
				t.Fatalf("%s: root %q, want svg", path, se.Name.Local)
			}
			break
		}
	}
	for {
		if _, err := d.Token(); err == io.EOF {
			return
		} else if err != nil {
			t.Fatalf("%s: not well-formed: %v", path, err)
		}
	}
}

// TestBenchList runs a list of one instance of each kind end to end
// through the re-executed CLI, then redraws its plots with 'bench report'.
func TestBenchList(t *testing.T) {
	t.Setenv(envCLI, "1")
	dir := t.TempDir()
	writeTo := func(name, body string) string {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	writeTo("c5.gr", vcTestGraph)                          // minimum cover 3
	writeTo("p4.clq", "p edge 4 3\ne 1 2\ne 2 3\ne 3 4\n") // its complement is a P4: ω = 2
	writeTo("tri.gr", "p td 3 3\n1 2\n2 3\n1 3\n")         // triangle and path P3:
	writeTo("p3.gr", "p td 3 2\n1 2\n2 3\n")               // the largest common induced subgraph is an edge
	writeTo("m.mtx", "%%MatrixMarket matrix coordinate real symmetric\n4 4 3\n2 1 5\n3 2 1\n4 3 5\n")
	list := writeTo("list.csv", "kind,file,answer\nvc,c5.gr,3\nclique,p4.clq,2,--complement\nmcs,tri.gr,p3.gr,2\nmatch,m.mtx,2\n")
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "bench", filepath.Join(dir, list), "--out", out, "--threads", "1", "--timeout", "30s", "--mem-limit", "2G", "--backends", "cpu")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	rows := readResults(t, out)
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4: %v", len(rows), rows)
	}
	want := map[string]string{"c5.gr": "3", "p4.clq --complement": "2", "tri.gr+p3.gr": "2", "m.mtx": "2"}
	for _, r := range rows {
		if r["status"] != "ok" || r["answer_ok"] != "yes" || r["proven"] != "true" || r["size"] != want[r["instance"]] {
			t.Errorf("row %v", r)
		}
		if r["device"] == "" || r["peak_mem"] == "0" || r["seconds"] == "" || !strings.HasPrefix(r["engine"], "arbor:") {
			t.Errorf("row lacks a measurement: %v", r)
		}
		// Every graph-of-one-file run knows its edges (vc's came out 0).
		if wantEdges := map[string]string{"c5.gr": "6", "p4.clq --complement": "3", "m.mtx": "3"}[r["instance"]]; wantEdges != "" && r["edges"] != wantEdges {
			t.Errorf("%s: edges %q, want %s", r["instance"], r["edges"], wantEdges)
		}
	}
	if !strings.Contains(stdout, "| engine | runs | solved | wrong |") {
		t.Errorf("no summary table:\n%s", stdout)
	}
	// --json: the same runs, valid against docs/schema/bench.json.
	code, stdout, stderr = runCLI(t, "bench", filepath.Join(dir, list), "--out", filepath.Join(dir, "out-json"), "--threads", "1", "--timeout", "30s", "--mem-limit", "2G", "--backends", "cpu", "--json")
	var doc any
	if code != 0 || json.Unmarshal([]byte(stdout), &doc) != nil {
		t.Fatalf("--json: exit %d, %q %s", code, stdout, stderr)
	}
	for _, e := range validate(loadSchema(t, "bench"), doc, "$") {
		t.Errorf("bench --json: %s", e)
	}
	for _, f := range []string{"results.json", "solved.svg", "match-throughput.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("no %s: %v", f, err)
		}
	}

	// report redraws the plots from the CSV alone.
	svgs, _ := filepath.Glob(filepath.Join(out, "*.svg"))
	for _, s := range svgs {
		if err := os.Remove(s); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr = runCLI(t, "bench", "report", out)
	if code != 0 || !strings.Contains(stdout, "| vc arbor:auto/t1 | 1 | 1 | 0 |") {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	again, _ := filepath.Glob(filepath.Join(out, "*.svg"))
	if len(again) != len(svgs) || len(again) == 0 {
		t.Fatalf("report drew %v, the run %v", again, svgs)
	}
	for _, s := range again {
		isSVG(t, s)
	}
}

// TestBenchWrongAndCompare: a wrong known answer fails the run loudly,
// and a peer (arbor vc --json itself, through the shell) is run, parsed
// and checked on the same instances.
func TestBenchWrongAndCompare(t *testing.T) {
	t.Setenv(envCLI, "1")
	dir := t.TempDir()
	writeFile(t, dir, "c5.gr", vcTestGraph)
	list := writeFile(t, dir, "list.csv", "vc,c5.gr,3\nvc,c5.gr,2\n")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "bench", list, "--out", out, "--json", "--timeout", "30s",
		"--compare", "self='"+exe+"' vc {gr} --json --threads 1", "--compare", "pace=f=$(mktemp) && '"+exe+"' vc {gr} -o $f --threads 1 >/dev/null && cat $f; rm -f $f")
	if code != 1 {
		t.Fatalf("exit %d, want 1 for a wrong answer\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "WRONG ANSWER: c5.gr#2") || !strings.Contains(stderr, "3 wrong answer(s)") {
		t.Errorf("stderr does not report the wrong answer loudly:\n%s", stderr)
	}
	if !strings.Contains(stdout, `"results"`) || !strings.Contains(stdout, `"summary"`) {
		t.Errorf("--json output:\n%s", stdout)
	}
	rows := readResults(t, out)
	status := map[string]string{}
	for _, r := range rows {
		status[r["instance"]+"|"+r["engine"]] = r["status"]
	}
	// With the known answer 2 every run is wrong (3 is proven), and every
	// run agrees where it is 3.
	for key, want := range map[string]string{"c5.gr|arbor:auto": "ok", "c5.gr|self": "ok", "c5.gr|pace": "ok",
		"c5.gr#2|arbor:auto": "wrong", "c5.gr#2|self": "wrong", "c5.gr#2|pace": "wrong"} {
		if status[key] != want {
			t.Errorf("%s: status %q, want %q (all: %v)", key, status[key], want, status)
		}
	}
}

func TestBenchUsage(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.csv", "vc,nowhere.gr,3\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bench"}, 2, "mcs-easy"},
		{[]string{"bench", "no-such-suite"}, 2, `"no-such-suite" is neither a suite nor a list file`},
		{[]string{"bench", bad}, 1, "bad.csv:1:"},
		{[]string{"bench", bad, "--mem-limit", "lots"}, 2, "--mem-limit"},
		{[]string{"bench", bad, "--engines", "warp"}, 2, `unknown engine "warp"`},
		{[]string{"bench", bad, "--threads", "x"}, 2, "--threads"},
		{[]string{"bench", bad, "--compare", "nameonly"}, 2, "NAME=VALUE"},
		{[]string{"bench", bad, "--compare-regex", "p=size=(\\d+)"}, 2, "no --compare named p"},
		{[]string{"bench", bad, "--compare", "p=x", "--compare-regex", "p=size"}, 2, "no group"},
		{[]string{"bench", "report"}, 2, "folder"},
		{[]string{"bench", "report", dir}, 1, "results.csv"},
		{[]string{"bench", "vc-pace", "--data", dir}, 1, "vc/pace2019 not found"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("arbor %v: exit %d, stderr %q; want exit %d saying %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"512M": 512 << 20, "4G": 4 << 30, "1.5GiB": 3 << 29, "1000": 1000, "2kb": 2048} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("%s: %d %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "G", "-1G", "x"} {
		if _, err := parseBytes(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// TestBenchData runs small real suites when the shared data is present:
// MIVIA pairs (with the sequential engine's node counts) and the CS314
// matchings against their reference outputs.
func TestBenchData(t *testing.T) {
	dataset.Require(t, "mcs/mivia")
	dataset.Require(t, "matching/cs314")
	data := dataset.Dir()
	t.Setenv(envCLI, "1")
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "bench", "mcs-easy", "--limit", "2", "--threads", "1", "--engines", "cpu", "--data", data, "--out", out, "--timeout", "30s")
	if code != 0 {
		t.Fatalf("mcs-easy: exit %d\n%s\n%s", code, stdout, stderr)
	}
	rows := readResults(t, out)
	if len(rows) != 2 {
		t.Fatalf("mcs-easy: %d rows", len(rows))
	}
	for _, r := range rows {
		if r["status"] != "ok" || r["answer_ok"] != "yes" || r["engine"] != "arbor:cpu" || r["nodes"] == "0" {
			t.Errorf("mcs-easy row %v", r)
		}
	}
	code, stdout, stderr = runCLI(t, "bench", "match-cs314", "--backends", "cpu", "--data", data, "--out", out)
	if code != 0 {
		t.Fatalf("match-cs314: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, r := range readResults(t, out) {
		if r["status"] != "ok" || r["answer_ok"] != "yes" {
			t.Errorf("match-cs314 row %v", r)
		}
	}
}
