package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/algorithms/clique"
	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/startup"
)

// startupOutcome is what a run decided about its devices and engine: from
// the command's --json and stderr, or from a library call's Result.
type startupOutcome struct {
	Engine  string `json:"engine"`
	Why     string `json:"why"`
	Backend string `json:"backend"`
	Device  string `json:"device"`
	Size    *int   `json:"size"`
	Status  string `json:"status"`
	said    []string
}

// cliOutcome runs the command with --json -v and reads what it decided.
func cliOutcome(t *testing.T, args ...string) startupOutcome {
	t.Helper()
	code, out, stderr := runCLI(t, append(args, "--json", "-v")...)
	if code != 0 {
		t.Fatalf("arbor %v: exit %d: %s", args, code, stderr)
	}
	var o startupOutcome
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("arbor %v: not JSON: %v\n%s", args, err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if line != "" {
			o.said = append(o.said, line)
		}
	}
	return o
}

// libOutcome is the library's side: the Result's engine and why, its
// device and the backend the report names, and the report's lines as the
// command says them.
func libOutcome(engine, why, device string, size int, status core.Status, r startup.Report) startupOutcome {
	o := startupOutcome{Engine: engine, Why: why, Device: device, Size: &size, Status: string(status)}
	if device != "" && len(r.Using) > 0 {
		o.Backend = r.Using[0].Backend
	}
	for _, line := range r.Lines(true) {
		o.said = append(o.said, "arbor: "+line)
	}
	return o
}

// TestStartupLibraryMatchesCLI: a Go program that calls mcs.Solve,
// clique.Maximum or vertexcover.Solve with an engine and a device
// selection (Options.Select) gets what arbor gets with the same --engine
// and --backend: the same engine, the same reason, the same device and
// answer, and a report (Result.Startup) whose lines the command printed.
// ARBOR_REQUIRE names the backend, so that both settle the opening before
// searching and the decision does not depend on who finishes first; the
// CPU backend (the Go twins) and, where it is installed, OpenCL (PoCL).
func TestStartupLibraryMatchesCLI(t *testing.T) {
	ctx := context.Background()
	g, h, _ := demoPair(t)
	pair := writeGraphs(t, core.FormatMIVIA, "mivia", g, h)
	dense := core.GNP(40, 0.5, 7)
	sparse := core.GNP(60, 0.06, 3)
	densePath := writeGraphs(t, core.FormatDIMACS, "clq", dense)[0]
	sparsePath := writeGraphs(t, core.FormatPACE, "gr", sparse)[0]
	t.Setenv(backend.EnvBackend, "")
	t.Setenv(backend.EnvDevice, "")
	for _, b := range []string{"cpu", "opencl"} {
		if _, err := backend.ChooseAll(backend.Selection{Backend: b}); err != nil {
			t.Logf("backend %s: %v (skipped)", b, err)
			continue
		}
		t.Setenv(backend.EnvRequire, b)
		sel := &startup.Selection{Selection: backend.SelectionFromEnv(b, ""), Named: true}
		check := func(what string, cli, lib startupOutcome) {
			t.Helper()
			cliSize, libSize := -1, -1
			if cli.Size != nil {
				cliSize = *cli.Size
			}
			if lib.Size != nil {
				libSize = *lib.Size
			}
			if cli.Engine != lib.Engine || cli.Why != lib.Why || cli.Device != lib.Device || cli.Backend != lib.Backend ||
				cliSize != libSize || cli.Status != lib.Status {
				t.Errorf("%s on %s:\n  arbor:   %s %q %s/%s size %d %s\n  library: %s %q %s/%s size %d %s", what, b,
					cli.Engine, cli.Why, cli.Backend, cli.Device, cliSize, cli.Status,
					lib.Engine, lib.Why, lib.Backend, lib.Device, libSize, lib.Status)
			}
			t.Logf("%s on %s: %s %q %s said %q", what, b, lib.Engine, lib.Why, lib.Device, lib.said)
			if len(lib.said) == 0 {
				t.Errorf("%s on %s: the library's report is empty (the opening was settled)", what, b)
			}
			for _, line := range lib.said {
				if !containsLine(cli.said, line) {
					t.Errorf("%s on %s: the library reports %q; arbor said %q", what, b, line, cli.said)
				}
			}
		}
		for _, eng := range []mcs.Engine{mcs.EngineAuto, mcs.EngineGPU} {
			cli := cliOutcome(t, "mcs", pair[0], pair[1], "--backend", b, "--engine", string(eng), "--threads", "1")
			res, err := mcs.Solve(ctx, g, h, mcs.Options{Threads: 1, Engine: eng, Select: sel})
			if err != nil {
				t.Fatalf("mcs %s on %s: %v", eng, b, err)
			}
			check("mcs "+string(eng), cli, libOutcome(string(res.Engine), res.Why, res.Device, res.Size, res.Status, res.Startup))
		}
		for _, eng := range []clique.Engine{clique.EngineAuto, clique.EngineGPU} {
			cli := cliOutcome(t, "clique", densePath, "--backend", b, "--engine", string(eng), "--threads", "1")
			res, err := clique.Maximum(ctx, dense, clique.Options{Threads: 1, Engine: eng, Select: sel})
			if err != nil {
				t.Fatalf("clique %s on %s: %v", eng, b, err)
			}
			check("clique "+string(eng), cli, libOutcome(string(res.Engine), res.Why, res.Device, res.Size, res.Status, res.Startup))
		}
		for _, tc := range []struct {
			eng  vertexcover.Engine
			path string
			g    *core.Graph
		}{{vertexcover.EngineAuto, sparsePath, sparse}, {vertexcover.EngineGPU, densePath, dense}} {
			cli := cliOutcome(t, "vc", tc.path, "--backend", b, "--engine", string(tc.eng), "--threads", "1", "--ls", "-1s")
			res, err := vertexcover.Solve(ctx, tc.g, vertexcover.Options{Threads: 1, Engine: tc.eng, Select: sel, LocalSearch: -1})
			if err != nil {
				t.Fatalf("vc %s on %s: %v", tc.eng, b, err)
			}
			check(fmt.Sprintf("vc %s", tc.eng), cli, libOutcome(res.Engine, res.Why, res.Device, res.Size(), res.Status, res.Startup))
		}
	}
}

