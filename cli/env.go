package cli

import (
	"context"
	"fmt"
	"io"
)

// Env is what a command runs with: its arguments, streams and a context
// cancelled by Ctrl-C (or SIGTERM).
type Env struct {
	Ctx    context.Context
	Name   string    // the command's name (arbor NAME)
	Args   []string  // the command's arguments, after its name
	Stdin  io.Reader // nil: os.Stdin
	Stdout io.Writer
	Stderr io.Writer
	// StdinUsed: a graph was read from "-" already (ReadGraph).
	StdinUsed bool
	// limits are the graph readers' limits from --max-input and
	// --max-memory (zero: the defaults), for ReadGraph.
	limits ReadLimits
}

// UsageError marks errors that exit with status 2: the command line asked
// for something that cannot be (arbor NAME -h lists the options).
type UsageError struct{ msg string }

func (u UsageError) Error() string { return u.msg }

// Usagef is a UsageError.
func Usagef(format string, a ...any) error { return UsageError{fmt.Sprintf(format, a...)} }
