package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
)

// fullWriter fails every write as a full disk does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestWriteErrorsFail: a result that cannot be written is a failure (exit
// 1, with a message), in every command that writes to standard output.
func TestWriteErrorsFail(t *testing.T) {
	g := writeTemp(t, "c5.gr", vcTestGraph)
	cases := [][]string{
		{"version"},
		{"devices"}, {"devices", "--json"},
		{"kernels"},
		{"info", g}, {"info", "--json", g},
		{"mcs", g, g}, {"mcs", "--json", g, g}, {"mcs", g, g, g},
		{"vc", g}, {"vc", "--json", g},
		{"clique", g}, {"clique", "--json", g},
		{"match", g}, {"match", "--json", g},
		{"demo", "--backend", "cpu"},
		{"verify", "--backend", "cpu", "--no-data", "--kernel", "vec_add"},
	}
	for _, args := range cases {
		var stderr bytes.Buffer
		code := run(context.Background(), args, fullWriter{}, &stderr)
		msg := stderr.String()
		if code != 1 || !strings.Contains(msg, "writing standard output") || !strings.Contains(msg, "no space left") {
			t.Errorf("arbor %v to a full disk: exit %d, stderr %q; want exit 1 naming the write error", args, code, msg)
		}
	}
}

// TestOutputFileErrorsFail: -o and generate's output on a full disk.
func TestOutputFileErrorsFail(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	g := writeTemp(t, "c5.gr", vcTestGraph)
	for _, args := range [][]string{
		{"vc", g, "-o", "/dev/full"},
		{"match", g, "-o", "/dev/full"},
		{"generate", "gnp", "--n", "50", "-o", "/dev/full"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 1 || !strings.Contains(stderr, "no space left") {
			t.Errorf("arbor %v: exit %d, stderr %q; want exit 1 naming the write error", args, code, stderr)
		}
	}
}

// cliProcess runs this test binary as the arbor CLI (see TestMain) with
// the given standard output.
func cliProcess(t *testing.T, stdout *os.File, args ...string) (*os.ProcessState, string) {
	t.Helper()
	cmd, stderr := cliCommand(t, args...)
	cmd.Stdout = stdout
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState, stderr.String()
}

// TestStdoutDevFull writes real output, as a process, to /dev/full.
func TestStdoutDevFull(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here")
	}
	defer f.Close()
	g := writeTemp(t, "c5.gr", vcTestGraph)
	for _, args := range [][]string{{"clique", g}, {"vc", "--json", g}, {"mcs", g, g}} {
		st, stderr := cliProcess(t, f, args...)
		if st.ExitCode() != 1 || !strings.Contains(stderr, "no space left") {
			t.Errorf("arbor %v > /dev/full: exit %d, stderr %q; want exit 1 naming the write error", args, st.ExitCode(), stderr)
		}
	}
}

// TestStdoutClosedPipe: output into a pipe nobody reads ends the process
// quietly by SIGPIPE, as any Unix filter (`arbor … | head` after head has
// gone), never with status 0.
func TestStdoutClosedPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	g := writeTemp(t, "c5.gr", vcTestGraph)
	st, stderr := cliProcess(t, w, "vc", g)
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok {
		t.Skip("no wait status on " + runtime.GOOS)
	}
	if !ws.Signaled() || ws.Signal() != syscall.SIGPIPE {
		t.Errorf("vc into a closed pipe: %v, stderr %q; want killed by SIGPIPE", st, stderr)
	}
	if strings.Contains(stderr, "arbor vc:") {
		t.Errorf("vc into a closed pipe said %q; want quiet", stderr)
	}
}

// TestSelectionUsageErrors: a backend or device that does not exist is a
// usage error in every command, even one that would not open a device.
func TestSelectionUsageErrors(t *testing.T) {
	g := writeTemp(t, "c5.gr", vcTestGraph)
	for _, args := range [][]string{
		{"mcs", g, g, "--backend", "nonsense"},
		{"mcs", g, g, "--device", "99"},
		{"vc", g, "--backend", "nonsense"},
		{"vc", g, "--device", "99"},
		{"clique", g, "--device", "99"},
		{"clique", g, "--device", "0,99"},
		{"match", g, "--device", "99"},
		{"match", g, "--backend", "cpu", "--device", "no-such-name"},
		{"demo", "--backend", "cpu", "--device", "1"},
		{"verify", "--device", "99", "--no-data"},
	} {
		code, out, stderr := runCLI(t, args...)
		if code != 2 || out != "" {
			t.Errorf("arbor %v: exit %d, stdout %q; want 2 and nothing", args, code, out)
		}
		// The cause comes first, then what exists.
		if !strings.Contains(stderr, "cpu") && !strings.Contains(stderr, "opencl:0") || len(stderr) > 400 && !strings.Contains(stderr[:200], "no") {
			t.Errorf("arbor %v: stderr %q does not say the cause and list the devices", args, stderr)
		}
	}
	t.Setenv("ARBOR_DEVICE", "99")
	if code, _, stderr := runCLI(t, "vc", g); code != 2 || !strings.Contains(stderr, "ARBOR_DEVICE=99") {
		t.Errorf("ARBOR_DEVICE=99 arbor vc: exit %d, stderr %q; want 2 naming the variable", code, stderr)
	}
	t.Setenv("ARBOR_DEVICE", "")
	t.Setenv("ARBOR_BACKEND", "nonsense")
	if code, _, stderr := runCLI(t, "clique", g); code != 2 || !strings.Contains(stderr, "ARBOR_BACKEND=nonsense") {
		t.Errorf("ARBOR_BACKEND=nonsense arbor clique: exit %d, stderr %q; want 2 naming the variable", code, stderr)
	}
	// auto, and a device that exists, still run.
	t.Setenv("ARBOR_BACKEND", "auto")
	if code, _, stderr := runCLI(t, "clique", g, "--device", "0"); code != 0 {
		t.Errorf("clique --device 0: exit %d: %s", code, stderr)
	}
}

