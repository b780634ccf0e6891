package core

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// CanonicalFormat is the format name a name or alias (Formats, "gr",
// "clq", …) stands for, and whether it is one.
func CanonicalFormat(format string) (string, bool) { return canonicalFormat(format) }

// CheckFormat returns nil for a format name (or alias) ReadOptions.Format
// and WriteGraph take, else an error wrapping ErrUnknownFormat that lists
// them.
func CheckFormat(format string) error {
	if _, ok := canonicalFormat(format); ok {
		return nil
	}
	return fmt.Errorf("%w %q (known: %s)", ErrUnknownFormat, format, strings.Join(Formats(), ", "))
}

// WriteGraph writes g in a format ReadGraph reads back: FormatEdgeList
// (0-based), FormatDIMACS, FormatPACE, FormatMTX, FormatLAD (with
// VertexLabelledLAD and LabelledLAD) or FormatMIVIA.
//
// The edge-list, DIMACS and PACE formats are undirected: a directed graph
// is written as its arcs and reads back symmetrised. Self-loops are
// written only by formats that allow them (MTX, LAD, MIVIA, writing
// them as diagonal entries / arcs); the others reject a graph that has
// any, rather than silently drop edges.
func WriteGraph(w io.Writer, g *Graph, format string) error {
	f, ok := canonicalFormat(format)
	if !ok {
		return fmt.Errorf("write %s: %w", g.Name, CheckFormat(format))
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var err error
	switch f {
	case FormatEdgeList, FormatEdgeList0:
		err = writeText(bw, g, "", 0)
	case FormatEdgeList1:
		err = writeText(bw, g, "", 1)
	case FormatDIMACS:
		err = writeText(bw, g, "p edge", 1)
	case FormatPACE:
		err = writeText(bw, g, "p td", 1)
	case FormatMTX:
		err = writeMTX(bw, g)
	case FormatLAD, FormatVertexLabelledLAD, FormatLabelledLAD:
		err = writeLAD(bw, g, f != FormatLAD, f == FormatLabelledLAD)
	case FormatMIVIA:
		err = writeMIVIA(bw, g)
	default:
		err = fmt.Errorf("no writer for format %q", f)
	}
	if err != nil {
		return fmt.Errorf("write %s as %s: %w", g.Name, f, err)
	}
	return bw.Flush()
}

// edgesOnce calls fn for each edge once: u ≤ v for undirected graphs,
// every arc for directed ones; idx is the arc's index in Adj.
func edgesOnce(g *Graph, fn func(u, v, idx int) error) error {
	for u := 0; u < g.N; u++ {
		for i := g.Offsets[u]; i < g.Offsets[u+1]; i++ {
			v := int(g.Adj[i])
			if !g.Directed && v < u {
				continue
			}
			if err := fn(u, v, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeText writes "HEADER N M" (or "N M" with no header word) then one
// edge per line, numbered from base; DIMACS gets "e" lines and "n" labels.
func writeText(w *bufio.Writer, g *Graph, header string, base int) error {
	if loops := countLoops(g); loops > 0 {
		return fmt.Errorf("graph has %d self-loop(s), which the format forbids", loops)
	}
	m := 0
	_ = edgesOnce(g, func(_, _, _ int) error { m++; return nil })
	if header != "" {
		fmt.Fprintf(w, "%s %d %d\n", header, g.N, m)
	} else {
		fmt.Fprintf(w, "%d %d\n", g.N, m)
	}
	dimacs := header == "p edge"
	if dimacs && g.VertexLabels != nil {
		for v, l := range g.VertexLabels {
			fmt.Fprintf(w, "n %d %d\n", v+1, l)
		}
	}
	buf := make([]byte, 0, 32)
	return edgesOnce(g, func(u, v, _ int) error {
		buf = buf[:0]
		if dimacs {
			buf = append(buf, 'e', ' ')
		}
		buf = strconv.AppendInt(buf, int64(u+base), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(v+base), 10)
		buf = append(buf, '\n')
		_, err := w.Write(buf)
		return err
	})
}

// writeMTX writes a coordinate matrix: symmetric (lower triangle) for an
// undirected graph, general for a directed one; field pattern without
// weights, integer with IntWeights, else real (shortest exact form).
func writeMTX(w *bufio.Writer, g *Graph) error {
	field := "pattern"
	if g.Weights != nil {
		field = "real"
		if g.IntWeights {
			field = "integer"
		}
	}
	sym := "symmetric"
	if g.Directed {
		sym = "general"
	}
	m := 0
	_ = edgesOnce(g, func(_, _, _ int) error { m++; return nil })
	fmt.Fprintf(w, "%%%%MatrixMarket matrix coordinate %s %s\n%d %d %d\n", field, sym, g.N, g.N, m)
	buf := make([]byte, 0, 48)
	return edgesOnce(g, func(u, v, i int) error {
		r, c := u, v
		if !g.Directed {
			r, c = v, u // lower triangle: row ≥ column
		}
		buf = strconv.AppendInt(buf[:0], int64(r+1), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(c+1), 10)
		switch field {
		case "integer":
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(g.Weights[i]), 10)
		case "real":
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, g.Weights[i], 'g', -1, 64)
		}
		buf = append(buf, '\n')
		_, err := w.Write(buf)
		return err
	})
}

// writeLAD writes every arc from its source's list (both directions for
// undirected graphs, as LAD files usually do).
func writeLAD(w *bufio.Writer, g *Graph, vertexLabels, edgeLabels bool) error {
	fmt.Fprintf(w, "%d\n", g.N)
	buf := make([]byte, 0, 64)
	for v := 0; v < g.N; v++ {
		buf = buf[:0]
		if vertexLabels {
			l := int32(0)
			if g.VertexLabels != nil {
				l = g.VertexLabels[v]
			}
			buf = strconv.AppendInt(buf, int64(l), 10)
			buf = append(buf, ' ')
		}
		buf = strconv.AppendInt(buf, int64(g.Degree(v)), 10)
		for i := g.Offsets[v]; i < g.Offsets[v+1]; i++ {
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(g.Adj[i]), 10)
			if edgeLabels {
				l := int32(0)
				if g.EdgeLabels != nil {
					l = g.EdgeLabels[i]
				}
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, int64(l), 10)
			}
		}
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// writeMIVIA writes the binary format; an undirected graph is written with
// both arcs of every edge. Labels must fit in 16 bits (absent ones are 0).
func writeMIVIA(w *bufio.Writer, g *Graph) error {
	if g.N > 0xFFFF {
		return fmt.Errorf("%d vertices; the format holds at most 65535", g.N)
	}
	for v := 0; v < g.N; v++ {
		if g.Degree(v) > 0xFFFF {
			return fmt.Errorf("vertex %d has %d arcs; the format holds at most 65535", v, g.Degree(v))
		}
	}
	put := func(x int) error {
		var b [2]byte
		binary.LittleEndian.PutUint16(b[:], uint16(x))
		_, err := w.Write(b[:])
		return err
	}
	label := func(ls []int32, i int) (int, error) {
		if ls == nil {
			return 0, nil
		}
		if ls[i] < 0 || ls[i] > 0xFFFF {
			return 0, fmt.Errorf("label %d does not fit in 16 bits", ls[i])
		}
		return int(ls[i]), nil
	}
	put(g.N)
	for v := 0; v < g.N; v++ {
		l, err := label(g.VertexLabels, v)
		if err != nil {
			return err
		}
		put(l)
	}
	for v := 0; v < g.N; v++ {
		put(g.Degree(v))
		for i := g.Offsets[v]; i < g.Offsets[v+1]; i++ {
			l, err := label(g.EdgeLabels, i)
			if err != nil {
				return err
			}
			put(int(g.Adj[i]))
			if err := put(l); err != nil {
				return err
			}
		}
	}
	return nil
}
