package dataset

// Readers for the answer files of the shared data (see its README): the
// tests, the benchmarks and 'arbor bench' all read them through these, so
// a change of layout is made once. They return errors naming the file and
// line instead of failing a test, and import nothing of the project
// (core's own tests import this package).

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Row is one record of a CSV file with a header line, keyed by column name.
type Row struct {
	Line   int // 1-based line of the record in its file
	Fields map[string]string
}

// ReadCSV reads a CSV file whose first line names the columns; every
// column in want must be present.
func ReadCSV(path string, want ...string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	header, err := r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty, want a header line naming %s", path, strings.Join(want, ","))
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	have := map[string]bool{}
	for _, h := range header {
		have[h] = true
	}
	for _, w := range want {
		if !have[w] {
			return nil, fmt.Errorf("%s:1: no column %q in header %q", path, w, strings.Join(header, ","))
		}
	}
	var out []Row
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		row := Row{Line: line, Fields: make(map[string]string, len(header))}
		for i, h := range header {
			row.Fields[h] = rec[i]
		}
		out = append(out, row)
	}
}

// Int parses column col of the row as an integer.
func (r Row) Int(path, col string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(r.Fields[col]))
	if err != nil {
		return 0, fmt.Errorf("%s:%d: column %s: want an integer, got %q", path, r.Line, col, r.Fields[col])
	}
	return v, nil
}

// MIVIAPair is a row of mcs/mivia/expected.csv: the original McSplit's
// answer on an unlabelled, undirected pair.
type MIVIAPair struct {
	G, H    string // file names, relative to the mivia folder
	N       int
	Size    int   // the maximum where Proven, else the best found in 1000 s
	Nodes   int64 // search nodes of the original sequential McSplit
	Seconds float64
	Proven  bool
}

// ReadMIVIA reads dir/expected.csv (dir is the mcs/mivia folder).
func ReadMIVIA(dir string) ([]MIVIAPair, error) {
	path := filepath.Join(dir, "expected.csv")
	rows, err := ReadCSV(path, "g", "h", "n", "size", "nodes", "seconds", "proven")
	if err != nil {
		return nil, err
	}
	out := make([]MIVIAPair, 0, len(rows))
	for _, r := range rows {
		p := MIVIAPair{G: r.Fields["g"], H: r.Fields["h"], Proven: r.Fields["proven"] == "yes"}
		if p.N, err = r.Int(path, "n"); err != nil {
			return nil, err
		}
		if p.Size, err = r.Int(path, "size"); err != nil {
			return nil, err
		}
		if p.Nodes, err = strconv.ParseInt(r.Fields["nodes"], 10, 64); err != nil {
			return nil, fmt.Errorf("%s:%d: column nodes: want an integer, got %q", path, r.Line, r.Fields["nodes"])
		}
		if p.Seconds, err = strconv.ParseFloat(r.Fields["seconds"], 64); err != nil {
			return nil, fmt.Errorf("%s:%d: column seconds: want a number, got %q", path, r.Line, r.Fields["seconds"])
		}
		out = append(out, p)
	}
	return out, nil
}

// Optimum is an instance with its known optimum, from an optima.csv.
type Optimum struct {
	Path string // dir joined with the file column (and ext)
	Opt  int
	Row  Row
}

// ReadOptima reads dir/csvName, a CSV naming each instance in column
// fileCol (ext is appended: PACE names have none) and its optimum in
// optCol, keeping the rows keep accepts (nil: all).
func ReadOptima(dir, csvName, fileCol, optCol, ext string, keep func(Row) bool) ([]Optimum, error) {
	path := filepath.Join(dir, csvName)
	rows, err := ReadCSV(path, fileCol, optCol)
	if err != nil {
		return nil, err
	}
	var out []Optimum
	for _, r := range rows {
		if keep != nil && !keep(r) {
			continue
		}
		opt, err := r.Int(path, optCol)
		if err != nil {
			return nil, err
		}
		out = append(out, Optimum{Path: filepath.Join(dir, r.Fields[fileCol]+ext), Opt: opt, Row: r})
	}
	return out, nil
}

// CliqueInstance is a row of clique/optima.csv: a file whose complement
// has clique number Omega (the table's, for a graph of N vertices).
type CliqueInstance struct {
	Path  string
	Name  string // file name without extension
	N     int
	Omega int
}

// ReadCliqueOptima reads dir/optima.csv (dir is the clique folder).
func ReadCliqueOptima(dir string) ([]CliqueInstance, error) {
	path := filepath.Join(dir, "optima.csv")
	rows, err := ReadCSV(path, "file", "n", "omega")
	if err != nil {
		return nil, err
	}
	out := make([]CliqueInstance, 0, len(rows))
	for _, r := range rows {
		in := CliqueInstance{Path: filepath.Join(dir, r.Fields["file"])}
		in.Name = strings.TrimSuffix(filepath.Base(in.Path), filepath.Ext(in.Path))
		if in.N, err = r.Int(path, "n"); err != nil {
			return nil, err
		}
		if in.Omega, err = r.Int(path, "omega"); err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

// OmegaFor is the clique number of the complement of the file as read,
// with n vertices: a Yamout file read with its spare vertex 0 has one
// vertex more than the table's n; isolated in the file, that vertex is
// joined to all in the complement, so it adds one to ω.
func (c CliqueInstance) OmegaFor(n int, vertex0Isolated bool) (int, error) {
	switch {
	case n == c.N:
		return c.Omega, nil
	case n == c.N+1 && vertex0Isolated:
		return c.Omega + 1, nil
	}
	return 0, fmt.Errorf("%s: %d vertices, clique/optima.csv says %d", c.Path, n, c.N)
}

// BHOSLIBMinCover is the minimum vertex cover of the BHOSLIB instance
// frbN-K-i (or frbN-K), known by construction: n − N with n = N·K.
func BHOSLIBMinCover(name string) (int, bool) {
	base := strings.TrimSuffix(filepath.Base(name), ".gz")
	base = strings.TrimSuffix(base, filepath.Ext(base))
	rest, ok := strings.CutPrefix(base, "frb")
	if !ok {
		return 0, false
	}
	parts := strings.Split(rest, "-")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	n, err1 := strconv.Atoi(parts[0])
	k, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || n <= 0 || k <= 0 {
		return 0, false
	}
	return n*k - n, true
}

// ReadInts reads one integer per line (blank lines skipped): the
// reference outputs of the matching data.
func ReadInts(path string) ([]int32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []int32
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		v, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: want an integer, got %q", path, line, s)
		}
		out = append(out, int32(v))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
