package core

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The parallel reader must give exactly what the sequential one gives:
// the same Graph, field by field, or the same first error. sequential is
// the reader in one piece on one goroutine; manyChunks makes even a
// 100-byte body take the parallel paths, cut into up to chunks pieces.
var sequential = parallelism{workers: 1, chunks: 1}

func manyChunks(chunks int) parallelism {
	return parallelism{workers: 3, chunks: chunks, minBytes: 0, minEdges: 0}
}

// sameRead parses data both ways and fails unless the results agree.
func sameRead(t *testing.T, data string, opts ReadOptions, chunks int) (*Graph, error) {
	t.Helper()
	g1, err1 := parseBytes([]byte(data), "x", opts, sequential)
	g2, err2 := parseBytes([]byte(data), "x", opts, manyChunks(chunks))
	if fmt.Sprint(err1) != fmt.Sprint(err2) || !reflect.DeepEqual(err1, err2) {
		t.Fatalf("%d chunks: errors differ:\nsequential %v\nparallel   %v\nfile:\n%s", chunks, err1, err2, data)
	}
	if !reflect.DeepEqual(g1, g2) {
		t.Fatalf("%d chunks: graphs differ:\nsequential %+v\nparallel   %+v\nfile:\n%s", chunks, g1, g2, data)
	}
	return g1, err1
}

func TestSplitLines(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		var b []byte
		for range r.IntN(30) {
			b = append(b, "ab\n\r\n \n"[r.IntN(7)])
		}
		k := r.IntN(12)
		pieces := splitLines(b, k)
		if len(pieces) > max(k, 1) {
			t.Fatalf("%q in %d: %d pieces", b, k, len(pieces))
		}
		var joined []byte
		for i, p := range pieces {
			if i < len(pieces)-1 && (len(p) == 0 || p[len(p)-1] != '\n') {
				t.Fatalf("%q in %d: piece %d %q does not end a line", b, k, i, p)
			}
			if len(p) == 0 && len(pieces) > 1 {
				t.Fatalf("%q in %d: empty piece %d", b, k, i)
			}
			joined = append(joined, p...)
		}
		if !bytes.Equal(joined, b) {
			t.Fatalf("%q in %d: pieces join to %q", b, k, joined)
		}
	}
}

// noisyLines writes lines as a file with the things that make cutting it
// awkward: comment and blank lines between them, CRLF endings, trailing
// whitespace, leading blanks, and maybe no newline after the last line.
func noisyLines(r *rand.Rand, head, lines []string, comment string) string {
	var sb strings.Builder
	end := func() {
		if r.IntN(8) == 0 {
			sb.WriteString("\r\n")
		} else {
			sb.WriteString("\n")
		}
	}
	for _, l := range head {
		sb.WriteString(l)
		end()
	}
	for i, l := range lines {
		switch r.IntN(12) {
		case 0:
			sb.WriteString(comment + " a comment 1 2")
			end()
		case 1:
			sb.WriteString([]string{"", "  ", "\t", " \r"}[r.IntN(4)])
			end()
		}
		if r.IntN(10) == 0 {
			l = " \t" + l
		}
		if r.IntN(10) == 0 {
			l = strings.Replace(l, " ", "\t ", 1)
		}
		sb.WriteString(l)
		if r.IntN(10) == 0 {
			sb.WriteString(" \t")
		}
		if i < len(lines)-1 || r.IntN(3) > 0 {
			end()
		}
	}
	return sb.String()
}

// randomMTX makes a Matrix Market file of m distinct entries on n rows,
// some on the diagonal; its head and entry lines are returned apart so
// that tests can break them.
func randomMTX(r *rand.Rand, field string, symmetric bool, n, m int) (head, lines []string) {
	sym := "general"
	if symmetric {
		sym = "symmetric"
	}
	seen := map[[2]int]bool{}
	if symmetric {
		m = min(m, n*(n+1)/2)
	}
	for len(lines) < m {
		i, j := 1+r.IntN(n), 1+r.IntN(n)
		if symmetric && i < j {
			i, j = j, i
		}
		if seen[[2]int{i, j}] {
			continue
		}
		seen[[2]int{i, j}] = true
		l := strconv.Itoa(i) + " " + strconv.Itoa(j)
		switch field {
		case "integer":
			l += " " + strconv.Itoa(r.IntN(200)-100)
		case "real":
			l += " " + []string{"1.5", "-2e-3", "7", "0.1", "3.14159265358979", "1E+2", "-0"}[r.IntN(7)]
		}
		lines = append(lines, l)
	}
	head = []string{"%%MatrixMarket matrix coordinate " + field + " " + sym, "% comment", fmt.Sprintf("%d %d %d", n, n, len(lines))}
	return head, lines
}

