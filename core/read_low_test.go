package core

import (
	"errors"
	"strings"
	"testing"
)

// TestTrailingNULsText: a text file with binary bytes after its header (a
// .clq with trailing NULs) is a bad file of the format its header names,
// not a MIVIA file; a MIVIA file is still one.
func TestTrailingNULsText(t *testing.T) {
	for name, body := range map[string]string{
		"x.clq": "p edge 3 1\ne 1 2\n\x00\x00\x00\x00",
		"x":     "p edge 3 1\ne 1 2\n\x00\x00\x00\x00",
		"x.gr":  "c c\np td 3 1\n1 2\n\x00\x00",
	} {
		_, err := ParseGraph(strings.NewReader(body), name, ReadOptions{})
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Format == FormatMIVIA || fe.Line != strings.Count(body, "\n")+1 {
			t.Errorf("%s: %v; want the text format's error at the NUL line", name, err)
		}
	}
	if f := DetectFormat("g", []byte(words(3, 10, 11, 12, 1, 1, 5, 1, 0, 6, 1, 2, 9))); f != FormatMIVIA {
		t.Errorf("a MIVIA file detected as %q", f)
	}
}

// TestBlankFile: a file of blank lines is not "empty": the error says it
// has no header or data line, with or without a format.
func TestBlankFile(t *testing.T) {
	for _, name := range []string{"blank", "blank.gr", "blank.mtx"} {
		_, err := ParseGraph(strings.NewReader("\n\n  \n\t\n"), name, ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), name+": ") || !strings.Contains(err.Error(), "no header or data line: the file holds only blank lines and spaces (7 bytes)") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ParseGraph(strings.NewReader(""), "empty", ReadOptions{}); err == nil || !strings.Contains(err.Error(), "file is empty") {
		t.Errorf("an empty file: %v", err)
	}
}

// TestPatternWeights: a Matrix Market pattern file gives no weights (its
// 1s are implied): Stats says "pattern", not "integer".
func TestPatternWeights(t *testing.T) {
	g, err := ParseGraph(strings.NewReader("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n"), "p.mtx", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := g.Stats(); s.Weights != "pattern" || s.MinWeight != 0 || s.MaxWeight != 0 {
		t.Errorf("pattern file: weights %q %g..%g", s.Weights, s.MinWeight, s.MaxWeight)
	}
	g, err = ParseGraph(strings.NewReader("%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n2 1 4\n3 2 5\n"), "i.mtx", ReadOptions{})
	if err != nil || g.Stats().Weights != "integer" {
		t.Errorf("integer file: %v %q", err, g.Stats().Weights)
	}
}

// TestRepeatedEdgeNote: PACE and DIMACS merge a repeated edge with the
// same note.
func TestRepeatedEdgeNote(t *testing.T) {
	gr, err := ParseGraph(strings.NewReader("p td 3 3\n1 2\n2 1\n2 3\n"), "x.gr", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clq, err := ParseGraph(strings.NewReader("p edge 3 3\ne 1 2\ne 2 1\ne 2 3\n"), "x.clq", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "1 repeated edge record(s) merged (the first: {1,2})"
	if len(gr.Notes) != 1 || gr.Notes[0] != want || len(clq.Notes) != 1 || clq.Notes[0] != want || gr.Repeated != 1 {
		t.Errorf("PACE notes %q, DIMACS notes %q; want %q for both", gr.Notes, clq.Notes, want)
	}
}
