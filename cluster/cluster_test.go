package cluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
	"github.com/arbor-gpu/arbor/internal/syncio"
	"github.com/arbor-gpu/arbor/internal/testrole"
)

// The test binary doubles as a worker process: in the role "worker"
// (internal/testrole) it runs RunWorker (from EnvURL and EnvToken) instead
// of the tests, under the name of its parameter name. With the parameter
// hold it takes one task, says "holding TASK" on stdout and keeps it
// without heartbeats until killed.
func TestMain(m *testing.M) {
	if code, ok := roleMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func workerMain(params url.Values) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := WorkerFromEnv(WorkerConfig{Threads: 1, Log: os.Stderr, Name: params.Get("name")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if params.Get("hold") == "1" {
		cfg.BeforeSolve = func(t *Task) {
			time.Sleep(300 * time.Millisecond) // announced as held (within announceGap)
			fmt.Printf("holding %s\n", t.ID)
			select {} // until SIGKILL
		}
	}
	if err := RunWorker(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// testWorkerCommand re-executes the test binary as a worker (named name
// unless empty).
func testWorkerCommand(hold bool, name string) func(int) *exec.Cmd {
	return func(int) *exec.Cmd {
		kv := []string{"name", name}
		if hold {
			kv = append(kv, "hold", "1")
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), testrole.Env("worker", kv...))
		return cmd
	}
}

// pairCase is an instance with its known optimum.
type pairCase struct {
	name string
	g, h *core.Graph
	size int
}

// miviaPairs reads the named MIVIA pairs (g file names), skipping the test
// when the shared data is absent.
func miviaPairs(t *testing.T, names ...string) []pairCase {
	t.Helper()
	dir := dataset.Require(t, "mcs/mivia")
	pairs, err := dataset.ReadMIVIA(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []pairCase
	for _, name := range names {
		for _, p := range pairs {
			if p.G != name {
				continue
			}
			if !p.Proven {
				t.Fatalf("%s: not proven in expected.csv", name)
			}
			g, err := core.ReadGraph(filepath.Join(dir, p.G), core.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			h, err := core.ReadGraph(filepath.Join(dir, p.H), core.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, pairCase{name: name, g: g, h: h, size: p.Size})
		}
	}
	if len(out) != len(names) {
		t.Fatalf("found %d of the MIVIA pairs %v", len(out), names)
	}
	return out
}

func randomGraph(rng *rand.Rand, n int, p float64) *core.Graph {
	b := core.NewBuilder(n, false)
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < p {
				b.AddEdge(u, v)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		panic(err) // the generator's own edges are valid
	}
	return g
}

// generatedPairs are random pairs whose optimum the single-process engine
// gives: something to run without the shared data.
func generatedPairs(t *testing.T, k int) []pairCase {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 3))
	var out []pairCase
	for i := 0; i < k; i++ {
		g, h := randomGraph(rng, 18+i, 0.3), randomGraph(rng, 19+i, 0.35)
		res, err := mcs.Solve(context.Background(), g, h, mcs.Options{Threads: 1})
		if err != nil || !res.Proven {
			t.Fatalf("reference solve: %v (proven %v)", err, res.Proven)
		}
		out = append(out, pairCase{name: fmt.Sprintf("random%d", i), g: g, h: h, size: res.Size})
	}
	return out
}

// largerPair is a generated pair about as hard as the MIVIA pairs the
// fault tests take from the data (some 800 000 nodes for the sequential
// engine, against 600 000–1 000 000 for mcs30_b06_s25.A01 and
// mcs30_b03_s30.A00): enough tasks and open work to stop a job partway or
// to fill a device batch past devicePublish, on any machine, without the
// shared data. generatedPairs' cases are too small for that.
func largerPair(t *testing.T) pairCase {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 22))
	g, h := randomGraph(rng, 22, 0.3), randomGraph(rng, 23, 0.3)
	res, err := mcs.Solve(context.Background(), g, h, mcs.Options{Threads: 1})
	if err != nil || !res.Proven {
		t.Fatalf("reference solve: %v (proven %v)", err, res.Proven)
	}
	return pairCase{name: "random22", g: g, h: h, size: res.Size}
}

// deadline bounds a test that waits for a cluster: a stuck job fails
// instead of hanging (the assertion is the result, not the time).
func deadline(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// testConfig splits often: a small node budget makes many tasks.
func testConfig(srv *Server) CoordinatorConfig {
	return CoordinatorConfig{URL: srv.URL(), Token: srv.Token, Tasks: 16, Budget: 20_000, AckWait: 2 * time.Second}
}

func startServer(t *testing.T) *Server {
	t.Helper()
	srv, err := StartServer(t.TempDir(), "secret-"+t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	return srv
}

// inProcessWorkers runs n workers as goroutines until the test ends.
func inProcessWorkers(t *testing.T, srv *Server, n int, logw io.Writer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := RunWorker(ctx, WorkerConfig{URL: srv.URL(), Token: srv.Token, Name: fmt.Sprintf("w%d", i), Threads: 1, Log: logw})
			if err != nil {
				t.Errorf("worker %d: %v", i, err)
			}
		}()
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
}

func checkResult(t *testing.T, c pairCase, res Result, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	if !res.Proven || res.Size != c.size {
		t.Fatalf("%s: size %d proven %v, want %d proven", c.name, res.Size, res.Proven, c.size)
	}
	if err := mcs.Verify(c.g, c.h, res.Mapping, mcs.Options{}); err != nil || len(res.Mapping) != c.size {
		t.Fatalf("%s: mapping of %d pairs: %v", c.name, len(res.Mapping), err)
	}
	// Honest workers' records pass their audits.
	if len(res.Quarantined) > 0 && !slices.Contains(res.Quarantined, "forger") {
		t.Fatalf("%s: honest workers quarantined: %v", c.name, res.Quarantined)
	}
}

// logWriter sends worker logs to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func TestInProcessWorkers(t *testing.T) {
	srv := startServer(t)
	inProcessWorkers(t, srv, 3, logWriter{t})
	cases := generatedPairs(t, 3)
	if dataset.Path("mcs/mivia") != "" {
		cases = append(cases, miviaPairs(t, "mcs10_r02_s20.A00")...)
	}
	for _, c := range cases {
		cfg := testConfig(srv)
		var last Progress
		workers := 0
		cfg.Progress = func(p Progress) { last, workers = p, max(workers, p.Workers) }
		res, err := SolveMCS(deadline(t), cfg, c.g, c.h, mcs.Options{})
		checkResult(t, c, res, err)
		if res.Tasks <= res.Roots {
			t.Errorf("%s: %d tasks for %d roots: no task split", c.name, res.Tasks, res.Roots)
		}
		// Proven: no task is open, so the bound is the optimum; the three
		// workers answered the coordinator's ping.
		if last.Bound != res.Size || last.Done != res.Tasks || workers != 3 {
			t.Errorf("%s: last progress %+v (most workers seen %d), want bound %d, %d done, 3 workers", c.name, last, workers, res.Size, res.Tasks)
		}
		t.Logf("%s: size %d, %d tasks (%d roots), %d nodes, %v", c.name, res.Size, res.Tasks, res.Roots, res.Nodes, res.Elapsed)
	}
}

func TestWorkerProcesses(t *testing.T) {
	cases := miviaPairs(t, "mcs10_r005_s25.A00", "mcs30_b03_s30.A00", "mcs30_b06_s25.A01")
	emb, err := StartEmbedded(4, logWriter{t}, testWorkerCommand(false, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	for _, c := range cases {
		res, err := SolveMCS(deadline(t), testConfig(emb.Server), c.g, c.h, mcs.Options{})
		checkResult(t, c, res, err)
		t.Logf("%s: size %d, %d tasks (%d roots), %d nodes, %v", c.name, res.Size, res.Tasks, res.Roots, res.Nodes, res.Elapsed)
	}
	if err := emb.Workers.Errors(); err != nil {
		t.Errorf("a worker exited: %v", err)
	}
}

// TestWorkerKilled: a worker process takes a task and is SIGKILLed while
// holding it; the job still proves the optimum, which needs that task's
// done record, so the task was redelivered after the ack wait. For both
// problems.
func TestWorkerKilled(t *testing.T) {
	c := generatedPairs(t, 3)[2]
	if dataset.Path("mcs/mivia") != "" {
		c = miviaPairs(t, "mcs30_b06_s25.A01")[0]
	}
	res, err := killedMidTask(t, func(ctx context.Context, cfg CoordinatorConfig) (Result, error) {
		return SolveMCS(ctx, cfg, c.g, c.h, mcs.Options{})
	})
	checkResult(t, c, res, err)
	v := vcCases(t)[2]
	res, err = killedMidTask(t, func(ctx context.Context, cfg CoordinatorConfig) (Result, error) {
		return SolveVC(ctx, cfg, v.g)
	})
	checkVC(t, v, res, err)
}

// killedMidTask starts a worker that holds the first task it gets, runs
// solve, kills the worker once it holds a task, then starts three good
// workers, checks the coordinator handed the task back, and returns what
// solve returned.
func killedMidTask(t *testing.T, solve func(context.Context, CoordinatorConfig) (Result, error)) (Result, error) {
	t.Helper()
	var logs syncBuffer
	srv, done := killedHolding(t, "", 0, &logs, solve)

	ps, err := StartWorkers(3, srv.URL(), srv.Token, logWriter{t}, testWorkerCommand(false, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Stop()
	o := <-done
	// Handed back by the coordinator once the killed worker fell silent,
	// not redelivered after the consumer's ack wait (DefaultAckWait).
	if !strings.Contains(logs.String(), "handed its task") {
		t.Errorf("the killed worker's task was not handed back:\n%s", logs.String())
	}
	return o.res, o.err
}

// killedHolding starts a server and a test worker named name ("": the
// default) that holds the first task it gets (testWorkerCommand's hold),
// runs solve there in the background (testConfig, with ackWait where > 0,
// logging to logs), and kills the worker once it holds a task. It returns
// the server and solve's outcome to come.
func killedHolding(t *testing.T, name string, ackWait time.Duration, logs *syncBuffer,
	solve func(context.Context, CoordinatorConfig) (Result, error)) (*Server, chan outcome) {
	t.Helper()
	srv := startServer(t)
	holder := testWorkerCommand(true, name)(0)
	holder.Env = append(holder.Env, EnvURL+"="+srv.URL(), EnvToken+"="+srv.Token)
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	holder.Stderr = &stderr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Process.Kill() })

	ctx := deadline(t)
	done := make(chan outcome, 1)
	go func() {
		cfg := testConfig(srv)
		if ackWait > 0 {
			cfg.AckWait = ackWait
		}
		cfg.Log = io.MultiWriter(logWriter{t}, logs)
		res, err := solve(ctx, cfg)
		done <- outcome{res, err}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "holding ") {
		t.Fatalf("the holding worker said %q (%v); stderr %s", line, err, stderr.String())
	}
	if err := holder.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = holder.Wait()
	t.Logf("killed a worker holding task %s", strings.TrimSpace(strings.TrimPrefix(line, "holding ")))
	return srv, done
}

// TestWorkerRestarted: a worker killed holding a task and started again
// under its name gets the task handed back as soon as the new process
// announces itself, not when the old one has been silent for the job's
// hand-back wait (30 s here, longer than the whole job may take) nor the
// consumer's ack wait.
func TestWorkerRestarted(t *testing.T) {
	c := generatedPairs(t, 3)[2]
	var logs syncBuffer
	srv, done := killedHolding(t, "box1", 30*time.Second, &logs, func(ctx context.Context, cfg CoordinatorConfig) (Result, error) {
		return SolveMCS(ctx, cfg, c.g, c.h, mcs.Options{})
	})
	killed := time.Now()
	// The same name again, and the task comes back at once: the job ends
	// long before the hand-back wait.
	ps, err := StartWorkers(1, srv.URL(), srv.Token, logWriter{t}, func(i int) *exec.Cmd {
		return testWorkerCommand(false, "box1")(i)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Stop()
	o := <-done
	checkResult(t, c, o.res, o.err)
	if !strings.Contains(logs.String(), "worker box1/") || !strings.Contains(logs.String(), "restarted under its name: handed its task") {
		t.Errorf("the task was not handed back on the restart:\n%s", logs.String())
	}
	t.Logf("the job ended %v after the kill", time.Since(killed).Round(time.Millisecond))
}

// TestCoordinatorRestart stops the coordinator partway through a job; a
// new one finds the job in the streams and finishes it.
func TestCoordinatorRestart(t *testing.T) {
	var c pairCase
	if dataset.Path("mcs/mivia") != "" {
		c = miviaPairs(t, "mcs30_b03_s30.A00")[0]
	} else {
		c = largerPair(t)
	}
	srv := startServer(t)
	inProcessWorkers(t, srv, 2, logWriter{t})
	ctx, cancel := context.WithCancel(deadline(t))
	cfg := testConfig(srv)
	stoppedAt := Progress{}
	cfg.Progress = func(p Progress) {
		if p.Done >= 2 && p.Done < p.Tasks && stoppedAt.Job == "" {
			stoppedAt = p
			cancel()
		}
	}
	res, err := SolveMCS(ctx, cfg, c.g, c.h, mcs.Options{})
	if stoppedAt.Job == "" {
		t.Fatalf("the job ended before the coordinator could be stopped (%v, %v)", res, err)
	}
	if err == nil || !errors.Is(err, context.Canceled) || res.Proven {
		t.Fatalf("stopped coordinator: proven %v, error %v", res.Proven, err)
	}
	t.Logf("stopped with %d of %d tasks done", stoppedAt.Done, stoppedAt.Tasks)

	cfg.Progress = nil
	res, err = SolveMCS(deadline(t), cfg, c.g, c.h, mcs.Options{})
	checkResult(t, c, res, err)
	if !res.Resumed || res.Job != stoppedAt.Job {
		t.Fatalf("the second coordinator did not resume job %s (resumed %v, job %s)", stoppedAt.Job, res.Resumed, res.Job)
	}
	// A finished job asked again is answered from its records, counted anew.
	again, err := SolveMCS(deadline(t), cfg, c.g, c.h, mcs.Options{})
	checkResult(t, c, again, err)
	if !again.Resumed || again.Tasks != res.Tasks {
		t.Errorf("the job asked again: resumed %v, %d tasks (first answer: %d)", again.Resumed, again.Tasks, res.Tasks)
	}
	// Asked fresh, it is a new job, searched again.
	cfg.Fresh = true
	fresh, err := SolveMCS(deadline(t), cfg, c.g, c.h, mcs.Options{})
	checkResult(t, c, fresh, err)
	if fresh.Resumed || fresh.Job == res.Job || fresh.Nodes == 0 {
		t.Errorf("a fresh job: resumed %v, job %s (the old one %s), %d nodes", fresh.Resumed, fresh.Job, res.Job, fresh.Nodes)
	}
}

func TestWrongTokenRefused(t *testing.T) {
	srv := startServer(t)
	for _, token := range []string{"wrong", ""} {
		err := RunWorker(context.Background(), WorkerConfig{URL: srv.URL(), Token: token})
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("token %q: got %v, want a refusal", token, err)
		}
	}
	// The right token in the URL is let in.
	withToken := strings.Replace(srv.URL(), "nats://", "nats://"+srv.Token+"@", 1)
	conn, err := Connect(withToken, "", "test", Credentials{})
	if err != nil {
		t.Fatalf("token in the URL: %v", err)
	}
	conn.Close()
	// And a coordinator likewise.
	g := randomGraph(rand.New(rand.NewPCG(1, 1)), 5, 0.5)
	if _, err := SolveMCS(context.Background(), CoordinatorConfig{URL: srv.URL(), Token: "wrong"}, g, g, mcs.Options{}); err == nil {
		t.Error("a coordinator with a wrong token was let in")
	}
}

// TestForeignMessages: garbage on the task and result subjects is
// rejected and the job still finishes.
func TestForeignMessages(t *testing.T) {
	srv := startServer(t)
	c := generatedPairs(t, 1)[0]
	conn, err := Connect(srv.URL(), srv.Token, "test", Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := deadline(t)
	if _, err := conn.setup(ctx); err != nil {
		t.Fatal(err)
	}
	data, hash, err := encodeMCS(c.g, c.h)
	if err != nil {
		t.Fatal(err)
	}
	// The instance is there, so the task with a bad path fails on its path.
	obs, err := conn.JS.ObjectStore(ctx, InstanceBucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := obs.PutBytes(ctx, hash, data); err != nil {
		t.Fatal(err)
	}
	copts, _ := FromMCS(mcs.Options{})
	job := JobID("mcs", hash, copts)
	// A task of an epoch the server never had: a leftover, dropped.
	bad := Task{Protocol: protocol, Problem: "mcs", Job: job, Epoch: "0123456789abcdef", Instance: hash, Options: copts, Path: [][2]int32{{999, 0}}}
	bad.ID = taskID(bad.scope(), bad.steps())
	for _, m := range []struct{ subj, data string }{
		{taskSubject(job), "not json"},
		{taskSubject(job), `{"protocol":99}`},
		{taskSubject(job), mustJSON(t, bad)}, // a path that names no node
		{doneSubject(job, bad.ID), "garbage"},
		{resultSubject(job, kindBest), fmt.Sprintf(`{"protocol":%d,"kind":"best","job":%q,"size":2,"mapping":[[0,0],[0,1]]}`, protocol, job)},
	} {
		if _, err := conn.JS.Publish(ctx, m.subj, []byte(m.data)); err != nil {
			t.Fatal(err)
		}
	}
	var logs syncBuffer
	inProcessWorkers(t, srv, 2, &logs)
	cfg := testConfig(srv)
	cfg.Log = &logs
	res, err := SolveMCS(ctx, cfg, c.g, c.h, mcs.Options{})
	checkResult(t, c, res, err)
	got := logs.String()
	t.Log(got)
	for _, want := range []string{"not a task", "task protocol 99", "dropped tasks of job " + job, "ignored a message on " + doneSubject(job, bad.ID),
		"best record with an invalid certificate"} {
		if !strings.Contains(got, want) {
			t.Errorf("no rejection saying %q", want)
		}
	}
}

// syncBuffer collects log lines from several goroutines.
type syncBuffer = syncio.Writer

// vcCase is a vertex cover instance with its minimum.
type vcCase struct {
	name string
	g    *core.Graph
	min  int
}

func vcCases(t *testing.T) []vcCase {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 8))
	var out []vcCase
	// The last needs a few thousand nodes: tasks split without the data.
	for i, n := range []int{50, 60, 70, 130} {
		g := randomGraph(rng, n, 0.1)
		res, err := vertexcover.Solve(context.Background(), g, vertexcover.Options{Threads: 1})
		if err != nil || !res.Proven {
			t.Fatalf("reference solve: %v", err)
		}
		out = append(out, vcCase{fmt.Sprintf("random%d", i), g, len(res.Cover)})
	}
	if dir := dataset.Path("vc/pace2019"); dir != "" {
		for _, c := range []struct {
			file string
			min  int
		}{{"vc-exact_005.gr", 129}, {"vc-exact_019.gr", 130}} {
			g, err := core.ReadGraph(filepath.Join(dir, c.file), core.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, vcCase{c.file, g, c.min})
		}
	} else {
		t.Log("vc/pace2019 absent: generated graphs only")
	}
	return out
}

func checkVC(t *testing.T, c vcCase, res Result, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	if !res.Proven || !res.Found || res.Size != c.min || len(res.Cover) != c.min {
		t.Fatalf("%s: cover of %d (found %v, proven %v), want %d proven", c.name, res.Size, res.Found, res.Proven, c.min)
	}
	if err := vertexcover.Verify(c.g, res.Cover); err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
}

func TestVCInProcessWorkers(t *testing.T) {
	srv := startServer(t)
	inProcessWorkers(t, srv, 3, logWriter{t})
	split := false
	for _, c := range vcCases(t) {
		cfg := testConfig(srv)
		// Small enough that some task of the PACE graphs (1,400 to 3,400 nodes
		// over 16 roots) runs over it.
		cfg.Budget = 300
		var bounds []int
		cfg.Progress = func(p Progress) { bounds = append(bounds, p.Bound) }
		res, err := SolveVC(deadline(t), cfg, c.g)
		checkVC(t, c, res, err)
		split = split || res.Tasks > res.Roots
		// A lower bound that only rises, ending at the minimum.
		if len(bounds) == 0 || bounds[len(bounds)-1] != c.min || !slices.IsSorted(bounds) {
			t.Errorf("%s: bounds %v, want rising to %d", c.name, bounds, c.min)
		}
		if testing.Short() {
			continue // the fresh rerun below: not under -short (CI's -race run)
		}
		// The same graph fresh: a new job, its tasks carry its label.
		cfg.Fresh = true
		fresh, err := SolveVC(deadline(t), cfg, c.g)
		checkVC(t, c, fresh, err)
		if fresh.Resumed || fresh.Job == res.Job {
			t.Errorf("%s: a fresh job: resumed %v, job %s (the old one %s)", c.name, fresh.Resumed, fresh.Job, res.Job)
		}
		t.Logf("%s: cover %d, %d tasks (%d roots), %d nodes, %v", c.name, res.Size, res.Tasks, res.Roots, res.Nodes, res.Elapsed)
	}
	if !split {
		t.Error("no vc task ran over its budget: splitting went untested")
	}
}

func TestVCWorkerProcesses(t *testing.T) {
	cases := vcCases(t)
	emb, err := StartEmbedded(4, logWriter{t}, testWorkerCommand(false, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	c := cases[len(cases)-1]
	// The default start: one root task, the whole graph, split as it runs
	// over its budget.
	cfg := testConfig(emb.Server)
	cfg.Tasks, cfg.Budget = 0, 300
	res, err := SolveVC(deadline(t), cfg, c.g)
	checkVC(t, c, res, err)
	if res.Roots != 1 || res.Tasks <= 1 {
		t.Errorf("%s: %d roots, %d tasks: want one root, split", c.name, res.Roots, res.Tasks)
	}
	t.Logf("%s: cover %d, %d tasks, %d nodes, %v", c.name, res.Size, res.Tasks, res.Nodes, res.Elapsed)
}

// TestDeviceWorkers runs jobs on a worker whose only solver is a device
// (every task is searched there, and its small device budget makes tasks
// split), and on one with a device beside the CPU, on every device.
func TestDeviceWorkers(t *testing.T) {
	mcsCases := generatedPairs(t, 2)
	if dataset.Path("mcs/mivia") != "" {
		mcsCases = append(mcsCases, miviaPairs(t, "mcs10_r02_s20.A00")...)
	}
	// One sparse graph (the device's vc_epoch) and one dense (its clique
	// search on the complement), each needing a search.
	rng := rand.New(rand.NewPCG(5, 9))
	var vcs []vcCase
	for _, gp := range []struct {
		n int
		p float64
	}{{130, 0.06}, {100, 0.12}} {
		g := randomGraph(rng, gp.n, gp.p)
		res, err := vertexcover.Solve(context.Background(), g, vertexcover.Options{Threads: 1})
		if err != nil || !res.Proven {
			t.Fatalf("reference solve: %v", err)
		}
		vcs = append(vcs, vcCase{fmt.Sprintf("random n=%d p=%.2f", gp.n, gp.p), g, len(res.Cover)})
	}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		modes := []bool{true, false}
		if testing.Short() {
			modes = modes[:1] // the device alone: every task on it
		}
		for _, onlyDevice := range modes {
			srv := startServer(t)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				// Beside the device, two CPU tasks at a time.
				done <- RunWorker(ctx, WorkerConfig{URL: srv.URL(), Token: srv.Token, Name: "dev", Threads: 2, Slots: 2, Log: logWriter{t},
					Devices: []backend.Device{dev}, NoCPU: onlyDevice, DeviceBudget: 3000, DeviceWorkers: 3})
			}()
			for _, c := range mcsCases {
				res, err := SolveMCS(deadline(t), testConfig(srv), c.g, c.h, mcs.Options{})
				checkResult(t, c, res, err)
				if onlyDevice && res.Tasks <= res.Roots {
					t.Errorf("%s: %d tasks for %d roots: no device task split", c.name, res.Tasks, res.Roots)
				}
				t.Logf("device only %v, %s: size %d, %d tasks (%d roots), %d nodes, %v", onlyDevice, c.name, res.Size, res.Tasks, res.Roots, res.Nodes, res.Elapsed)
			}
			for i, c := range vcs {
				cfg := testConfig(srv)
				cfg.Tasks, cfg.Budget = 1, 50
				res, err := SolveVC(deadline(t), cfg, c.g)
				checkVC(t, c, res, err)
				if onlyDevice && i == 0 && res.Tasks <= 1 {
					t.Errorf("%s: one task: the device search did not overrun its budget and split", c.name)
				}
				t.Logf("device only %v, %s: cover %d, %d tasks (%d roots), %d nodes, %v", onlyDevice, c.name, res.Size, res.Tasks, res.Roots, res.Nodes, res.Elapsed)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("worker: %v", err)
			}
		}
	})
}

// dialed is a connection to srv as name with token, closed when the test
// ends.
func dialed(t *testing.T, srv *Server, token, name string) *Conn {
	t.Helper()
	conn, err := dial(srv.URL(), token, name, Credentials{}, dialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// streamedRecords reads the records of the results stream on subjects
// matching filter, as they are now (the ones that do not decode left out).
func streamedRecords(t *testing.T, ctx context.Context, conn *Conn, filter string) []*Record {
	t.Helper()
	cons, err := conn.JS.OrderedConsumer(ctx, ResultStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{filter}})
	if err != nil {
		t.Fatal(err)
	}
	var out []*Record
	for {
		b, err := cons.Fetch(500, jetstream.FetchMaxWait(500*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for m := range b.Messages() {
			n++
			if r, err := decodeRecord(m.Data()); err == nil {
				out = append(out, r)
			}
		}
		if n == 0 {
			return out
		}
	}
}

// TestCanaryHint: the coordinator publishes its canary one worse as the
// job's first incumbent (mcs: a pair fewer, vc: a vertex more), verified;
// the workers' own records then prove strictly better than the hint.
func TestCanaryHint(t *testing.T) {
	srv := startServer(t)
	inProcessWorkers(t, srv, 2, logWriter{t})
	ctx := deadline(t)
	conn := dialed(t, srv, srv.Token, "reader")
	// hints returns the best records the coordinator published for job.
	hints := func(job string) []*Record {
		var out []*Record
		for _, r := range streamedRecords(t, ctx, conn, resultSubject(job, kindBest)) {
			if strings.HasPrefix(r.Worker, "coordinator ") {
				out = append(out, r)
			}
		}
		return out
	}
	c := generatedPairs(t, 3)[2]
	res, err := SolveMCS(ctx, testConfig(srv), c.g, c.h, mcs.Options{})
	checkResult(t, c, res, err)
	hs := hints(res.Job)
	if len(hs) != 1 || hs[0].Size < 1 || hs[0].Size >= res.Size || len(hs[0].Mapping) != hs[0].Size || mcs.Verify(c.g, c.h, hs[0].Mapping, mcs.Options{}) != nil {
		t.Errorf("mcs: hints %+v for a proven %d", hs, res.Size)
	}
	v := vcCases(t)[2]
	res, err = SolveVC(ctx, testConfig(srv), v.g)
	checkVC(t, v, res, err)
	hs = hints(res.Job)
	if len(hs) != 1 || hs[0].Size <= res.Size || len(hs[0].Cover) != hs[0].Size || vertexcover.Verify(v.g, hs[0].Cover) != nil {
		t.Errorf("vc: hints %+v for a proven %d", hs, res.Size)
	}
}

// TestDeviceHold: a device batch past its hold hands all its open work to
// the queue at once (a done record naming more than devicePublish
// subtasks), so a worker killed later loses only what it searched since;
// the job is still proven.
func TestDeviceHold(t *testing.T) {
	c := hardPair(23) // without the data: large enough for a hold to hand out more than devicePublish
	if dataset.Path("mcs/mivia") != "" {
		c = miviaPairs(t, "mcs30_b06_s25.A01")[0]
	}
	dev, _, err := backend.Select(backend.Selection{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	srv := startServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- RunWorker(ctx, WorkerConfig{URL: srv.URL(), Token: srv.Token, Name: "dev", Threads: 1, Log: logWriter{t},
			Devices: []backend.Device{dev}, NoCPU: true, DeviceBudget: 8_000, DeviceWorkers: 3, DeviceHold: time.Nanosecond})
	}()
	defer func() { cancel(); <-done }()
	cfg := testConfig(srv)
	cfg.Tasks = 1
	res, err := SolveMCS(deadline(t), cfg, c.g, c.h, mcs.Options{})
	checkResult(t, c, res, err)
	conn := dialed(t, srv, srv.Token, "reader")
	most := 0
	for _, r := range streamedRecords(t, deadline(t), conn, resultPrefix+res.Job+"."+kindDone+".>") {
		most = max(most, len(r.Children))
	}
	if most <= devicePublish {
		t.Errorf("%s: at most %d subtasks in a done record: the batch kept its open work past its hold", c.name, most)
	}
	t.Logf("%s: %d tasks, at most %d subtasks handed out at once", c.name, res.Tasks, most)
}

// TestLostRoots: root tasks that vanish from the queue (purged here before
// any worker starts) are published again by the coordinator's watchdog
// once workers wait with nothing queued or running, and the job is proven.
func TestLostRoots(t *testing.T) {
	c := generatedPairs(t, 3)[2]
	srv := startServer(t)
	ctx := deadline(t)
	var logs syncBuffer
	cfg := testConfig(srv)
	cfg.Log = io.MultiWriter(logWriter{t}, &logs)
	done := solveAsync(ctx, cfg, c)
	conn := dialed(t, srv, srv.Token, "purger")
	job := mcsJob(t, c)
	waitPlan(t, ctx, conn, job)
	tasks, err := conn.JS.Stream(ctx, TaskStream)
	if err != nil {
		t.Fatal(err)
	}
	// The roots are published right after the plan: wait for them, then
	// lose them all.
	for ctx.Err() == nil {
		if m, err := conn.JS.Stream(ctx, ResultStream); err == nil {
			if _, err := m.GetLastMsgForSubject(ctx, resultSubject(job, kindPublished)); err == nil {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := tasks.Purge(ctx, jetstream.WithPurgeSubject(taskSubject(job))); err != nil {
		t.Fatal(err)
	}
	inProcessWorkers(t, srv, 2, logWriter{t})
	o := <-done
	checkResult(t, c, o.res, o.err)
	if !strings.Contains(logs.String(), "open tasks again") {
		t.Errorf("no republication of the lost roots:\n%s", logs.String())
	}
}
