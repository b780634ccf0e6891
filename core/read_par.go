package core

import (
	"bytes"
	"errors"
)

// splitLines cuts b into at most k pieces of about equal size, each ending
// just after a newline (the last where b ends): the chunks a reader parses
// concurrently. Every line lies in exactly one piece.
func splitLines(b []byte, k int) [][]byte {
	if k < 2 || len(b) == 0 {
		return [][]byte{b}
	}
	pieces := make([][]byte, 0, k)
	from := 0
	for i := 1; i <= k && from < len(b); i++ {
		to := len(b)
		if i < k {
			to = max(from, i*len(b)/k)
			if j := bytes.IndexByte(b[to:], '\n'); j >= 0 {
				to += j + 1
			} else {
				to = len(b)
			}
		}
		pieces = append(pieces, b[from:to])
		from = to
	}
	return pieces
}

// parseChunks parses body, the rest of t's data from t.pos on, with parse:
// in one piece when it is short or par says so, else in pieces cut at line
// boundaries, concurrently. Each piece gets its own textReader, counting
// lines from 1 within the piece; the caller turns those into file lines
// with the pieces' line counts (see shiftLine). Results are in file order.
func parseChunks[R any](t *textReader, par parallelism, parse func(c *textReader) R) []R {
	body := t.data[t.pos:]
	k := 1
	if par.workers >= 2 && len(body) >= par.minBytes {
		k = max(par.chunks, 1)
	}
	pieces := splitLines(body, k)
	res := make([]R, len(pieces))
	parallelFor(par.workers, len(pieces), func(i int) {
		res[i] = parse(&textReader{name: t.name, format: t.format, data: pieces[i]})
	})
	return res
}

// shiftLine moves a FormatError found in a piece to its line in the file:
// the piece starts after line before.
func shiftLine(err error, before int) error {
	var fe *FormatError
	if errors.As(err, &fe) && fe.Line > 0 {
		e := *fe
		e.Line += before
		return &e
	}
	return err
}

// lineCap bounds the edges a piece can hold by its lines, by its size
// (an edge line has at least 4 bytes) and by room: enough to preallocate
// without ever growing, and never more than the data could need.
func lineCap(data []byte, room int64) int {
	c := min(int64(bytes.Count(data, []byte{'\n'})+1), int64(len(data)/4+1))
	return int(max(min(c, room+1), 0))
}
