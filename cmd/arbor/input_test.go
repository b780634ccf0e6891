package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// signalled is what an arbor process did after a signal.
type signalled struct {
	code    int
	stderr  string
	latency time.Duration // from the signal to the exit
}

// hasOpen says whether process pid has file open (its /proc fd table
// says so: it is reading it, or a FIFO is waiting for its writer).
func hasOpen(file string) func(pid int) bool {
	return func(pid int) bool {
		fds := fmt.Sprintf("/proc/%d/fd", pid)
		ents, _ := os.ReadDir(fds)
		for _, e := range ents {
			if l, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && l == file {
				return true
			}
		}
		return false
	}
}

// readSyscall is read(2)'s number, where the test knows it.
var readSyscall = map[string]string{"amd64": "0", "arm64": "63"}[runtime.GOARCH]

// readingStdin says whether a thread of process pid waits in read(2) on
// descriptor 0 (its /proc syscall files say so).
func readingStdin(pid int) bool {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/syscall", pid))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.HasPrefix(string(b), readSyscall+" 0x0 ") {
			return true
		}
	}
	return false
}

// cliCommand is this test binary as the arbor CLI (see TestMain) with
// args, its stderr collected.
func cliCommand(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), envCLI+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	return cmd, &stderr
}

// signalWhen runs this test binary as the arbor CLI (TestMain), waits
// until ready says the process is where the test wants it, then sends sig
// and waits for the exit, at most 5 s: generous for a shared test machine;
// the latency is logged, measured from the signal.
func signalWhen(t *testing.T, sig os.Signal, ready func(pid int) bool, stdin *os.File, args ...string) signalled {
	t.Helper()
	cmd, stderr := cliCommand(t, args...)
	cmd.Stdin = stdin
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for start := time.Now(); !ready(cmd.Process.Pid); time.Sleep(time.Millisecond) {
		select {
		case err := <-exited:
			t.Fatalf("arbor %v exited (%v) before it was reading: %s", args, err, stderr.String())
		default:
		}
		if time.Since(start) > 30*time.Second {
			cmd.Process.Kill()
			t.Fatalf("arbor %v was not reading its input after 30 s", args)
		}
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return signalled{code: cmd.ProcessState.ExitCode(), stderr: stderr.String(), latency: time.Since(sent)}
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("arbor %v: still running 5 s after %v (stderr %q)", args, sig, stderr.String())
	}
	return signalled{}
}

// TestSignalWhileReading: SIGINT or SIGTERM ends a command that is
// waiting for a FIFO's writer, reading an endless device or waiting on
// standard input, with exit status 1 and a message naming the file and
// the signal (before it, the FIFO hung for ever and /dev/zero was read
// until the memory ran out).
func TestSignalWhileReading(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc to see when the process has its input open")
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	idle, w, err := os.Pipe() // standard input that never says anything
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	defer w.Close()
	cases := []struct {
		sig   os.Signal
		file  string
		stdin *os.File
		args  []string
		want  string
	}{
		{os.Interrupt, fifo, nil, []string{"info", fifo}, "arbor info: " + fifo + ": stopped while reading: interrupt signal received"},
		{syscall.SIGTERM, fifo, nil, []string{"vc", "--complement", fifo}, "arbor vc: " + fifo + ": stopped while reading: terminated signal received"},
		{os.Interrupt, "/dev/zero", nil, []string{"info", "/dev/zero"}, "arbor info: /dev/zero: stopped while reading: interrupt signal received"},
		{syscall.SIGTERM, "/dev/zero", nil, []string{"mcs", "/dev/zero", "/dev/zero"}, "/dev/zero: stopped while reading: terminated signal received"},
		{os.Interrupt, "", idle, []string{"clique", "-"}, "arbor clique: <stdin>: stopped while reading: interrupt signal received"},
	}
	for _, c := range cases {
		ready := hasOpen(c.file)
		if c.stdin != nil {
			// Standard input is open from the start: wait for the read.
			if _, err := os.ReadFile("/proc/self/syscall"); err != nil || readSyscall == "" {
				t.Logf("%v: cannot see a process waiting in read(2) here; skipped", c.args)
				continue
			}
			ready = readingStdin
		} else if _, err := os.Stat(c.file); err != nil {
			t.Logf("%v: %v; skipped", c.args, err)
			continue
		}
		r := signalWhen(t, c.sig, ready, c.stdin, c.args...)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("arbor %v after %v: exit %d, stderr %q; want 1 and %q", c.args, c.sig, r.code, r.stderr, c.want)
		}
		t.Logf("arbor %v: exited %v after %v", c.args, r.latency.Round(time.Microsecond), c.sig)
	}
}

// TestEndlessInputLimit: an endless input given on the command line is
// read up to --max-input and refused, naming the file and the limit.
func TestEndlessInputLimit(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	code, _, stderr := runCLI(t, "info", "/dev/zero", "--max-input", "4M")
	if code != 1 || !strings.Contains(stderr, "/dev/zero: more input than the limit, 4.0 MiB, as set (--max-input SIZE)") {
		t.Errorf("info /dev/zero --max-input 4M: exit %d, stderr %q", code, stderr)
	}
	// A list that never ends is bounded too.
	code, _, stderr = runCLI(t, "vc", "--batch", "/dev/zero", "--max-input", "4M")
	if code != 1 || !strings.Contains(stderr, "list: /dev/zero: more input than the limit, 4.0 MiB") {
		t.Errorf("vc --batch /dev/zero --max-input 4M: exit %d, stderr %q", code, stderr)
	}
}

