//go:build unix

package core

import (
	"context"
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// fifoPoll is how often (ms) a FIFO without a writer looks at its context.
const fifoPoll = 50

// openInput opens path for reading. A FIFO is opened non-blocking (a
// blocking open(2) waits for a writer, out of reach of any signal) and
// then waits for its writer's first bytes or close in poll(2) rounds that
// watch ctx; the descriptor stays non-blocking, so Go's poller parks its
// reads and a deadline wakes them (readStream). Other files open as usual.
func openInput(ctx context.Context, path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return os.Open(path)
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	// Linux reports no hang-up on a FIFO whose reader opened it before any
	// writer did, until one has come and gone: poll waits for the writer.
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		if ctx.Err() != nil {
			unix.Close(fd)
			return nil, stopped(ctx, path)
		}
		n, err := unix.Poll(fds, fifoPoll)
		if err != nil && !errors.Is(err, unix.EINTR) {
			unix.Close(fd)
			return nil, &os.PathError{Op: "poll", Path: path, Err: err}
		}
		if n > 0 {
			return os.NewFile(uintptr(fd), path), nil
		}
	}
}
