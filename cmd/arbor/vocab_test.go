package main

// Tests of issue #45's items 5–11 and its vocabulary LOW items.

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/internal/bench"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// TestOutNamesInput: -o naming any input (a graph file, by another path
// or a link, a --batch list, an instance of the list, --against's list)
// is a usage error, and the input is left as it was.
func TestOutNamesInput(t *testing.T) {
	dir := t.TempDir()
	gr := writeFile(t, dir, "c5.gr", vcTestGraph)
	link := filepath.Join(dir, "link.gr")
	if err := os.Symlink(gr, link); err != nil {
		t.Fatal(err)
	}
	other := writeFile(t, dir, "other.gr", vcTestGraph)
	pairs := writeList(t, dir, "c5.gr,other.gr")
	singles := writeFile(t, dir, "singles.csv", "c5.gr\nother.gr\n")
	dotted := filepath.Join(dir, ".", "sub", "..", "c5.gr")
	cases := [][]string{
		{"vc", gr, "-o", gr},
		{"vc", gr, "-o", link},
		{"vc", gr, "-o", dotted},
		{"clique", link, "-o", gr},
		{"match", gr, "--backend", "cpu", "-o", gr},
		{"mcs", gr, other, "-o", other},
		{"mcs", "--batch", pairs, "-o", pairs},
		{"mcs", "--batch", pairs, "-o", other},
		{"vc", "--batch", singles, "-o", singles},
		{"clique", "--batch", singles, "-o", gr},
		{"mcs", gr, "--against", singles, "--top", "1", "-o", singles},
		{"mcs", gr, "--against", singles, "--top", "1", "-o", gr},
	}
	for _, args := range cases {
		before := map[string]string{}
		for _, p := range []string{gr, other, pairs, singles} {
			b, _ := os.ReadFile(p)
			before[p] = string(b)
		}
		code, out, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, "names an input") || out != "" {
			t.Errorf("arbor %v: exit %d, stdout %q, stderr %q; want exit 2 saying -o names an input", args, code, out, stderr)
		}
		for p, b := range before {
			if now, _ := os.ReadFile(p); string(now) != b {
				t.Errorf("arbor %v changed %s", args, p)
			}
		}
	}
	// An -o beside the inputs, and /dev/null, are still fine.
	for _, args := range [][]string{
		{"vc", gr, "-o", filepath.Join(dir, "c5.sol")},
		{"vc", os.DevNull, "-o", os.DevNull},
	} {
		if code, _, stderr := runCLI(t, args...); code == 2 {
			t.Errorf("arbor %v: usage error %s", args, stderr)
		}
	}
}

// TestConflictingFlags: flags that cannot run together are usage errors
// (exit 2) with one sentence naming the flags, before any graph is read
// (the files here do not exist), without the package's prefix or its
// field names.
func TestConflictingFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcs", "no-g", "no-h", "--goal", "3", "--big-first"}, "--goal and --big-first"},
		{[]string{"mcs", "no-g", "no-h", "--goal", "3", "--restarts"}, "--goal and --restarts"},
		{[]string{"mcs", "no-g", "no-h", "--goal", "3", "--dead-end", "9"}, "--goal and --dead-end"},
		{[]string{"mcs", "no-g", "no-h", "--goal", "3", "--engine", "hybrid"}, "--goal and --engine hybrid"},
		{[]string{"mcs", "no-g", "no-h", "--big-first", "--restarts"}, "--big-first and --restarts"},
		{[]string{"mcs", "no-g", "no-h", "--restarts", "--dead-end", "4"}, "--restarts and --dead-end"},
		{[]string{"mcs", "no-g", "no-h", "--engine", "portfolio", "--goal", "2"}, "portfolio"},
		{[]string{"mcs", "no-g", "no-h", "--engine", "gpu", "--restarts"}, "--engine gpu and --restarts"},
		{[]string{"mcs", "--batch", "no-list", "--goal", "3", "--engine", "hybrid"}, "--goal and --engine hybrid"},
		{[]string{"clique", "no-g", "--goal", "3", "--engine", "hybrid"}, "--goal takes --engine gpu"},
		{[]string{"vc", "no-g", "-k", "-1"}, "-k must be ≥ 0"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("arbor %v: exit %d, %q; want exit 2 and one line saying %q", c.args, code, stderr, c.want)
		}
		for _, bad := range []string{"mcs: mcs:", "Goal", "BigFirst", "Restarts", "Threads 1"} {
			if strings.Contains(stderr, bad) {
				t.Errorf("arbor %v: %q says %q", c.args, stderr, bad)
			}
		}
	}
}

