package vertexcover

import (
	"bytes"
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/core"
)

// The complement path of vc --complement on whatever a reader accepts:
// one fuzz target per reader. The complement's size (ComplementBytes) is
// checked against the memory limit first, as the command does, so a tiny
// file with a hostile header is refused instead of building n²; what is
// built is the exact complement, and on small graphs the solver's cover of
// it is a cover.

// fuzzMemory is the memory limit of the fuzz targets: enough for a
// complement of some 4 000 vertices.
const fuzzMemory = 64 << 20

func fuzzComplement(t *testing.T, format string, data []byte) {
	opts := core.ReadOptions{Format: format, MaxMemory: fuzzMemory}
	g, err := core.ParseGraph(bytes.NewReader(data), "fuzz", opts)
	if err != nil || g.Directed {
		return // the readers' own fuzz targets check their errors
	}
	need := ComplementBytes(g)
	if err := opts.CheckMemory("fuzz: the complement", need); err != nil {
		if need <= fuzzMemory || !strings.Contains(err.Error(), "would take") || !strings.Contains(err.Error(), "more than the memory limit") {
			t.Fatalf("n=%d, need %.0f bytes: refused with %v", g.N, need, err)
		}
		return
	}
	if need > fuzzMemory {
		t.Fatalf("n=%d: a complement of %.0f bytes was not refused", g.N, need)
	}
	c := Complement(g)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	loops := 0
	for v := 0; v < g.N; v++ {
		if g.HasEdge(v, v) {
			loops++
		}
	}
	if want := g.N*(g.N-1) - (len(g.Adj) - loops); len(c.Adj) != want {
		t.Fatalf("n=%d: the complement has %d arcs, want %d", g.N, len(c.Adj), want)
	}
	if g.N > 48 {
		return
	}
	for u := 0; u < g.N; u++ {
		for v := 0; v < g.N; v++ {
			if u != v && c.HasEdge(u, v) == g.HasEdge(u, v) {
				t.Fatalf("%d-%d: in the graph %v, in the complement %v", u, v, g.HasEdge(u, v), c.HasEdge(u, v))
			}
		}
	}
	if g.N > 24 {
		return
	}
	res, err := Solve(context.Background(), c, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(c, toInts(res.Cover)); err != nil {
		t.Fatalf("the cover of the complement: %v", err)
	}
}

func toInts[T ~int | ~int32](xs []T) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}

func addComplementSeeds(f *testing.F, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
}

func FuzzComplementDIMACS(f *testing.F) {
	addComplementSeeds(f, "p edge 100000 1\ne 1 2\n", "p edge 5 4\ne 1 2\ne 2 3\ne 3 4\ne 4 5\n", "p edge 3 1\ne 2 2\n", "p edge 4000 0\n")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzComplement(t, core.FormatDIMACS, data) })
}

func FuzzComplementPACE(f *testing.F) {
	addComplementSeeds(f, "p td 100000 1\n1 2\n", "p td 4 2\n1 2\n3 4\n", "p td 5000 0\n")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzComplement(t, core.FormatPACE, data) })
}

func FuzzComplementEdgeList(f *testing.F) {
	addComplementSeeds(f, "100000 1\n0 1\n", "4 2\n0 1\n2 3\n", "3 2\n1 2\n2 3\n")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzComplement(t, core.FormatEdgeList, data) })
}

func FuzzComplementMTX(f *testing.F) {
	addComplementSeeds(f, "%%MatrixMarket matrix coordinate pattern symmetric\n100000 100000 1\n2 1\n",
		"%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 1.5\n3 2 -2\n3 3 9\n",
		"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 1\n3 1\n")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzComplement(t, core.FormatMTX, data) })
}

func FuzzComplementLAD(f *testing.F) {
	addComplementSeeds(f, "3\n2 1 2\n1 0\n0\n", "2\n2 0 1 0\n", "100000\n1 1\n1 0\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzComplement(t, core.FormatLAD, data)
		fuzzComplement(t, core.FormatVertexLabelledLAD, data)
		fuzzComplement(t, core.FormatLabelledLAD, data)
	})
}

func FuzzComplementMIVIA(f *testing.F) {
	words := func(ws ...uint16) []byte {
		b := make([]byte, 2*len(ws))
		for i, w := range ws {
			binary.LittleEndian.PutUint16(b[2*i:], w)
		}
		return b
	}
	f.Add(words(3, 10, 11, 12, 1, 1, 5, 1, 0, 6, 1, 2, 9))
	f.Add(words(65535))
	f.Add(words(2, 0, 0, 1, 1, 7, 1, 0, 8))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzComplement(t, core.FormatMIVIA, data) })
}
