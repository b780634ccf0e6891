package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/cluster"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/syncio"
)

func TestMCSCommand(t *testing.T) {
	paths, planted := demoPairFiles(t)
	gp, hp := paths[0], paths[1]
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
	wantExit(t, 2, [][]string{
		{"mcs", gp},
		{"mcs", gp, hp, "--heuristic", "nope"},
		{"mcs", gp, hp, "--threads", "-1"},
	})
	if code, _, stderr := runCLI(t, "mcs", gp, filepath.Join(t.TempDir(), "missing")); code != 1 || !strings.Contains(stderr, "missing") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr)
	}
}

// TestMCSEngines runs the device engine through the CLI (the CPU backend
// runs its twin) and the fixed-goal mode: the same tree, so the same node
// count, on the CPU engine and the device engine.
func TestMCSEngines(t *testing.T) {
	paths, planted := demoPairFiles(t)
	solve := func(args ...string) report { t.Helper(); return solveMCS(t, paths, args...) }
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
	// --device takes "all" (the CPU backend has one device) and lists.
	if all := solve("--engine", "gpu", "--backend", "cpu", "--device", "all", "--workers", "2"); all.Size != cpu.Size || !all.Proven {
		t.Fatalf("--device all: %+v, cpu engine %+v", all, cpu)
	}
	if code, _, stderr := runCLI(t, "mcs", paths[0], paths[1], "--engine", "gpu", "--backend", "cpu", "--device", "0,0"); code == 0 ||
		!strings.Contains(stderr, "listed twice") {
		t.Fatalf("--device 0,0: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "mcs", paths[0], paths[1], "--engine", "gpu", "--backend", "cpu", "--connected"); code != 2 ||
		!strings.Contains(stderr, "does not support --connected") {
		t.Fatalf("--connected on the gpu engine: exit %d: %s", code, stderr)
	}
}

// TestMCSMany runs 'arbor mcs' on three graphs: (G, H, G) has the size of
// (G, H), one column per graph; --approximate says it is approximate.
func TestMCSMany(t *testing.T) {
	// Small graphs: three of the demo pair's size take seconds to prove.
	rng := rand.New(rand.NewPCG(5, 6))
	small := func(n int) *core.Graph {
		b := core.NewBuilder(n, false)
		for u := 0; u < n; u++ {
			for v := u + 1; v < n; v++ {
				if rng.IntN(5) < 2 {
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
	g, h := small(14), small(12)
	paths := writeGraphs(t, core.FormatMIVIA, "mivia", g, h)
	type result struct {
		Size        int      `json:"size"`
		Proven      bool     `json:"proven"`
		Approximate bool     `json:"approximate"`
		Verified    bool     `json:"verified"`
		Files       []string `json:"files"`
		Mapping     [][2]int `json:"mapping"`
		Columns     [][]int  `json:"columns"`
	}
	solve := func(args ...string) result {
		t.Helper()
		return runJSON[result](t, append([]string{"mcs", "--verify", "--json", "--threads", "1"}, args...)...)
	}
	pair := solve(paths[0], paths[1])
	if len(pair.Columns) != 2 || len(pair.Columns[0]) != pair.Size || len(pair.Mapping) != pair.Size || len(pair.Files) != 2 {
		t.Fatalf("pair JSON: %+v", pair)
	}
	for _, extra := range [][]string{nil, {"--plain-order"}} {
		tri := solve(append([]string{paths[0], paths[1], paths[0]}, extra...)...)
		if !tri.Proven || tri.Approximate || !tri.Verified || tri.Size != pair.Size || len(tri.Columns) != 3 || len(tri.Files) != 3 {
			t.Fatalf("%v: (G,H,G) %+v, pair size %d", extra, tri, pair.Size)
		}
		for _, col := range tri.Columns {
			if len(col) != tri.Size {
				t.Fatalf("%v: a column of %d for size %d", extra, len(col), tri.Size)
			}
		}
	}
	approx := solve(paths[0], paths[1], paths[0], "--approximate", "--keep", "2")
	if approx.Proven || !approx.Approximate || approx.Size > pair.Size || len(approx.Columns) != 3 {
		t.Fatalf("approximate: %+v", approx)
	}
	code, out, stderr := runCLI(t, "mcs", paths[0], paths[1], paths[1], "--approximate")
	if code != 0 || !strings.Contains(out, "approximate") || !strings.Contains(out, "→") {
		t.Fatalf("text output: exit %d\n%s%s", code, out, stderr)
	}
	wantExit(t, 2, [][]string{
		{"mcs", paths[0], paths[1], paths[0], "--keep", "0"},
		{"mcs", paths[0], paths[1], paths[0], "--engine", "gpu"},
		{"mcs", paths[0], paths[1], paths[0], "--big-first"},
	})
	if code, _, stderr := runCLI(t, "mcs", paths[0], paths[1], filepath.Join(t.TempDir(), "missing")); code != 1 || !strings.Contains(stderr, "missing") {
		t.Errorf("missing third file: exit %d, stderr %q", code, stderr)
	}
}

// TestMCSHeuristics runs the heuristic flags and the portfolio through
// the CLI: each must find the default's size, verified and proven.
func TestMCSHeuristics(t *testing.T) {
	paths, _ := demoPairFiles(t)
	solve := func(args ...string) report { t.Helper(); return solveMCS(t, paths, args...) }
	want := solve("--engine", "cpu", "--threads", "1")
	for _, args := range [][]string{
		{"--engine", "cpu", "--block-order"},
		{"--engine", "cpu", "--dead-end", "1000", "--double-raise"},
		{"--engine", "cpu", "--threads", "1", "--restarts", "--seed", "3"},
		{"--engine", "portfolio", "--threads", "3"},
	} {
		r := solve(args...)
		if r.Size != want.Size || !r.Proven || !r.Verified {
			t.Errorf("%v: %+v, want size %d", args, r, want.Size)
		}
		if args[1] == "portfolio" && (r.Engine != "portfolio" || !strings.Contains(r.Why, "proved it first")) {
			t.Errorf("%v: engine %q why %q", args, r.Engine, r.Why)
		}
	}
	wantExit(t, 2, [][]string{
		{"mcs", paths[0], paths[1], "--dead-end", "-1"},
		{"mcs", paths[0], paths[1], "--engine", "nope"},
	})
	// Restarts run on the sequential engine, whatever --threads says.
	for _, threads := range []string{"0", "2"} {
		r := solve("--restarts", "--threads", threads)
		if r.Size != want.Size || !r.Proven || !strings.Contains(r.Why, "sequential engine") {
			t.Errorf("--restarts --threads %s: %+v, want a proven %d by the sequential engine", threads, r, want.Size)
		}
	}
}

// TestMCSClusterEmbedded runs 'arbor mcs --cluster embedded': the local
// workers are this test binary acting as the CLI (envCLI).
func TestMCSClusterEmbedded(t *testing.T) {
	paths, planted := demoPairFiles(t)
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
		Cluster  struct {
			Tasks int `json:"tasks"`
		} `json:"cluster"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if !r.Proven || !r.Verified || r.Size != local.Size || r.Size < planted || r.Engine != "cluster" || r.Cluster.Tasks == 0 {
		t.Errorf("cluster run %+v, local size %d", r, local.Size)
	}
	// The first local worker searches on a device (the CPU backend's Go
	// twin, always there) and nothing else; it is the only worker.
	code, out, stderr = runCLI(t, "mcs", paths[0], paths[1], "--cluster", "embedded", "--engine", "gpu", "--backend", "cpu",
		"--task-nodes", "2000", "--tasks", "8", "--verify", "--json")
	if code != 0 {
		t.Fatalf("--engine gpu: exit %d: %s", code, stderr)
	}
	r.Proven, r.Size = false, 0
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if !r.Proven || !r.Verified || r.Size != local.Size {
		t.Errorf("cluster run on a device %+v, local size %d", r, local.Size)
	}
	if code, _, stderr := runCLI(t, "mcs", paths[0], paths[1], "--cluster", "nats://127.0.0.1:1", "--engine", "gpu"); code != 2 || !strings.Contains(stderr, "arbor worker --engine gpu") {
		t.Errorf("--engine gpu with a remote cluster: exit %d (%s), want 2 naming the worker's flag", code, stderr)
	}
	if code, _, _ := runCLI(t, "worker", "--cluster", "nats://127.0.0.1:1", "--engine", "fast"); code != 2 {
		t.Errorf("worker --engine fast: exit %d, want 2", code)
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

// TestServerCommand runs 'arbor server', a worker and a coordinator on it,
// and a worker with the wrong token, which it refuses.
func TestServerCommand(t *testing.T) {
	paths, _ := demoPairFiles(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var serr syncio.Writer
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"server", "--listen", "127.0.0.1:0", "--store", t.TempDir(), "--cluster-token", "tok"}, io.Discard, &serr)
	}()
	var url string
	for start := time.Now(); url == "" && time.Since(start) < 30*time.Second; time.Sleep(20 * time.Millisecond) {
		if _, after, ok := strings.Cut(serr.String(), "listening on "); ok {
			url = strings.TrimSpace(after)
		}
	}
	if url == "" {
		t.Fatalf("the server never said where it listens: %q", serr.String())
	}
	if code, _, stderr := runCLI(t, "worker", "--cluster", url, "--cluster-token", "wrong"); code != 1 || !strings.Contains(stderr, "wrong or missing token") {
		t.Errorf("a worker with the wrong token: exit %d, stderr %q: want a refusal", code, stderr)
	}
	wctx, stopWorker := context.WithCancel(ctx)
	workerExit := make(chan int, 1)
	go func() {
		workerExit <- run(wctx, []string{"worker", "--cluster", url, "--cluster-token", "tok", "--threads", "1", "--engine", "cpu"}, io.Discard, io.Discard)
	}()
	r := runJSON[struct {
		Size   int  `json:"size"`
		Proven bool `json:"proven"`
	}](t, "mcs", paths[0], paths[1], "--cluster", url, "--cluster-token", "tok", "--verify", "--json")
	local := runJSON[struct{ Size int }](t, "mcs", paths[0], paths[1], "--threads", "1", "--json")
	if !r.Proven || r.Size != local.Size {
		t.Errorf("on 'arbor server': size %d proven %v, local %d", r.Size, r.Proven, local.Size)
	}
	stopWorker()
	if code := <-workerExit; code != 0 {
		t.Errorf("worker exit %d", code)
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Errorf("server exit %d: %s", code, serr.String())
	}
	if code, _, _ := runCLI(t, "server", "--listen", "nowhere"); code != 2 {
		t.Errorf("--listen nowhere: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(t, "server", "--nkey", "U123", "--cluster-token", "t"); code != 2 {
		t.Errorf("--nkey with --cluster-token: exit %d, want 2", code)
	}
	if code, _, stderr := runCLI(t, "server", "--listen", "127.0.0.1:0", "--nkey", "not-a-key"); code != 1 || !strings.Contains(stderr, "public key") {
		t.Errorf("--nkey not-a-key: exit %d (%s), want 1 naming the key", code, stderr)
	}
}

// TestSlurmScriptLocally runs deploy/slurm/arbor-mcs.sbatch on this machine
// with stand-ins for Slurm's scontrol and srun (one "node": this one) and
// this test binary as arbor: the server, a worker and the coordinator it
// starts must prove the demo pair's optimum.
func TestSlurmScriptLocally(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on this machine: the Slurm script cannot run")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "deploy", "slurm", "arbor-mcs.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := demoPairFiles(t)
	bin := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"arbor":    "exec env " + envCLI + "=1 '" + self + "' \"$@\"",
		"scontrol": "echo 127.0.0.1",                                               // show hostnames: one node
		"srun":     "while [ \"${1#--}\" != \"$1\" ]; do shift; done; exec \"$@\"", // drop srun's own options
	} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, script, paths[0], paths[1], "--threads", "1")
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"SLURM_JOB_NODELIST=localhost", "SLURM_JOB_ID=test", fmt.Sprintf("ARBOR_NATS_PORT=%d", port), "TMPDIR="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the script failed: %v\n%s", err, stderr.String())
	}
	var r struct {
		Size     int  `json:"size"`
		Proven   bool `json:"proven"`
		Verified bool `json:"verified"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("not JSON: %v\n%s\n%s", err, out, stderr.String())
	}
	local := runJSON[struct{ Size int }](t, "mcs", paths[0], paths[1], "--threads", "1", "--json")
	if !r.Proven || !r.Verified || r.Size != local.Size {
		t.Errorf("the Slurm script: %+v, local size %d", r, local.Size)
	}
}

// TestMCSPrune: --prune's values, its usage error, and --json's prune
// object: every rule by default, R5 off with a fixed goal (it cannot fire
// there), nothing in mode none, R5 alone for three graphs (the k-graph
// search runs no other rule); the fixed goal's node counts are
// equal on the CPU engine and the device engine's twin in both modes.
func TestMCSPrune(t *testing.T) {
	paths, _ := demoPairFiles(t)
	type result struct {
		Size  int   `json:"size"`
		Nodes int64 `json:"nodes"`
		Prune struct {
			Mode  string   `json:"mode"`
			Rules []string `json:"rules"`
			Off   []struct {
				Rule string `json:"rule"`
				Why  string `json:"why"`
			} `json:"off"`
		} `json:"prune"`
	}
	solve := func(args ...string) result {
		t.Helper()
		return runJSON[result](t, append([]string{"mcs", "--verify", "--json"}, args...)...)
	}
	def := solve(paths[0], paths[1], "--threads", "1")
	if def.Prune.Mode != "rr" || strings.Join(def.Prune.Rules, ",") != "R1,R2,B1,R3,R4,R5" || len(def.Prune.Off) != 0 {
		t.Errorf("default: %+v", def.Prune)
	}
	none := solve(paths[0], paths[1], "--threads", "1", "--prune", "none")
	if none.Prune.Mode != "none" || len(none.Prune.Rules) != 0 || len(none.Prune.Off) != 0 || none.Size != def.Size {
		t.Errorf("--prune none: %+v, size %d (default %d)", none.Prune, none.Size, def.Size)
	}
	goal := fmt.Sprint(def.Size + 1)
	for _, mode := range []string{"rr", "none"} {
		cpu := solve(paths[0], paths[1], "--threads", "1", "--goal", goal, "--prune", mode)
		dev := solve(paths[0], paths[1], "--engine", "gpu", "--backend", "cpu", "--workers", "3", "--goal", goal, "--prune", mode)
		if cpu.Nodes != dev.Nodes || cpu.Size != dev.Size {
			t.Errorf("--prune %s --goal %s: cpu %d nodes size %d, device %d nodes size %d", mode, goal, cpu.Nodes, cpu.Size, dev.Nodes, dev.Size)
		}
		if mode == "rr" && (len(dev.Prune.Off) != 1 || dev.Prune.Off[0].Rule != "R5" || dev.Prune.Off[0].Why == "") {
			t.Errorf("--goal: R5 not reported off: %+v", dev.Prune)
		}
	}
	three := solve(paths[0], paths[1], paths[0])
	if three.Prune.Mode != "rr" || strings.Join(three.Prune.Rules, ",") != "R5" || len(three.Prune.Off) != 5 {
		t.Errorf("three graphs: %+v", three.Prune)
	}
	code, _, stderr := runCLI(t, "mcs", paths[0], paths[1], "--prune", "fast")
	if code != 2 || !strings.Contains(stderr, `unknown --prune value "fast"`) || !strings.Contains(stderr, "rr") || !strings.Contains(stderr, "none") {
		t.Errorf("--prune fast: exit %d, stderr %q", code, stderr)
	}
}
