package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/testfile"
)

// A 5-cycle with a pendant vertex, in PACE .gr form: minimum cover 3.
const vcTestGraph = "c test\np td 6 6\n1 2\n2 3\n3 4\n4 5\n5 1\n5 6\n"

func writeTemp(t *testing.T, name, body string) string {
	t.Helper()
	return writeFile(t, t.TempDir(), name, body)
}

// writeFile writes body to dir/name and returns its path.
var writeFile = testfile.Write

// writeGraphs writes each graph in format to a file of its own in a
// temporary folder (g0.EXT, g1.EXT, …) and returns the paths.
func writeGraphs(t *testing.T, format, ext string, graphs ...*core.Graph) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i, g := range graphs {
		p := filepath.Join(dir, fmt.Sprintf("g%d.%s", i, ext))
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := core.WriteGraph(f, g, format); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func TestVCCommand(t *testing.T) {
	g := writeTemp(t, "c5.gr", vcTestGraph)
	sol := filepath.Join(t.TempDir(), "c5.sol")
	code, out, stderr := runCLI(t, "vc", g, "--verify", "-o", sol, "--threads", "1")
	if code != 0 || !strings.Contains(out, "cover 3  proven minimum") || !strings.Contains(out, "cover verified") {
		t.Fatalf("exit %d, out %q, stderr %q", code, out, stderr)
	}
	data, err := os.ReadFile(sol)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "c arbor vc: status optimal\n") {
		t.Fatalf("solution file %q does not start with its status", data)
	}
	lines := strings.Fields(strings.TrimPrefix(string(data), "c arbor vc: status optimal\n"))
	if len(lines) != 7 || strings.Join(lines[:4], " ") != "s vc 6 3" {
		t.Fatalf("solution file %q", data)
	}

	// Parameterized: k = 4 found (not proven minimum: the root bound is
	// below 3 or not, either way the question is answered), k = 2 proven
	// impossible (exit 0 both).
	code, out, _ = runCLI(t, "vc", g, "-k", "4")
	if code != 0 || !(strings.Contains(out, "a cover of size ≤ 4, not proven minimum") || strings.Contains(out, "proven minimum")) {
		t.Fatalf("-k 4: exit %d, %q", code, out)
	}
	code, out, _ = runCLI(t, "vc", g, "-k", "2")
	if code != 0 || !strings.Contains(out, "cover none  no cover of size ≤ 2 (proven)") {
		t.Fatalf("-k 2: exit %d, %q", code, out)
	}

	code, out, _ = runCLI(t, "vc", g, "--json")
	var res struct {
		Size   int   `json:"size"`
		Proven bool  `json:"proven"`
		Cover  []int `json:"cover"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Size != 3 || !res.Proven || len(res.Cover) != 3 {
		t.Fatalf("--json: exit %d, %q", code, out)
	}

	// A DIMACS clique file holding a 4-vertex path: its complement is again
	// a path on 4 vertices, whose minimum cover is 2.
	clq := writeTemp(t, "g.clq", "p edge 4 3\ne 1 2\ne 2 3\ne 3 4\n")
	if code, out, _ := runCLI(t, "vc", clq, "--complement"); code != 0 || !strings.Contains(out, "cover 2 ") {
		t.Fatalf("--complement: exit %d, %q", code, out)
	}
}

// TestVCEngine runs each engine on the Petersen graph (no reduction
// applies, density 1/3: the auto engine takes the clique route) and checks
// that --json names it with its reason and the threshold.
func TestVCEngine(t *testing.T) {
	body := "p td 10 15\n"
	for i := 0; i < 5; i++ {
		body += fmt.Sprintf("%d %d\n%d %d\n%d %d\n", i+1, (i+1)%5+1, i+1, i+6, i+6, (i+2)%5+6)
	}
	g := writeTemp(t, "petersen.gr", body)
	for _, c := range []struct{ flag, want string }{{"auto", "clique"}, {"branch", "branch"}, {"clique", "clique"}} {
		code, out, stderr := runCLI(t, "vc", g, "--json", "--engine", c.flag)
		var res struct {
			Size      int     `json:"size"`
			Proven    bool    `json:"proven"`
			Kernel    int     `json:"kernel"`
			Engine    string  `json:"engine"`
			Why       string  `json:"why"`
			Threshold float64 `json:"dense_threshold"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
			t.Fatalf("--engine %s: exit %d, %q %q", c.flag, code, out, stderr)
		}
		if res.Size != 6 || !res.Proven || res.Kernel != 10 || res.Engine != c.want || res.Why == "" || res.Threshold <= 0 {
			t.Fatalf("--engine %s: %+v, want a proven 6 by %s", c.flag, res, c.want)
		}
	}
	if code, out, _ := runCLI(t, "vc", g, "--engine", "branch"); code != 0 || !strings.Contains(out, "engine branch") {
		t.Fatalf("human output does not name the engine: %q", out)
	}
}

