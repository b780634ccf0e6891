package cli

import (
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
)

// CheckedWriter is a command's standard output: it keeps the first write
// error, and run turns it into exit status 1 once the command returns.
// Without it a result printed to a full disk (or any failing output)
// would be lost with exit status 0, since no command checks every Fprintf.
// After the first error nothing more is written: the output is already
// incomplete, and a second error would only repeat the first.
type CheckedWriter struct {
	W   io.Writer
	Err error
}

func (c *CheckedWriter) Write(p []byte) (int, error) {
	if c.Err != nil {
		return 0, c.Err
	}
	n, err := c.W.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		c.Err = err
	}
	return n, err
}

// ExitStatus is the exit status and the message (empty: none) for what a
// command returned (cmdErr) and what writing its standard output met
// (outErr).
//
// A closed pipe on standard output: when stdout is the process's own file
// descriptor 1, the Go runtime ends the process with SIGPIPE at the failing
// write, as it does any Unix filter (`arbor mcs … | head -1` ends quietly,
// the shell reporting status 141). Where EPIPE reaches us instead (stdout
// is some other writer), the command also ends quietly, with status 1:
// whoever closed the pipe is not reading a message either.
func ExitStatus(cmdErr, outErr error) (int, string) {
	if outErr != nil {
		// The output's failure is the cause, whether the command went on
		// (most print without checking) or returned it, wrapped or not;
		// help that could not be written is a failure too.
		cmdErr = fmt.Errorf("writing standard output: %w", outErr)
	}
	switch {
	case cmdErr == nil:
		return 0, ""
	case errors.Is(cmdErr, ErrHelp):
		return 0, ""
	case errors.Is(cmdErr, syscall.EPIPE) && outErr != nil:
		return 1, ""
	case IsUsage(cmdErr):
		return 2, cmdErr.Error()
	case IsUnsettled(cmdErr):
		// --require-optimal: the answer was printed; this says why the
		// status is not 0.
		return ExitUnsettled, cmdErr.Error()
	}
	return 1, cmdErr.Error()
}

// IsUsage reports whether err is the user's mistake in the command line:
// a bad flag or argument, an unknown format name, a backend or device that
// does not exist. Those exit with status 2 wherever they are found, in a
// command or in the packages it calls (which mark theirs with sentinels).
func IsUsage(err error) bool {
	var ue UsageError
	return errors.As(err, &ue) || errors.Is(err, core.ErrUnknownFormat) || errors.Is(err, backend.ErrSelection)
}
