package core

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// readMTX reads a Matrix Market coordinate file as a graph: entry (i,j)
// is arc i→j (1-based). Fields pattern, integer and real give Weights
// (pattern: all 1; IntWeights is set for pattern and integer); symmetry
// symmetric gives an undirected graph, general a directed one when
// directed is set and otherwise its symmetrisation, where an edge given in
// both directions keeps the weight of entry (i,j) with i < j.
//
// Diagonal entries (self-loops) are dropped and counted in Graph.Notes: no
// Arbor algorithm gives them a meaning. An entry repeated (for symmetric
// files, also as its mirror image) is an error.
func readMTX(t *textReader, directed bool, limit int, par parallelism) (*Graph, error) {
	l, _ := t.next()
	tok, rest := field(l)
	if !strings.EqualFold(string(tok), "%%MatrixMarket") {
		return nil, t.errf("expected the banner '%%%%MatrixMarket matrix coordinate FIELD SYMMETRY', found %s", quote(tok))
	}
	var words [4]string
	for i := range words {
		var w []byte
		w, rest = field(rest)
		words[i] = strings.ToLower(string(w))
	}
	if words[0] != "matrix" {
		return nil, t.errf("banner names object %q; expected 'matrix'", words[0])
	}
	if words[1] != "coordinate" {
		return nil, t.errf("banner names %q storage; expected 'coordinate' (a dense array is not a graph)", words[1])
	}
	fieldKind := words[2]
	switch fieldKind {
	case "pattern", "integer", "real", "double":
	default:
		return nil, t.errf("banner names field %q; expected pattern, integer or real", fieldKind)
	}
	symmetric := false
	switch words[3] {
	case "general":
	case "symmetric":
		symmetric = true
	default:
		return nil, t.errf("banner names symmetry %q; expected general or symmetric", words[3])
	}
	if err := t.endOfLine(rest, "the banner"); err != nil {
		return nil, err
	}
	// Size line, after comments.
	var rows, cols, nnz int64
	for {
		l, ok := t.next()
		if !ok {
			return nil, t.errEOF("no size line 'ROWS COLS ENTRIES'")
		}
		if c := firstNonSpace(l); c == 0 || c == '%' {
			continue
		}
		var err error
		var r2 []byte
		if rows, r2, err = t.countField(l, "row count", int64(limit)); err != nil {
			return nil, err
		}
		if cols, r2, err = t.countField(r2, "column count", int64(limit)); err != nil {
			return nil, err
		}
		if nnz, r2, err = t.countField(r2, "entry count", maxInt); err != nil {
			return nil, err
		}
		if err := t.endOfLine(r2, "'ROWS COLS ENTRIES'"); err != nil {
			return nil, err
		}
		if rows != cols {
			return nil, t.errf("matrix is %d×%d; a graph needs a square matrix", rows, cols)
		}
		break
	}
	sizeLine := t.line
	n := rows
	parse := func(c *textReader, room int64) mtxBody { return parseMTXBody(c, fieldKind, n, room, nnz) }
	body := parseChunks(t, par, func(c *textReader) mtxBody { return parse(c, nnz) })
	// Walk the pieces in file order: the first with an error, or with more
	// entries than are left of the announced nnz, holds the first error of
	// the file. That piece is parsed again knowing how many entries are
	// left, so that the error is the one the file gives read in order.
	entries, diag, edges, line := int64(0), 0, 0, sizeLine
	for i := range body {
		b := &body[i]
		if b.err != nil || entries+b.entries > nnz {
			*b = parse(&textReader{name: t.name, format: t.format, data: b.data}, nnz-entries)
			if b.err != nil {
				return nil, shiftLine(b.err, line)
			}
		}
		entries += b.entries
		diag += b.diag
		edges += len(b.src)
		line += b.lines
	}
	t.pos, t.line = len(t.data), line
	if entries != nnz {
		return nil, t.errEOF("the size line announced %d entries, the file has %d", nnz, entries)
	}
	src := make([][]int32, len(body))
	dst := make([][]int32, len(body))
	for i, b := range body {
		src[i], dst[i] = b.src, b.dst
	}
	var w []float64
	if fieldKind != "pattern" {
		// One array of values in input order, as buildCSRChunks indexes
		// them; each piece copies its own part.
		w = make([]float64, edges)
		at := make([]int, len(body)+1)
		for i, b := range body {
			at[i+1] = at[i] + len(b.w)
		}
		parallelFor(par.workers, len(body), func(i int) {
			copy(w[at[i]:], body[i].w)
			body[i].w = nil
		})
	}
	entryLine := func(r *textReader, l []byte) (int64, int64, bool) {
		if r.line <= sizeLine {
			return 0, 0, false
		}
		a, b, _, ok := twoUints(l)
		return a, b, ok
	}
	// A repeated entry is found on the file as written: directed for
	// general files, undirected for symmetric ones.
	asDirected := !symmetric
	// Pattern values are all 1: the graph is built without a payload (no
	// per-arc input index to sort and gather) and given its weights after.
	g, dup := buildCSRChunks(int(n), src, dst, w, nil, csrOptions{directed: asDirected}, par)
	if dup.count > 0 {
		first, second := duplicateLines(t, entryLine, dup.u+1, dup.v+1, asDirected)
		what := fmt.Sprintf("entry (%d,%d)", dup.u+1, dup.v+1)
		if symmetric {
			what = fmt.Sprintf("entry for {%d,%d}", dup.u+1, dup.v+1)
		}
		return nil, t.errAt(second, "%s repeats the one on line %d", what, first)
	}
	if fieldKind == "pattern" {
		g.Weights = ones(len(g.Adj), par.workers)
	}
	if asDirected && !directed {
		g = symmetrise(g)
	}
	g.IntWeights = fieldKind != "real" && fieldKind != "double"
	g.Base = 1
	if diag > 0 {
		g.Notes = append(g.Notes, fmt.Sprintf("%d diagonal entries (self-loops) dropped", diag))
	}
	return g, nil
}

