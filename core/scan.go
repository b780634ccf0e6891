package core

import (
	"bytes"
	"fmt"
)

// textReader walks a text graph file held in memory line by line. Reading
// the whole file first is the fast path (one read, no per-line copies) and
// lets header counts be checked against the file size before allocating.
type textReader struct {
	name, format string
	data         []byte
	pos          int
	line         int // number of the line last returned by next
	// vertexLimit is the most vertices a header may announce, and
	// limitFrom what set it and how to raise it, for the error.
	vertexLimit int64
	limitFrom   string
}

// overLimit is the error for a count beyond limit: for the vertex limit it
// says where the limit comes from and how to raise it.
func (r *textReader) overLimit(what string, v, limit int64) error {
	if limit == r.vertexLimit && r.limitFrom != "" {
		return r.errf("%s %d is larger than the limit %d (%s)", what, v, limit, r.limitFrom)
	}
	return r.errf("%s %d is larger than the limit %d", what, v, limit)
}

// next returns the next line without its line ending.
func (r *textReader) next() ([]byte, bool) {
	if r.pos >= len(r.data) {
		return nil, false
	}
	rest := r.data[r.pos:]
	var l []byte
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		l = rest[:i]
		r.pos += i + 1
	} else {
		l = rest
		r.pos = len(r.data)
	}
	r.line++
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	return l, true
}

// errf makes a FormatError at the line last returned.
func (r *textReader) errf(format string, a ...any) error {
	return r.errAt(r.line, format, a...)
}

func (r *textReader) errAt(line int, format string, a ...any) error {
	if line == 0 {
		line = 1
	}
	return &FormatError{File: r.name, Format: r.format, Line: line, Offset: -1, Msg: fmt.Sprintf(format, a...)}
}

// errEOF reports a file that ended early, at its last line.
func (r *textReader) errEOF(format string, a ...any) error {
	line := r.line
	if line == 0 {
		line = 1
	}
	return &FormatError{File: r.name, Format: r.format, Line: line, Offset: -1, Msg: "file ends early: " + fmt.Sprintf(format, a...)}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// field splits the first whitespace-separated field off b.
func field(b []byte) (tok, rest []byte) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	j := i
	for j < len(b) && !isSpace(b[j]) {
		j++
	}
	return b[i:j], b[j:]
}

