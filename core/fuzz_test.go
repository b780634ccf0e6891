package core

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Fuzzing: every reader, on any input, either returns a valid graph and no
// error, or no graph and a *FormatError; it never panics and never
// allocates from a header number alone. A graph it accepts must survive a
// write/read round trip. Seeds are the hand-written files of the other
// tests; found inputs are kept under testdata/fuzz/.

func fuzzRead(t *testing.T, format string, data []byte, directed bool) {
	// A small memory budget keeps a header number alone from allocating
	// much, as the tests' machines need.
	opts := ReadOptions{Format: format, Directed: directed, MaxMemory: 64 << 20}
	samePieces(t, data, opts)
	g, err := ParseGraph(bytes.NewReader(data), "fuzz", opts)
	if err != nil {
		if g != nil {
			t.Fatalf("graph returned with error %v", err)
		}
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("error %q (%T) is not a *FormatError", err, err)
		}
		if fe.File != "fuzz" || fe.Msg == "" {
			t.Fatalf("error does not name the file or say what: %#v", fe)
		}
		return
	}
	if g == nil {
		t.Fatal("nil graph without error")
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if countLoops(g) > 0 || g.N > 1<<16 {
		return
	}
	// Round trip through Matrix Market (keeps weights and direction).
	var buf bytes.Buffer
	if err := WriteGraph(&buf, g, FormatMTX); err != nil {
		t.Fatal(err)
	}
	h, err := ParseGraph(&buf, "rt.mtx", ReadOptions{Directed: g.Directed})
	if err != nil {
		t.Fatalf("round trip: %v\n%s", err, buf.String())
	}
	if !sameStructure(g, h) {
		t.Fatal("round trip changed the graph")
	}
}

// samePieces checks that reading data in many pieces, on several
// goroutines (the Matrix Market and edge-list readers), gives what reading
// it in one piece gives: the same graph or the same first error.
func samePieces(t *testing.T, data []byte, opts ReadOptions) {
	g1, err1 := parseBytes(data, "fuzz", opts, sequential)
	for _, chunks := range []int{2, 3 + len(data)%17} {
		g2, err2 := parseBytes(data, "fuzz", opts, manyChunks(chunks))
		if !reflect.DeepEqual(err1, err2) {
			t.Fatalf("%d pieces: error %v, in one piece %v", chunks, err2, err1)
		}
		if !reflect.DeepEqual(g1, g2) {
			t.Fatalf("%d pieces: graph %+v, in one piece %+v", chunks, g2, g1)
		}
	}
}

func addSeeds(f *testing.F, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
}

func FuzzReadMIVIA(f *testing.F) {
	addSeeds(f, words(3, 10, 11, 12, 1, 1, 5, 1, 0, 6, 1, 2, 9), words(0), words(2, 0, 0, 2, 1, 0, 1, 0, 0),
		words(2, 0, 0, 1, 1, 7, 1, 0, 8), words(1, 0, 0, 7), "\x01")
	f.Fuzz(func(t *testing.T, data []byte, directed bool) { fuzzRead(t, FormatMIVIA, data, directed) })
}

func FuzzReadDIMACS(f *testing.F) {
	addSeeds(f, "c triangle\np edge 3 3\ne 1 2\ne 2 3\ne 3 1\n", "p col 3 3\ne 1 2\ne 2 1\ne 2 3\n",
		"p edge 3 0\nn 2 -4\n", "p edge 3 1\ne 1 2 3\n", "p edge 1099511627776 0\n", "p edge 3 1\ne 2 2\n")
	f.Fuzz(func(t *testing.T, data []byte, directed bool) { fuzzRead(t, FormatDIMACS, data, directed) })
}

func FuzzReadPACE(f *testing.F) {
	addSeeds(f, "c x\np td 4 2\n1 2\r\n\n3 4\n", "p td 3 2\n1 2\n2 1\n", "p td 3 1\n1 9\n", "p td 5 0\n")
	f.Fuzz(func(t *testing.T, data []byte, directed bool) { fuzzRead(t, FormatPACE, data, directed) })
}

func FuzzReadEdgeList(f *testing.F) {
	addSeeds(f, "4 2\n0 1\n2 3\n", "# c\n4 2\n1 2\n3 4\n", "4 2\n1 2\n2 3\n", "3 2\n0 1\n1 3\n", "3 1\n-1 2\n",
		"# c\n5 4\r\n0 1\r\n\n% c\n1 2 \n\t2 3\n1 0\n", "5 3\n1 2\n2 3\n3 4", "3 2\n0 1\n1 x\n1 3\n")
	f.Fuzz(func(t *testing.T, data []byte, directed bool) { fuzzRead(t, FormatEdgeList, data, directed) })
}

func FuzzReadMTX(f *testing.F) {
	addSeeds(f, "%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 3\n2 1 1.5\n3 2 -2\n3 3 9\n",
		"%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 4\n2 1 7\n3 1 2\n",
		"%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n",
		"%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n1 2 5\n",
		"%%MatrixMarket matrix coordinate integer symmetric\n4 4 4\r\n2 1 3\r\n% c\n\n3 1 -2 \n4 4 1\n \t4 2\t5",
		"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 1\n3 1\n")
	f.Fuzz(func(t *testing.T, data []byte, directed bool) { fuzzRead(t, FormatMTX, data, directed) })
}

func FuzzReadLAD(f *testing.F) {
	addSeeds(f, "3\n2 1 2\n1 0\n0\n", "2\n2 0 1 0\n", "2\n2 1 1\n0\n", "1099511627776\n")
	f.Fuzz(func(t *testing.T, data []byte, directed bool) {
		fuzzRead(t, FormatLAD, data, directed)
		fuzzRead(t, FormatVertexLabelledLAD, data, directed)
		fuzzRead(t, FormatLabelledLAD, data, directed)
	})
}

// FuzzReadDetect lets detection pick the reader.
func FuzzReadDetect(f *testing.F) {
	addSeeds(f, "p edge 3 1\ne 1 2\n", "p td 2 1\n1 2\n", "2 1\n0 1\n", "2\n1 1\n1 0\n",
		"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n", words(2, 0, 0, 1, 1, 0, 0))
	f.Fuzz(func(t *testing.T, data []byte, directed bool) {
		opts := ReadOptions{Directed: directed, MaxMemory: 64 << 20}
		samePieces(t, data, opts)
		g, err := ParseGraph(bytes.NewReader(data), "fuzz", opts)
		if err != nil {
			if g != nil || !strings.HasPrefix(err.Error(), "fuzz") {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}
