package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/core"
)

func TestMCSCommand(t *testing.T) {
	g, h, planted, err := demoMCSPair()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, gr *core.Graph) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := core.WriteGraph(f, gr, core.FormatMIVIA); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gp, hp := write("g.mivia", g), write("h.mivia", h)
	sizes := map[int]bool{}
	for _, threads := range []string{"1", "2"} {
		code, out, stderr := runCLI(t, "mcs", gp, hp, "--threads", threads, "--verify", "--json")
		if code != 0 {
			t.Fatalf("threads %s: exit %d: %s", threads, code, stderr)
		}
		var r struct {
			Size     int      `json:"size"`
			Proven   bool     `json:"proven"`
			Nodes    int64    `json:"nodes"`
			Verified bool     `json:"verified"`
			Mapping  [][2]int `json:"mapping"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		if !r.Proven || !r.Verified || r.Size < planted || len(r.Mapping) != r.Size || r.Nodes == 0 {
			t.Errorf("threads %s: %+v", threads, r)
		}
		sizes[r.Size] = true
	}
	if len(sizes) != 1 {
		t.Errorf("sequential and parallel sizes differ: %v", sizes)
	}
	code, out, stderr := runCLI(t, "mcs", gp, hp, "--connected", "--big-first", "--heuristic", "min_product", "--verify")
	if code != 0 || !strings.Contains(out, "proven maximum, verified") || !strings.Contains(out, "mapping ") {
		t.Errorf("text output: exit %d\n%s%s", code, out, stderr)
	}
	for _, bad := range [][]string{
		{"mcs", gp},
		{"mcs", gp, hp, "--heuristic", "nope"},
		{"mcs", gp, hp, "--threads", "-1"},
	} {
		if code, _, _ := runCLI(t, bad...); code != 2 {
			t.Errorf("arbor %v: exit %d, want 2", bad, code)
		}
	}
	if code, _, stderr := runCLI(t, "mcs", gp, filepath.Join(dir, "missing")); code != 1 || !strings.Contains(stderr, "missing") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr)
	}
}
