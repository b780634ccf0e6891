package core

import (
	"fmt"
	"math"
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
	fieldKind, symmetric, err := readMTXBanner(t)
	if err != nil {
		return nil, err
	}
	n, nnz, err := readMTXSize(t, limit)
	if err != nil {
		return nil, err
	}
	sizeLine := t.line
	parse := func(c *textReader, room int64) mtxBody { return parseMTXBody(c, fieldKind, n, room, nnz) }
	body := parseChunks(t, par, func(c *textReader) mtxBody { return parse(c, nnz) })
	// Walk the pieces in file order: the first with an error, or with more
	// entries than are left of the announced nnz, holds the first error of
	// the file. That piece is parsed again knowing how many entries are
	// left, so that the error is the one the file gives read in order.
	entries, diag, line := int64(0), 0, sizeLine
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
	var w [][]float64
	if fieldKind != "pattern" {
		w = make([][]float64, len(body))
		for i, b := range body {
			w[i] = b.w
		}
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
	if asDirected && !directed {
		g = symmetrise(g, par)
	}
	if fieldKind == "pattern" {
		g.Weights = ones(len(g.Adj), par.workers)
		g.PatternWeights = true
	}
	g.IntWeights = fieldKind != "real" && fieldKind != "double"
	g.Base = 1
	if diag > 0 {
		g.Notes = append(g.Notes, fmt.Sprintf("%d diagonal entries (self-loops) dropped", diag))
	}
	return g, nil
}

// readMTXBanner reads the banner line '%%MatrixMarket matrix coordinate
// FIELD SYMMETRY': the field (pattern, integer, real or double) and
// whether the matrix is symmetric.
func readMTXBanner(t *textReader) (fieldKind string, symmetric bool, err error) {
	l, _ := t.next()
	tok, rest := field(l)
	if !strings.EqualFold(string(tok), "%%MatrixMarket") {
		return "", false, t.errf("expected the banner '%%%%MatrixMarket matrix coordinate FIELD SYMMETRY', found %s", quote(tok))
	}
	var words [4]string
	for i := range words {
		var w []byte
		w, rest = field(rest)
		words[i] = strings.ToLower(string(w))
	}
	if words[0] != "matrix" {
		return "", false, t.errf("banner names object %q; expected 'matrix'", words[0])
	}
	if words[1] != "coordinate" {
		return "", false, t.errf("banner names %q storage; expected 'coordinate' (a dense array is not a graph)", words[1])
	}
	fieldKind = words[2]
	switch fieldKind {
	case "pattern", "integer", "real", "double":
	default:
		return "", false, t.errf("banner names field %q; expected pattern, integer or real", fieldKind)
	}
	switch words[3] {
	case "general":
	case "symmetric":
		symmetric = true
	default:
		return "", false, t.errf("banner names symmetry %q; expected general or symmetric", words[3])
	}
	return fieldKind, symmetric, t.endOfLine(rest, "the banner")
}

// readMTXSize reads the size line 'ROWS COLS ENTRIES' after the comments:
// the vertex count (a square matrix's) and the entry count.
func readMTXSize(t *textReader, limit int) (rows, nnz int64, err error) {
	var cols int64
	for {
		l, ok := t.next()
		if !ok {
			return 0, 0, t.errEOF("no size line 'ROWS COLS ENTRIES'")
		}
		if c := firstNonSpace(l); c == 0 || c == '%' {
			continue
		}
		var r2 []byte
		if rows, r2, err = t.countField(l, "row count", int64(limit)); err != nil {
			return 0, 0, err
		}
		if cols, r2, err = t.countField(r2, "column count", int64(limit)); err != nil {
			return 0, 0, err
		}
		if nnz, r2, err = t.countField(r2, "entry count", maxInt); err != nil {
			return 0, 0, err
		}
		if err := t.endOfLine(r2, "'ROWS COLS ENTRIES'"); err != nil {
			return 0, 0, err
		}
		if rows != cols {
			return 0, 0, t.errf("matrix is %d×%d; a graph needs a square matrix", rows, cols)
		}
		return rows, nnz, nil
	}
}

// symmetrise turns a directed graph into the undirected graph with an edge
// {u,v} wherever u→v or v→u exists. An edge present both ways keeps the
// payload of arc u→v with u < v: the arcs with u < v go in first, in CSR
// order, then the others (u ≥ v), so that buildCSR's first-wins rule picks
// it. Both halves are cut by vertex ranges into chunks that par's workers
// fill at once.
func symmetrise(d *Graph, par parallelism) *Graph {
	n := d.N
	// Vertex ranges [cut[r], cut[r+1]) of similar arc counts.
	per := len(d.Adj)/(4*max(par.workers, 1)) + 1
	cut := []int{0}
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && d.Offsets[hi]-d.Offsets[lo] < per {
			hi++
		}
		cut = append(cut, hi)
		lo = hi
	}
	ranges := len(cut) - 1
	low := make([]int, ranges) // arcs u→v with u < v in each range
	parallelFor(par.workers, ranges, func(r int) {
		for u := cut[r]; u < cut[r+1]; u++ {
			for _, v := range d.Adj[d.Offsets[u]:d.Offsets[u+1]] {
				if int32(u) < v {
					low[r]++
				}
			}
		}
	})
	// Chunk r holds range r's arcs with u < v, chunk ranges+r its others.
	src := make([][]int32, 2*ranges)
	dst := make([][]int32, 2*ranges)
	at := make([]int, 2*ranges+1) // input index of each chunk's first arc
	for c := range 2 * ranges {
		var size int
		if c < ranges {
			size = low[c]
		} else {
			r := c - ranges
			size = d.Offsets[cut[r+1]] - d.Offsets[cut[r]] - low[r]
		}
		at[c+1] = at[c] + size
	}
	var w [][]float64
	var lab [][]int32
	if d.Weights != nil {
		w = make([][]float64, 2*ranges)
	}
	if d.EdgeLabels != nil {
		lab = make([][]int32, 2*ranges)
	}
	parallelFor(par.workers, 2*ranges, func(c int) {
		r, pass := c, 0
		if c >= ranges {
			r, pass = c-ranges, 1
		}
		size := at[c+1] - at[c]
		s := make([]int32, 0, size)
		t := make([]int32, 0, size)
		var cw []float64
		var cl []int32
		if w != nil {
			cw = make([]float64, 0, size)
		}
		if lab != nil {
			cl = make([]int32, 0, size)
		}
		for u := cut[r]; u < cut[r+1]; u++ {
			for i := d.Offsets[u]; i < d.Offsets[u+1]; i++ {
				v := d.Adj[i]
				if (pass == 0) != (int32(u) < v) {
					continue
				}
				s, t = append(s, int32(u)), append(t, v)
				if w != nil {
					cw = append(cw, d.Weights[i])
				}
				if lab != nil {
					cl = append(cl, d.EdgeLabels[i])
				}
			}
		}
		src[c], dst[c] = s, t
		if w != nil {
			w[c] = cw
		}
		if lab != nil {
			lab[c] = cl
		}
	})
	g, _ := buildCSRChunks(n, src, dst, w, lab, csrOptions{}, par)
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
			f, err := parseReal(tok)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				b.err = c.errf("expected a finite real value (magnitude at most %g), found %s", math.MaxFloat64, quote(tok))
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