func TestVCCommandErrors(t *testing.T) {
	bad := writeTemp(t, "bad.gr", "p td 3 2\n1 2\n2 x\n")
	if code, _, stderr := runCLI(t, "vc", bad); code != 1 || !strings.Contains(stderr, "bad.gr") {
		t.Errorf("bad file: exit %d, stderr %q", code, stderr)
	}
	if code, _, _ := runCLI(t, "vc"); code != 2 {
		t.Errorf("no argument: exit %d, want 2", code)
	}
	g := writeTemp(t, "c5.gr", vcTestGraph)
	if code, _, _ := runCLI(t, "vc", g, "--engine", "quantum"); code != 2 {
		t.Errorf("--engine quantum: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(t, "vc", g, "-k", "-5"); code != 2 {
		t.Errorf("-k -5: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(t, "vc", filepath.Join(t.TempDir(), "missing.gr")); code != 1 {
		t.Errorf("missing file: exit %d, want 1", code)
	}
}

// TestVCClusterEmbedded runs 'arbor vc --cluster embedded' (the local
// workers are this test binary acting as the CLI) against the local engine.
func TestVCClusterEmbedded(t *testing.T) {
	g := gnp(t, 45, 0.15, rand.New(rand.NewPCG(3, 4)))
	path := writeGraphs(t, core.FormatPACE, "gr", g)[0]
	type result struct {
		Size     int    `json:"size"`
		Proven   bool   `json:"proven"`
		Verified bool   `json:"verified"`
		Engine   string `json:"engine"`
		Cover    []int  `json:"cover"`
	}
	local := runJSON[result](t, "vc", path, "--threads", "1", "--json")
	t.Setenv(envCLI, "1")
	r := runJSON[result](t, "vc", path, "--cluster", "embedded", "--workers", "2", "--threads", "1", "--task-nodes", "200", "--tasks", "8", "--verify", "--json")
	if !r.Proven || !r.Verified || r.Size != local.Size || len(r.Cover) != r.Size || r.Engine != "cluster" {
		t.Errorf("cluster run %+v, local size %d", r, local.Size)
	}
	if code, _, _ := runCLI(t, "vc", path, "--cluster", "embedded", "-k", "3"); code != 2 {
		t.Errorf("-k with --cluster: exit %d, want 2", code)
	}
}

// TestVCDeviceEngine runs 'arbor vc --engine gpu|hybrid' on the CPU
// backend (the kernel's Go twin) and on OpenCL when present (PoCL here),
// minimum and parameterized, and reads the device fields of --json.
func TestVCDeviceEngine(t *testing.T) {
	// G(60, 0.3): the root reductions leave the whole graph, and the
	// device searches it (the Petersen graph's greedy cover meets its
	// bound at the root).
	gr := gnp(t, 60, 0.3, rand.New(rand.NewPCG(3, 4)))
	ref, err := vertexcover.Solve(context.Background(), gr, vertexcover.Options{Threads: 1})
	if err != nil || !ref.Proven {
		t.Fatalf("CPU engine: %v", err)
	}
	opt := len(ref.Cover)
	g := writeGraphs(t, "pace", "gr", gr)[0]
	backends := []string{"cpu"}
	if backend.ProbeBackend("opencl").Available() {
		backends = append(backends, "opencl")
	} else {
		t.Log("no OpenCL device: the CPU backend only")
	}
	type result struct {
		Size     int    `json:"size"`
		Status   string `json:"status"`
		Proven   bool   `json:"proven"`
		GoalMet  *bool  `json:"goal_met"`
		Kernel   int    `json:"kernel"`
		Engine   string `json:"engine"`
		Why      string `json:"why"`
		Device   string `json:"device"`
		Epochs   int    `json:"epochs"`
		Verified bool   `json:"verified"`
	}
	yes, no := true, false
	for _, be := range backends {
		for _, engine := range []string{"gpu", "hybrid"} {
			for _, k := range []string{"", fmt.Sprint(opt - 1), fmt.Sprint(opt)} {
				args := []string{"vc", g, "--json", "--verify", "--engine", engine, "--backend", be, "--workers", "3"}
				if k != "" {
					args = append(args, "-k", k) // none: a minimum cover
				}
				code, out, stderr := runCLI(t, args...)
				var res result
				if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
					t.Fatalf("%s %s -k %s: exit %d, %q %q", be, engine, k, code, out, stderr)
				}
				want := result{Size: opt, Status: "optimal", Proven: true, Kernel: ref.Kernel, Engine: engine, Why: res.Why, Device: res.Device, Epochs: res.Epochs, Verified: true}
				switch k {
				case fmt.Sprint(opt - 1):
					// No cover: no size, proven infeasible.
					want.Size, want.Status, want.GoalMet, want.Verified = 0, "infeasible", &no, false
				case fmt.Sprint(opt):
					// A cover of ≤ k answers the question; it is proven
					// minimum only where it meets the lower bound.
					want.GoalMet = &yes
					if res.Status == "feasible" {
						want.Status, want.Proven = "feasible", false
					}
				}
				same := res.Size == want.Size && res.Status == want.Status && res.Proven == want.Proven &&
					(res.GoalMet == nil) == (want.GoalMet == nil) && (res.GoalMet == nil || *res.GoalMet == *want.GoalMet) &&
					res.Kernel == want.Kernel && res.Engine == want.Engine && res.Verified == want.Verified
				// The device runs at least an epoch, except with k = opt,
				// where the host's greedy cover may already do, and in the
				// hybrid engine when the CPU engine beside it settles the
				// question first (a race: on a busy box it won before the
				// first launch).
				cpuFirst := engine == "hybrid" && strings.HasSuffix(res.Why, "settled by the CPU engine")
				if !same || res.Why == "" || !strings.HasPrefix(res.Device, be+":") || (k != fmt.Sprint(opt) && !cpuFirst && res.Epochs < 1) {
					t.Fatalf("%s %s -k %s: %+v, want %+v on a %s device after ≥ 1 epoch", be, engine, k, res, want, be)
				}
			}
		}
	}
	if code, _, _ := runCLI(t, "vc", g, "--engine", "gpu", "--backend", "nosuch"); code == 0 {
		t.Fatal("--engine gpu on a missing backend succeeded")
	}
}

// TestVCLSDevice: --ls-device takes auto, on or off, and the answer is the
// same with each (the openers' rules: vertexcover's TestLSModeDevice).
func TestVCLSDevice(t *testing.T) {
	gr := writeTemp(t, "g.gr", vcTestGraph)
	if code, _, stderr := runCLI(t, "vc", gr, "--ls-device", "sometimes"); code != 2 || !strings.Contains(stderr, "--ls-device") {
		t.Fatalf("bad --ls-device: exit %d, stderr %q", code, stderr)
	}
	for _, mode := range []string{"auto", "on", "off"} {
		res := runJSON[struct {
			Size   int  `json:"size"`
			Proven bool `json:"proven"`
		}](t, "vc", gr, "--json", "--ls-device", mode, "--backend", "cpu")
		if res.Size != 3 || !res.Proven {
			t.Fatalf("--ls-device %s: size %d proven %v, want 3 proven", mode, res.Size, res.Proven)
		}
	}
}

// TestVCAuto: auto opens the device in the background and keeps a dense
// kernel on the CPU engine when the device is not a GPU (the CPU backend
// here), saying why; --engine cpu opens nothing and says nothing of a
// device. Both answer the CPU engine's minimum.
func TestVCAuto(t *testing.T) {
	gr := gnp(t, 70, 0.3, rand.New(rand.NewPCG(35, 5)))
	ref, err := vertexcover.Solve(context.Background(), gr, vertexcover.Options{Engine: vertexcover.EngineCPU})
	if err != nil || !ref.Proven {
		t.Fatalf("CPU engine: %v", err)
	}
	g := writeGraphs(t, "pace", "gr", gr)[0]
	type result struct {
		Size    int    `json:"size"`
		Proven  bool   `json:"proven"`
		Engine  string `json:"engine"`
		Why     string `json:"why"`
		Device  string `json:"device"`
		Backend string `json:"backend"`
	}
	for _, engine := range []string{"auto", "cpu"} {
		code, out, stderr := runCLI(t, "vc", g, "--json", "--verify", "--engine", engine, "--backend", "cpu")
		var res result
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
			t.Fatalf("%s: exit %d, %q %q", engine, code, out, stderr)
		}
		if res.Size != len(ref.Cover) || !res.Proven || res.Engine == "hybrid" || res.Device != "" || res.Backend != "" {
			t.Fatalf("%s: %+v, want the CPU engine's %d", engine, res, len(ref.Cover))
		}
		auto := strings.Contains(res.Why, "auto: ")
		if engine == "auto" && !(strings.Contains(res.Why, "is not a GPU") || strings.Contains(res.Why, "before the device was open")) || engine == "cpu" && auto {
			t.Fatalf("%s: why %q", engine, res.Why)
		}
	}
}