// TestStartupFallbackMatchesCLI: with a backend that cannot open (CUDA
// without a driver), auto falls back to the CPU engine in the library as
// in the command, and the library's report is the fallback arbor prints.
func TestStartupFallbackMatchesCLI(t *testing.T) {
	if _, err := backend.ChooseAll(backend.Selection{Backend: "cuda"}); err == nil {
		t.Skip("CUDA opens here: no fallback to compare")
	}
	g, h, _ := demoPair(t)
	pair := writeGraphs(t, core.FormatMIVIA, "mivia", g, h)
	t.Setenv(backend.EnvBackend, "")
	t.Setenv(backend.EnvDevice, "")
	t.Setenv(backend.EnvRequire, "cuda")
	cli := cliOutcome(t, "mcs", pair[0], pair[1], "--backend", "cuda", "--threads", "1")
	sel := &startup.Selection{Selection: backend.SelectionFromEnv("cuda", ""), Named: true}
	res, err := mcs.Solve(context.Background(), g, h, mcs.Options{Threads: 1, Select: sel})
	if err != nil {
		t.Fatal(err)
	}
	if res.Startup.Fallback == "" || !containsLine(cli.said, "arbor: "+res.Startup.Fallback) {
		t.Errorf("library fallback %q; arbor said %q", res.Startup.Fallback, cli.said)
	}
	if string(res.Engine) != cli.Engine || res.Why != cli.Why || res.Engine != mcs.EngineCPU {
		t.Errorf("library %s %q, arbor %s %q: want the CPU engine in both", res.Engine, res.Why, cli.Engine, cli.Why)
	}
}

func containsLine(lines []string, line string) bool {
	for _, l := range lines {
		if l == line {
			return true
		}
	}
	return false
}
