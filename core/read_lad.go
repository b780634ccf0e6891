package core

import "fmt"

// tokenReader walks whitespace-separated tokens across lines, for LAD,
// whose records are token streams (Glasgow's reader ignores line breaks).
type tokenReader struct {
	*textReader
	line0 int // line of the token last returned
}

func (r *tokenReader) token() ([]byte, bool) {
	d := r.data
	for r.pos < len(d) && (isSpace(d[r.pos]) || d[r.pos] == '\n') {
		if d[r.pos] == '\n' {
			r.line++
		}
		r.pos++
	}
	if r.pos >= len(d) {
		return nil, false
	}
	s := r.pos
	for r.pos < len(d) && !isSpace(d[r.pos]) && d[r.pos] != '\n' {
		r.pos++
	}
	r.line0 = r.line + 1
	return d[s:r.pos], true
}

// num reads the next token as an integer in [lo, hi].
func (r *tokenReader) num(what string, lo, hi int64) (int64, error) {
	tok, ok := r.token()
	if !ok {
		return 0, r.errEOF("expected %s", what)
	}
	v, ok := parseInt(tok)
	if !ok {
		return 0, r.errAt(r.line0, "expected %s (an integer), found %s", what, quote(tok))
	}
	if v > hi && hi == r.vertexLimit && r.limitFrom != "" {
		return 0, r.errAt(r.line0, "%s is %d, larger than the limit %d (%s)", what, v, hi, r.limitFrom)
	}
	if v < lo || v > hi {
		return 0, r.errAt(r.line0, "%s is %d; expected %d..%d", what, v, lo, hi)
	}
	return v, nil
}

// readLAD reads the LAD format of the subgraph isomorphism solvers (LAD,
// Glasgow): the vertex count N, then for each vertex its number of
// successors and the successors, 0-based. The vertex-labelled variant puts
// a label before each count; the labelled variant also follows each
// successor with an edge label. Arcs are as in the file when directed is
// set; otherwise each becomes an undirected edge (LAD files usually list
// every edge from both ends; an edge label then comes from the first
// listing, the one in the smaller vertex's list). A successor repeated in
// one vertex's list is an error; a self-loop is kept.
func readLAD(t *textReader, directed, vertexLabels, edgeLabels bool, limit int) (*Graph, error) {
	r := &tokenReader{textReader: t}
	n, err := r.num("the vertex count N", 0, int64(limit))
	if err != nil {
		return nil, err
	}
	sink := newEdgeSink(int64(len(t.data)/2), len(t.data))
	var vl, el []int32
	if vertexLabels {
		vl = make([]int32, n)
	}
	seen := make([]int32, n) // seen[t] == v+1: v→t already read
	for v := int64(0); v < n; v++ {
		if vertexLabels {
			lab, err := r.num(fmt.Sprintf("the label of vertex %d", v), -1<<31, 1<<31-1)
			if err != nil {
				return nil, err
			}
			vl[v] = int32(lab)
		}
		// A successor takes at least two bytes ("1 "), which bounds the count.
		k, err := r.num(fmt.Sprintf("the successor count of vertex %d", v), 0, min(n, int64(len(t.data)/2+1)))
		if err != nil {
			return nil, err
		}
		for range k {
			u, err := r.num(fmt.Sprintf("a successor of vertex %d", v), 0, n-1)
			if err != nil {
				return nil, err
			}
			if seen[u] == int32(v+1) {
				return nil, r.errAt(r.line0, "successor %d appears twice in vertex %d's list", u, v)
			}
			seen[u] = int32(v + 1)
			sink.add(v, u)
			if edgeLabels {
				lab, err := r.num(fmt.Sprintf("the label of arc %d→%d", v, u), -1<<31, 1<<31-1)
				if err != nil {
					return nil, err
				}
				el = append(el, int32(lab))
			}
		}
	}
	if tok, ok := r.token(); ok {
		return nil, r.errAt(r.line0, "unexpected %s after the last vertex's list (N=%d)", quote(tok), n)
	}
	g, _ := buildCSR(int(n), arrayStream(sink.src, sink.dst), nil, el, csrOptions{directed: directed})
	g.VertexLabels = vl
	if loops := countLoops(g); loops > 0 {
		g.Notes = append(g.Notes, fmt.Sprintf("%d self-loop(s) kept", loops))
	}
	return g, nil
}
