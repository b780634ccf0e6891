package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/cluster"
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

// TestMCSEngines runs the device engine through the CLI (the CPU backend
// runs its twin) and the fixed-goal mode: the same tree, so the same node
// count, on the CPU engine and the device engine.
func TestMCSEngines(t *testing.T) {
	g, h, planted, err := demoMCSPair()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths := make([]string, 2)
	for i, gr := range []*core.Graph{g, h} {
		paths[i] = filepath.Join(dir, []string{"g.mivia", "h.mivia"}[i])
		f, err := os.Create(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := core.WriteGraph(f, gr, core.FormatMIVIA); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	type result struct {
		Size     int    `json:"size"`
		Proven   bool   `json:"proven"`
		Nodes    int64  `json:"nodes"`
		Engine   string `json:"engine"`
		Verified bool   `json:"verified"`
	}
	solve := func(args ...string) result {
		t.Helper()
		code, out, stderr := runCLI(t, append([]string{"mcs", paths[0], paths[1], "--verify", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var r result
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		return r
	}
	gpu := solve("--engine", "gpu", "--backend", "cpu", "--workers", "3")
	cpu := solve("--engine", "cpu", "--threads", "1")
	if gpu.Engine != "gpu" || !gpu.Proven || !gpu.Verified || gpu.Size != cpu.Size || gpu.Size < planted {
		t.Fatalf("gpu engine %+v, cpu engine %+v", gpu, cpu)
	}
	goal := fmt.Sprint(cpu.Size)
	a := solve("--engine", "cpu", "--threads", "2", "--goal", goal)
	b := solve("--engine", "gpu", "--backend", "cpu", "--goal", goal)
	if a.Nodes != b.Nodes || a.Size != cpu.Size || b.Size != cpu.Size {
		t.Fatalf("goal %s: cpu engine %+v, gpu engine %+v", goal, a, b)
	}
	if code, _, stderr := runCLI(t, "mcs", paths[0], paths[1], "--engine", "gpu", "--backend", "cpu", "--connected"); code == 0 ||
		!strings.Contains(stderr, "does not support connected") {
		t.Fatalf("--connected on the gpu engine: exit %d: %s", code, stderr)
	}
}

// TestMCSClusterEmbedded runs 'arbor mcs --cluster embedded': the local
// workers are this test binary acting as the CLI (envCLI).
func TestMCSClusterEmbedded(t *testing.T) {
	g, h, planted, err := demoMCSPair()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var paths []string
	for i, gr := range []*core.Graph{g, h} {
		p := filepath.Join(dir, fmt.Sprintf("%d.mivia", i))
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
		paths = append(paths, p)
	}
	code, out, stderr := runCLI(t, "mcs", paths[0], paths[1], "--threads", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var local struct{ Size int }
	if err := json.Unmarshal([]byte(out), &local); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envCLI, "1")
	code, out, stderr = runCLI(t, "mcs", paths[0], paths[1], "--cluster", "embedded", "--workers", "2", "--threads", "1",
		"--task-nodes", "2000", "--tasks", "8", "--verify", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		Size     int    `json:"size"`
		Proven   bool   `json:"proven"`
		Verified bool   `json:"verified"`
		Engine   string `json:"engine"`
		Tasks    int    `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if !r.Proven || !r.Verified || r.Size != local.Size || r.Size < planted || r.Engine != "cluster" || r.Tasks == 0 {
		t.Errorf("cluster run %+v, local size %d", r, local.Size)
	}
	if code, _, _ := runCLI(t, "mcs", paths[0], paths[1], "--cluster", "embedded", "--big-first"); code != 2 {
		t.Errorf("--big-first with --cluster: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(t, "worker"); code != 2 {
		t.Errorf("worker without --cluster: exit %d, want 2", code)
	}
}

func TestWorkerWrongToken(t *testing.T) {
	srv, err := cluster.StartServer(t.TempDir(), "right")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	code, _, stderr := runCLI(t, "worker", "--cluster", srv.URL(), "--cluster-token", "wrong")
	if code != 1 || !strings.Contains(stderr, "wrong or missing token") {
		t.Errorf("exit %d, stderr %q: want a refusal", code, stderr)
	}
}
