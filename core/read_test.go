package core

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// edgeSet lists g's edges as "u-v" (u ≤ v unless directed), in file numbering.
func edgeSet(g *Graph) []string {
	var out []string
	_ = edgesOnce(g, func(u, v, i int) error {
		s := itoa(u+g.Base) + "-" + itoa(v+g.Base)
		if g.Weights != nil {
			s += ":" + strings.TrimRight(strings.TrimRight(strconvF(g.Weights[i]), "0"), ".")
		}
		if g.EdgeLabels != nil {
			s += "/" + itoa(int(g.EdgeLabels[i]))
		}
		out = append(out, s)
		return nil
	})
	return out
}

func parse(t *testing.T, name, data string, o ReadOptions) *Graph {
	t.Helper()
	g, err := ParseGraph(strings.NewReader(data), name, o)
	if err != nil {
		t.Fatal(err)
	}
	checkCSR(t, g)
	return g
}

func TestReadSmallFiles(t *testing.T) {
	cases := []struct {
		name, data string
		opts       ReadOptions
		format     string
		n          int
		edges      []string
		notes      int
	}{
		{"k3.clq", "c triangle\np edge 3 3\ne 1 2\ne 2 3\ne 3 1\n", ReadOptions{}, "dimacs", 3, []string{"1-2", "1-3", "2-3"}, 0},
		{"rep.col", "p col 3 3\ne 1 2\ne 2 1\ne 2 3\n", ReadOptions{}, "dimacs", 3, []string{"1-2", "2-3"}, 1},
		{"p.gr", "c x\np td 4 2\n1 2\r\n\n3 4\n", ReadOptions{}, "pace", 4, []string{"1-2", "3-4"}, 0},
		{"e.txt", "4 2\n0 1\n2 3\n", ReadOptions{}, "edgelist", 4, []string{"0-1", "2-3"}, 0},
		{"e1.txt", "# c\n4 2\n1 2\n3 4\n", ReadOptions{}, "edgelist", 4, []string{"1-2", "3-4"}, 0},
		{"spare.txt", "4 2\n1 2\n2 3\n", ReadOptions{}, "edgelist", 4, []string{"1-2", "2-3"}, 1},
		{"spare1.txt", "4 2\n1 2\n2 3\n", ReadOptions{Format: "edgelist1"}, "edgelist", 4, []string{"1-2", "2-3"}, 0},
		{"s.mtx", "%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 3\n2 1 1.5\n3 2 -2\n3 3 9\n", ReadOptions{}, "mtx", 3, []string{"1-2:1.5", "2-3:-2"}, 1},
		{"g.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 4\n2 1 7\n3 1 2\n", ReadOptions{}, "mtx", 3, []string{"1-2:4", "1-3:2"}, 0},
		{"gd.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 4\n2 1 7\n3 1 2\n", ReadOptions{Directed: true}, "mtx", 3, []string{"1-2:4", "2-1:7", "3-1:2"}, 0},
		{"p.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n", ReadOptions{}, "mtx", 2, []string{"1-2:1"}, 0},
		{"g.lad", "3\n2 1 2\n1 0\n0\n", ReadOptions{}, "lad", 3, []string{"0-1", "0-2"}, 0},
		{"gd.lad", "3\n2 1 2\n1 0\n0\n", ReadOptions{Directed: true}, "lad", 3, []string{"0-1", "0-2", "1-0"}, 0},
		{"loop.lad", "2\n2 0 1 0\n", ReadOptions{}, "lad", 2, []string{"0-0", "0-1"}, 1},
		{"l.lad", "2\n7 1 1 3\n8 0\n", ReadOptions{Format: "labelledlad", Directed: true}, "labelledlad", 2, []string{"0-1/3"}, 0},
		{"arg", words(3, 10, 11, 12, 1, 1, 5, 1, 0, 6, 1, 2, 9), ReadOptions{}, "mivia", 3, []string{"0-1/6", "2-2/9"}, 1},
		{"argd", words(3, 10, 11, 12, 1, 1, 5, 1, 0, 6, 1, 2, 9), ReadOptions{Format: "mivia", Directed: true}, "mivia", 3, []string{"0-1/5", "1-0/6", "2-2/9"}, 1},
		{"empty.gr", "p td 5 0\n", ReadOptions{}, "pace", 5, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := parse(t, c.name, c.data, c.opts)
			if g.Format != c.format || g.N != c.n || !slices.Equal(edgeSet(g), c.edges) || len(g.Notes) != c.notes {
				t.Fatalf("got %s n=%d edges %q notes %q; want %s n=%d edges %q and %d note(s)",
					g.Format, g.N, edgeSet(g), g.Notes, c.format, c.n, c.edges, c.notes)
			}
			if g.Directed != c.opts.Directed {
				t.Fatalf("directed %v", g.Directed)
			}
		})
	}
	// Labels are kept.
	g := parse(t, "arg", words(3, 10, 11, 12, 1, 1, 5, 1, 0, 6, 1, 1, 9), ReadOptions{})
	if !slices.Equal(g.VertexLabels, []int32{10, 11, 12}) {
		t.Fatalf("MIVIA vertex labels %v", g.VertexLabels)
	}
	d := parse(t, "l.clq", "p edge 3 0\nn 2 -4\n", ReadOptions{})
	if !slices.Equal(d.VertexLabels, []int32{0, -4, 0}) {
		t.Fatalf("DIMACS labels %v", d.VertexLabels)
	}
	if p := parse(t, "rep.col", "p col 3 3\ne 1 2\ne 2 1\ne 2 3\n", ReadOptions{}); p.Repeated != 1 || p.Edges() != 2 {
		t.Fatalf("Repeated=%d Edges=%d", p.Repeated, p.Edges())
	}
}

