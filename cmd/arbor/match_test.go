package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
			code, out, stderr := runCLI(t, append([]string{"match", in, "--backend", "cpu"}, args...)...)
			if code != 0 || strings.TrimSpace(out) != strings.TrimSpace(string(match)) {
				t.Fatalf("match %s %v: exit %d, output differs from match%s.txt:\n%s\nstderr: %s", in, args, code, k, out, stderr)
			}
			if !strings.Contains(stderr, "passes") {
				t.Fatalf("match %s %v: no summary on stderr: %s", in, args, stderr)
			}
			code, out, stderr = runCLI(t, append([]string{"match", in, "--strong-only", "--verify", "--backend", "cpu"}, args...)...)
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
		Result struct {
			Vertices, Edges, Passes, Pairs int
			Weight                         float64
		}
		Mate []int32
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatalf("match --json: %v\n%s", err, out)
	}
	if js.Result.Vertices != 5 || js.Result.Edges != 6 || js.Result.Pairs != 2 || js.Result.Weight != 10 || len(js.Mate) != 5 {
		t.Fatalf("match --json: %+v", js)
	}
}

func TestMatchUsage(t *testing.T) {
	for _, args := range [][]string{
		{"match"},
		{"match", "a.mtx", "b.mtx"},
		{"match", "a.mtx", "--engine", "slow"},
		{"match", "a.mtx", "--tie", "random"},
		{"match", "a.mtx", "--threads", "-1"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 2 {
			t.Errorf("arbor %v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "match", filepath.Join(t.TempDir(), "missing.mtx")); code != 1 {
		t.Errorf("match of a missing file: exit %d, want 1 (%s)", code, stderr)
	}
}
