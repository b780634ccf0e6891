package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInfo(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "g.gr")
	// A triangle plus an isolated vertex, one edge listed twice.
	if err := os.WriteFile(good, []byte("c test\np td 4 4\n1 2\n2 3\n3 1\n2 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "info", good)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"format:", "pace", "vertices:       4", "edges:          3 (and 1 repeated", "min 0, max 2", "1 isolated", "components:     2 (largest 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "info", "--json", good)
	var r map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("--json: exit %d, %q", code, out)
	}
	if r["edges"] != 3.0 || r["components"] != 2.0 || r["format"] != "pace" {
		t.Fatalf("--json gave %v", r)
	}

	bad := writeFile(t, dir, "bad.gr", "p td 3 1\n1 4\n")
	code, _, stderr = runCLI(t, "info", bad)
	if code != 1 || !strings.Contains(stderr, "bad.gr:2:") || !strings.Contains(stderr, "vertex 4 is out of range") {
		t.Fatalf("bad file: exit %d, stderr %q", code, stderr)
	}
	// Forcing a format: the edge list read as LAD fails, as edgelist1 works.
	el := writeFile(t, dir, "e.txt", "3 2\n1 2\n2 3\n")
	if code, out, _ := runCLI(t, "info", el, "--format", "edgelist1"); code != 0 || !strings.Contains(out, "numbered from 1") {
		t.Fatalf("--format edgelist1: exit %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "info", el, "--format", "lad"); code != 1 {
		t.Fatalf("--format lad on an edge list: exit %d, want 1", code)
	}
	wantExit(t, 2, [][]string{{"info"}, {"info", el, el}, {"info", el, "--format", "nope"}, {"info", "--bogus"}})
	if code, _, stderr := runCLI(t, "info", filepath.Join(dir, "missing.gr")); code != 1 || !strings.Contains(stderr, "missing.gr") {
		t.Errorf("missing file: exit %d, %q", code, stderr)
	}
}
