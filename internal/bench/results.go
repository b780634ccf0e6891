package bench

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/arbor-gpu/arbor/internal/atomicfile"
	"github.com/arbor-gpu/arbor/internal/dataset"
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
	if err := atomicfile.Write(filepath.Join(dir, CSVName), func(w io.Writer) error { return WriteCSV(w, rs) }); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, JSONName), func(w io.Writer) error {
		if rs == nil {
			rs = []Result{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rs)
	})
}

// ReadCSV reads a results.csv written by WriteCSV.
func ReadCSV(path string) ([]Result, error) {
	rows, err := dataset.ReadCSV(path, columns...)
	if err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(rows))
	for _, row := range rows {
		get := func(c string) string { return row.Fields[c] }
		var perr error
		num := func(c string) int64 {
			v, err := strconv.ParseInt(get(c), 10, 64)
			if err != nil && perr == nil {
				perr = fmt.Errorf("%s:%d: column %s: want an integer, got %q", path, row.Line, c, get(c))
			}
			return v
		}
		flt := func(c string) float64 {
			v, err := strconv.ParseFloat(get(c), 64)
			if err != nil && perr == nil {
				perr = fmt.Errorf("%s:%d: column %s: want a number, got %q", path, row.Line, c, get(c))
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
	return out, nil
}
