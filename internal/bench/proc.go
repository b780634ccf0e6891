package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The child side of the memory cap. The parent cannot set a child's
// rlimits between fork and exec without cgo (or prlimit(1)), so it passes
// the cap in the environment and the arbor child applies it to itself at
// start (ApplyChildLimits); an external solver gets only the parent's
// watch on its process group's resident memory.
const (
	EnvMemLimit = "ARBOR_BENCH_MEM" // bytes
	// EnvAddressSpace set to 1 also caps the child's address space. Only
	// for children that open no GPU driver: CUDA and OpenCL reserve far
	// more address space than they ever touch.
	EnvAddressSpace = "ARBOR_BENCH_AS"
)

// ApplyChildLimits applies the memory cap the bench parent passed in the
// environment (nothing when there is none): a soft limit for the Go
// garbage collector, and with EnvAddressSpace a hard limit on the address
// space mapped beyond what is mapped now, so an allocation past the cap
// fails (a Go program then dies with "out of memory", recorded as memout).
func ApplyChildLimits() error {
	v := os.Getenv(EnvMemLimit)
	if v == "" {
		return nil
	}
	limit, err := strconv.ParseInt(v, 10, 64)
	if err != nil || limit <= 0 {
		return fmt.Errorf("$%s=%q: want a positive byte count", EnvMemLimit, v)
	}
	debug.SetMemoryLimit(limit)
	if os.Getenv(EnvAddressSpace) != "1" {
		return nil
	}
	mapped, err := addressSpace()
	if err != nil {
		return fmt.Errorf("capping the address space: %w", err)
	}
	lim := uint64(mapped + limit)
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
		return fmt.Errorf("capping the address space at %d bytes: %w", lim, err)
	}
	return nil
}

// addressSpace is this process's mapped address space in bytes.
func addressSpace() (int64, error) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 1 {
		return 0, fmt.Errorf("/proc/self/statm: %q", b)
	}
	pages, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/self/statm: %w", err)
	}
	return pages * int64(os.Getpagesize()), nil
}

// proc is a finished child.
type proc struct {
	stdout   []byte
	stderr   []byte // the tail
	wall     time.Duration
	maxRSS   int64 // bytes: the largest of the child and the descendants it waited for
	state    *os.ProcessState
	timedOut bool
	memOut   bool
	err      error // it could not be started, or the run was interrupted
}

// spawn is how to run one child.
type spawn struct {
	argv     []string
	env      []string // added to the parent's environment
	stdin    string   // a file to read as standard input, or ""
	hard     time.Duration
	memLimit int64
}

// limits on what is kept of a child's output: a runaway child must not
// take the parent's memory with it.
const (
	maxStdout  = 256 << 20
	stderrTail = 8 << 10
	memPoll    = 200 * time.Millisecond
	waitDelay  = 2 * time.Second
)

// runProc runs a child in its own process group and kills the whole group
// at the hard limit, when its resident memory passes memLimit, or when ctx
// is cancelled; the group is killed after a normal exit too, so nothing a
// child left behind outlives its run.
func runProc(ctx context.Context, s spawn) proc {
	var p proc
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Env = append(os.Environ(), s.env...)
	stdout := &capBuffer{max: maxStdout}
	stderr := &tailBuffer{max: stderrTail}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if s.stdin != "" {
		f, err := os.Open(s.stdin)
		if err != nil {
			p.err = err
			return p
		}
		defer f.Close()
		cmd.Stdin = f
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Killing the group ends the writers; this bounds Wait should a
	// descendant have left the group with the pipes open.
	cmd.WaitDelay = waitDelay
	resetPeak()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		p.err = fmt.Errorf("starting %s: %w", s.argv[0], err)
		return p
	}
	pgid := cmd.Process.Pid
	kill := func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) }
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var deadline <-chan time.Time
	if s.hard > 0 {
		t := time.NewTimer(s.hard)
		defer t.Stop()
		deadline = t.C
	}
	var poll <-chan time.Time
	if s.memLimit > 0 {
		t := time.NewTicker(memPoll)
		defer t.Stop()
		poll = t.C
	}
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-deadline:
			p.timedOut = true
			kill()
			<-done
			waiting = false
		case <-poll:
			if groupRSS(pgid) > s.memLimit {
				p.memOut = true
				kill()
				<-done
				waiting = false
			}
		case <-ctx.Done():
			kill()
			<-done
			p.err = ctx.Err()
			waiting = false
		}
	}
	p.wall = time.Since(start)
	kill()
	p.state = cmd.ProcessState
	if p.state != nil {
		if ru, ok := p.state.SysUsage().(*syscall.Rusage); ok {
			p.maxRSS = ru.Maxrss * 1024 // kilobytes on Linux
		}
	}
	p.stdout, p.stderr = stdout.Bytes(), stderr.Bytes()
	return p
}

// resetPeak sets this process's peak resident memory back to its current
// one. A child's maximum RSS as Linux reports it includes the image it
// ran before exec, which os/exec makes by vfork: this process's memory,
// with its peak so far (a generated suite's graphs, say). Without the
// reset every later child would show that peak as its own.
func resetPeak() {
	// "5" resets the peak RSS (Linux 4.0 on); where it is refused the
	// figures are only less tight.
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// groupRSS is the resident memory of the processes in group pgid, in
// bytes, from /proc (0 where /proc cannot be read).
func groupRSS(pgid int) int64 {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var total int64
	page := int64(os.Getpagesize())
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command name is in parentheses and may hold spaces: the
		// fields are counted from the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		// After the name: state(3) ppid(4) pgrp(5) … rss(24).
		if len(f) < 22 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		if rss, err := strconv.ParseInt(f[21], 10, 64); err == nil {
			total += rss * page
		}
	}
	return total
}

// exitInfo describes how a child ended, for notes.
func exitInfo(st *os.ProcessState) (signaled bool, desc string) {
	if st == nil {
		return false, "did not run"
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return true, "killed by signal " + ws.Signal().String()
	}
	return false, fmt.Sprintf("exit status %d", st.ExitCode())
}

// keyLine is the line of a child's stderr that says why it failed: a Go
// runtime's "fatal error:" or "panic:" line (the stack trace follows it),
// else the last non-empty line; shortened.
func keyLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	s := strings.TrimSpace(lines[len(lines)-1])
	for _, l := range lines {
		if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:") {
			s = strings.TrimSpace(l)
			break
		}
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// capBuffer keeps the first max bytes written and drops the rest (the
// child still sees its writes succeed).
type capBuffer struct {
	buf       bytes.Buffer
	max       int
	truncated bool
}

func (c *capBuffer) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	if c.buf.Len()+len(p) > c.max {
		c.truncated = true
	}
	return len(p), nil
}

func (c *capBuffer) Bytes() []byte { return c.buf.Bytes() }

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) Bytes() []byte {
	if len(t.b) > t.max {
		return t.b[len(t.b)-t.max:]
	}
	return t.b
}
