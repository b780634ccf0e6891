package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/cluster"
	"github.com/arbor-gpu/arbor/core"
)

// TestClusterUsage: usage errors of the cluster path exit 2, with a
// message naming the fix.
func TestClusterUsage(t *testing.T) {
	g, h, _ := demoPair(t)
	paths := writeGraphs(t, core.FormatMIVIA, "mivia", g, h)
	vcPath := writeGraphs(t, core.FormatPACE, "gr", g)[0]
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcs", paths[0], paths[1], "--cluster", "nats://127.0.0.1:1", "--tasks", "5000"}, "at most 4096"},
		{[]string{"vc", vcPath, "--cluster", "nats://127.0.0.1:1", "--engine", "clique"}, "not distributed"},
		{[]string{"server", "--max-store", "lots"}, "--max-store"},
		{[]string{"server", "--cluster-token", "a", "--worker-token", "a"}, "differ"},
		{[]string{"jobs", "list"}, "--cluster"},
		{[]string{"jobs", "frobnicate", "--cluster", "nats://127.0.0.1:1"}, "list, cancel JOB, purge JOB or add-worker NAME"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d (%s), want 2 saying %q", c.args, code, strings.TrimSpace(stderr), c.want)
		}
	}
	for text, want := range map[string]int64{"0": 0, "512MiB": 512 << 20, "2G": 2 << 30, "100kb": 100 << 10, "7": 7} {
		if got, err := cli.ParseSize(text); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", text, got, err, want)
		}
	}
}

