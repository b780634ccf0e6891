package bench

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// The results file names in an output folder.
const (
	CSVName  = "results.csv"
	JSONName = "results.json"
)

// columns of results.csv, in order; readCSV requires them all.
var columns = []string{"instance", "kind", "engine", "backend", "device", "threads", "size", "proven", "nodes",
	"seconds", "solver_seconds", "status", "answer_ok", "known", "edges", "peak_mem", "note"}

func (r Result) record() []string {
	return []string{r.Instance, string(r.Kind), r.Engine, r.Backend, r.Device, strconv.Itoa(r.Threads), strconv.Itoa(r.Size),
		strconv.FormatBool(r.Proven), strconv.FormatInt(r.Nodes, 10), strconv.FormatFloat(r.Seconds, 'g', 6, 64),
		strconv.FormatFloat(r.SolverSeconds, 'g', 6, 64), string(r.Status), r.AnswerOK, strconv.Itoa(r.Known),
		strconv.Itoa(r.Edges), strconv.FormatInt(r.PeakMem, 10), r.Note}
}

// WriteCSV writes results with a header line.
func WriteCSV(w io.Writer, rs []Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(columns); err != nil {
		return err
	}
	for _, r := range rs {
		if err := cw.Write(r.record()); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Save writes results.csv and results.json into dir.
func Save(dir string, rs []Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, CSVName), func(w io.Writer) error { return WriteCSV(w, rs) }); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, JSONName), func(w io.Writer) error {
		if rs == nil {
			rs = []Result{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rs)
	})
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	werr := write(f)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	return nil
}

// ReadCSV reads a results.csv written by WriteCSV.
func ReadCSV(path string) ([]Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseResults(f, path)
}

func parseResults(r io.Reader, name string) ([]Result, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty, want a results header line", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, c := range columns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s:1: no column %q: not an arbor bench results file", name, c)
		}
	}
	var out []Result
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		get := func(c string) string { return rec[col[c]] }
		var perr error
		num := func(c string) int64 {
			v, err := strconv.ParseInt(get(c), 10, 64)
			if err != nil && perr == nil {
				perr = fmt.Errorf("%s:%d: column %s: want an integer, got %q", name, line, c, get(c))
			}
			return v
		}
		flt := func(c string) float64 {
			v, err := strconv.ParseFloat(get(c), 64)
			if err != nil && perr == nil {
				perr = fmt.Errorf("%s:%d: column %s: want a number, got %q", name, line, c, get(c))
			}
			return v
		}
		res := Result{Instance: get("instance"), Kind: Kind(get("kind")), Engine: get("engine"), Backend: get("backend"),
			Device: get("device"), Threads: int(num("threads")), Size: int(num("size")), Proven: get("proven") == "true",
			Nodes: num("nodes"), Seconds: flt("seconds"), SolverSeconds: flt("solver_seconds"), Status: Status(get("status")),
			AnswerOK: get("answer_ok"), Known: int(num("known")), Edges: int(num("edges")), PeakMem: num("peak_mem"), Note: get("note")}
		if perr != nil {
			return nil, perr
		}
		out = append(out, res)
	}
}
