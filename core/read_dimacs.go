package core

import (
	"fmt"
	"strings"
)

// edgeSink collects the edges a text reader parses, in file order.
type edgeSink struct {
	src, dst []int32
}

func newEdgeSink(m int64, dataLen int) *edgeSink {
	// Preallocate what the header announces, but never more than the file
	// could hold (an edge line has at least 4 bytes): a lying header must
	// not make us allocate.
	c := int(min(m, int64(dataLen/4+1)))
	return &edgeSink{src: make([]int32, 0, c), dst: make([]int32, 0, c)}
}

func (s *edgeSink) add(u, v int64) {
	s.src = append(s.src, int32(u))
	s.dst = append(s.dst, int32(v))
}

// duplicateLines rescans the file for the first two lines holding edge
// {u,v} (or arc u→v when directed); only used to word an error.
func duplicateLines(t *textReader, parse func(r *textReader, l []byte) (u, v int64, ok bool), u, v int32, directed bool) (int, int) {
	r := &textReader{name: t.name, format: t.format, data: t.data}
	var lines []int
	for len(lines) < 2 {
		l, ok := r.next()
		if !ok {
			break
		}
		a, b, ok := parse(r, l)
		if !ok {
			continue
		}
		if (a == int64(u) && b == int64(v)) || (!directed && a == int64(v) && b == int64(u)) {
			lines = append(lines, r.line)
		}
	}
	for len(lines) < 2 {
		lines = append(lines, 0)
	}
	return lines[0], lines[1]
}

// readDIMACS reads the DIMACS graph format of the clique and colouring
// challenges (.clq, .mis, .col): "c" comments, one problem line
// "p edge N M" (or "p col"), then M lines "e U V" with 1-based vertices,
// and optional "n V LABEL" vertex labels (or weights, as integers).
// Self-loops are an error; an edge given twice (in either direction, which
// some .col files do) is merged and counted in Graph.Repeated and Notes.
func readDIMACS(t *textReader, limit int) (*Graph, error) {
	var n, m int64 = -1, 0
	var sink *edgeSink
	var labels []int32
	addEdge := func(u, v int64) error { return addSimpleEdge(t, sink, n, m, u, v, "DIMACS") }
	for {
		l, ok, err := t.nextCareful(n >= 0, 'e', addEdge)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		tok, rest := field(l)
		if len(tok) == 0 {
			continue
		}
		switch string(tok) {
		case "c":
			continue
		case "p":
			if n >= 0 {
				return nil, t.errf("second problem line; expected one 'p edge N M'")
			}
			kind, r2 := field(rest)
			switch strings.ToLower(string(kind)) {
			case "edge", "col", "clq", "edges":
			default:
				return nil, t.errf("problem line names %s; expected 'p edge N M' (or 'p col N M')", quote(kind))
			}
			if n, m, err = problemCounts(t, r2, limit, "'p edge N M'"); err != nil {
				return nil, err
			}
			sink = newEdgeSink(m, len(t.data))
		case "e":
			if n < 0 {
				return nil, t.errf("edge before the problem line; expected 'p edge N M' first")
			}
			u, v, err := t.edgeLine(rest, 1, n, "'e U V'")
			if err != nil {
				return nil, err
			}
			if err := addEdge(u, v); err != nil {
				return nil, err
			}
		case "n":
			if n < 0 {
				return nil, t.errf("vertex label before the problem line; expected 'p edge N M' first")
			}
			v, r2, err := t.vertexField(rest, 1, n)
			if err != nil {
				return nil, err
			}
			lab, r2, err := t.intField(r2, "a vertex label")
			if err != nil {
				return nil, err
			}
			if lab < -1<<31 || lab > 1<<31-1 {
				return nil, t.errf("vertex label %d does not fit in 32 bits", lab)
			}
			if err := t.endOfLine(r2, "'n V LABEL'"); err != nil {
				return nil, err
			}
			if labels == nil {
				labels = make([]int32, n)
			}
			labels[v-1] = int32(lab)
		default:
			return nil, t.errf("line starts with %s; expected 'c', 'p', 'e' or 'n'", quote(tok))
		}
	}
	if n < 0 {
		return nil, t.errEOF("no problem line 'p edge N M'")
	}
	if int64(len(sink.src)) != m {
		return nil, t.errEOF("the problem line announced %d edges, the file has %d", m, len(sink.src))
	}
	g, dup := buildCSR(int(n), arrayStream(sink.src, sink.dst), nil, nil, csrOptions{})
	g.VertexLabels = labels
	g.Base = 1
	noteRepeats(g, dup, 1)
	return g, nil
}