// TestFlagRules: one rule for durations, thread counts and format names in
// every command.
func TestFlagRules(t *testing.T) {
	g := writeTemp(t, "c5.gr", vcTestGraph)
	for _, cmd := range [][]string{{"mcs", g, g}, {"vc", g}, {"clique", g}} {
		run := func(extra ...string) (int, string, string) {
			return runCLI(t, append(append([]string{}, cmd...), extra...)...)
		}
		if code, _, stderr := run("--timeout", "30"); code != 0 {
			t.Errorf("%s --timeout 30: exit %d: %s", cmd[0], code, stderr)
		}
		if code, _, stderr := run("--timeout", "30x"); code != 2 || !strings.Contains(stderr, "add a unit (30s") {
			t.Errorf("%s --timeout 30x: exit %d, %q; want 2 saying to add a unit", cmd[0], code, stderr)
		}
		if code, _, stderr := run("--timeout", "-1s"); code != 2 || !strings.Contains(stderr, "negative") {
			t.Errorf("%s --timeout -1s: exit %d, %q; want 2", cmd[0], code, stderr)
		}
		if code, _, stderr := run("--format", "nope"); code != 2 || !strings.Contains(stderr, `unknown format "nope"`) {
			t.Errorf("%s --format nope: exit %d, %q; want 2", cmd[0], code, stderr)
		}
		huge := strconv.Itoa(100000)
		code, out, stderr := run("--threads", huge, "--json")
		want := `"threads":` + strconv.Itoa(cli.MaxThreads())
		if cmd[0] == "vc" {
			want = "" // vc's JSON does not report threads
		}
		if code != 0 || !strings.Contains(stderr, "--threads 100000 is more than") || !strings.Contains(out, want) {
			t.Errorf("%s --threads %s: exit %d, stderr %q, out %q; want a clamp to %d with a note", cmd[0], huge, code, stderr, out, cli.MaxThreads())
		}
	}
	// vc --ls keeps its negative value (no local search).
	if code, _, stderr := runCLI(t, "vc", g, "--ls", "-1"); code != 0 {
		t.Errorf("vc --ls -1: exit %d: %s", code, stderr)
	}
	wantExit(t, 2, [][]string{{"info", "--format", "nope", g}, {"match", "--format", "nope", g},
		{"generate", "gnp", "--format", "nope", "-o", filepath.Join(t.TempDir(), "x")}})
	for s, want := range map[string]string{"30": "30s", "1.5": "1.5s", "0": "0s", "2m": "2m0s", " 45 ": "45s"} {
		d, err := cli.ParseDuration(s)
		if err != nil || d.String() != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %s", s, d, err, want)
		}
	}
	for _, s := range []string{"", "NaN", "1e300", "3O", "s"} {
		if d, err := cli.ParseDuration(s); err == nil {
			t.Errorf("parseDuration(%q) = %v, want an error", s, d)
		}
	}
}