// TestJobsCommand: 'arbor jobs' lists a solved job, refuses a worker's
// token, and purges the job.
func TestJobsCommand(t *testing.T) {
	srv, err := cluster.Listen(cluster.ServerConfig{Host: "127.0.0.1", Token: "coord", WorkerToken: "work"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	key, err := srv.AddWorker("w") // a worker token needs a registered key
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		done <- cluster.RunWorker(wctx, cluster.WorkerConfig{URL: srv.URL(), Token: "work", Key: &key, Threads: 1})
	}()
	defer func() { stop(); <-done }()
	g, h, _ := demoPair(t)
	res, err := cluster.SolveMCS(ctx, cluster.CoordinatorConfig{URL: srv.URL(), Token: "coord", Tasks: 8}, g, h, mcs.Options{})
	if err != nil || !res.Proven {
		t.Fatalf("solve: %v (proven %v)", err, res.Proven)
	}
	code, out, stderr := runCLI(t, "jobs", "list", "--cluster", srv.URL(), "--cluster-token", "coord")
	if code != 0 || !strings.Contains(out, res.Job) || !strings.Contains(out, "ended*") {
		t.Fatalf("jobs list: exit %d\n%s%s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, "jobs", "purge", res.Job, "--cluster", srv.URL(), "--cluster-token", "work"); code == 0 {
		t.Errorf("a worker's token purged a job: %s", stderr)
	}
	if code, out, stderr := runCLI(t, "jobs", "purge", res.Job, "--cluster", srv.URL(), "--cluster-token", "coord"); code != 0 {
		t.Fatalf("jobs purge: exit %d %s%s", code, out, stderr)
	}
	_, out, _ = runCLI(t, "jobs", "list", "--cluster", srv.URL(), "--cluster-token", "coord")
	if !strings.Contains(out, "purged") {
		t.Errorf("after the purge:\n%s", out)
	}
	// The token in a URL prints as ***, not %2A%2A%2A.
	if code, _, stderr := runCLI(t, "jobs", "list", "--cluster", strings.Replace(srv.URL(), "nats://", "nats://wrong@", 1)); code == 0 ||
		!strings.Contains(stderr, "nats://***@127.0.0.1") {
		t.Errorf("a wrong token in the URL: exit %d, %s", code, stderr)
	}
}

// TestClusterContract: a distributed run keeps the contract of a local
// one (issue #32): the schema, the status, the file's own numbering and
// --zero-based, -o written with the status inside, --require-optimal.
// The local workers are this test binary acting as the CLI (envCLI).
func TestClusterContract(t *testing.T) {
	g, h, _ := demoPair(t)
	pace := writeGraphs(t, core.FormatPACE, "gr", g, h) // numbered from 1
	local := runJSON[struct{ Size int }](t, "mcs", pace[0], pace[1], "--threads", "1", "--json")
	t.Setenv(envCLI, "1")
	dir := t.TempDir()
	type mcsJSON struct {
		Size    int      `json:"size"`
		Status  string   `json:"status"`
		Proven  bool     `json:"proven"`
		Base    []int    `json:"base"`
		Engine  string   `json:"engine"`
		Mapping [][2]int `json:"mapping"`
		Cluster struct {
			Job   string `json:"job"`
			Tasks int    `json:"tasks"`
			Roots int    `json:"roots"`
		} `json:"cluster"`
	}
	schema := loadSchema(t, "mcs")
	inRange := func(m [][2]int, base int) bool {
		for _, p := range m {
			if p[0] < base || p[0] >= g.N+base || p[1] < base || p[1] >= h.N+base {
				return false
			}
		}
		return true
	}
	for _, zero := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprintf("map%v.txt", zero))
		args := []string{"mcs", pace[0], pace[1], "--cluster", "embedded", "--workers", "2", "--threads", "1", "--task-nodes", "2000", "--tasks", "8",
			"--json", "-o", out, "--require-optimal"}
		base := 1
		if zero {
			args, base = append(args, "--zero-based"), 0
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var doc any
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, stdout)
		}
		for _, e := range validate(schema, doc, "$") {
			t.Errorf("--zero-based %v: %s", zero, e)
		}
		var r mcsJSON
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatal(err)
		}
		if r.Size != local.Size || r.Status != "optimal" || !r.Proven || r.Engine != "cluster" || len(r.Mapping) != r.Size ||
			!slices.Equal(r.Base, []int{base, base}) || !inRange(r.Mapping, base) || !strings.HasPrefix(r.Cluster.Job, "mcs-") || r.Cluster.Tasks < r.Cluster.Roots || r.Cluster.Roots == 0 {
			t.Errorf("--zero-based %v: %+v, want a proven %d numbered from %d", zero, r, local.Size, base)
		}
		// -o: the status, then the same rows as the JSON mapping.
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if !strings.HasPrefix(lines[0], fmt.Sprintf("# arbor mcs: size %d, status optimal", r.Size)) || len(lines) != 2+r.Size {
			t.Fatalf("-o file:\n%s", data)
		}
		for i, p := range r.Mapping {
			if lines[2+i] != fmt.Sprintf("%d %d", p[0], p[1]) {
				t.Errorf("-o row %d: %q, want %d %d", i, lines[2+i], p[0], p[1])
			}
		}
	}
	// Stopped before it could prove anything: the best found, unproven,
	// in text; --require-optimal makes that exit 3.
	code, stdout, stderr := runCLI(t, "mcs", pace[0], pace[1], "--cluster", "embedded", "--workers", "1", "--threads", "1", "--timeout", "1ms", "--require-optimal")
	if code != cli.ExitUnsettled || !strings.Contains(stdout, "unproven") || !strings.Contains(stdout, "engine cluster") {
		t.Errorf("--timeout 1ms --require-optimal: exit %d\n%s%s", code, stdout, stderr)
	}

	// vc: the cover in the file's numbering (PACE: from 1), -o in the PACE
	// solution format with the status, the schema.
	vcPath := writeGraphs(t, core.FormatPACE, "gr", g)[0]
	cover := filepath.Join(dir, "cover.txt")
	code, stdout, stderr = runCLI(t, "vc", vcPath, "--cluster", "embedded", "--workers", "2", "--threads", "1", "--json", "-o", cover, "--require-optimal")
	if code != 0 {
		t.Fatalf("vc: exit %d: %s", code, stderr)
	}
	var doc any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("vc: not JSON: %v\n%s", err, stdout)
	}
	for _, e := range validate(loadSchema(t, "vc"), doc, "$") {
		t.Errorf("vc: %s", e)
	}
	var v struct {
		Size       int    `json:"size"`
		Status     string `json:"status"`
		LowerBound int    `json:"lower_bound"`
		Base       int    `json:"base"`
		Cover      []int  `json:"cover"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	ref, err := vertexcover.Solve(context.Background(), g, vertexcover.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	zeroBased := make([]int, len(v.Cover))
	for i, x := range v.Cover {
		zeroBased[i] = x - 1
	}
	if v.Status != "optimal" || v.Size != len(ref.Cover) || v.LowerBound != v.Size || v.Base != 1 || len(v.Cover) != v.Size ||
		vertexcover.Verify(g, zeroBased) != nil {
		t.Errorf("vc: %+v, want a proven cover of %d numbered from 1", v, len(ref.Cover))
	}
	data, err := os.ReadFile(cover)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "c arbor vc: status optimal\n") || !strings.Contains(string(data), fmt.Sprintf("s vc %d %d\n", g.N, v.Size)) {
		t.Errorf("vc -o:\n%s", data)
	}
}
