package cluster

// The fault-injection suite (issue #34): forged records, a server that
// loses its store or is killed, a deleted consumer, killed workers and
// coordinators, a worker started before its server, two coordinators of
// one job, the life cycle and the storage cap. Everything runs on
// loopback, every wait is bounded (deadline), and every test ends with the
// right proven answer or a clear error, and nothing queued.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"math/rand/v2"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/internal/testrole"
)

// roleMain runs the test binary's role (internal/testrole): a worker
// (workerMain), a server process (parameters port and dir), a coordinator
// process or an embedded coordinator with worker processes; false when
// it has none.
func roleMain() (int, bool) {
	role, params := testrole.Get()
	switch role {
	case "worker":
		return workerMain(params), true
	case "server":
		port, _ := strconv.Atoi(params.Get("port"))
		_, err := Listen(ServerConfig{Host: "127.0.0.1", Port: port, Dir: params.Get("dir"), Token: os.Getenv(EnvToken)})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		fmt.Println("serving")
		select {} // until killed
	case "coordinator":
		c := hardPair(24)
		cfg := CoordinatorConfig{URL: os.Getenv(EnvURL), Token: os.Getenv(EnvToken), Tasks: 16, Budget: 20_000, AckWait: 3 * time.Second,
			Progress: func(p Progress) {
				if p.Done > 0 {
					fmt.Printf("progress %s %d\n", p.Job, p.Done)
				}
			}}
		_, err := SolveMCS(context.Background(), cfg, c.g, c.h, mcs.Options{})
		fmt.Println("finished", err)
		return 0, true
	case "embedded":
		emb, err := StartEmbedded(2, os.Stderr, testWorkerCommand(false, ""))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		var pids []string
		for _, c := range emb.Workers.cmds {
			pids = append(pids, strconv.Itoa(c.Process.Pid))
		}
		fmt.Printf("embedded %s %s\n", emb.Server.dir, strings.Join(pids, ","))
		select {} // until killed
	}
	return 0, false
}

// hardPair is a generated pair of n vertices: 24 takes 1.4 M nodes (about
// 70 tasks of 20,000 nodes, 0.17 s on one thread here), enough to be
// stopped midway; 26 takes 9.8 M (1.2 s), for jobs stopped before the end.
func hardPair(n int) pairCase {
	rng := rand.New(rand.NewPCG(21, 5))
	g, h := randomGraph(rng, n, 0.3), randomGraph(rng, n, 0.3)
	res, err := mcs.Solve(context.Background(), g, h, mcs.Options{Threads: 1})
	if err != nil || !res.Proven {
		panic(fmt.Sprintf("reference solve: %v", err))
	}
	return pairCase{name: fmt.Sprintf("random%d", n), g: g, h: h, size: res.Size}
}

// child starts the test binary in a role (testrole.Value) with extra
// environment; its stdout comes back line by line.
func child(t *testing.T, role string, env ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), testrole.Var+"="+role), env...)
	cmd.Stderr = logWriter{t}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, bufio.NewScanner(out)
}

// waitLine reads lines until one starts with prefix (failing at EOF).
func waitLine(t *testing.T, sc *bufio.Scanner, prefix string) string {
	t.Helper()
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), prefix) {
			return sc.Text()
		}
	}
	t.Fatalf("no line %q from the child (%v)", prefix, sc.Err())
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// rolesServer starts a server with a coordinator and a worker token.
func rolesServer(t *testing.T, port int, dir string) *Server {
	t.Helper()
	srv, err := Listen(ServerConfig{Host: "127.0.0.1", Port: port, Dir: dir, Token: "coord-" + t.Name(), WorkerToken: "worker-" + t.Name(), SweepEvery: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	return srv
}

// workersWith runs n in-process workers at url with token until the test
// ends: with keys minted by reg when given (a worker token cannot
// register one), else keys of their own. It returns the minted keys.
func workersWith(t *testing.T, url, token string, n int, logw *syncBuffer, reg ...*Server) []WorkerKey {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, n)
	var keys []WorkerKey
	for i := 0; i < n; i++ {
		cfg := WorkerConfig{URL: url, Token: token, Name: fmt.Sprintf("w%d", i), Threads: 1, Log: logw}
		if len(reg) > 0 {
			k, err := reg[0].AddWorker(cfg.Name)
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k)
			cfg.Key = &keys[len(keys)-1]
		}
		go func() {
			defer func() { done <- struct{}{} }()
			if err := RunWorker(ctx, cfg); err != nil {
				t.Errorf("worker %d: %v", i, err)
			}
		}()
	}
	t.Cleanup(func() {
		cancel()
		for range n {
			<-done
		}
	})
	return keys
}