// TestTopTiesByIndex: --top N keeps the documented order, largest first
// with ties by index, even when a later pair runs first. Pair 1 (a
// triangle with a pendant vertex) has the larger cheap bound, so the one
// CPU slot runs it first; pair 0 (a triangle) has the same maximum, 3, and
// is the one --top 1 reports.
func TestTopTiesByIndex(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	q := write("q.gr", "p td 3 3\n1 2\n2 3\n3 1\n")
	write("a.gr", "p td 3 3\n1 2\n2 3\n3 1\n")
	write("b.gr", "p td 4 4\n1 2\n2 3\n3 1\n3 4\n")
	list := write("lib.csv", "a.gr\nb.gr\n")
	code, out, stderr := runCLI(t, "mcs", q, "--against", list, "--top", "1", "--threads", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := parseRows(t, "mcs", out)
	if len(rows) != 1 || *rows[0].Index != 0 || rows[0].Size == nil || *rows[0].Size != 3 {
		t.Fatalf("--top 1 of two pairs of size 3: %s; want index 0", out)
	}
}

// TestJSONShapes: verify --json is an object, devices --json has lists
// where a backend has no devices (never null).
func TestJSONShapes(t *testing.T) {
	code, out, stderr := runCLI(t, "devices", "--json")
	if code != 0 || strings.Contains(out, "null") {
		t.Errorf("devices --json: exit %d, a null in %s%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "verify", "--backend", "cpu", "--kernel", "vec_add", "--no-data", "--json")
	if code != 0 || !strings.HasPrefix(out, "{") || strings.Contains(out, "null") {
		t.Errorf("verify --json: exit %d, not an object without nulls: %s%s", code, out, stderr)
	}
}

// TestHelpHelpAndFullDisk: help help prints help's usage; help that cannot
// be written fails (exit 1, naming the error) wherever it is asked for.
func TestHelpHelpAndFullDisk(t *testing.T) {
	code, out, stderr := runCLI(t, "help", "help")
	if code != 0 || !strings.HasPrefix(out, "usage: arbor help") {
		t.Errorf("help help: exit %d, %q %q", code, out, stderr)
	}
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here")
	}
	defer f.Close()
	for _, args := range [][]string{{"help"}, {"--help"}, {"help", "help"}, {"help", "vc"}, {"mcs", "-h"}, {"version"}} {
		st, stderr := cliProcess(t, f, args...)
		if st.ExitCode() != 1 || !strings.Contains(stderr, "no space left") {
			t.Errorf("arbor %v > /dev/full: exit %d, stderr %q; want exit 1 naming the write error", args, st.ExitCode(), stderr)
		}
	}
}

// TestDemoRunsEveryAlgorithm: the demo runs each algorithm the README
// lists, clique among them.
func TestDemoRunsEveryAlgorithm(t *testing.T) {
	code, out, stderr := runCLI(t, "demo", "--backend", "cpu")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"\nmatch: ", "\nmcs: ", "\nvertex cover (", "\nclique (", "clique 16 (optimum 16)"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo lacks %q:\n%s", want, out)
		}
	}
}

// TestBatchWhyWording: a batch row's why on a CPU slot begins as
// docs/cli.md says, in every command, and never says a bare "no device".
func TestBatchWhyWording(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "c5.gr", vcTestGraph)
	singles := writeList(t, dir, "c5.gr")
	pairs := writeFile(t, dir, "pairs.csv", "c5.gr,c5.gr\n")
	for _, args := range [][]string{
		{"mcs", "--batch", pairs}, {"vc", "--batch", singles}, {"clique", "--batch", singles},
	} {
		code, out, stderr := runCLI(t, append(args, "--json", "--backend", "cpu")...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, stderr)
		}
		for _, r := range parseRows(t, args[0], out) {
			why, _ := r.raw["why"].(string)
			if !strings.HasPrefix(why, "a CPU slot of the batch") || why == "no device" {
				t.Errorf("%v: why %q", args, why)
			}
		}
	}
}

// TestBuildVersion: the link-time stamp first, then the module version,
// then the VCS stamp, then "dev".
func TestBuildVersion(t *testing.T) {
	vcs := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "24185c00d241d03384c3bc293e6816294736f1ac"},
		{Key: "vcs.time", Value: "2026-11-27T12:31:01Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	for _, c := range []struct {
		stamped string
		info    *debug.BuildInfo
		want    string
	}{
		{"v1.2.3", vcs, "v1.2.3"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0"},
		{"", vcs, "dev-24185c00d241+dirty (2026-11-27T12:31:01Z)"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"", nil, "dev"},
	} {
		if got := buildVersion(c.stamped, c.info); got != c.want {
			t.Errorf("buildVersion(%q, …) = %q, want %q", c.stamped, got, c.want)
		}
	}
}