func TestDetectFormat(t *testing.T) {
	for _, c := range []struct{ name, head, want string }{
		{"a.mtx", "%%MatrixMarket matrix coordinate real general\n", "mtx"},
		{"noext", "%%matrixmarket matrix coordinate real general\n", "mtx"},
		{"x.txt", "c comment\np td 3 1\n", "pace"},
		{"x.gr", "p edge 3 1\n", "dimacs"}, // content beats the extension
		{"x", "c\ne 1 2\n", "dimacs"},
		{"x.gr", "", "pace"},
		{"x.mis", "", "dimacs"},
		{"g.lad", "3\n", "lad"},
		{"g", "3\n1 1\n", "lad"},
		{"g", "3 1\n1 2\n", "edgelist"},
		{"g.dat", "4 2 7\n", ""},
		{"mcs10_b03_s40.A00", "((", "mivia"},
		{"g", "\x28\x00\x05", "mivia"},
		{"g", "hello", ""},
	} {
		if got := DetectFormat(c.name, []byte(c.head)); got != c.want {
			t.Errorf("DetectFormat(%q, %q) = %q, want %q", c.name, c.head, got, c.want)
		}
	}
}

// Writing and reading back gives the same graph, for every writer.
func TestWriteRoundTrip(t *testing.T) {
	base := RandomIntWeights(GNP(60, 0.1, 3), 1, 100, 4)
	base.VertexLabels = make([]int32, base.N)
	base.EdgeLabels = make([]int32, len(base.Adj))
	for v := range base.VertexLabels {
		base.VertexLabels[v] = int32(v % 7)
	}
	for u := 0; u < base.N; u++ {
		for i := base.Offsets[u]; i < base.Offsets[u+1]; i++ {
			base.EdgeLabels[i] = int32(u + int(base.Adj[i])) // symmetric
		}
	}
	real := RandomRealWeights(GNP(40, 0.2, 9), -5, 5, 1)
	directed := parse(t, "gd.lad", "3\n2 1 2\n1 0\n0\n", ReadOptions{Directed: true})
	for _, c := range []struct {
		format string
		g      *Graph
		opts   ReadOptions
		check  func(a, b *Graph) bool
	}{
		{"edgelist", base, ReadOptions{Format: "edgelist0"}, sameStructure},
		{"edgelist1", base, ReadOptions{}, sameStructure},
		{"dimacs", base, ReadOptions{}, func(a, b *Graph) bool { return sameStructure(a, b) && slices.Equal(a.VertexLabels, b.VertexLabels) }},
		{"pace", base, ReadOptions{}, sameStructure},
		{"mtx", base, ReadOptions{}, func(a, b *Graph) bool { return sameGraph(a, b) && b.IntWeights }},
		{"mtx", real, ReadOptions{}, func(a, b *Graph) bool { return sameGraph(a, b) && !b.IntWeights }},
		{"mtx", directed, ReadOptions{Directed: true}, func(a, b *Graph) bool { return b.Directed && sameStructure(a, b) }},
		{"lad", base, ReadOptions{}, sameStructure},
		{"lad", directed, ReadOptions{Directed: true}, sameStructure},
		{"vertexlabelledlad", base, ReadOptions{Format: "vertexlabelledlad"}, func(a, b *Graph) bool { return sameStructure(a, b) && slices.Equal(a.VertexLabels, b.VertexLabels) }},
		{"labelledlad", base, ReadOptions{Format: "labelledlad"}, func(a, b *Graph) bool {
			return sameStructure(a, b) && slices.Equal(a.VertexLabels, b.VertexLabels) && slices.Equal(a.EdgeLabels, b.EdgeLabels)
		}},
		{"mivia", base, ReadOptions{Format: "mivia"}, func(a, b *Graph) bool {
			return sameStructure(a, b) && slices.Equal(a.VertexLabels, b.VertexLabels) && slices.Equal(a.EdgeLabels, b.EdgeLabels)
		}},
		{"mivia", directed, ReadOptions{Format: "mivia", Directed: true}, sameStructure},
	} {
		var buf bytes.Buffer
		if err := WriteGraph(&buf, c.g, c.format); err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		g, err := ParseGraph(&buf, "rt."+c.format, c.opts)
		if err != nil {
			t.Fatalf("%s: reading back: %v", c.format, err)
		}
		if !c.check(c.g, g) {
			t.Fatalf("%s: round trip changed the graph: %d/%d vertices, %d/%d arcs", c.format, c.g.N, g.N, c.g.Arcs(), g.Arcs())
		}
	}
	// Formats without self-loops refuse a graph that has them.
	loop := parse(t, "loop.lad", "2\n2 0 1 0\n", ReadOptions{})
	if err := WriteGraph(&bytes.Buffer{}, loop, "dimacs"); err == nil || !strings.Contains(err.Error(), "self-loop") {
		t.Fatalf("DIMACS writer accepted a self-loop: %v", err)
	}
}

