package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/internal/dataset"
)

// TestMatchReference: `arbor match` prints the CS314 reference outputs, with
// either engine, any thread count, and --strong-only.
func TestMatchReference(t *testing.T) {
	dir := dataset.Require(t, "matching/cs314")
	for _, k := range []string{"1", "4"} {
		in := filepath.Join(dir, "input"+k+".mtx")
		match, _ := os.ReadFile(filepath.Join(dir, "match"+k+".txt"))
		strong, _ := os.ReadFile(filepath.Join(dir, "strong"+k+".txt"))
		for _, args := range [][]string{
			{"--engine", "spec", "--threads", "7"},
			{"--engine", "fast", "--threads", "1000"},
			{"--filter", "scan", "--threads", "64"},
			{"--verify"},
		} {
			// The references number partners from 0, the file from 1.
			code, out, stderr := runCLI(t, append([]string{"match", in, "--backend", "cpu", "--zero-based"}, args...)...)
			if code != 0 || strings.TrimSpace(out) != strings.TrimSpace(string(match)) {
				t.Fatalf("match %s %v: exit %d, output differs from match%s.txt:\n%s\nstderr: %s", in, args, code, k, out, stderr)
			}
			if !strings.Contains(stderr, " pass") {
				t.Fatalf("match %s %v: no summary on stderr: %s", in, args, stderr)
			}
			code, out, stderr = runCLI(t, append([]string{"match", in, "--strong-only", "--verify", "--backend", "cpu", "--zero-based"}, args...)...)
			if code != 0 || strings.TrimSpace(out) != strings.TrimSpace(string(strong)) {
				t.Fatalf("match --strong-only %s %v: exit %d, output differs from strong%s.txt:\n%s\nstderr: %s", in, args, code, k, out, stderr)
			}
		}
	}
	// --json: the summary and the mates on stdout.
	code, out, stderr := runCLI(t, "match", filepath.Join(dir, "input1.mtx"), "--json", "--backend", "cpu")
	if code != 0 {
		t.Fatalf("match --json: exit %d: %s", code, stderr)
	}
	var js struct {
		Vertices, Edges, Passes, Size int
		Weight                        float64
		Mate                          []int32
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatalf("match --json: %v\n%s", err, out)
	}
	if js.Vertices != 5 || js.Edges != 6 || js.Size != 2 || js.Weight != 10 || len(js.Mate) != 5 {
		t.Fatalf("match --json: %+v", js)
	}
	// The file's own numbering: match1.txt + 1 where matched.
	want := mustInts(t, filepath.Join(dir, "match1.txt"))
	for v, p := range want {
		if p >= 0 {
			want[v] = p + 1
		}
	}
	for v, p := range js.Mate {
		if p != want[v] {
			t.Fatalf("match --json mate %v, want the reference in the file's numbering %v", js.Mate, want)
		}
	}
}

func TestMatchUsage(t *testing.T) {
	wantExit(t, 2, [][]string{
		{"match"},
		{"match", "a.mtx", "b.mtx"},
		{"match", "a.mtx", "--engine", "slow"},
		{"match", "a.mtx", "--tie", "random"},
		{"match", "a.mtx", "--threads", "-1"},
	})
	if code, _, stderr := runCLI(t, "match", filepath.Join(t.TempDir(), "missing.mtx")); code != 1 {
		t.Errorf("match of a missing file: exit %d, want 1 (%s)", code, stderr)
	}
}

// mustInts reads a file of one integer per line.
func mustInts(t *testing.T, path string) []int32 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int32
	for _, f := range strings.Fields(string(data)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, int32(n))
	}
	return out
}