// randomEdgeList makes an edge list of m edges on n vertices, numbered from
// base, with some edges repeated.
func randomEdgeList(r *rand.Rand, n, m, base int) (head, lines []string) {
	for len(lines) < m {
		u, v := r.IntN(n), r.IntN(n)
		if u == v {
			continue
		}
		if len(lines) > 0 && r.IntN(20) == 0 {
			lines = append(lines, lines[r.IntN(len(lines))])
			continue
		}
		lines = append(lines, strconv.Itoa(u+base)+" "+strconv.Itoa(v+base))
	}
	return []string{"# edges", fmt.Sprintf("%d %d", n, m)}, lines
}

// randomCase is a random file, the options to read it and a name.
func randomCase(r *rand.Rand) (name string, head, lines []string, comment string, opts ReadOptions) {
	n := 2 + r.IntN(40)
	m := r.IntN(3 * n)
	if r.IntN(3) == 0 {
		field := []string{"pattern", "integer", "real"}[r.IntN(3)]
		symmetric := r.IntN(2) == 0
		head, lines = randomMTX(r, field, symmetric, n, m)
		return "mtx " + field + fmt.Sprint(symmetric), head, lines, "%", ReadOptions{Format: FormatMTX, Directed: r.IntN(2) == 0}
	}
	base := r.IntN(2)
	format := []string{FormatEdgeList, FormatEdgeList0, FormatEdgeList1}[r.IntN(3)]
	if format == FormatEdgeList1 {
		base = 1
	}
	if format == FormatEdgeList0 {
		base = 0
	}
	head, lines = randomEdgeList(r, n, m, base)
	return "edgelist", head, lines, []string{"#", "%"}[r.IntN(2)], ReadOptions{Format: format}
}

// Clean random files read the same in any number of pieces.
func TestParallelReadSameGraph(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 400 {
		name, head, lines, comment, opts := randomCase(r)
		data := noisyLines(r, head, lines, comment)
		chunks := 2 + r.IntN(40)
		if g, err := sameRead(t, data, opts, chunks); err != nil || g == nil {
			t.Fatalf("%s: a clean file gives %v\n%s", name, err, data)
		}
	}
}

// A file broken at a random line gives the same first error in any number
// of pieces; for a bad token the error is at the line broken.
func TestParallelReadSameError(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 600 {
		name, head, lines, comment, opts := randomCase(r)
		if len(lines) < 2 {
			continue
		}
		at := r.IntN(len(lines))
		wantLine := 0 // line of the bad token, when that is the first error
		var bad string
		switch r.IntN(8) {
		case 0:
			bad = "1 x"
		case 1:
			bad = "-1 2"
		case 2:
			bad = "2 99999"
		case 3:
			bad = lines[at] + " 7 8"
		case 4:
			bad = "1"
		case 5: // an extra entry: "more entries" or a repeat
			lines = append(lines[:at+1], lines[at:]...)
		case 6: // one entry less: count mismatch at the end
			lines = append(lines[:at], lines[at+1:]...)
		case 7: // several errors: the first must win
			bad = "x y"
			lines[len(lines)-1] = "1 z"
		}
		if bad != "" {
			lines[at] = bad
		}
		// Mark the broken line to find its number after noise is added.
		const mark = "\x00"
		if bad != "" {
			lines[at] += mark
		}
		data := noisyLines(r, head, lines, comment)
		if i := strings.Index(data, mark); i >= 0 {
			wantLine = strings.Count(data[:i], "\n") + 1
			data = strings.Replace(data, mark, "", 1)
		}
		chunks := 2 + r.IntN(40)
		g, err := sameRead(t, data, opts, chunks)
		if bad == "" {
			continue // may be valid (an edge list merges repeats)
		}
		var fe *FormatError
		if g != nil || err == nil || !errors.As(err, &fe) {
			t.Fatalf("%s: line %d %q: got %v, want an error\n%s", name, at, bad, err, data)
		}
		if fe.Line != wantLine {
			t.Fatalf("%s: error at line %d, not at the bad line %d: %v\n%s", name, fe.Line, wantLine, err, data)
		}
	}
}

