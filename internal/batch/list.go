package batch

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Entry is one instance line of a list.
type Entry struct {
	// Line is the line of the list it came from (1-based).
	Line int
	// Files are its files, resolved against the list's folder; nil when
	// Err is set.
	Files []string
	// Err says why the line is not an instance (wrong field count, an
	// unbalanced quote, an empty file name), naming the list and the line.
	Err error
}

// headerWords are the first cells that make a list's first line a header
// rather than an instance. A header also allows further columns (such as
// expected.csv's n,size,…), which are ignored: without one, a line must
// have exactly the fields asked for, so a stray column is an error rather
// than a silently ignored file.
var headerWords = map[string]bool{"g": true, "g1": true, "graph": true, "file": true, "path": true, "instance": true, "query": true}

// maxLine is the longest list line read (a path is far shorter).
const maxLine = 1 << 20

// ParseList reads a list of instances: one per line, fields separated by
// commas (CSV quoting for names with commas), cols fields each (mcs: g,h;
// vc and clique: one file). Blank lines and lines starting with '#' are
// skipped; an optional header line is recognised by its first cell (g,
// g1, graph, file, path, instance or query). Relative paths are joined to
// dir (the list's folder; "" leaves them as they are). name is the list's
// name in messages.
//
// A bad line is an Entry with Err, so that a batch reports it as a row
// and goes on; the error returned is only the list's own failure (a read
// error, a line over 1 MiB).
func ParseList(r io.Reader, name, dir string, cols int) ([]Entry, error) {
	if cols < 1 {
		return nil, fmt.Errorf("%s: a list needs at least one column", name)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var out []Entry
	width := cols // fields a line must have: cols, or the header's
	header := false
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff") // a spreadsheet's byte-order mark
		}
		trimmed := strings.TrimSpace(text)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		fields, err := splitCSV(trimmed)
		if err != nil {
			out = append(out, Entry{Line: line, Err: fmt.Errorf("%s:%d: %v", name, line, err)})
			continue
		}
		if !header && len(out) == 0 && headerWords[strings.ToLower(fields[0])] {
			header = true
			if len(fields) < cols {
				return nil, fmt.Errorf("%s:%d: the header names %d columns, want at least %d (%s)", name, line, len(fields), cols, want(cols))
			}
			width = len(fields)
			continue
		}
		out = append(out, entry(name, dir, line, fields, cols, width))
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s: line %d is longer than %d bytes: not a list of instances", name, len(out)+1, maxLine)
		}
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return out, nil
}

func want(cols int) string {
	if cols == 2 {
		return "g,h: two graph files"
	}
	if cols == 1 {
		return "one graph file"
	}
	return fmt.Sprintf("%d graph files", cols)
}

func entry(name, dir string, line int, fields []string, cols, width int) Entry {
	if len(fields) != width {
		what := want(cols)
		if width != cols {
			what = fmt.Sprintf("%d columns, as the header has, the first %s", width, want(cols))
		}
		n := fmt.Sprintf("%d fields", len(fields))
		if len(fields) == 1 {
			n = "1 field"
		}
		return Entry{Line: line, Err: fmt.Errorf("%s:%d: %s, want %s", name, line, n, what)}
	}
	files := make([]string, cols)
	for i, f := range fields[:cols] {
		f = strings.TrimSpace(f)
		if f == "" {
			return Entry{Line: line, Err: fmt.Errorf("%s:%d: field %d is empty, want a graph file", name, line, i+1)}
		}
		if dir != "" && !filepath.IsAbs(f) {
			f = filepath.Join(dir, f)
		}
		files[i] = f
	}
	return Entry{Line: line, Files: files}
}

// splitCSV splits one line by CSV's rules (a quoted field may hold commas;
// a line must hold one record).
func splitCSV(line string) ([]string, error) {
	if !strings.ContainsRune(line, '"') {
		return strings.Split(line, ","), nil
	}
	cr := csv.NewReader(strings.NewReader(line))
	cr.FieldsPerRecord = -1
	rec, err := cr.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("not a CSV line (%v)", err)
	}
	if _, err := cr.Read(); err != io.EOF {
		return nil, errors.New("a quoted field runs past the line: a list line holds one instance")
	}
	return rec, nil
}
