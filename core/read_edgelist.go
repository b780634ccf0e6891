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
func readEdgeList(t *textReader, base int, limit int) (*Graph, error) {
	var n, m int64 = -1, 0
	var sink *edgeSink
	lo, hi := int64(0), int64(0) // range allowed while reading
	minV, maxV := int64(maxInt), int64(-1)
	line0, lineN := 0, 0 // first lines with vertex 0 and with vertex N
	addEdge := func(u, v int64) error {
		if u < lo || u > hi {
			return t.rangeErr(u, lo, hi)
		}
		if v < lo || v > hi {
			return t.rangeErr(v, lo, hi)
		}
		if u == v {
			return t.errf("self-loop on vertex %d; expected a simple graph", u)
		}
		if int64(len(sink.src)) >= m {
			return t.errf("more edges than the %d the header announced", m)
		}
		if (u == 0 || v == 0) && line0 == 0 {
			line0 = t.line
		}
		if (u == n || v == n) && lineN == 0 {
			lineN = t.line
		}
		minV = min(minV, u, v)
		maxV = max(maxV, u, v)
		sink.add(u, v)
		return nil
	}
	for {
		l, ok, err := t.nextCareful(n >= 0, 0, addEdge)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if c := firstNonSpace(l); c == 0 || c == '#' || c == '%' {
			continue
		}
		if n >= 0 {
			u, v, err := t.edgeLine(l, lo, hi, "'U V'")
			if err != nil {
				return nil, err
			}
			if err := addEdge(u, v); err != nil {
				return nil, err
			}
			continue
		}
		var rest []byte
		if n, rest, err = t.countField(l, "vertex count N in the header 'N M'", int64(limit)); err != nil {
			return nil, err
		}
		if m, rest, err = t.countField(rest, "edge count M in the header 'N M'", maxInt); err != nil {
			return nil, err
		}
		if err := t.endOfLine(rest, "the header 'N M'"); err != nil {
			return nil, err
		}
		sink = newEdgeSink(m, len(t.data))
		switch base {
		case 0:
			lo, hi = 0, n-1
		case 1:
			lo, hi = 1, n
		default:
			lo, hi = 0, n
		}
	}
	if n < 0 {
		return nil, t.errEOF("no header line 'N M'")
	}
	if int64(len(sink.src)) != m {
		return nil, t.errEOF("the header announced %d edges, the file has %d", m, len(sink.src))
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
	if base == 1 {
		for i := range sink.src {
			sink.src[i]--
			sink.dst[i]--
		}
	}
	g, dup := buildCSR(int(n), arrayStream(sink.src, sink.dst), nil, nil, csrOptions{})
	g.Base = base
	g.Notes = notes
	noteRepeats(g, dup, base)
	return g, nil
}

func firstNonSpace(l []byte) byte {
	for _, c := range l {
		if !isSpace(c) {
			return c
		}
	}
	return 0
}
