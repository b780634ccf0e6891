package core

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Reading an input. Every input is bounded by the input limit (MaxInput),
// whatever it is: a regular file is refused by its size before a byte is
// read; anything else (standard input, a pipe, a FIFO, /dev/zero) is read
// until it ends or passes the limit; gzip is counted as it decompresses.
// And every phase ends when the context does: a FIFO waits for its writer
// in a loop that watches the context (a plain open(2) would block the
// process beyond any signal's reach), reads and decompression check it
// between pieces, and a pipe's pending read is woken by a deadline.

// StoppedError is what a read returns when its context ended first (Ctrl-C,
// SIGTERM, a deadline): nothing was read.
type StoppedError struct {
	File  string
	cause error // context.Cause: for a signal, "interrupt signal received"
	err   error // the context's Err
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("%s: stopped while reading: %v", e.File, e.cause)
}

// Unwrap gives both the context's error (context.Canceled or
// DeadlineExceeded, for errors.Is) and its cause.
func (e *StoppedError) Unwrap() []error { return []error{e.err, e.cause} }

func stopped(ctx context.Context, name string) error {
	return &StoppedError{File: name, cause: context.Cause(ctx), err: ctx.Err()}
}

// readChunk is the most one read asks for: between reads the context is
// checked, so an endless fast source (/dev/zero gives GB/s) stops within
// a millisecond of it.
const readChunk = 4 << 20

// ReadGraphContext is ReadGraph that returns as soon as ctx ends, with a
// *StoppedError, in any phase: while a FIFO waits for a writer, while
// reading or decompressing (those stop too), and while parsing and
// building the graph (those finish in the background, bounded by the
// input limit, and their result is dropped).
func ReadGraphContext(ctx context.Context, path string, opts ReadOptions) (*Graph, error) {
	return untilDone(ctx, path, func() (*Graph, error) {
		par := defaultParallelism()
		lim, err := opts.limits()
		if err != nil {
			return nil, err
		}
		data, err := readInput(ctx, path, lim, par.workers, 16<<20)
		if err != nil {
			return nil, err
		}
		if data, opts, err = gunzip(ctx, data, path, opts, lim); err != nil {
			return nil, err
		}
		return parseBytes(data, path, opts, par)
	})
}

// ParseGraphContext is ParseGraph that returns as soon as ctx ends (see
// ReadGraphContext). A read from r that blocks (a terminal, an idle pipe)
// is woken where r has SetReadDeadline (an *os.File of a pipe or FIFO);
// elsewhere it is left pending, and only its result is dropped.
func ParseGraphContext(ctx context.Context, r io.Reader, name string, opts ReadOptions) (*Graph, error) {
	return untilDone(ctx, name, func() (*Graph, error) {
		lim, err := opts.limits()
		if err != nil {
			return nil, err
		}
		data, err := readStream(ctx, r, name, lim, 0)
		if err != nil {
			return nil, err
		}
		if data, opts, err = gunzip(ctx, data, name, opts, lim); err != nil {
			return nil, err
		}
		return parseBytes(data, name, opts, defaultParallelism())
	})
}

// ReadInput returns the bytes of path (a file of any kind: a FIFO, a
// device, /dev/fd/N), as they are (no decompression), bounded by opts'
// MaxInput and ending with a *StoppedError when ctx does: for files other
// than graphs that a command reads (a batch's list).
func ReadInput(ctx context.Context, path string, opts ReadOptions) ([]byte, error) {
	lim, err := opts.limits()
	if err != nil {
		return nil, err
	}
	return untilDone(ctx, path, func() ([]byte, error) { return readInput(ctx, path, lim, 1, 16<<20) })
}

// ReadAllInput is ReadInput for a stream (standard input).
func ReadAllInput(ctx context.Context, r io.Reader, name string, opts ReadOptions) ([]byte, error) {
	lim, err := opts.limits()
	if err != nil {
		return nil, err
	}
	return untilDone(ctx, name, func() ([]byte, error) { return readStream(ctx, r, name, lim, 0) })
}

// untilDone runs read, returning early with a *StoppedError when ctx
// ends first.
func untilDone[T any](ctx context.Context, name string, read func() (T, error)) (T, error) {
	if ctx.Done() == nil {
		return read()
	}
	if ctx.Err() != nil {
		// Already ended: nothing is read (the select below would pick
		// either way).
		var zero T
		return zero, stopped(ctx, name)
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := read()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		if r.err != nil && ctx.Err() != nil {
			// The read saw the end first (a deadline, a check): one error.
			var zero T
			return zero, stopped(ctx, name)
		}
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, stopped(ctx, name)
	}
}