// queuedTasks is the number of tasks left in the queue.
func queuedTasks(t *testing.T, url, token string) uint64 {
	t.Helper()
	conn, err := Connect(url, token, "test", Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s, err := conn.JS.Stream(context.Background(), TaskStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// waitPlan waits until job's plan is in the results stream and returns it.
func waitPlan(t *testing.T, ctx context.Context, conn *Conn, job string) *Record {
	t.Helper()
	for ctx.Err() == nil {
		if s, err := conn.JS.Stream(ctx, ResultStream); err == nil {
			if m, err := s.GetLastMsgForSubject(ctx, resultSubject(job, kindPlan)); err == nil {
				r, err := decodeRecord(m.Data)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no plan")
	return nil
}

func mcsJob(t *testing.T, c pairCase) string {
	t.Helper()
	_, hash, err := encodeMCS(c.g, c.h)
	if err != nil {
		t.Fatal(err)
	}
	copts, _ := FromMCS(mcs.Options{})
	return JobID("mcs", hash, copts)
}

type outcome struct {
	res Result
	err error
}

func solveAsync(ctx context.Context, cfg CoordinatorConfig, c pairCase) chan outcome {
	done := make(chan outcome, 1)
	go func() {
		res, err := SolveMCS(ctx, cfg, c.g, c.h, mcs.Options{})
		done <- outcome{res, err}
	}()
	return done
}

// provenSaying waits for the job of done and checks its result, that the
// logs say want (failing with what if not), and that it left no task
// queued on srv.
func provenSaying(t *testing.T, srv *Server, c pairCase, done chan outcome, logs *syncBuffer, want, what string) {
	t.Helper()
	o := <-done
	checkResult(t, c, o.res, o.err)
	if !strings.Contains(logs.String(), want) {
		t.Errorf("%s:\n%s", what, logs.String())
	}
	if n := queuedTasks(t, srv.URL(), srv.Token); n != 0 {
		t.Errorf("%d tasks left queued", n)
	}
}

// rolesWithWorkers is a roles server (rolesServer) with two registered
// workers that log to logs, and a coordinator's configuration for it.
func rolesWithWorkers(t *testing.T, logs *syncBuffer, tasks int, budget int64) (*Server, CoordinatorConfig) {
	t.Helper()
	srv := rolesServer(t, 0, t.TempDir())
	workersWith(t, srv.URL(), srv.WorkerToken, 2, logs, srv)
	return srv, CoordinatorConfig{URL: srv.URL(), Token: srv.Token, Tasks: tasks, Budget: budget, Log: logs}
}

// solveMidway starts solving c under cfg (solveAsync) and returns once
// three tasks are done; a job that ends first fails the test, which needed
// it still running for what it does next (what).
func solveMidway(t *testing.T, cfg CoordinatorConfig, c pairCase, what string) chan outcome {
	t.Helper()
	midway := make(chan struct{})
	var once sync.Once
	cfg.Progress = func(p Progress) {
		if p.Done >= 3 {
			once.Do(func() { close(midway) })
		}
	}
	done := solveAsync(deadline(t), cfg, c)
	select {
	case <-midway:
	case o := <-done:
		t.Fatalf("the job ended before %s: %v", what, o.err)
	}
	return done
}

// TestForgedRecords: a holder of the worker token publishes an end record
// (refused by the server), and childless done records of every root task
// before any worker starts: unsigned by a registered worker key, they are
// refused, and the job is proven. With one token for everyone, a forged end (unsigned, or signed
// with another key) and a forged plan are ignored and logged.
func TestForgedRecords(t *testing.T) {
	c := hardPair(24)
	srv := rolesServer(t, 0, t.TempDir())
	ctx := deadline(t)
	var logs syncBuffer
	cfg := CoordinatorConfig{URL: srv.URL(), Token: srv.Token, Tasks: 16, Budget: 20_000, Log: &logs}
	done := solveAsync(ctx, cfg, c)
	attacker := dialed(t, srv, srv.WorkerToken, "attacker")
	job := mcsJob(t, c)
	plan := waitPlan(t, ctx, attacker, job)
	end := fmt.Sprintf(`{"protocol":%d,"kind":"end","job":%q,"epoch":%q,"size":0}`, protocol, job, plan.Epoch)
	pctx, pcancel := context.WithTimeout(ctx, 3*time.Second)
	if _, err := attacker.JS.Publish(pctx, resultSubject(job, kindEnd), []byte(end)); err == nil {
		t.Error("a worker token published an end record")
	}
	pcancel()
	// An unsigned best record with a real solution (the canary's, which
	// the attacker recomputes): it counts, as any verified solution, and
	// the honest workers who prune with it pass their audits.
	canary, err := mcs.Solve(ctx, c.g, c.h, mcs.Options{Threads: 1, NodeLimit: canaryNodes, Engine: mcs.EngineCPU})
	if err != nil {
		t.Fatal(err)
	}
	best := Record{Protocol: protocol, Kind: kindBest, Job: job, Epoch: plan.Epoch, Size: len(canary.Mapping), Mapping: canary.Mapping}
	if _, err := attacker.JS.Publish(ctx, resultSubject(job, kindBest), []byte(mustJSON(t, best))); err != nil {
		t.Fatal(err)
	}
	for _, r := range plan.Roots {
		d := Record{Protocol: protocol, Kind: kindDone, Job: job, Epoch: r.Epoch, Task: r.ID}
		if _, err := attacker.JS.Publish(ctx, doneSubject(job, r.ID), []byte(mustJSON(t, d))); err != nil {
			t.Fatal(err)
		}
	}
	// Only now the honest workers.
	workersWith(t, srv.URL(), srv.WorkerToken, 2, &logs, srv)
	provenSaying(t, srv, c, done, &logs, "not signed by a worker key", "the unsigned done records were not refused")

	// One token, every right: forged ends reach the workers and a forged
	// plan the coordinator; neither is believed.
	srv1 := startServer(t)
	var logs1 syncBuffer
	workersWith(t, srv1.URL(), srv1.Token, 2, &logs1)
	cfg1 := testConfig(srv1)
	cfg1.Log = &logs1
	c1 := generatedPairs(t, 3)[2]
	job1 := mcsJob(t, c1)
	done1 := solveAsync(ctx, cfg1, c1)
	forger, err := Connect(srv1.URL(), srv1.Token, "forger", Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	defer forger.Close()
	plan1 := waitPlan(t, ctx, forger, job1)
	other, _ := newJobKey()
	signed := Record{Protocol: protocol, Kind: kindEnd, Job: job1, Epoch: plan1.Epoch}
	if err := signRecord(&signed, other); err != nil {
		t.Fatal(err)
	}
	badPlan := Record{Protocol: protocol, Kind: kindPlan, Job: job1, Epoch: plan1.Epoch, Round: 1, Roots: plan1.Roots[:1]}
	for subj, rec := range map[string]string{
		resultSubject(job1, kindEnd):  fmt.Sprintf(`{"protocol":%d,"kind":"end","job":%q,"epoch":%q,"size":0}`, protocol, job1, plan1.Epoch),
		resultSubject(job1, kindBest): "{}",
		resultSubject(job1, kindPlan): mustJSON(t, badPlan),
	} {
		if _, err := forger.JS.Publish(ctx, subj, []byte(rec)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := forger.JS.Publish(ctx, resultSubject(job1, kindEnd), []byte(mustJSON(t, signed))); err != nil {
		t.Fatal(err)
	}
	o := <-done1
	checkResult(t, c1, o.res, o.err)
	got := logs1.String()
	for _, want := range []string{"ignored an unauthenticated end record of job " + job1, "unauthenticated plan record"} {
		if !strings.Contains(got, want) {
			t.Errorf("no line saying %q in\n%s", want, got)
		}
	}
}

// TestForgingWorker: a worker with its own valid key reports every root
// task done without children, after a best record equal to the
// coordinator's canary (which it recomputes: it can read the instance).
// The proof's last tasks are audited, the records disagree, the worker is
// quarantined and its tasks searched again: the right proven answer, and
// the result names the worker.
func TestForgingWorker(t *testing.T) {
	c := hardPair(24)
	srv := rolesServer(t, 0, t.TempDir())
	ctx := deadline(t)
	var logs syncBuffer
	cfg := CoordinatorConfig{URL: srv.URL(), Token: srv.Token, Tasks: 16, Budget: 20_000, Log: &logs, AuditRate: -1}
	done := solveAsync(ctx, cfg, c)
	key, err := srv.AddWorker("forger")
	if err != nil {
		t.Fatal(err)
	}
	forger := dialed(t, srv, srv.WorkerToken, "forger")
	job := mcsJob(t, c)
	plan := waitPlan(t, ctx, forger, job)
	canary, err := mcs.Solve(ctx, c.g, c.h, mcs.Options{Threads: 1, NodeLimit: canaryNodes, Engine: mcs.EngineCPU})
	if err != nil {
		t.Fatal(err)
	}
	publish := func(subject string, r Record) {
		t.Helper()
		r.Protocol, r.Job, r.Epoch = protocol, job, plan.Epoch
		if err := signAs(&r, key); err != nil {
			t.Fatal(err)
		}
		if _, err := forger.JS.Publish(ctx, subject, []byte(mustJSON(t, r))); err != nil {
			t.Fatal(err)
		}
	}
	publish(resultSubject(job, kindBest), Record{Kind: kindBest, Size: len(canary.Mapping), Mapping: canary.Mapping})
	for _, r := range plan.Roots {
		publish(doneSubject(job, r.ID), Record{Kind: kindDone, Task: r.ID, Path: r.Path, Budget: r.Budget, Replay: true, Bar: len(canary.Mapping), Pruned: len(canary.Mapping)})
	}
	workersWith(t, srv.URL(), srv.WorkerToken, 2, &logs, srv)
	o := <-done
	checkResult(t, c, o.res, o.err)
	if !slices.Equal(o.res.Quarantined, []string{"forger"}) || o.res.Audited == 0 {
		t.Errorf("quarantined %v after %d audits, want the forger", o.res.Quarantined, o.res.Audited)
	}
	if !strings.Contains(logs.String(), "worker forger (key") {
		t.Errorf("no quarantine logged:\n%s", logs.String())
	}
}

// TestServerLostStore: a job solved, the server restarted on an empty
// store at the same address, the same command again: a new epoch, searched
// and proven (the long-lived workers do not take it for the old, ended
// one). Then the store is lost in the middle of a job: the coordinator
// sees its job vanish and starts it again.
func TestServerLostStore(t *testing.T) {
	c := hardPair(24)
	port := freePort(t)
	srv := rolesServer(t, port, t.TempDir())
	var logs syncBuffer
	keys := workersWith(t, srv.URL(), srv.WorkerToken, 2, &logs, srv)
	// A lost store loses the registry of worker keys: the operator adds
	// the workers again.
	reregister := func() {
		for _, k := range keys {
			if err := srv.Register(k); err != nil {
				t.Fatal(err)
			}
		}
	}
	cfg := CoordinatorConfig{URL: srv.URL(), Token: srv.Token, Tasks: 16, Budget: 20_000, Log: &logs}
	first, err := SolveMCS(deadline(t), cfg, c.g, c.h, mcs.Options{})
	checkResult(t, c, first, err)

	srv.Shutdown()
	srv = rolesServer(t, port, t.TempDir())
	reregister()
	again, err := SolveMCS(deadline(t), cfg, c.g, c.h, mcs.Options{})
	checkResult(t, c, again, err)
	if again.Epoch == first.Epoch || again.Resumed || again.Tasks == 0 {
		t.Errorf("rerun on an empty store: epoch %s (first %s), resumed %v, %d tasks", again.Epoch, first.Epoch, again.Resumed, again.Tasks)
	}

	// Lost mid-job: small tasks, so that the job is still running when
	// the server goes (with 20,000-node tasks a loaded machine could see
	// the job proven before the restart, and nothing vanish).
	cfg.Fresh = true
	cfg.Budget = 1_000
	done := solveMidway(t, cfg, c, "the server could be restarted")
	srv.Shutdown()
	srv = rolesServer(t, port, t.TempDir())
	reregister()
	provenSaying(t, srv, c, done, &logs, "vanished from the server", "the coordinator did not say the job vanished")
}

// TestConsumerDeleted: the task consumer is deleted under the workers;
// they back off (a few lines, not thousands) until the server's sweep
// makes it again, and the job is proven.
func TestConsumerDeleted(t *testing.T) {
	c := generatedPairs(t, 2)[1]
	srv := rolesServer(t, 0, t.TempDir())
	conn, err := Connect(srv.URL(), srv.Token, "test", Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var logs syncBuffer
	workersWith(t, srv.URL(), srv.WorkerToken, 2, &logs, srv)
	time.Sleep(300 * time.Millisecond) // the workers are fetching
	if err := conn.JS.DeleteConsumer(context.Background(), TaskStream, WorkerConsumer); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	res, err := SolveMCS(deadline(t), CoordinatorConfig{URL: srv.URL(), Token: srv.Token, Tasks: 16, Budget: 20_000, Log: &logs}, c.g, c.h, mcs.Options{})
	checkResult(t, c, res, err)
	got := logs.String()
	if n := strings.Count(got, "taking tasks:"); n == 0 || n > 8 {
		t.Errorf("%d lines about failing fetches (want a few: one when it fails, one when it works):\n%s", n, got)
	}
}

// TestWorkerBeforeServer: a worker started before its server waits, says
// so, and serves once the server is up.
func TestWorkerBeforeServer(t *testing.T) {
	c := generatedPairs(t, 1)[0]
	port := freePort(t)
	var logs syncBuffer
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	// Its key is minted before the server is up, registered once it is.
	key, err := NewWorkerKey("w0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() {
		stopped <- RunWorker(ctx, WorkerConfig{URL: url, Token: "worker-" + t.Name(), Key: &key, Threads: 1, Log: &logs})
	}()
	defer func() {
		cancel()
		if err := <-stopped; err != nil {
			t.Error(err)
		}
	}()
	time.Sleep(time.Second)
	srv := rolesServer(t, port, t.TempDir())
	if err := srv.Register(key); err != nil {
		t.Fatal(err)
	}
	res, err := SolveMCS(deadline(t), CoordinatorConfig{URL: srv.URL(), Token: srv.Token, Tasks: 8, Budget: 20_000}, c.g, c.h, mcs.Options{})
	checkResult(t, c, res, err)
	if !strings.Contains(logs.String(), "waiting for the server") {
		t.Errorf("the worker did not say it waits:\n%s", logs.String())
	}
}

// TestTwoCoordinators: two coordinators of the same job at once share
// its epoch and both prove the optimum.
func TestTwoCoordinators(t *testing.T) {
	c := hardPair(24)
	var logs syncBuffer
	srv, cfg := rolesWithWorkers(t, &logs, 16, 20_000)
	ctx := deadline(t)
	a, b := solveAsync(ctx, cfg, c), solveAsync(ctx, cfg, c)
	oa, ob := <-a, <-b
	checkResult(t, c, oa.res, oa.err)
	checkResult(t, c, ob.res, ob.err)
	if oa.res.Job != ob.res.Job || oa.res.Epoch != ob.res.Epoch {
		t.Errorf("two epochs of one job: %s/%s and %s/%s", oa.res.Job, oa.res.Epoch, ob.res.Job, ob.res.Epoch)
	}
	if n := queuedTasks(t, srv.URL(), srv.Token); n != 0 {
		t.Errorf("%d tasks left queued", n)
	}
}

// TestKilledProcesses: the server process SIGKILLed mid-job and restarted
// on its store (the job goes on), then the coordinator process SIGKILLed
// mid-job and rerun within its lease (it resumes the job).
func TestKilledProcesses(t *testing.T) {
	c := hardPair(24)
	port, dir, token := freePort(t), t.TempDir(), "secret-"+t.Name()
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	env := []string{EnvToken + "=" + token, EnvURL + "=" + url}
	serverRole := testrole.Value("server", "port", strconv.Itoa(port), "dir", dir)
	server, sc := child(t, serverRole, env...)
	waitLine(t, sc, "serving")
	var logs syncBuffer
	workersWith(t, url, token, 2, &logs)

	// The server, killed and restarted.
	cfg := CoordinatorConfig{URL: url, Token: token, Tasks: 16, Budget: 20_000, AckWait: 3 * time.Second, Log: &logs}
	ctx := deadline(t)
	done := solveMidway(t, cfg, c, "the server could be killed")
	_ = server.Process.Signal(syscall.SIGKILL)
	_ = server.Wait()
	_, sc = child(t, serverRole, env...)
	waitLine(t, sc, "serving")
	o := <-done
	checkResult(t, c, o.res, o.err)
	// The restart is no worker's silence: the live workers keep their
	// tasks (issue #43: they were handed back, "heard again").
	if strings.Contains(logs.String(), "heard again") {
		t.Errorf("live workers' tasks were handed back over the server's restart:\n%s", logs.String())
	}

	// The coordinator, killed and rerun: it resumes.
	conn, err := Connect(url, token, "test", Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s, err := conn.openJobs(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := s.get(ctx, o.res.Job); j != nil {
		if err := conn.purgeJob(ctx, s, j); err != nil { // a job not yet solved
			t.Fatal(err)
		}
	}
	coord, sc := child(t, "coordinator", env...)
	line := waitLine(t, sc, "progress ")
	_ = coord.Process.Signal(syscall.SIGKILL)
	_ = coord.Wait()
	res, err := SolveMCS(ctx, cfg, c.g, c.h, mcs.Options{})
	checkResult(t, c, res, err)
	if !res.Resumed || !strings.Contains(line, res.Job) {
		t.Errorf("the rerun did not resume the killed coordinator's job (%q): resumed %v, job %s", line, res.Resumed, res.Job)
	}
	if n := queuedTasks(t, url, token); n != 0 {
		t.Errorf("%d tasks left queued", n)
	}
}

// TestEmbeddedKilled: SIGKILL of an embedded coordinator takes its worker
// processes with it, and its temporary server folder goes at the next
// start.
func TestEmbeddedKilled(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("needs Linux (parent-death signal, /proc)")
	}
	coord, sc := child(t, "embedded")
	f := strings.Fields(waitLine(t, sc, "embedded "))
	dir, pids := f[1], strings.Split(f[2], ",")
	_ = coord.Process.Signal(syscall.SIGKILL)
	_ = coord.Wait()
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		gone := false
		for i := 0; i < 100 && !gone; i++ {
			gone = !running(pid)
			time.Sleep(50 * time.Millisecond)
		}
		if !gone {
			t.Errorf("worker process %d outlived its killed coordinator", pid)
		}
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the killed coordinator's folder %s is not there to clean: %v", dir, err)
	}
	srv, err := StartServer("", "x")
	if err != nil {
		t.Fatal(err)
	}
	srv.Shutdown()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed coordinator's folder %s is still there (%v)", dir, err)
	}
}

// running says whether pid is a live process (a zombie is not).
func running(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// TestLifeCycle: a --fresh job stopped by its timeout leaves nothing
// queued; a job cancelled from outside stops its coordinator with an error
// and its workers' tasks; a killed coordinator's job expires after its
// lease and is purged; a purge removes records and instance; and past the
// storage cap ended jobs are purged.
func TestLifeCycle(t *testing.T) {
	c := hardPair(26)
	srv := rolesServer(t, 0, t.TempDir())
	var logs syncBuffer
	workersWith(t, srv.URL(), srv.WorkerToken, 2, &logs, srv)
	cl := Client{URL: srv.URL(), Token: srv.Token}
	base := CoordinatorConfig{URL: srv.URL(), Token: srv.Token, Tasks: 64, Budget: 2_000, Log: &logs}

	// Fresh, stopped by a timeout.
	cfg := base
	cfg.Fresh = true
	ctx, cancel := context.WithTimeout(deadline(t), 700*time.Millisecond)
	res, err := SolveMCS(ctx, cfg, c.g, c.h, mcs.Options{})
	cancel()
	if err == nil || res.Proven {
		t.Fatalf("a job stopped at 0.7 s: proven %v, %v", res.Proven, err)
	}
	if n := queuedTasks(t, srv.URL(), srv.Token); n != 0 {
		t.Errorf("a stopped fresh job left %d tasks queued", n)
	}
	jobs, err := ListJobs(deadline(t), cl)
	if err != nil || len(jobs) != 1 || jobs[0].State != StatePurged {
		t.Fatalf("jobs after a stopped fresh job: %v %v", jobs, err)
	}

	// Cancelled from outside.
	ctx = deadline(t)
	cfg = base
	cfg.Progress = func(p Progress) {}
	done := solveAsync(ctx, cfg, c)
	job := mcsJob(t, c)
	for {
		j, _ := ListJobs(ctx, cl)
		if len(j) == 2 && j[1].Job == job && j[1].Done > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := CancelJob(ctx, cl, job); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err == nil || !strings.Contains(o.err.Error(), "cancelled") {
		t.Fatalf("the coordinator of a cancelled job: %v", o.err)
	}
	if n := drained(t, srv); n != 0 {
		t.Errorf("a cancelled job left %d tasks queued", n)
	}
	if err := PurgeJob(ctx, cl, job); err != nil {
		t.Fatal(err)
	}
	conn, err := Connect(srv.URL(), srv.Token, "test", Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if n := jobRecords(t, conn, job); n != 0 {
		t.Errorf("%d records of a purged job", n)
	}
	obs, _ := conn.JS.ObjectStore(ctx, InstanceBucket)
	if _, err := obs.GetInfo(ctx, mustHash(t, c)); !errors.Is(err, jetstream.ErrObjectNotFound) {
		t.Errorf("the purged job's instance: %v", err)
	}

	// A coordinator that dies (here: its process goes, its context with
	// it, not --fresh): the job expires after its lease.
	cfg = base
	cfg.Lease = time.Second
	ctx, cancel = context.WithTimeout(deadline(t), 500*time.Millisecond)
	_, _ = SolveMCS(ctx, cfg, c.g, c.h, mcs.Options{})
	cancel()
	ctx = deadline(t)
	for {
		j, err := ListJobs(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		if j[len(j)-1].State == StatePurged {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the dead coordinator's job never expired")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := drained(t, srv); n != 0 {
		t.Errorf("an expired job left %d tasks queued", n)
	}

	// The storage cap: two ended jobs, a cap they exceed; the sweep
	// purges them, oldest first, and their instances.
	for _, p := range generatedPairs(t, 2) {
		r, err := SolveMCS(ctx, base, p.g, p.h, mcs.Options{})
		checkResult(t, p, r, err)
	}
	if err := sweep(ctx, conn, sweepConfig{MaxStore: 1, Log: t.Logf}); err != nil {
		t.Fatal(err)
	}
	jobs, _ = ListJobs(ctx, cl)
	for _, j := range jobs {
		if j.State != StatePurged {
			t.Errorf("job %s %s past the storage cap", j.Job, j.State)
		}
	}
	if infos, err := obs.List(ctx); err == nil {
		t.Errorf("%d instances left with no live job", len(infos))
	}
}

// drained waits up to 10 s for the queue to empty (tasks a worker
// published while its job was being purged are dropped when taken) and
// returns what is left.
func drained(t *testing.T, srv *Server) uint64 { return drainedAt(t, srv.URL(), srv.Token) }

func drainedAt(t *testing.T, url, token string) uint64 {
	var n uint64
	for i := 0; i < 100; i++ {
		if n = queuedTasks(t, url, token); n == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return n
}

func mustHash(t *testing.T, c pairCase) string {
	_, hash, err := encodeMCS(c.g, c.h)
	if err != nil {
		t.Fatal(err)
	}
	return hash
}

// doneRecords counts a job's done records.
func doneRecords(t *testing.T, conn *Conn, job string) uint64 {
	t.Helper()
	return streamRecords(t, conn, resultPrefix+job+"."+kindDone+".>")
}

// jobRecords counts a job's records in the results stream.
func jobRecords(t *testing.T, conn *Conn, job string) uint64 {
	t.Helper()
	return streamRecords(t, conn, resultPrefix+job+".>")
}

// streamRecords counts the results stream's records on subjects matching
// filter.
func streamRecords(t *testing.T, conn *Conn, filter string) uint64 {
	t.Helper()
	s, err := conn.JS.Stream(context.Background(), ResultStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background(), jetstream.WithSubjectFilter(filter))
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, c := range info.State.Subjects {
		n += c
	}
	return n
}

// TestOrphansSkipped: a job stopped by its timeout (not --fresh) keeps
// its tasks queued for a rerun, but no worker searches them while no
// coordinator holds the job: the next job runs as on an empty queue (its
// tasks are all searched while the orphans wait: no orphan gets a done
// record meanwhile). A rerun within the lease resumes the stopped job and
// proves it.
func TestOrphansSkipped(t *testing.T) {
	c := hardPair(24)
	var logs syncBuffer
	srv, cfg := rolesWithWorkers(t, &logs, 64, 2_000)
	ctx, cancel := context.WithCancel(deadline(t))
	cfg.Progress = func(p Progress) {
		if p.Done >= 10 {
			cancel()
		}
	}
	res, err := SolveMCS(ctx, cfg, c.g, c.h, mcs.Options{})
	cancel()
	if err == nil || res.Proven {
		t.Fatalf("the stopped job: proven %v, %v", res.Proven, err)
	}
	conn, err := Connect(srv.URL(), srv.Token, "test", Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	time.Sleep(time.Second) // the tasks under way when it stopped finish
	before := doneRecords(t, conn, res.Job)
	queued := queuedTasks(t, srv.URL(), srv.Token)
	if queued == 0 {
		t.Fatal("the stopped job left no tasks queued (nothing to skip)")
	}
	next := generatedPairs(t, 3)[2]
	ncfg := CoordinatorConfig{URL: srv.URL(), Token: srv.Token, Tasks: 16, Budget: 20_000, Log: &logs}
	nres, err := SolveMCS(deadline(t), ncfg, next.g, next.h, mcs.Options{})
	checkResult(t, next, nres, err)
	if after := doneRecords(t, conn, res.Job); after != before {
		t.Errorf("%d tasks of the stopped job searched while the next job ran", after-before)
	}
	if !strings.Contains(logs.String(), "skipping tasks of job "+res.Job) {
		t.Errorf("no worker said it skipped the stopped job's tasks:\n%s", logs.String())
	}
	t.Logf("%d tasks of the stopped job waited; the next job took %v", queued, nres.Elapsed)
	cfg.Progress = nil
	start := time.Now()
	again, err := SolveMCS(deadline(t), cfg, c.g, c.h, mcs.Options{})
	t.Logf("resumed and proven in %v (%d tasks)", time.Since(start), again.Tasks)
	checkResult(t, c, again, err)
	if !again.Resumed {
		t.Error("the rerun did not resume the stopped job")
	}
}

// TestRolesDeny: the worker role cannot write what only coordinators may.
func TestRolesDeny(t *testing.T) {
	srv := rolesServer(t, 0, t.TempDir())
	w := dialed(t, srv, srv.WorkerToken, "worker")
	// A denied request goes unanswered: each gets a short wait of its own.
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		t.Cleanup(cancel)
		return ctx
	}
	if err := w.JS.DeleteStream(short(), ResultStream); err == nil {
		t.Error("a worker deleted the results stream")
	}
	if kv, err := w.JS.KeyValue(short(), JobBucket); err == nil {
		if _, err := kv.Put(short(), "mcs-000000000000000000000000", []byte("{}")); err == nil {
			t.Error("a worker wrote a job record")
		}
	}
	if kv, err := w.JS.KeyValue(short(), KeyBucket); err == nil {
		if _, err := kv.Get(short(), "x"); err == nil || errors.Is(err, jetstream.ErrKeyNotFound) {
			t.Errorf("a worker read the key bucket (%v)", err)
		}
	}
	b, _ := json.Marshal(Record{Protocol: protocol, Kind: kindPlan, Job: "mcs-000000000000000000000000"})
	if _, err := w.JS.Publish(short(), resultSubject("mcs-000000000000000000000000", kindPlan), b); err == nil {
		t.Error("a worker published a plan")
	}
	// A coordinator's connection (replies on its own inbox) is refused to a
	// worker token altogether.
	if c, err := Connect(srv.URL(), srv.WorkerToken, "worker", Credentials{}); err == nil {
		if _, err := c.JS.Stream(short(), ResultStream); err == nil {
			t.Error("a worker read replies on the coordinators' inbox")
		}
		c.Close()
	}
	// No consumers: a worker token could otherwise leave hundreds.
	for _, st := range []string{ResultStream, "KV_" + JobBucket, "OBJ_" + InstanceBucket} {
		if _, err := w.JS.CreateConsumer(short(), st, jetstream.ConsumerConfig{AckPolicy: jetstream.AckNonePolicy}); err == nil {
			t.Errorf("a worker created a consumer on %s", st)
		}
	}
	if kv, err := w.JS.KeyValue(short(), WorkerBucket); err == nil {
		if _, err := kv.Put(short(), "forged", []byte(`{"name":"w0"}`)); err == nil {
			t.Error("a worker registered a key")
		}
	}
	// What a worker needs is allowed.
	if _, err := w.JS.Publish(short(), resultSubject("mcs-000000000000000000000000", kindBest), b); err != nil {
		t.Errorf("a worker may not publish a best record: %v", err)
	}
}

// TestHeartbeatsBound: announcements count only signed by the worker's
// registered key under its name, and each once: a replay of another
// worker's beat (or a worker speaking for another) does not keep its
// tasks from going back when it falls silent.
func TestHeartbeatsBound(t *testing.T) {
	srv := rolesServer(t, 0, t.TempDir())
	a, err := srv.AddWorker("a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := srv.AddWorker("b")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := Connect(srv.URL(), srv.Token, "coordinator", Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sg, err := conn.signers(deadline(t))
	if err != nil {
		t.Fatal(err)
	}
	alive, err := listenAlive(conn, sg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer alive.stop()
	// The subscription must be at the server before another connection
	// publishes the one beat: nats.go sends SUB from a background flusher,
	// and on a loaded machine the beat overtook it (CI: "worker a heard"
	// timed out). A flush's round trip orders them.
	if err := conn.NC.Flush(); err != nil {
		t.Fatal(err)
	}
	attacker := dialed(t, srv, srv.WorkerToken, "attacker")
	const job = "mcs-000000000000000000000001"
	beat := Alive{Protocol: protocol, Worker: "a", Run: "r1", Named: true, Slots: 1, Count: 1, Held: []Held{{Job: job, Seq: 7}}}
	beat.sign(a)
	first := []byte(mustJSON(t, beat))
	if err := attacker.NC.Publish(aliveSubject, first); err != nil {
		t.Fatal(err)
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	waitFor("worker a heard", func() bool { return alive.count() == 1 })
	// Worker a goes silent. The attacker replays its beat, and worker b
	// (a valid key) speaks for a; neither counts.
	forged := Alive{Protocol: protocol, Worker: "a", Run: "r1", Named: true, Slots: 1, Count: 2, Held: beat.Held}
	forged.sign(b)
	stop := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(stop) {
		_ = attacker.NC.Publish(aliveSubject, first)
		_ = attacker.NC.Publish(aliveSubject, []byte(mustJSON(t, forged)))
		time.Sleep(50 * time.Millisecond)
	}
	var back []silentTask
	waitFor("the silent worker's task handed back", func() bool {
		back = append(back, alive.silent(time.Second, 0, job, time.Time{})...)
		return len(back) > 0
	})
	if back[0].Seq != 7 || back[0].overdue || back[0].restarted {
		t.Errorf("handed back %+v, want task 7 of a silent worker", back[0])
	}
}

// TestTaskDeadline: a worker that stalls on a task while it keeps
// announcing itself (and holding the task) loses it at the job's task
// deadline, and the job is proven by the others.
func TestTaskDeadline(t *testing.T) {
	c := generatedPairs(t, 1)[0]
	srv := rolesServer(t, 0, t.TempDir())
	var logs syncBuffer
	release := make(chan struct{})
	stalled := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	key, err := srv.AddWorker("staller")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		done <- RunWorker(ctx, WorkerConfig{URL: srv.URL(), Token: srv.WorkerToken, Key: &key, Threads: 1, Log: &logs,
			BeforeSolve: func(task *Task) {
				select {
				case stalled <- task.ID:
				default:
				}
				<-release
			}})
	}()
	defer func() { close(release); cancel(); <-done }()
	cfg := CoordinatorConfig{URL: srv.URL(), Token: srv.Token, Tasks: 8, Budget: 20_000, Log: &logs, TaskDeadline: 2 * time.Second}
	out := solveAsync(deadline(t), cfg, c)
	id := <-stalled
	workersWith(t, srv.URL(), srv.WorkerToken, 1, &logs, srv)
	o := <-out
	checkResult(t, c, o.res, o.err)
	if !strings.Contains(logs.String(), "handed its task "+id) || !strings.Contains(logs.String(), "past its deadline") {
		t.Errorf("the stalled task %s was not handed back at its deadline:\n%s", id, logs.String())
	}
}

// TestProgressClock: with no worker, no record arrives after the plan, yet
// the progress keeps coming with the clock running; the --fresh job
// stopped by its timeout is purged.
func TestProgressClock(t *testing.T) {
	c := generatedPairs(t, 1)[0]
	srv := rolesServer(t, 0, t.TempDir())
	var calls []Progress
	cfg := CoordinatorConfig{URL: srv.URL(), Token: srv.Token, Tasks: 8, Fresh: true, Progress: func(p Progress) { calls = append(calls, p) }}
	ctx, cancel := context.WithTimeout(deadline(t), 2500*time.Millisecond)
	defer cancel()
	_, err := SolveMCS(ctx, cfg, c.g, c.h, mcs.Options{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a job with no worker: %v", err)
	}
	if len(calls) < 4 {
		t.Fatalf("%d progress calls in 2.5 s", len(calls))
	}
	first, last := calls[len(calls)-4], calls[len(calls)-1]
	if first.Records != last.Records || last.Elapsed-first.Elapsed < 500*time.Millisecond || !last.Connected {
		t.Errorf("the clock did not run while nothing arrived: %+v … %+v", first, last)
	}
	if n := queuedTasks(t, srv.URL(), srv.Token); n != 0 {
		t.Errorf("a fresh job stopped by its timeout left %d tasks queued", n)
	}
}

// chaosFor runs TestChaos for that long (at least a minute):
// go test ./cluster -run TestChaos -chaos 5m.
var chaosFor = flag.Duration("chaos", 0, "run TestChaos for this long (at least 1m)")

// TestChaos (-chaos D): jobs run one after another
// while, at random moments, a worker process is SIGKILLed and started
// again, and now and then the server process too (restarted on its
// store). Every job must end proven with the right answer.
func TestChaos(t *testing.T) {
	if *chaosFor == 0 {
		t.Skip("-chaos DURATION runs it")
	}
	rng := rand.New(rand.NewPCG(7, 7))
	port, dir, token := freePort(t), t.TempDir(), "secret-"+t.Name()
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	env := []string{EnvToken + "=" + token, EnvURL + "=" + url}
	serverRole := testrole.Value("server", "port", strconv.Itoa(port), "dir", dir)
	server, sc := child(t, serverRole, env...)
	waitLine(t, sc, "serving")
	startWorker := func() *exec.Cmd {
		cmd := testWorkerCommand(false, "")(0)
		cmd.Env = append(cmd.Env, EnvURL+"="+url, EnvToken+"="+token)
		cmd.Stderr = logWriter{t}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	workers := []*exec.Cmd{startWorker(), startWorker(), startWorker()}
	defer func() {
		for _, w := range workers {
			_ = w.Process.Kill()
			_ = w.Wait()
		}
	}()
	stop := make(chan struct{})
	chaosDone := make(chan int)
	go func() {
		kills := 0
		for {
			select {
			case <-stop:
				chaosDone <- kills
				return
			case <-time.After(time.Duration(300+rng.IntN(1200)) * time.Millisecond):
			}
			if rng.IntN(10) == 0 {
				_ = server.Process.Signal(syscall.SIGKILL)
				_ = server.Wait()
				server, sc = child(t, serverRole, env...)
				if !sc.Scan() {
					t.Error("the server did not restart")
				}
			} else {
				i := rng.IntN(len(workers))
				_ = workers[i].Process.Signal(syscall.SIGKILL)
				_ = workers[i].Wait()
				workers[i] = startWorker()
			}
			kills++
		}
	}()
	var logs syncBuffer
	cases := append(generatedPairs(t, 4), hardPair(24), hardPair(26))
	end := time.Now().Add(max(*chaosFor, time.Minute))
	for round := 0; time.Now().Before(end); round++ {
		c := cases[round%len(cases)]
		cfg := CoordinatorConfig{URL: url, Token: token, Tasks: 32, Budget: 50_000, AckWait: 3 * time.Second, Fresh: true, Log: &logs}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		res, err := SolveMCS(ctx, cfg, c.g, c.h, mcs.Options{})
		cancel()
		checkResult(t, c, res, err)
		t.Logf("%s: %d tasks, %v", c.name, res.Tasks, res.Elapsed)
	}
	close(stop)
	t.Logf("%d kills; coordinator log:\n%s", <-chaosDone, logs.String())
	if n := drainedAt(t, url, token); n != 0 {
		t.Errorf("%d tasks left queued", n)
	}
}
