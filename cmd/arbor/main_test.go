package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/core"
)

// runJSON runs the CLI, which must succeed, and decodes its --json output
// into a T.
func runJSON[T any](t *testing.T, args ...string) T {
	t.Helper()
	code, out, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	var r T
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: not JSON: %v\n%s", args, err, out)
	}
	return r
}

// report is the fields of a search command's --json that the tests read
// (each command prints its own subset).
type report struct {
	Size     int    `json:"size"`
	Proven   bool   `json:"proven"`
	Nodes    int64  `json:"nodes"`
	Engine   string `json:"engine"`
	Why      string `json:"why"`
	Device   string `json:"device"`
	Epochs   int    `json:"epochs"`
	Verified bool   `json:"verified"`
}

// solveMCS runs arbor mcs on the pair of files with --verify --json and
// args.
func solveMCS(t *testing.T, pair []string, args ...string) report {
	t.Helper()
	return runJSON[report](t, append([]string{"mcs", pair[0], pair[1], "--verify", "--json"}, args...)...)
}

// demoPair is the demo's MCS pair (demoMCSPair) and the size of the
// common subgraph planted in it.
func demoPair(t *testing.T) (g, h *core.Graph, planted int) {
	t.Helper()
	g, h, planted, err := demoMCSPair()
	if err != nil {
		t.Fatal(err)
	}
	return g, h, planted
}

// demoPairFiles is demoPair written as MIVIA files, and the planted size.
func demoPairFiles(t *testing.T) (paths []string, planted int) {
	t.Helper()
	g, h, planted := demoPair(t)
	return writeGraphs(t, core.FormatMIVIA, "mivia", g, h), planted
}

// wantExit runs each of runs through the CLI and reports every one that
// does not exit with code.
func wantExit(t *testing.T, code int, runs [][]string) {
	t.Helper()
	for _, args := range runs {
		if got, _, stderr := runCLI(t, args...); got != code {
			t.Errorf("arbor %v: exit %d, want %d (%s)", args, got, code, strings.TrimSpace(stderr))
		}
	}
}

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestExitCodes(t *testing.T) {
	cases := []struct {
		args []string
		code int
	}{
		{nil, 2},
		{[]string{"nonsense"}, 2},
		{[]string{"version"}, 0},
		{[]string{"version", "extra"}, 2},
		{[]string{"help"}, 0},
		{[]string{"devices", "--no-such-flag"}, 2},
		{[]string{"devices", "-h"}, 0},
		{[]string{"demo", "--backend", "no-such-backend"}, 2},
	}
	for _, tc := range cases {
		if code, _, stderr := runCLI(t, tc.args...); code != tc.code {
			t.Errorf("arbor %v: exit %d, want %d (stderr: %s)", tc.args, code, tc.code, stderr)
		}
	}
}

func TestDevicesJSONListsCPU(t *testing.T) {
	code, out, stderr := runCLI(t, "devices", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var report []struct {
		Backend string `json:"backend"`
		Devices []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"devices"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	found := false
	for _, r := range report {
		if r.Backend == "cpu" && len(r.Devices) == 1 && r.Devices[0].Type == "cpu" {
			found = true
		}
		if len(r.Devices) == 0 && r.Reason == "" {
			t.Errorf("backend %s has no devices and no reason", r.Backend)
		}
	}
	if !found {
		t.Fatalf("no cpu device in %s", out)
	}
}

func TestDemoSaysWhichBackend(t *testing.T) {
	code, out, stderr := runCLI(t, "demo", "--backend", "cpu")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	if !strings.Contains(out, "cpu:0") || !strings.Contains(out, "vector add") {
		t.Fatalf("demo output does not name the backend or the steps:\n%s", out)
	}
}