// TestEmptyGraphs: a graph of no vertices is a graph; every solver
// answers it: size 0, proven.
func TestEmptyGraphs(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"e.gr": "p td 0 0\n", "e.clq": "p edge 0 0\n", "e.lad": "0\n",
		"e.mtx": "%%MatrixMarket matrix coordinate pattern symmetric\n0 0 0\n"}
	one := writeTemp(t, "one.gr", vcTestGraph)
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		type sized struct {
			Size   int  `json:"size"`
			Proven bool `json:"proven"`
		}
		for _, args := range [][]string{
			{"mcs", p, p}, {"mcs", p, one}, {"mcs", p, one, "--engine", "gpu", "--backend", "cpu"},
			{"clique", p}, {"clique", p, "--complement"}, {"clique", p, "--engine", "gpu", "--backend", "cpu"},
			{"vc", p}, {"vc", p, "--engine", "gpu", "--backend", "cpu"},
		} {
			r := runJSON[sized](t, append(args, "--json", "--verify")...)
			if r.Size != 0 || !r.Proven {
				t.Errorf("arbor %v: size %d proven %v; want 0, proven", args, r.Size, r.Proven)
			}
		}
		type matchJSON struct {
			Result struct {
				Vertices int `json:"vertices"`
				Pairs    int `json:"pairs"`
			} `json:"result"`
		}
		m := runJSON[matchJSON](t, "match", p, "--json", "--verify")
		if m.Result.Vertices != 0 || m.Result.Pairs != 0 {
			t.Errorf("match %s: %+v; want no vertices, no pairs", name, m.Result)
		}
		info := runJSON[struct {
			Vertices int `json:"vertices"`
		}](t, "info", "--json", p)
		if info.Vertices != 0 {
			t.Errorf("info %s: %d vertices, want 0", name, info.Vertices)
		}
	}
}

// TestGenerateWritesWhatReadersRead: generate refuses weight ranges whose
// files the readers would reject (naming the accepted range) before it
// writes anything, and what it writes reads back.
func TestGenerateWritesWhatReadersRead(t *testing.T) {
	dir := t.TempDir()
	for i, spec := range []string{"int:-9223372036854775808:9223372036854775807", "int:0:9007199254740993",
		"real:inf:inf", "real:0:inf", "real:nan:1", "real:2:1", "int:3:2", "int:1", "real:-1e309:0"} {
		out := filepath.Join(dir, "bad"+strconv.Itoa(i)+".mtx")
		code, _, stderr := runCLI(t, "generate", "gnp", "--n", "30", "--weights", spec, "-o", out)
		if code != 2 || !strings.Contains(stderr, "9007199254740992") || !strings.Contains(stderr, "1.7976931348623157e+308") {
			t.Errorf("generate --weights %s: exit %d, %q; want 2 stating the accepted ranges", spec, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("generate --weights %s left %s behind", spec, out)
		}
	}
	for i, spec := range []string{"int:-9007199254740992:9007199254740992", "real:0:1e308", "real:-1.7976931348623157e308:1.7976931348623157e308",
		"real:5:5", "int:-3:-3"} {
		out := filepath.Join(dir, "good"+strconv.Itoa(i)+".mtx")
		if code, _, stderr := runCLI(t, "generate", "gnp", "--n", "30", "--weights", spec, "-o", out); code != 0 {
			t.Fatalf("generate --weights %s: exit %d: %s", spec, code, stderr)
		}
		g, err := core.ReadGraph(out, core.ReadOptions{})
		if err != nil {
			t.Errorf("generate --weights %s wrote a file the reader rejects: %v", spec, err)
			continue
		}
		for _, w := range g.Weights {
			if math.IsInf(w, 0) || math.IsNaN(w) {
				t.Errorf("generate --weights %s: weight %v", spec, w)
				break
			}
		}
	}
}

// TestReadLimitFlags: --max-input and --max-memory reach the readers, in
// every command that reads a graph, and the refusal says how to raise them.
func TestReadLimitFlags(t *testing.T) {
	dir := t.TempDir()
	sparse := writeFile(t, dir, "sparse.gr", "p td 2000000 1\n1 2000000\n")
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(vcTestGraph))
	zw.Write(bytes.Repeat([]byte("c padding\n"), 300000))
	zw.Close()
	bomb := filepath.Join(dir, "padded.gr.gz")
	if err := os.WriteFile(bomb, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"info"}, {"vc"}, {"clique"}, {"match"}, {"mcs", bomb}} {
		args := append(append([]string{}, cmd...), bomb, "--max-input", "1M")
		if code, _, stderr := runCLI(t, args...); code != 1 || !strings.Contains(stderr, "padded.gr.gz: decompresses to more than the input limit, 1.0 MiB") ||
			!strings.Contains(stderr, "--max-input") {
			t.Errorf("arbor %v: exit %d, %q; want 1 naming the file, the limit and the flag", args, code, stderr)
		}
		args = append(append([]string{}, cmd...), bomb, "--max-input", "4M")
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Errorf("arbor %v: exit %d: %s", args, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "info", sparse, "--max-memory", "1M"); code != 1 || !strings.Contains(stderr, "larger than the limit 43690") ||
		!strings.Contains(stderr, "--max-memory") {
		t.Errorf("info --max-memory 1M: exit %d, %q", code, stderr)
	}
	if code, out, stderr := runCLI(t, "info", sparse); code != 0 || !strings.Contains(out, "2000000") {
		t.Errorf("info of a sparse 2000000-vertex graph: exit %d, %s", code, stderr)
	}
	if code, _, _ := runCLI(t, "info", sparse, "--max-memory", "-1"); code != 2 {
		t.Errorf("--max-memory -1: exit %d, want 2", code)
	}
}
