package core

import (
	"bytes"
	"testing"
)

// The random files read back as what they claim: m distinct entries, no
// error, the same bytes for the same seed whatever GOMAXPROCS is.
func TestWriteRandomFiles(t *testing.T) {
	for _, c := range []struct {
		field     string
		symmetric bool
	}{{"real", true}, {"integer", false}, {"pattern", true}, {"edgelist", false}} {
		var a, b bytes.Buffer
		write := func(buf *bytes.Buffer, seed uint64) error {
			if c.field == "edgelist" {
				return WriteRandomEdgeList(buf, 9000, 50000, seed)
			}
			return WriteRandomMTX(buf, 9000, 50000, c.field, c.symmetric, seed)
		}
		if err := write(&a, 7); err != nil {
			t.Fatal(err)
		}
		if err := write(&b, 7); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%s: same seed, different files", c.field)
		}
		format := FormatMTX
		if c.field == "edgelist" {
			format = FormatEdgeList0
		}
		g, err := ParseGraph(&a, "rand", ReadOptions{Format: format, Directed: !c.symmetric})
		if err != nil {
			t.Fatalf("%s: %v", c.field, err)
		}
		if g.N != 9000 || g.Edges() != 50000 {
			t.Errorf("%s: read N=%d edges=%d, want 9000 and 50000", c.field, g.N, g.Edges())
		}
	}
	// A full lower triangle: every row takes every column below it.
	var buf bytes.Buffer
	if err := WriteRandomMTX(&buf, 30, 1000, "pattern", true, 1); err != nil {
		t.Fatal(err)
	}
	g, err := ParseGraph(&buf, "full", ReadOptions{Format: FormatMTX})
	if err != nil || g.Edges() != 30*29/2 {
		t.Fatalf("complete graph: %v", err)
	}
}