// symmetrise turns a directed graph into the undirected graph with an edge
// {u,v} wherever u→v or v→u exists. An edge present both ways keeps the
// payload of arc u→v with u < v.
func symmetrise(d *Graph) *Graph {
	type arc = int // index into d.Adj
	var idx []uint32
	payload := d.Weights != nil || d.EdgeLabels != nil
	stream := func(yield func(u, v int32)) {
		// Arcs with u<v first, in order, then those with u>v: so the
		// first occurrence of {u,v} is u→v with u<v when it exists.
		for pass := 0; pass < 2; pass++ {
			for u := 0; u < d.N; u++ {
				for i := d.Offsets[u]; i < d.Offsets[u+1]; i++ {
					v := d.Adj[i]
					if (pass == 0) == (int32(u) < v) {
						yield(int32(u), v)
					}
				}
			}
		}
	}
	var w []float64
	var lab []int32
	if payload {
		idx = make([]uint32, 0, len(d.Adj))
		stream(func(u, v int32) { idx = append(idx, uint32(d.ArcIndex(int(u), int(v)))) })
		if d.Weights != nil {
			w = make([]float64, len(idx))
			for k, i := range idx {
				w[k] = d.Weights[arc(i)]
			}
		}
		if d.EdgeLabels != nil {
			lab = make([]int32, len(idx))
			for k, i := range idx {
				lab[k] = d.EdgeLabels[arc(i)]
			}
		}
	}
	g, _ := buildCSR(d.N, stream, w, lab, csrOptions{})
	g.VertexLabels = d.VertexLabels
	g.IntWeights = d.IntWeights
	g.Name, g.Format, g.Base, g.Notes = d.Name, d.Format, d.Base, d.Notes
	return g
}

// mtxBody is what parsing a piece of a Matrix Market body found.
type mtxBody struct {
	data     []byte    // the piece
	src, dst []int32   // 0-based entries off the diagonal, in file order
	w        []float64 // their values (nil for pattern)
	entries  int64     // entries read, diagonal ones included
	diag     int       // diagonal entries read
	lines    int       // lines read
	err      error     // the first error, at a line of the piece
}

// parseMTXBody reads the entry lines of c until its end or the first error.
// room is how many entries the size line leaves for this piece: one more
// is "more entries than the nnz the size line announced".
func parseMTXBody(c *textReader, fieldKind string, n, room, nnz int64) (b mtxBody) {
	b.data = c.data
	size := lineCap(c.data, room)
	b.src, b.dst = make([]int32, 0, size), make([]int32, 0, size)
	if fieldKind != "pattern" {
		b.w = make([]float64, 0, size)
	}
	defer func() { b.lines = c.line }()
	for {
		l, ok := c.next()
		if !ok {
			return b
		}
		u, v, rest, ok := twoUints(l)
		if !ok || u < 1 || u > n || v < 1 || v > n {
			if ch := firstNonSpace(l); ch == 0 || ch == '%' {
				continue
			}
			if u, rest, b.err = c.vertexField(l, 1, n); b.err != nil {
				return b
			}
			if v, rest, b.err = c.vertexField(rest, 1, n); b.err != nil {
				return b
			}
		}
		if b.entries >= room {
			b.err = c.errf("more entries than the %d the size line announced", nnz)
			return b
		}
		b.entries++
		var x float64
		switch fieldKind {
		case "pattern":
		case "integer":
			var i int64
			if i, rest, b.err = c.intField(rest, "an integer value"); b.err != nil {
				return b
			}
			x = float64(i)
		default:
			tok, r2 := field(rest)
			if len(tok) == 0 {
				b.err = c.errf("expected a real value, found end of line")
				return b
			}
			f, err := strconv.ParseFloat(string(tok), 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				b.err = c.errf("expected a finite real value, found %s", quote(tok))
				return b
			}
			x, rest = f, r2
		}
		if b.err = c.endOfLine(rest, "the entry"); b.err != nil {
			return b
		}
		if u == v {
			b.diag++
			continue
		}
		b.src = append(b.src, int32(u-1))
		b.dst = append(b.dst, int32(v-1))
		if b.w != nil {
			b.w = append(b.w, x)
		}
	}
}

// ones is a slice of n 1s, filled by workers goroutines.
func ones(n, workers int) []float64 {
	w := make([]float64, n)
	const span = 1 << 16
	parallelFor(workers, (n+span-1)/span, func(s int) {
		for i := s * span; i < min((s+1)*span, n); i++ {
			w[i] = 1
		}
	})
	return w
}
