package core

import (
	"encoding/binary"
	"fmt"
)

// readMIVIA reads the MIVIA/ARG binary format: 16-bit little-endian words,
// N, then N vertex labels, then for each vertex a count k and k pairs
// (target, edge label). The file size is exactly 2 + 4N + 4·arcs bytes.
//
// Arcs are directed in the file. With directed false every arc becomes an
// undirected edge; when both u→v and v→u are present the edge keeps the
// label of the one read last, i.e. the arc leaving the larger-numbered
// vertex. That is what McSplit's reader does (it writes both matrix cells
// for every arc, so the later arc overwrites), which keeps labelled runs
// comparable with the published MIVIA results.
//
// Self-loops are kept, as one arc v→v: the database has a few, and McSplit
// treats a looped vertex as distinct from an unlooped one.
func readMIVIA(data []byte, name string, directed bool) (*Graph, error) {
	errAt := func(off int, format string, a ...any) error {
		return &FormatError{File: name, Format: FormatMIVIA, Offset: int64(off), Msg: fmt.Sprintf(format, a...)}
	}
	size := len(data)
	if size < 2 {
		return nil, errAt(0, "file has %d byte(s); expected at least 2 (the vertex count)", size)
	}
	if size%2 != 0 {
		return nil, errAt(size-1, "file size %d is odd; the format is 16-bit words", size)
	}
	word := func(off int) int { return int(binary.LittleEndian.Uint16(data[off:])) }
	n := word(0)
	if need := 2 + 2*n; size < need {
		return nil, errAt(size, "file ends inside the vertex labels: N=%d needs at least %d bytes, the file has %d", n, need, size)
	}
	labels := make([]int32, n)
	for v := range n {
		labels[v] = int32(word(2 + 2*v))
	}
	// Every arc takes 4 bytes, so the rest of the file bounds the arc count.
	maxArcs := (size - 2 - 2*n) / 4
	src := make([]int32, 0, maxArcs)
	dst := make([]int32, 0, maxArcs)
	lab := make([]int32, 0, maxArcs)
	seen := make([]int32, n) // seen[t] == v+1: arc v→t already read
	pos := 2 + 2*n
	for v := range n {
		if pos+2 > size {
			return nil, errAt(pos, "file ends before the arc count of vertex %d (of N=%d)", v, n)
		}
		k := word(pos)
		if pos+2+4*k > size {
			return nil, errAt(pos, "vertex %d claims %d arcs, but only %d fit in the remaining %d bytes", v, k, (size-pos-2)/4, size-pos-2)
		}
		pos += 2
		for range k {
			t := word(pos)
			if t >= n {
				return nil, errAt(pos, "arc of vertex %d goes to vertex %d; expected a target below N=%d", v, t, n)
			}
			if seen[t] == int32(v+1) {
				return nil, errAt(pos, "arc %d→%d appears twice in vertex %d's list", v, t, v)
			}
			seen[t] = int32(v + 1)
			src = append(src, int32(v))
			dst = append(dst, int32(t))
			lab = append(lab, int32(word(pos+2)))
			pos += 4
		}
	}
	if pos != size {
		return nil, errAt(pos, "%d bytes follow the last vertex's arcs; the size should be 2+4N+4·arcs = %d, the file has %d", size-pos, pos, size)
	}
	g, _ := buildCSR(n, arrayStream(src, dst), nil, lab, csrOptions{directed: directed, lastWins: true})
	g.VertexLabels = labels
	if loops := countLoops(g); loops > 0 {
		g.Notes = append(g.Notes, fmt.Sprintf("%d self-loop(s) kept", loops))
	}
	return g, nil
}

// countLoops counts arcs v→v.
func countLoops(g *Graph) int {
	loops := 0
	for v := range g.N {
		if g.HasEdge(v, v) {
			loops++
		}
	}
	return loops
}
