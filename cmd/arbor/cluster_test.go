package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/cluster"
	"github.com/arbor-gpu/arbor/core"
)

// TestClusterUsage: usage errors of the cluster path exit 2, with a
// message naming the fix.
func TestClusterUsage(t *testing.T) {
	g, h, _, err := demoMCSPair()
	if err != nil {
		t.Fatal(err)
	}
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
		{[]string{"jobs", "frobnicate", "--cluster", "nats://127.0.0.1:1"}, "list, cancel JOB or purge JOB"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d (%s), want 2 saying %q", c.args, code, strings.TrimSpace(stderr), c.want)
		}
	}
	for text, want := range map[string]int64{"0": 0, "512MiB": 512 << 20, "2G": 2 << 30, "100kb": 100 << 10, "7": 7} {
		if got, err := parseSize(text); err != nil || got != want {
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
	go func() {
		done <- cluster.RunWorker(wctx, cluster.WorkerConfig{URL: srv.URL(), Token: "work", Threads: 1})
	}()
	defer func() { stop(); <-done }()
	g, h, _, err := demoMCSPair()
	if err != nil {
		t.Fatal(err)
	}
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