// TestBatchSkipsSpecialFiles: a FIFO (no writer) or a device in a batch's
// list, or in a folder --against reads, gets a row saying it was skipped
// and why; the batch goes on with the other instances.
func TestBatchSkipsSpecialFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "waits.gr")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	g := writeTemp(t, "c5.gr", vcTestGraph)
	list := writeList(t, t.TempDir(), g, fifo, "/dev/zero")
	done := make(chan struct{})
	var code int
	var out, stderr string
	go func() {
		defer close(done)
		code, out, stderr = runCLI(t, "vc", "--batch", list, "--json", "--threads", "1")
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the batch did not finish in 60 s: a FIFO held it")
	}
	rows := parseRows(t, "vc", out)
	if code != 1 || len(rows) != 3 {
		t.Fatalf("exit %d, %d rows, want 1 and 3 (stderr %q):\n%s", code, len(rows), stderr, out)
	}
	want := map[string]string{
		fifo:        "skipped: a FIFO (named pipe); a batch reads only regular files",
		"/dev/zero": "skipped: a character device; a batch reads only regular files",
	}
	for _, r := range rows {
		if r.Files[0] == g {
			if r.Error != "" || r.Status != "optimal" {
				t.Errorf("the regular file's row: %+v", r)
			}
			continue
		}
		if w := want[r.Files[0]]; w == "" || !strings.Contains(r.Error, r.Files[0]+": "+w) {
			t.Errorf("row %v: error %q, want %q", r.Files, r.Error, w)
		}
	}
	// The same from a folder: the FIFO's row, and the graph's.
	writeFile(t, dir, "k3.gr", "p td 3 3\n1 2\n2 3\n1 3\n")
	code, out, stderr = runCLI(t, "mcs", g, "--against", dir, "--min-size", "1", "--json", "--threads", "1")
	rows = parseRows(t, "mcs", out)
	if code != 1 || len(rows) != 2 {
		t.Fatalf("--against: exit %d, %d rows (stderr %q):\n%s", code, len(rows), stderr, out)
	}
	for _, r := range rows {
		isFIFO := slices.Contains(r.Files, fifo)
		if isFIFO != (r.Error != "") || (isFIFO && !strings.Contains(r.Error, "a FIFO (named pipe)")) {
			t.Errorf("--against row %v: error %q", r.Files, r.Error)
		}
	}
}

// TestInputLimitDefault: the help states the default, and the error for
// a file over it says how to raise it.
func TestInputLimitDefault(t *testing.T) {
	_, out, _ := runCLI(t, "info", "-h")
	if !strings.Contains(out, "or 1G)") {
		t.Errorf("info -h does not give --max-input's default:\n%s", out)
	}
	if core.DefaultMaxInput != 1<<30 {
		t.Errorf("core.DefaultMaxInput is %d; the help and docs/cli.md say 1G", core.DefaultMaxInput)
	}
}

// TestGenerateFormatFromName: generate writes the format -o's extension
// names (x.gr is PACE, not Matrix Market), Matrix Market for other names,
// and refuses a --format the extension contradicts.
func TestGenerateFormatFromName(t *testing.T) {
	dir := t.TempDir()
	for name, want := range map[string]string{"x.gr": core.FormatPACE, "x.clq": core.FormatDIMACS, "x.mtx": core.FormatMTX, "x.out": core.FormatMTX, "x.A00": core.FormatMIVIA, "x.lad": core.FormatLAD} {
		path := filepath.Join(dir, name)
		if code, _, stderr := runCLI(t, "generate", "gnp", "--n", "12", "--degree", "3", "-o", path); code != 0 {
			t.Fatalf("generate -o %s: exit %d: %s", name, code, stderr)
		}
		g, err := core.ReadGraph(path, core.ReadOptions{})
		if err != nil || g.Format != want || g.N != 12 {
			t.Errorf("generate -o %s: read back as %q (%v), want %s", name, g.Format, err, want)
		}
	}
	path := filepath.Join(dir, "y.gr")
	code, _, stderr := runCLI(t, "generate", "gnp", "--n", "12", "--degree", "3", "--format", "mtx", "-o", path)
	if _, err := os.Stat(path); code != 2 || err == nil || !strings.Contains(stderr, "names the pace format, --format mtx another") {
		t.Errorf("--format mtx -o y.gr: exit %d (file there: %v), %q", code, err == nil, stderr)
	}
	if code, _, stderr := runCLI(t, "generate", "gnp", "--n", "12", "--degree", "3", "--format", "edgelist1", "-o", filepath.Join(dir, "z.txt")); code != 0 {
		t.Errorf("--format edgelist1 -o z.txt: exit %d, %q", code, stderr)
	}
}

// TestDurationOutOfRange: a duration with its unit but past what Go's
// durations hold is "out of range", not "add a unit".
func TestDurationOutOfRange(t *testing.T) {
	g := writeTemp(t, "c5.gr", vcTestGraph)
	code, _, stderr := runCLI(t, "vc", "--timeout", "99999999999h", g)
	if code != 2 || !strings.Contains(stderr, `"99999999999h" is out of range: a duration is at most 2562047h`) || strings.Contains(stderr, "add a unit") {
		t.Errorf("--timeout 99999999999h: exit %d, %q", code, stderr)
	}
}
