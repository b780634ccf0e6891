package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A DIMACS graph: K4 on 1–4, a path 4–5–6, and an isolated 7. Its maximum
// clique is {1,2,3,4}; its complement's is 3 (e.g. {1,6,7}).
const cliqueTestGraph = "c test\np edge 7 8\ne 1 2\ne 1 3\ne 1 4\ne 2 3\ne 2 4\ne 3 4\ne 4 5\ne 5 6\n"

func TestCliqueCommand(t *testing.T) {
	g := writeTemp(t, "g.clq", cliqueTestGraph)
	for _, threads := range []string{"1", "2"} {
		code, out, stderr := runCLI(t, "clique", g, "--threads", threads, "--verify")
		if code != 0 || !strings.Contains(out, "clique 4  proven maximum, verified") || !strings.Contains(out, "vertices 1 2 3 4\n") {
			t.Fatalf("threads %s: exit %d, out %q, stderr %q", threads, code, out, stderr)
		}
	}
	code, out, stderr := runCLI(t, "clique", g, "--complement", "--json", "--verify")
	var res struct {
		Size     int     `json:"size"`
		Proven   bool    `json:"proven"`
		Nodes    int64   `json:"nodes"`
		Seconds  float64 `json:"seconds"`
		Threads  int     `json:"threads"`
		Verified bool    `json:"verified"`
		Clique   []int   `json:"clique"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
		t.Fatalf("--json: exit %d, %q, stderr %q", code, out, stderr)
	}
	if res.Size != 3 || !res.Proven || !res.Verified || len(res.Clique) != 3 || res.Threads < 1 {
		t.Fatalf("--complement --json: %+v", res)
	}
	if code, out, _ := runCLI(t, "clique", g, "--timeout", "1m", "--format", "dimacs", "--plain-colouring"); code != 0 || !strings.Contains(out, "clique 4 ") {
		t.Fatalf("--timeout --format --plain-colouring: exit %d, %q", code, out)
	}
}

func TestCliqueCommandErrors(t *testing.T) {
	if code, _, _ := runCLI(t, "clique"); code != 2 {
		t.Errorf("no argument: exit %d, want 2", code)
	}
	g := writeTemp(t, "g.clq", cliqueTestGraph)
	if code, _, _ := runCLI(t, "clique", g, g); code != 2 {
		t.Errorf("two graphs: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(t, "clique", g, "--threads", "-1"); code != 2 {
		t.Errorf("--threads -1: exit %d, want 2", code)
	}
	if code, _, stderr := runCLI(t, "clique", filepath.Join(t.TempDir(), "missing.clq")); code != 1 || stderr == "" {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr)
	}
}

// TestCliqueEngines runs the device engines through the CLI (the CPU
// backend runs the kernel's Go twin): the same ω as the CPU engine, the
// engine, why and device in --json, and --goal's fixed-incumbent mode.
func TestCliqueEngines(t *testing.T) {
	g := writeTemp(t, "g.clq", cliqueTestGraph)
	solve := func(args ...string) report {
		t.Helper()
		return runJSON[report](t, append([]string{"clique", g, "--json", "--verify"}, args...)...)
	}
	for _, comp := range []string{"--complement=false", "--complement"} {
		want := solve("--engine", "cpu", comp)
		for _, e := range []string{"gpu", "hybrid"} {
			r := solve("--engine", e, "--backend", "cpu", "--workers", "3", comp)
			if r.Size != want.Size || !r.Proven || !r.Verified || r.Engine != e || r.Device == "" || r.Why == "" {
				t.Fatalf("%s %s: %+v, the CPU engine %+v", e, comp, r, want)
			}
		}
	}
	if r := solve("--engine", "gpu", "--backend", "cpu", "--goal", "4"); r.Size != 4 || r.Engine != "gpu" {
		t.Fatalf("--goal 4: %+v", r)
	}
	if code, _, _ := runCLI(t, "clique", g, "--goal", "3"); code != 2 {
		t.Fatalf("--goal without --engine gpu: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(t, "clique", g, "--engine", "warp"); code != 2 {
		t.Fatalf("--engine warp: exit %d, want 2", code)
	}
}

// TestCliqueAuto: auto opens the device in the background and, the device
// not being a GPU (the CPU backend), answers on the CPU engine, saying why;
// the answer is the CPU engine's.
func TestCliqueAuto(t *testing.T) {
	g := writeTemp(t, "g.clq", cliqueTestGraph)
	var want, got struct {
		Size   int    `json:"size"`
		Proven bool   `json:"proven"`
		Engine string `json:"engine"`
		Why    string `json:"why"`
		Device string `json:"device"`
	}
	for _, c := range []struct {
		Engine string
		res    any
	}{{"cpu", &want}, {"auto", &got}} {
		code, out, stderr := runCLI(t, "clique", g, "--json", "--verify", "--engine", c.Engine, "--backend", "cpu")
		if code != 0 || json.Unmarshal([]byte(out), c.res) != nil {
			t.Fatalf("%s: exit %d, %q, stderr %q", c.Engine, code, out, stderr)
		}
	}
	if got.Size != want.Size || !got.Proven || got.Engine != "cpu" || got.Device != "" ||
		!(strings.Contains(got.Why, "not a GPU") || strings.Contains(got.Why, "before the device was open")) {
		t.Fatalf("auto: %+v, the CPU engine %+v", got, want)
	}
}
