package core

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopWithin cancels a read after a moment and checks it returned a
// *StoppedError naming the file, within the bound (generous: the shared
// test machines are slow; the assertion is that it returns at all, where
// before it blocked for ever or read without end).
func stopWithin(t *testing.T, name string, read func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- read(ctx) }()
	time.Sleep(100 * time.Millisecond)
	cancel()
	start := time.Now()
	select {
	case err := <-done:
		var se *StoppedError
		if !errors.As(err, &se) || se.File != name || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "stopped while reading") {
			t.Fatalf("%s: %v; want a StoppedError naming it", name, err)
		}
		t.Logf("%s: stopped %v after the cancel", name, time.Since(start))
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: the read did not stop within 5 s of the cancel", name)
	}
}

// TestFIFOWithoutWriter: a FIFO no process writes to is opened without
// blocking, waits for a writer while watching the context, and a cancel
// ends it; with a writer it reads like a file.
func TestFIFOWithoutWriter(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	stopWithin(t, path, func(ctx context.Context) error {
		_, err := ReadGraphContext(ctx, path, ReadOptions{})
		return err
	})
	// The same FIFO, a writer coming later: the graph it writes.
	go func() {
		time.Sleep(100 * time.Millisecond)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		f.WriteString("p td 3 2\n1 2\n")
		time.Sleep(50 * time.Millisecond) // a writer that pauses midway
		f.WriteString("2 3\n")
		f.Close()
	}()
	g, err := ReadGraphContext(context.Background(), path, ReadOptions{Format: FormatPACE})
	if err != nil || g.N != 3 || g.Edges() != 2 {
		t.Fatalf("a FIFO with a writer: %v", err)
	}
	// A writer that pauses for ever: the pending read is woken.
	w := make(chan *os.File, 1)
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err == nil {
			f.WriteString("p td 3 2\n")
		}
		w <- f
	}()
	stopWithin(t, path, func(ctx context.Context) error {
		_, err := ReadGraphContext(ctx, path, ReadOptions{})
		return err
	})
	if f := <-w; f != nil {
		f.Close()
	}
}

// TestEndlessInputBounded: a device that never ends (/dev/zero), a pipe
// that never ends and a regular file over the limit are refused at the
// input limit, naming it; a cancel stops the endless ones.
func TestEndlessInputBounded(t *testing.T) {
	const limit = 3 << 20
	want := "more input than the limit, 3.0 MiB"
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := ReadGraph("/dev/zero", ReadOptions{MaxInput: limit})
		var fe *FormatError
		if !errors.As(err, &fe) || fe.File != "/dev/zero" || !strings.Contains(err.Error(), want) {
			t.Errorf("/dev/zero: %v; want %q", err, want)
		}
		stopWithin(t, "/dev/zero", func(ctx context.Context) error {
			_, err := ReadGraphContext(ctx, "/dev/zero", ReadOptions{MaxInput: 1 << 50})
			return err
		})
	}
	// A pipe whose writer writes "1 2" lines for ever (yes '1 2').
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		line := bytes.Repeat([]byte("1 2\n"), 1024)
		for {
			if _, err := pw.Write(line); err != nil {
				return
			}
		}
	}()
	defer pr.Close()
	defer pw.Close()
	if _, err := ParseGraph(pr, "yes", ReadOptions{MaxInput: limit}); err == nil || !strings.Contains(err.Error(), "yes: "+want) {
		t.Errorf("an endless pipe: %v; want %q", err, want)
	}
	stopWithin(t, "yes", func(ctx context.Context) error {
		_, err := ParseGraphContext(ctx, pr, "yes", ReadOptions{MaxInput: 1 << 50})
		return err
	})
	// A regular file is refused by its size, before it is read.
	path := filepath.Join(t.TempDir(), "big.gr")
	head := fmt.Sprintf("p td 2 %d\n", limit/4)
	if err := os.WriteFile(path, append([]byte(head), bytes.Repeat([]byte("1 2\n"), limit/4)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadGraph(path, ReadOptions{MaxInput: limit}); err == nil || !strings.Contains(err.Error(), path+": 3.0 MiB, more than the input limit, 3.0 MiB, as set (--max-input SIZE)") {
		t.Errorf("a file over the limit: %v", err)
	}
	if g, err := ReadGraph(path, ReadOptions{MaxInput: limit + int64(len(head))}); err != nil || g.Edges() != 1 {
		t.Errorf("the same file under the limit: %v", err)
	}
}

// TestBlockedReaderStopped: a reader whose Read blocks and that has no
// deadline (an io.Pipe; a terminal's standard input) does not hold the
// caller once the context ends.
func TestBlockedReaderStopped(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	stopWithin(t, "-", func(ctx context.Context) error {
		_, err := ParseGraphContext(ctx, pr, "-", ReadOptions{})
		return err
	})
	stopWithin(t, "list", func(ctx context.Context) error {
		_, err := ReadAllInput(ctx, pr, "list", ReadOptions{})
		return err
	})
}

// TestGzipBombStops: decompressed bytes are counted as they come, so a
// bomb stops at the limit, whatever its trailer claims; and a cancel stops
// a decompression under way.
func TestGzipBombStops(t *testing.T) {
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	zw.Write([]byte("p td 3 1\n1 2\n"))
	blank := bytes.Repeat([]byte("\n"), 1<<20)
	for range 256 { // 256 MiB of blank lines in some 250 KB
		zw.Write(blank)
	}
	zw.Close()
	data := z.Bytes()
	// A trailer claiming 4 GiB − 1 bytes must not reserve them.
	copy(data[len(data)-4:], []byte{0xff, 0xff, 0xff, 0xff})
	lim := readLimits{maxInput: 2 << 20, inputFrom: "2.0 MiB, as set"}
	out, _, err := gunzip(context.Background(), data, "bomb.gz", ReadOptions{}, lim)
	if err == nil || out != nil || !strings.Contains(err.Error(), "bomb.gz: decompresses to more than the input limit, 2.0 MiB") {
		t.Fatalf("a bomb: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := gunzip(ctx, data, "bomb.gz", ReadOptions{}, readLimits{maxInput: 1 << 40}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled decompression: %v", err)
	}
}

// TestDefaultMaxInput: without an option or $ARBOR_MAX_INPUT the input
// limit is DefaultMaxInput (at most), not a share of a large machine's
// memory; the error says how to raise it.
func TestDefaultMaxInput(t *testing.T) {
	t.Setenv(EnvMaxInput, "")
	lim, err := ReadOptions{}.limits()
	if err != nil {
		t.Fatal(err)
	}
	if lim.maxInput > DefaultMaxInput || lim.maxInput < minBudget || !strings.Contains(lim.inputFrom, "--max-input SIZE or ARBOR_MAX_INPUT") {
		t.Errorf("default input limit %d (%s)", lim.maxInput, lim.inputFrom)
	}
}
