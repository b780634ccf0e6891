package core

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrUnknownFormat is wrapped by the error for a format name (ReadOptions,
// WriteGraph) that is not one of Formats: the caller's mistake, which a
// command line reports as a usage error.
var ErrUnknownFormat = errors.New("unknown format")

// FormatError is a problem in a graph file: where it is and what was
// expected there. Text formats give the 1-based Line; binary formats give
// the byte Offset (Line is then 0). An error about the file as a whole
// (say, an empty file) has Line 0 and Offset -1.
type FormatError struct {
	File   string // file name as given to ReadGraph or ParseGraph
	Format string // the format being read ("mtx", "dimacs", …)
	Line   int    // 1-based line, 0 when not a text position
	Offset int64  // byte offset for binary formats; -1 when not known
	Msg    string // what was wrong and what was expected
}

func (e *FormatError) Error() string {
	where := e.File
	switch {
	case e.Line > 0:
		where += ":" + strconv.Itoa(e.Line)
	case e.Offset >= 0:
		where += ": byte " + strconv.FormatInt(e.Offset, 10)
	}
	if e.Format != "" {
		return fmt.Sprintf("%s: %s: %s", where, e.Format, e.Msg)
	}
	return where + ": " + e.Msg
}

// quote shows a token in an error message, cut short when long.
func quote(b []byte) string {
	const max = 24
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…"
	}
	return strconv.Quote(string(b))
}