// readPACE reads the PACE .gr format (2016–2019 treewidth and vertex
// cover tracks): "c" comments, "p td N M", then M lines "U V", 1-based.
// PACE graphs are meant to be simple: a self-loop is an error, but a
// repeated edge is merged and counted in Graph.Repeated, because several
// of the PACE 2019 instances list edges twice and count them in M.
func readPACE(t *textReader, limit int) (*Graph, error) {
	var n, m int64 = -1, 0
	var sink *edgeSink
	addEdge := func(u, v int64) error { return addSimpleEdge(t, sink, n, m, u, v, "PACE") }
	for {
		l, ok, err := t.nextCareful(n >= 0, 0, addEdge)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		tok, rest := field(l)
		switch {
		case len(tok) == 0 || string(tok) == "c":
			continue
		case string(tok) == "p":
			if n >= 0 {
				return nil, t.errf("second problem line; expected one 'p td N M'")
			}
			kind, r2 := field(rest)
			switch strings.ToLower(string(kind)) {
			case "td", "tw", "vc", "ds", "hs":
			default:
				return nil, t.errf("problem line names %s; expected 'p td N M'", quote(kind))
			}
			if n, m, err = problemCounts(t, r2, limit, "'p td N M'"); err != nil {
				return nil, err
			}
			sink = newEdgeSink(m, len(t.data))
		case n < 0:
			return nil, t.errf("found %s before the problem line; expected 'p td N M' first", quote(tok))
		default:
			// An edge line the fast path did not take: parse it carefully.
			u, v, err := t.edgeLine(l, 1, n, "'U V'")
			if err != nil {
				return nil, err
			}
			if err := addEdge(u, v); err != nil {
				return nil, err
			}
		}
	}
	if n < 0 {
		return nil, t.errEOF("no problem line 'p td N M'")
	}
	if int64(len(sink.src)) != m {
		return nil, t.errEOF("the problem line announced %d edges, the file has %d", m, len(sink.src))
	}
	g, dup := buildCSR(int(n), arrayStream(sink.src, sink.dst), nil, nil, csrOptions{})
	g.Base = 1
	noteRepeats(g, dup, 1)
	return g, nil
}

// noteRepeats records merged repeated edges in g.
func noteRepeats(g *Graph, dup dupInfo, base int) {
	if dup.count == 0 {
		return
	}
	g.Repeated = dup.count
	g.Notes = append(g.Notes, fmt.Sprintf("%d repeated edge record(s) merged (the first: {%d,%d})", dup.count, int(dup.u)+base, int(dup.v)+base))
}

// twoUints parses "U V" (unsigned, whitespace-separated) at the start of
// l: the hot loop of every text reader. ok is false if either is missing
// or malformed; the caller then re-parses slowly for the error message.
func twoUints(l []byte) (u, v int64, rest []byte, ok bool) {
	i := 0
	for i < len(l) && isSpace(l[i]) {
		i++
	}
	start := i
	for i < len(l) && l[i]-'0' <= 9 && i-start < 18 {
		u = u*10 + int64(l[i]-'0')
		i++
	}
	if i == start || (i < len(l) && !isSpace(l[i])) {
		return 0, 0, nil, false
	}
	for i < len(l) && isSpace(l[i]) {
		i++
	}
	start = i
	for i < len(l) && l[i]-'0' <= 9 && i-start < 18 {
		v = v*10 + int64(l[i]-'0')
		i++
	}
	if i == start || (i < len(l) && !isSpace(l[i])) {
		return 0, 0, nil, false
	}
	return u, v, l[i:], true
}

// addSimpleEdge checks a 1-based edge of a simple-graph format (DIMACS,
// PACE) against the problem line's n and m, then adds it to sink.
func addSimpleEdge(t *textReader, sink *edgeSink, n, m, u, v int64, format string) error {
	if u < 1 || u > n {
		return t.rangeErr(u, 1, n)
	}
	if v < 1 || v > n {
		return t.rangeErr(v, 1, n)
	}
	if u == v {
		return t.errf("self-loop on vertex %d; %s graphs are simple", u, format)
	}
	if int64(len(sink.src)) >= m {
		return t.errf("more edges than the %d the problem line announced", m)
	}
	sink.add(u-1, v-1)
	return nil
}

// problemCounts parses the "N M" that ends a DIMACS or PACE problem line
// (form, e.g. 'p td N M', is what the error says was expected).
func problemCounts(t *textReader, rest []byte, limit int, form string) (n, m int64, err error) {
	if n, rest, err = t.countField(rest, "vertex count N", int64(limit)); err != nil {
		return 0, 0, err
	}
	if m, rest, err = t.countField(rest, "edge count M", maxInt); err != nil {
		return 0, 0, err
	}
	return n, m, t.endOfLine(rest, form)
}
