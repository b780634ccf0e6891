package core

import "fmt"

// readEdgeList reads a plain edge list: a header line "N M", then M lines
// "U V". Lines starting with '#' or '%' are comments. base is 0 or 1 when
// forced, -1 to detect:
//
//   - a vertex 0 appears: 0-based, vertices 0..N-1;
//   - otherwise, if some vertex is N: 1-based, vertices 1..N;
//   - otherwise (no 0 and nothing above N-1) the numbering is ambiguous and
//     is read as 0-based, keeping the file's numbers and N as the header
//     says; vertex 0 is then isolated and Graph.Notes says so. This is the
//     "1-based with a spare vertex 0" layout of the Yamout et al. files:
//     their header N counts the spare vertex.
//
// Self-loops are errors; a repeated edge is merged and counted in
// Graph.Repeated (M counts records, as in PACE files).
func readEdgeList(t *textReader, base int, limit int, par parallelism) (*Graph, error) {
	var n, m int64 = -1, 0
	for n < 0 {
		l, ok := t.next()
		if !ok {
			return nil, t.errEOF("no header line 'N M'")
		}
		if c := firstNonSpace(l); c == 0 || c == '#' || c == '%' {
			continue
		}
		var rest []byte
		var err error
		if n, rest, err = t.countField(l, "vertex count N in the header 'N M'", int64(limit)); err != nil {
			return nil, err
		}
		if m, rest, err = t.countField(rest, "edge count M in the header 'N M'", maxInt); err != nil {
			return nil, err
		}
		if err := t.endOfLine(rest, "the header 'N M'"); err != nil {
			return nil, err
		}
	}
	lo, hi := int64(0), n // range allowed while reading
	switch base {
	case 0:
		hi = n - 1
	case 1:
		lo = 1
	}
	parse := func(c *textReader, room int64) edgeListBody { return parseEdgeListBody(c, lo, hi, n, room, m) }
	body := parseChunks(t, par, func(c *textReader) edgeListBody { return parse(c, m) })
	// As readMTX: the first piece with an error or too many edges is read
	// again with the room the header leaves it, for the file's first error.
	edges := int64(0)
	minV, maxV := int64(maxInt), int64(-1)
	line0, lineN := 0, 0 // first lines with vertex 0 and with vertex N
	line := t.line
	for i := range body {
		b := &body[i]
		if b.err != nil || edges+b.edges() > m {
			*b = parse(&textReader{name: t.name, format: t.format, data: b.data}, m-edges)
			if b.err != nil {
				return nil, shiftLine(b.err, line)
			}
		}
		if b.line0 > 0 && line0 == 0 {
			line0 = line + b.line0
		}
		if b.lineN > 0 && lineN == 0 {
			lineN = line + b.lineN
		}
		minV, maxV = min(minV, b.minV), max(maxV, b.maxV)
		edges += b.edges()
		line += b.lines
	}
	t.pos, t.line = len(t.data), line
	if edges != m {
		return nil, t.errEOF("the header announced %d edges, the file has %d", m, edges)
	}
	var notes []string
	if base < 0 {
		switch {
		case minV == 0 && maxV == n:
			at := max(line0, lineN)
			return nil, t.errAt(at, "vertices 0 (line %d) and %d (line %d) both occur, but the header says N=%d: expected 0..%d or 1..%d", line0, n, lineN, n, n-1, n)
		case m == 0 || minV == 0:
			base = 0
		case maxV == n:
			base = 1
		default:
			base = 0
			notes = append(notes, fmt.Sprintf("vertex 0 has no edges: the file looks 1-based with a spare vertex 0; kept as numbered, N=%d as the header says", n))
		}
	}
	src := make([][]int32, len(body))
	dst := make([][]int32, len(body))
	for i, b := range body {
		src[i], dst[i] = b.src, b.dst
	}
	if base == 1 {
		parallelFor(par.workers, len(body), func(i int) {
			for j := range src[i] {
				src[i][j]--
				dst[i][j]--
			}
		})
	}
	g, dup := buildCSRChunks(int(n), src, dst, nil, nil, csrOptions{}, par)
	g.Base = base
	g.Notes = notes
	noteRepeats(g, dup, base)
	return g, nil
}

// edgeListBody is what parsing a piece of an edge list's body found.
type edgeListBody struct {
	data         []byte  // the piece
	src, dst     []int32 // edges as numbered in the file, in file order
	minV, maxV   int64   // smallest and largest vertex (maxInt, -1 if none)
	line0, lineN int     // first lines of the piece with vertex 0, vertex N
	lines        int     // lines read
	err          error   // the first error, at a line of the piece
}

func (b *edgeListBody) edges() int64 { return int64(len(b.src)) }

// parseEdgeListBody reads the edge lines of c until its end or the first
// error: vertices in [lo, hi], no self-loops, and room edges at most (one
// more is "more edges than the m the header announced"). n is the header's
// N, whose first occurrence is noted for the numbering detection.
func parseEdgeListBody(c *textReader, lo, hi, n, room, m int64) (b edgeListBody) {
	b.data = c.data
	size := lineCap(c.data, room)
	b.src, b.dst = make([]int32, 0, size), make([]int32, 0, size)
	b.minV, b.maxV = maxInt, -1
	defer func() { b.lines = c.line }()
	add := func(u, v int64) error {
		if u < lo || u > hi {
			return c.rangeErr(u, lo, hi)
		}
		if v < lo || v > hi {
			return c.rangeErr(v, lo, hi)
		}
		if u == v {
			return c.errf("self-loop on vertex %d; expected a simple graph", u)
		}
		if b.edges() >= room {
			return c.errf("more edges than the %d the header announced", m)
		}
		if (u == 0 || v == 0) && b.line0 == 0 {
			b.line0 = c.line
		}
		if (u == n || v == n) && b.lineN == 0 {
			b.lineN = c.line
		}
		b.minV = min(b.minV, u, v)
		b.maxV = max(b.maxV, u, v)
		b.src = append(b.src, int32(u))
		b.dst = append(b.dst, int32(v))
		return nil
	}
	for {
		l, ok, err := c.nextCareful(true, 0, add)
		if b.err = err; err != nil || !ok {
			return b
		}
		if ch := firstNonSpace(l); ch == 0 || ch == '#' || ch == '%' {
			continue
		}
		u, v, err := c.edgeLine(l, lo, hi, "'U V'")
		if err == nil {
			err = add(u, v)
		}
		if b.err = err; err != nil {
			return b
		}
	}
}

func firstNonSpace(l []byte) byte {
	for _, c := range l {
		if !isSpace(c) {
			return c
		}
	}
	return 0
}