// readInput reads path whole, within the input limit. A regular file is
// refused by its size; one of 4 pieces or more is read piece by piece by
// up to workers goroutines at once (from the page cache one read(2) copies
// a few GB/s on one core, a fifth of the time of a parallel parse at
// 1 GB/s).
func readInput(ctx context.Context, path string, lim readLimits, workers int, piece int64) ([]byte, error) {
	f, err := openInput(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return readStream(ctx, f, path, lim, 0)
	}
	size := st.Size()
	if size > lim.maxInput {
		return nil, &FormatError{File: path, Offset: -1, Msg: fmt.Sprintf(
			"%s, more than the input limit, %s", humanSize(size), lim.inputFrom)}
	}
	if workers < 2 || size < 4*piece || size != int64(int(size)) {
		// The size is a hint: a file that grows is read to its end, within
		// the limit still.
		return readStream(ctx, f, path, lim, size)
	}
	data := make([]byte, size)
	pieces := int((size + piece - 1) / piece)
	errs := make([]error, pieces)
	parallelFor(workers, pieces, func(i int) {
		if ctx.Err() != nil {
			errs[i] = stopped(ctx, path)
			return
		}
		lo := int64(i) * piece
		_, errs[i] = f.ReadAt(data[lo:min(lo+piece, size)], lo)
	})
	for _, err := range errs {
		if err == io.EOF {
			return nil, fmt.Errorf("%s: the file shrank while being read", path)
		}
		if err != nil {
			return nil, err
		}
	}
	return data, nil
}

// deadliner is a reader whose pending read a deadline wakes (an *os.File
// of a pipe, a FIFO or a terminal opened non-blocking; a net.Conn).
type deadliner interface{ SetReadDeadline(time.Time) error }

// readStream reads r to its end, within the input limit, checking ctx
// between reads; sizeHint (0: none) sizes the first block.
//
// The bytes go into blocks that double up to maxBlock, joined once at the
// end: growing one buffer would copy everything read at each doubling, and
// an input over the limit (an endless /dev/zero) is never copied at all.
func readStream(ctx context.Context, r io.Reader, name string, lim readLimits, sizeHint int64) ([]byte, error) {
	if d, ok := r.(deadliner); ok && d.SetReadDeadline(time.Time{}) == nil {
		// A read waiting for a pipe's writer returns at once when ctx ends.
		defer context.AfterFunc(ctx, func() { d.SetReadDeadline(time.Unix(1, 0)) })()
	}
	const maxBlock = 64 << 20
	limit := lim.maxInput
	var blocks [][]byte
	var total int64
	buf := make([]byte, 0, min(max(sizeHint+1, 64<<10), limit+1))
	for {
		if ctx.Err() != nil {
			return nil, stopped(ctx, name)
		}
		if len(buf) == cap(buf) {
			blocks = append(blocks, buf)
			// Never past the one byte over the limit that shows the input
			// is too long.
			buf = make([]byte, 0, min(max(2*int64(cap(buf)), 64<<10), maxBlock, limit+1-total))
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), len(buf)+readChunk)])
		buf = buf[:len(buf)+n]
		if total += int64(n); total > limit {
			return nil, &FormatError{File: name, Offset: -1, Msg: fmt.Sprintf(
				"more input than the limit, %s", lim.inputFrom)}
		}
		if err == io.EOF {
			if len(blocks) == 0 {
				return buf, nil
			}
			return bytes.Join(append(blocks, buf), nil), nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, stopped(ctx, name)
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
}

// gunzip decompresses gzip data (recognised by its magic bytes, whatever
// the name) and, unless a format was forced, detects the format from the
// content and the name without its .gz. Other data is returned as it is.
// The decompressed bytes are counted as they come: a few megabytes of gzip
// can hold gigabytes, and one byte past the input limit ends it.
func gunzip(ctx context.Context, data []byte, name string, opts ReadOptions, lim readLimits) ([]byte, ReadOptions, error) {
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return data, opts, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, opts, fmt.Errorf("%s: %w", name, err)
	}
	// The trailer's size (mod 2^32, of the last member) sizes the buffer
	// once, instead of doublings that copy and hold twice the data at the
	// end; deflate expands 1032-fold at most. The trailer can lie: the
	// limit caps what it reserves.
	var hint int64
	if n := len(data); n >= 18 {
		hint = int64(uint32(data[n-4]) | uint32(data[n-3])<<8 | uint32(data[n-2])<<16 | uint32(data[n-1])<<24)
		hint = min(hint, 1032*int64(n))
	}
	out, err := readStream(ctx, zr, name, lim, hint)
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			return nil, opts, &FormatError{File: name, Offset: -1, Msg: "decompresses to more than the input limit, " + lim.inputFrom}
		}
		if _, ok := err.(*StoppedError); ok {
			return nil, opts, err
		}
		return nil, opts, fmt.Errorf("%s: decompressing: %w", name, errors.Unwrap(err))
	}
	if opts.Format == "" {
		opts.Format = DetectFormat(strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".GZ"), out)
	}
	return out, opts, nil
}