// blank reports whether b holds only whitespace.
func blank(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// maxInt is the largest number the integer parser accepts: anything larger
// is out of range for every count and vertex in any format.
const maxInt = 1<<62 - 1

// MaxFileInt is the largest magnitude of an integer in a text graph file
// (counts, vertices, labels, integer weights): 2^62−1.
const MaxFileInt = maxInt

// parseInt parses a decimal integer with an optional sign. ok is false for
// anything that is not one, or is larger in magnitude than maxInt.
func parseInt(b []byte) (v int64, ok bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	for _, c := range b {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		v = v*10 + int64(d)
		if v > maxInt {
			return 0, false
		}
	}
	if neg {
		v = -v
	}
	return v, true
}

// isInteger reports whether b is a decimal integer of any size.
func isInteger(b []byte) bool {
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// intField parses the next field as an integer; what names it in errors.
func (r *textReader) intField(b []byte, what string) (int64, []byte, error) {
	tok, rest := field(b)
	if len(tok) == 0 {
		return 0, rest, r.errf("expected %s, found end of line", what)
	}
	v, ok := parseInt(tok)
	if !ok {
		if isInteger(tok) {
			return 0, rest, r.errf("%s %s is out of range: integers in graph files are at most %d in magnitude (2^62−1)", what, quote(tok), maxInt)
		}
		return 0, rest, r.errf("expected %s (an integer), found %s", what, quote(tok))
	}
	return v, rest, nil
}

// countField parses a non-negative count no larger than limit.
func (r *textReader) countField(b []byte, what string, limit int64) (int64, []byte, error) {
	v, rest, err := r.intField(b, what)
	if err != nil {
		return 0, rest, err
	}
	if v < 0 {
		return 0, rest, r.errf("%s is negative (%d)", what, v)
	}
	if v > limit {
		return 0, rest, r.overLimit(what, v, limit)
	}
	return v, rest, nil
}

// vertexField parses a vertex number in [lo, hi].
func (r *textReader) vertexField(b []byte, lo, hi int64) (int64, []byte, error) {
	tok, rest := field(b)
	if len(tok) == 0 {
		return 0, rest, r.errf("expected a vertex number, found end of line")
	}
	v, ok := parseInt(tok)
	if !ok {
		return 0, rest, r.errf("expected a vertex number, found %s", quote(tok))
	}
	if v < lo || v > hi {
		return 0, rest, r.rangeErr(v, lo, hi)
	}
	return v, rest, nil
}

// nextCareful reads, while fast is set (the header is read), the edge lines
// fastEdge takes and hands each to add; then it returns the next line for
// the careful parsers (ok false at the end of the data).
func (r *textReader) nextCareful(fast bool, prefix byte, add func(u, v int64) error) (line []byte, ok bool, err error) {
	for fast {
		u, v, hit := r.fastEdge(prefix)
		if !hit {
			break
		}
		if err := add(u, v); err != nil {
			return nil, false, err
		}
	}
	line, ok = r.next()
	return line, ok, nil
}

// edgeLine parses the rest of an edge line: two vertex numbers in [lo, hi]
// and nothing after them (want names the line's form in the error, e.g.
// "'U V'").
func (r *textReader) edgeLine(b []byte, lo, hi int64, want string) (u, v int64, err error) {
	if u, b, err = r.vertexField(b, lo, hi); err != nil {
		return 0, 0, err
	}
	if v, b, err = r.vertexField(b, lo, hi); err != nil {
		return 0, 0, err
	}
	return u, v, r.endOfLine(b, want)
}

// rangeErr words a vertex number outside [lo, hi] on the current line.
func (r *textReader) rangeErr(v, lo, hi int64) error {
	if v < 0 {
		return r.errf("vertex %d is negative; expected %d..%d", v, lo, hi)
	}
	return r.errf("vertex %d is out of range; expected %d..%d", v, lo, hi)
}

// fastEdge reads a whole line "[PREFIX ]U V" (U, V unsigned, separated by
// spaces or tabs) straight from the buffer and moves past it: the hot loop
// of the edge-list, PACE and DIMACS readers, with no per-line slicing. For
// any other line it returns ok=false and moves nothing; the caller then
// reads that line with next and the careful parsers, which word errors.
func (r *textReader) fastEdge(prefix byte) (u, v int64, ok bool) {
	d := r.data
	i := r.pos
	if prefix != 0 {
		if i+1 >= len(d) || d[i] != prefix || d[i+1] != ' ' {
			return 0, 0, false
		}
		i += 2
	}
	for i < len(d) && (d[i] == ' ' || d[i] == '\t') {
		i++
	}
	s := i
	for i < len(d) && d[i]-'0' <= 9 && i-s < 18 {
		u = u*10 + int64(d[i]-'0')
		i++
	}
	if i == s || i >= len(d) || (d[i] != ' ' && d[i] != '\t') {
		return 0, 0, false
	}
	for i < len(d) && (d[i] == ' ' || d[i] == '\t') {
		i++
	}
	s = i
	for i < len(d) && d[i]-'0' <= 9 && i-s < 18 {
		v = v*10 + int64(d[i]-'0')
		i++
	}
	if i == s {
		return 0, 0, false
	}
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r') {
		i++
	}
	if i < len(d) {
		if d[i] != '\n' {
			return 0, 0, false
		}
		i++
	}
	r.pos = i
	r.line++
	return u, v, true
}

// endOfLine checks that nothing but whitespace follows.
func (r *textReader) endOfLine(rest []byte, what string) error {
	if tok, _ := field(rest); len(tok) > 0 {
		return r.errf("unexpected %s after %s", quote(tok), what)
	}
	return nil
}
