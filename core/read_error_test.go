package core

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
)

// words builds a MIVIA file from 16-bit words.
func words(ws ...int) string {
	b := make([]byte, 2*len(ws))
	for i, w := range ws {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(w))
	}
	return string(b)
}

// Every documented error, on a hand-written file: the error must be a
// *FormatError at the right line (or byte offset) saying what was wrong.
func TestReadErrors(t *testing.T) {
	cases := []struct {
		name, format, data string
		line               int   // expected line; 0 for binary
		offset             int64 // expected byte offset when line is 0
		want               string
	}{
		// MIVIA
		{"mivia one byte", "mivia", "\x01", 0, 0, "at least 2"},
		{"mivia odd size", "mivia", words(1, 0) + "\x00", 0, 4, "odd"},
		{"mivia truncated labels", "mivia", words(3, 0, 0), 0, 6, "inside the vertex labels"},
		{"mivia no arc count", "mivia", words(2, 0, 0, 0), 0, 8, "arc count of vertex 1"},
		{"mivia arcs past end", "mivia", words(2, 0, 0, 2, 1, 0, 0), 0, 6, "claims 2 arcs"},
		{"mivia target out of range", "mivia", words(2, 0, 0, 1, 2, 0, 0), 0, 8, "target below N=2"},
		{"mivia duplicate arc", "mivia", words(2, 0, 0, 2, 1, 0, 1, 0, 0), 0, 12, "appears twice"},
		{"mivia trailing bytes", "mivia", words(1, 0, 0, 7), 0, 6, "2+4N+4·arcs"},

		// DIMACS
		{"dimacs no problem line", "dimacs", "c hello\n", 1, 0, "no problem line"},
		{"dimacs edge before p", "dimacs", "c x\ne 1 2\np edge 2 1\n", 2, 0, "before the problem line"},
		{"dimacs second p", "dimacs", "p edge 2 0\np edge 2 0\n", 2, 0, "second problem line"},
		{"dimacs bad kind", "dimacs", "p cnf 2 1\n", 1, 0, "'p edge N M'"},
		{"dimacs non-number", "dimacs", "p edge 3 1\ne 1 x\n", 2, 0, `found "x"`},
		{"dimacs negative", "dimacs", "p edge 3 1\ne -1 2\n", 2, 0, "negative"},
		{"dimacs out of range", "dimacs", "p edge 3 1\ne 1 4\n", 2, 0, "vertex 4 is out of range; expected 1..3"},
		{"dimacs zero vertex", "dimacs", "p edge 3 1\ne 0 1\n", 2, 0, "vertex 0 is out of range"},
		{"dimacs self-loop", "dimacs", "p edge 3 1\ne 2 2\n", 2, 0, "self-loop"},
		{"dimacs too many edges", "dimacs", "p edge 3 1\ne 1 2\ne 2 3\n", 3, 0, "more edges than the 1"},
		{"dimacs truncated", "dimacs", "p edge 3 3\ne 1 2\ne 2 3\n", 3, 0, "announced 3 edges, the file has 2"},
		{"dimacs unknown line", "dimacs", "p edge 3 0\nx 1 2\n", 2, 0, "expected 'c', 'p', 'e' or 'n'"},
		{"dimacs trailing token", "dimacs", "p edge 3 1\ne 1 2 3\n", 2, 0, `unexpected "3"`},
		{"dimacs bad label", "dimacs", "p edge 3 0\nn 1 red\n", 2, 0, "vertex label"},
		{"dimacs huge header", "dimacs", "p edge 1099511627776 0\n", 1, 0, "larger than the limit"},
		{"dimacs negative count", "dimacs", "p edge 3 -1\n", 1, 0, "negative"},
		{"dimacs overflow", "dimacs", "p edge 99999999999999999999999 1\n", 1, 0, "integer"},

		// PACE
		{"pace no problem line", "pace", "1 2\n", 1, 0, "before the problem line"},
		{"pace bad kind", "pace", "p edge 2 1\n", 1, 0, "'p td N M'"},
		{"pace out of range", "pace", "c x\np td 3 1\n1 9\n", 3, 0, "vertex 9 is out of range; expected 1..3"},
		{"pace self-loop", "pace", "p td 3 1\n3 3\n", 2, 0, "self-loop"},
		{"pace non-number", "pace", "p td 3 1\n1 2.5\n", 2, 0, `found "2.5"`},
		{"pace letters", "pace", "p td 3 1\ne 1 2\n", 2, 0, `found "e"`},
		{"pace missing vertex", "pace", "p td 3 1\n1\n", 2, 0, "found end of line"},
		{"pace truncated", "pace", "p td 3 2\n1 2\n", 2, 0, "announced 2 edges, the file has 1"},
		{"pace too many", "pace", "p td 3 1\n1 2\n2 3\n", 3, 0, "more edges"},

		// Edge lists
		{"edgelist no header", "edgelist", "# only comments\n", 1, 0, "no header"},
		{"edgelist bad header", "edgelist", "3 x\n", 1, 0, "edge count M"},
		{"edgelist header extra", "edgelist", "3 2 1\n", 1, 0, "after the header"},
		{"edgelist out of range", "edgelist", "3 1\n1 5\n", 2, 0, "vertex 5 is out of range; expected 0..3"},
		{"edgelist negative", "edgelist", "3 1\n-1 2\n", 2, 0, "negative"},
		{"edgelist self-loop", "edgelist", "3 1\n1 1\n", 2, 0, "self-loop"},
		{"edgelist truncated", "edgelist", "3 2\n0 1\n", 2, 0, "announced 2 edges, the file has 1"},
		{"edgelist too many", "edgelist", "3 1\n0 1\n1 2\n", 3, 0, "more edges"},
		{"edgelist 0 and N", "edgelist", "3 2\n0 1\n1 3\n", 3, 0, "vertices 0 (line 2) and 3 (line 3)"},
		{"edgelist1 zero", "edgelist1", "3 1\n0 1\n", 2, 0, "vertex 0 is out of range; expected 1..3"},
		{"edgelist0 N", "edgelist0", "3 1\n1 3\n", 2, 0, "vertex 3 is out of range; expected 0..2"},

		// Matrix Market
		{"mtx bad banner", "mtx", "%%Matrix matrix coordinate real general\n", 1, 0, "banner"},
		{"mtx array", "mtx", "%%MatrixMarket matrix array real general\n2 2\n", 1, 0, "'coordinate'"},
		{"mtx complex", "mtx", "%%MatrixMarket matrix coordinate complex general\n", 1, 0, "field \"complex\""},
		{"mtx hermitian", "mtx", "%%MatrixMarket matrix coordinate real hermitian\n", 1, 0, "symmetry \"hermitian\""},
		{"mtx no size", "mtx", "%%MatrixMarket matrix coordinate real general\n% c\n", 2, 0, "no size line"},
		{"mtx not square", "mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 0\n", 2, 0, "2×3"},
		{"mtx out of range", "mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 3\n", 3, 0, "vertex 3 is out of range; expected 1..2"},
		{"mtx missing value", "mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2\n", 3, 0, "expected a real value"},
		{"mtx bad real", "mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 NaN\n", 3, 0, "finite real"},
		{"mtx bad integer", "mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 1.5\n", 3, 0, "integer value"},
		{"mtx pattern value", "mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2 7\n", 3, 0, `unexpected "7"`},
		{"mtx too many", "mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n2 3\n", 4, 0, "more entries"},
		{"mtx truncated", "mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n", 3, 0, "announced 2 entries, the file has 1"},
		{"mtx repeated entry", "mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n1 2 5\n", 4, 0, "entry (1,2) repeats the one on line 3"},
		{"mtx symmetric mirror", "mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n1 2 5\n", 4, 0, "entry for {1,2} repeats the one on line 3"},

		// LAD
		{"lad bad count", "lad", "x\n", 1, 0, "vertex count N"},
		{"lad out of range", "lad", "2\n1 5\n0\n", 2, 0, "a successor of vertex 0 is 5; expected 0..1"},
		{"lad negative degree", "lad", "2\n-1\n0\n", 2, 0, "successor count of vertex 0 is -1"},
		{"lad duplicate", "lad", "2\n2 1 1\n0\n", 2, 0, "appears twice"},
		{"lad truncated", "lad", "3\n1 1\n1 0\n", 3, 0, "file ends early: expected the successor count of vertex 2"},
		{"lad trailing", "lad", "1\n0\n0\n", 3, 0, "after the last vertex"},
		{"lad labelled missing label", "labelledlad", "2\n5 1 1\n", 2, 0, "file ends early: expected the label of arc 0→1"},
		{"lad huge header", "lad", "1099511627776\n", 1, 0, "larger than the limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := ParseGraph(strings.NewReader(c.data), "test."+c.format, ReadOptions{Format: c.format})
			if err == nil {
				t.Fatalf("no error; got a graph with %d vertices", g.N)
			}
			if g != nil {
				t.Fatal("a graph was returned with the error")
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %q (%T) is not a *FormatError", err, err)
			}
			if fe.File != "test."+c.format {
				t.Errorf("error names file %q", fe.File)
			}
			if fe.Line != c.line || (c.line == 0 && fe.Offset != c.offset) {
				t.Errorf("error at line %d offset %d, want line %d offset %d: %v", fe.Line, fe.Offset, c.line, c.offset, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
}

func TestFormatErrorString(t *testing.T) {
	for _, c := range []struct {
		e    FormatError
		want string
	}{
		{FormatError{File: "g.gr", Format: "pace", Line: 7, Offset: -1, Msg: "bad"}, "g.gr:7: pace: bad"},
		{FormatError{File: "g.A00", Format: "mivia", Offset: 12, Msg: "bad"}, "g.A00: byte 12: mivia: bad"},
		{FormatError{File: "x", Offset: -1, Msg: "cannot tell"}, "x: cannot tell"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

func TestReadUnknownFormat(t *testing.T) {
	if _, err := ParseGraph(strings.NewReader("hello world\n"), "x.dat", ReadOptions{}); err == nil || !strings.Contains(err.Error(), "cannot tell") {
		t.Fatalf("undetectable content: %v", err)
	}
	if _, err := ParseGraph(strings.NewReader("1 0\n"), "x", ReadOptions{Format: "bogus"}); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Fatalf("bogus --format: %v", err)
	}
	if _, err := ParseGraph(strings.NewReader("  \n"), "x.gr", ReadOptions{}); err == nil || !strings.Contains(err.Error(), "no header or data line") {
		t.Fatalf("a blank file: %v", err)
	}
}

// TestIntegerRangeStated: an integer beyond what the readers hold says so
// and states the range; a real beyond float64 states its range too.
func TestIntegerRangeStated(t *testing.T) {
	for body, want := range map[string]string{
		"%%MatrixMarket matrix coordinate integer symmetric\n2 2 1\n2 1 99999999999999999999\n": "at most 4611686018427387903 in magnitude",
		"%%MatrixMarket matrix coordinate integer symmetric\n2 2 1\n2 1 -4611686018427387904\n": "at most 4611686018427387903 in magnitude",
		"%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n2 1 1e309\n":                   "magnitude at most 1.7976931348623157e+308",
		"p td 99999999999999999999 0\n": "out of range",
	} {
		_, err := ParseGraph(strings.NewReader(body), "x", ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error containing %q", body, err, want)
		}
	}
	// The extremes themselves read.
	g, err := ParseGraph(strings.NewReader("%%MatrixMarket matrix coordinate integer symmetric\n2 2 1\n2 1 -4611686018427387903\n"), "x", ReadOptions{})
	if err != nil || g.Weights[0] != -4611686018427387903 {
		t.Errorf("-(2^62-1): %v", err)
	}
}

// TestRandomRealWeightsFinite: every finite range gives finite weights,
// even one wider than the largest float64.
func TestRandomRealWeightsFinite(t *testing.T) {
	for _, r := range [][2]float64{{0, 1e308}, {-math.MaxFloat64, math.MaxFloat64}, {math.MaxFloat64, math.MaxFloat64}, {-1, 1}} {
		g := RandomRealWeights(GNP(100, 0.2, 1), r[0], r[1], 3)
		for _, w := range g.Weights {
			if math.IsInf(w, 0) || math.IsNaN(w) || w < r[0] || w > r[1] {
				t.Fatalf("range %v: weight %v", r, w)
			}
		}
	}
}