// TestBatchResumeOptions: a resumed -o keeps the rows settled with the
// same options, reruns the ones that only timed out when the time limit
// is longer, and reruns everything under other options.
func TestBatchResumeOptions(t *testing.T) {
	dir, _, lines := mcsPairs(t, 3)
	list := writeList(t, dir, lines...)
	outFile := filepath.Join(t.TempDir(), "rows.jsonl")
	mcs := func(extra ...string) (int, []batchRowJSON, string) {
		t.Helper()
		code, out, stderr := runCLI(t, append([]string{"mcs", "--batch", list, "--engine", "cpu", "--json", "-o", outFile}, extra...)...)
		return code, parseRows(t, "mcs", out), stderr
	}
	// First, a limit too short to settle anything: every row unsettled.
	code, rows, stderr := mcs("--timeout", "1ns")
	if code != 0 || len(rows) != 3 {
		t.Fatalf("first run: exit %d, %d rows: %s", code, len(rows), stderr)
	}
	for _, r := range rows {
		if r.Status == "optimal" || r.raw["options"] != "--engine=cpu" || r.raw["timeout"] != 1e-9 {
			t.Fatalf("a 1ns row: %v", r.raw)
		}
	}
	// The same limit again: nothing to gain, all kept.
	if code, rows, stderr = mcs("--timeout", "1ns"); code != 0 || len(rows) != 0 || !strings.Contains(stderr, "3 instances already answered") {
		t.Fatalf("same limit: exit %d, %d rows rerun: %s", code, len(rows), stderr)
	}
	// No limit: the unsettled rows run again and are settled.
	if code, rows, stderr = mcs(); code != 0 || len(rows) != 3 {
		t.Fatalf("no limit: exit %d, %d rows rerun (want 3): %s", code, len(rows), stderr)
	}
	for _, r := range rows {
		if r.Status != "optimal" {
			t.Errorf("rerun without a limit: %v", r.raw)
		}
	}
	// Settled rows are kept under any limit, and the file has one row each.
	if code, rows, stderr = mcs("--timeout", "1ns"); code != 0 || len(rows) != 0 {
		t.Fatalf("settled rows under a short limit: exit %d, %d rerun: %s", code, len(rows), stderr)
	}
	// Other options: every row runs again.
	if code, rows, stderr = mcs("--heuristic", "min_product"); code != 0 || len(rows) != 3 {
		t.Fatalf("other options: exit %d, %d rerun (want 3): %s", code, len(rows), stderr)
	}
	data, _ := os.ReadFile(outFile)
	if all := parseRows(t, "mcs", string(data)); len(all) != 3 {
		t.Errorf("-o holds %d rows, want one per instance", len(all))
	}
}

// TestBenchFetch: bench fetch refuses an unknown suite, has nothing to
// fetch for a generated one, names the download and the place when the
// files are nowhere, and with the data folder as --from fills a cache
// that the suite then reads.
func TestBenchFetch(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache")
	if code, _, stderr := runCLI(t, "bench", "fetch", "no-such-suite", "--data", cache); code != 2 {
		t.Errorf("unknown suite: exit %d %s", code, stderr)
	}
	if code, out, stderr := runCLI(t, "bench", "fetch", "match-large", "--data", cache); code != 0 || !strings.Contains(out, "nothing to fetch") {
		t.Errorf("match-large: exit %d %q %s", code, out, stderr)
	}
	empty := t.TempDir()
	code, _, stderr := runCLI(t, "bench", "fetch", "vc-yamout", "--from", empty, "--data", cache)
	if code != 1 || !strings.Contains(stderr, "https://github.com/pky00/Parallel-Vertex-Cover-Algorithms-on-GPUs") || !strings.Contains(stderr, cache) {
		t.Errorf("nothing to fetch from: exit %d, %q; want the source and the cache named", code, stderr)
	}
	data := dataset.Require(t, "vc/yamout2022")
	from := filepath.Dir(filepath.Dir(data))
	code, out, stderr := runCLI(t, "bench", "fetch", "vc-yamout", "--from", from, "--data", cache)
	if code != 0 || !strings.Contains(out, "11 files in "+cache+" (11 copied, 0 already there)") {
		t.Fatalf("fetch: exit %d, %q %s", code, out, stderr)
	}
	if code, out, _ = runCLI(t, "bench", "fetch", "vc-yamout", "--from", from, "--data", cache); code != 0 || !strings.Contains(out, "(0 copied, 11 already there)") {
		t.Errorf("second fetch: exit %d, %q", code, out)
	}
	ins, err := bench.Suite("vc-yamout", bench.SuiteOptions{Data: cache, Limit: 0})
	if err != nil || len(ins) == 0 {
		t.Fatalf("the suite from the cache: %d instances, %v", len(ins), err)
	}
}