func sameStructure(a, b *Graph) bool {
	return a.N == b.N && a.Directed == b.Directed && slices.Equal(a.Offsets, b.Offsets) && slices.Equal(a.Adj, b.Adj)
}

func TestReadDirectedOptionIgnoredForUndirectedFormats(t *testing.T) {
	g := parse(t, "k.gr", "p td 3 1\n1 2\n", ReadOptions{Directed: true})
	if g.Directed || !g.HasEdge(1, 0) {
		t.Fatal("PACE edges must stay undirected")
	}
}

func TestMaxVertices(t *testing.T) {
	if _, err := ParseGraph(strings.NewReader("p td 100 0\n"), "x.gr", ReadOptions{MaxVertices: 99}); err == nil {
		t.Fatal("MaxVertices ignored")
	}
	if g := parse(t, "x.gr", "p td 100 0\n", ReadOptions{MaxVertices: 100}); g.N != 100 {
		t.Fatal("MaxVertices off by one")
	}
}

// TestReadGzip: a gzip-compressed file reads as the file itself, its format
// detected from the content or the name without .gz; a broken one is an
// error naming it.
func TestReadGzip(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"g.mtx":  "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 0.5\n3 2 1.5\n",
		"g.clq":  "p edge 3 2\ne 1 2\ne 2 3\n",
		"g.txt":  "3 2\n0 1\n1 2\n",
		"g.lad":  "3\n1 1\n2 0 2\n1 1\n",
		"g.mivi": "", // written below: MIVIA binary, detected from the content
	}
	mivia := []byte{3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0} // N=3, labels, 0→1, no other arcs
	for name, text := range files {
		plain := filepath.Join(dir, name)
		data := []byte(text)
		if text == "" {
			data = mivia
		}
		if err := os.WriteFile(plain, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		zw.Write(data)
		zw.Close()
		gz := plain + ".gz"
		if err := os.WriteFile(gz, zb.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := ReadGraph(plain, ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := ReadGraph(gz, ReadOptions{})
		if err != nil {
			t.Fatalf("%s.gz: %v", name, err)
		}
		if got.Format != want.Format || !slices.Equal(got.Offsets, want.Offsets) || !slices.Equal(got.Adj, want.Adj) ||
			!slices.Equal(got.Weights, want.Weights) {
			t.Errorf("%s.gz reads as %s %v, the plain file as %s %v", name, got.Format, got.Adj, want.Format, want.Adj)
		}
	}
	broken := filepath.Join(dir, "broken.mtx.gz")
	os.WriteFile(broken, []byte{0x1f, 0x8b, 8, 0, 1, 2}, 0o644)
	if _, err := ReadGraph(broken, ReadOptions{}); err == nil || !strings.Contains(err.Error(), broken) {
		t.Errorf("broken gzip: error %v, want one naming %s", err, broken)
	}
}