// buildCSRChunks gives buildCSR's graph and dupInfo, payload included,
// for any cut into chunks: directed or not, first or last wins, with
// repeated edges and self-loops.
func TestBuildCSRChunksSameGraph(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 300 {
		n := 1 + r.IntN(50)
		m := r.IntN(400)
		src, dst := make([]int32, m), make([]int32, m)
		w := make([]float64, m)
		lab := make([]int32, m)
		for i := range m {
			src[i], dst[i] = int32(r.IntN(n)), int32(r.IntN(n))
			w[i], lab[i] = float64(i), int32(r.IntN(5))
		}
		o := csrOptions{directed: r.IntN(2) == 0, lastWins: r.IntN(2) == 0}
		if r.IntN(3) == 0 {
			w = nil
		}
		if r.IntN(3) == 0 {
			lab = nil
		}
		want, wantDup := buildCSR(n, arrayStream(src, dst), w, lab, o)
		var cs, cd [][]int32
		for lo := 0; lo < m || lo == 0; {
			hi := min(m, lo+r.IntN(60))
			cs, cd = append(cs, src[lo:hi]), append(cd, dst[lo:hi])
			if lo = hi; m == 0 {
				break
			}
		}
		var cw [][]float64
		var cl [][]int32
		at := 0
		for k := range cs {
			if w != nil {
				cw = append(cw, w[at:at+len(cs[k])])
			}
			if lab != nil {
				cl = append(cl, lab[at:at+len(cs[k])])
			}
			at += len(cs[k])
		}
		got, gotDup := buildCSRChunks(n, cs, cd, cw, cl, o, manyChunks(0))
		if !reflect.DeepEqual(want, got) || wantDup != gotDup {
			t.Fatalf("n=%d m=%d %+v:\nbuildCSR       %+v %+v\nbuildCSRChunks %+v %+v", n, m, o, want, wantDup, got, gotDup)
		}
	}
}

// symmetrise keeps every edge once, with the payload of arc u→v, u < v,
// when both arcs exist, whatever the parallelism.
func TestSymmetrise(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 200 {
		n := 1 + r.IntN(30)
		b := NewBuilder(n, true)
		b.HasWeights, b.HasEdgeLabels, b.AllowSelfLoops = true, true, true
		for range r.IntN(4 * n) {
			b.Add(Edge{U: int32(r.IntN(n)), V: int32(r.IntN(n)), Weight: float64(r.IntN(100)), Label: int32(r.IntN(100))})
		}
		d, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		want := NewBuilder(n, false)
		want.HasWeights, want.HasEdgeLabels, want.AllowSelfLoops = true, true, true
		for u := range n {
			for i := d.Offsets[u]; i < d.Offsets[u+1]; i++ {
				v := int(d.Adj[i])
				if u <= v || !d.HasEdge(v, u) { // else {v,u} comes with v's arc
					want.Add(Edge{U: int32(u), V: int32(v), Weight: d.Weights[i], Label: d.EdgeLabels[i]})
				}
			}
		}
		wg, _ := want.Build()
		for _, par := range []parallelism{sequential, manyChunks(0)} {
			g := symmetrise(d, par)
			if !reflect.DeepEqual(g.Offsets, wg.Offsets) || !reflect.DeepEqual(g.Adj, wg.Adj) ||
				!reflect.DeepEqual(g.Weights, wg.Weights) || !reflect.DeepEqual(g.EdgeLabels, wg.EdgeLabels) {
				t.Fatalf("%+v: symmetrise gives\n%+v\nwant\n%+v", par, g, wg)
			}
		}
	}
}

func TestReadFilePieces(t *testing.T) {
	path := t.TempDir() + "/f"
	data := make([]byte, 1000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, piece := range []int64{1, 7, 250, 1000, 4096} {
		got, err := readInput(context.Background(), path, readLimits{maxInput: 1 << 20}, 3, piece)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("piece %d: %v, %d bytes differ", piece, err, len(got))
		}
	}
	if _, err := readInput(context.Background(), path+"x", readLimits{maxInput: 1 << 20}, 3, 1); err == nil || !strings.Contains(err.Error(), path+"x") {
		t.Fatalf("missing file: %v", err)
	}
}
