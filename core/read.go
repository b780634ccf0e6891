package core

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// ReadOptions controls ReadGraph.
type ReadOptions struct {
	// Format forces a format (see Formats); "" detects it from the content
	// and the file extension.
	Format string
	// Directed keeps arcs directed in formats that store arcs (MIVIA, LAD,
	// general Matrix Market); false symmetrises them. Formats that store
	// undirected edges (DIMACS, PACE, edge lists, symmetric Matrix Market)
	// always give an undirected graph.
	Directed bool
	// MaxVertices caps the vertex count a header may claim. 0 means the
	// limit MaxMemory sets.
	MaxVertices int
	// MaxMemory caps the memory the per-vertex structures of the vertex
	// count a header announces may take (BytesPerVertex a vertex), so that
	// a header number alone cannot exhaust memory while a sparse graph of
	// millions of vertices still reads. 0 means $ARBOR_MAX_MEMORY, else
	// half the available memory.
	MaxMemory int64
	// MaxInput caps every input: the size of a file, what a stream (a
	// pipe, a FIFO, a device, ParseGraph's reader) gives before it ends,
	// and what gzip decompresses to. 0 means $ARBOR_MAX_INPUT, else
	// DefaultMaxInput (or half the available memory where that is less).
	MaxInput int64
}

// Format names accepted by ReadOptions.Format and reported in Graph.Format.
const (
	FormatMTX               = "mtx"               // Matrix Market coordinate
	FormatDIMACS            = "dimacs"            // p edge / p col, e u v, n v label
	FormatPACE              = "pace"              // PACE .gr: p td n m, then u v
	FormatMIVIA             = "mivia"             // MIVIA/ARG binary, 16-bit LE words
	FormatLAD               = "lad"               // n, then per vertex: degree, neighbours
	FormatVertexLabelledLAD = "vertexlabelledlad" // n, then per vertex: label, degree, neighbours
	FormatLabelledLAD       = "labelledlad"       // n, then per vertex: label, degree, (neighbour, edge label)…
	FormatEdgeList          = "edgelist"          // n m, then u v; 0- or 1-based, detected
	FormatEdgeList0         = "edgelist0"         // edge list, vertices numbered from 0
	FormatEdgeList1         = "edgelist1"         // edge list, vertices numbered from 1
)

// Formats lists the accepted format names.
func Formats() []string {
	return []string{FormatMTX, FormatDIMACS, FormatPACE, FormatMIVIA, FormatLAD,
		FormatVertexLabelledLAD, FormatLabelledLAD, FormatEdgeList, FormatEdgeList0, FormatEdgeList1}
}

// formatAliases maps other common names to a format.
var formatAliases = map[string]string{
	"mm": FormatMTX, "matrixmarket": FormatMTX,
	"clq": FormatDIMACS, "mis": FormatDIMACS, "col": FormatDIMACS,
	"gr":  FormatPACE,
	"arg": FormatMIVIA, "vf": FormatMIVIA,
	"txt": FormatEdgeList, "el": FormatEdgeList,
}

// canonicalFormat returns the format a name or alias stands for.
func canonicalFormat(f string) (string, bool) {
	f = strings.ToLower(strings.TrimSpace(f))
	for _, k := range Formats() {
		if f == k {
			return k, true
		}
	}
	if k, ok := formatAliases[f]; ok {
		return k, true
	}
	return "", false
}

// ReadGraph reads a graph file in any supported format. Errors about the
// content are *FormatError, naming the file, the line (byte offset for
// MIVIA) and what was expected; no partial graph is ever returned.
//
//	format             numbering  directed?          payload
//	mtx                1-based    general: option    Weights (pattern = 1)
//	dimacs             1-based    no                 VertexLabels from "n v l"
//	pace               1-based    no                 -
//	edgelist           detected   no                 -
//	lad                0-based    option             (labelled variants) labels
//	mivia              0-based    option             VertexLabels, EdgeLabels
//
// Detection: the Matrix Market banner, binary bytes (MIVIA) and a "p"
// problem line are recognised from the content; then the extension (.mtx,
// .clq/.mis/.col, .gr, .lad, .txt, .A00-style MIVIA names); then a first
// line of one number (LAD) or two (edge list). Graph.Format, Base and
// Notes say what was decided.
func ReadGraph(path string, opts ReadOptions) (*Graph, error) {
	return ReadGraphContext(context.Background(), path, opts)
}

// ParseGraph reads a graph from r; name is used in errors and for format
// detection by extension.
func ParseGraph(r io.Reader, name string, opts ReadOptions) (*Graph, error) {
	return ParseGraphContext(context.Background(), r, name, opts)
}

// DetectFormat names the format of a file from its first bytes and name;
// it returns "" when it cannot tell.
func DetectFormat(name string, head []byte) string {
	if len(head) > 4096 {
		head = head[:4096]
	}
	if len(head) >= 14 && strings.EqualFold(string(head[:14]), "%%MatrixMarket") {
		return FormatMTX
	}
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(name), "."))
	// The first line that is not a comment settles DIMACS and PACE, when it
	// is text: binary bytes further on (a .clq with trailing NULs) make a
	// bad DIMACS file, not a MIVIA one, whose first words are never a text
	// line.
	r := textReader{data: head}
	for {
		l, ok := r.next()
		if !ok || (r.pos >= len(head) && len(head) == 4096) || looksBinary(l) { // a cut line says nothing
			break
		}
		tok, rest := field(l)
		if len(tok) == 0 || tok[0] == '#' || tok[0] == '%' || string(tok) == "c" {
			continue
		}
		if string(tok) == "p" {
			kind, _ := field(rest)
			switch strings.ToLower(string(kind)) {
			case "td", "tw", "vc", "ds", "hs":
				return FormatPACE
			case "edge", "col", "clq", "edges":
				return FormatDIMACS
			}
			return ""
		}
		if string(tok) == "e" || string(tok) == "n" {
			return FormatDIMACS
		}
		break
	}
	if looksBinary(head) {
		return FormatMIVIA
	}
	switch ext {
	case "mtx", "mm":
		return FormatMTX
	case "clq", "mis", "col", "dimacs":
		return FormatDIMACS
	case "gr":
		return FormatPACE
	case "lad":
		return FormatLAD
	case "txt", "el", "edges", "edgelist":
		return FormatEdgeList
	case "arg", "mivia":
		return FormatMIVIA
	}
	// MIVIA database names end in .A00, .B12, …
	if len(ext) == 3 && (ext[0] == 'a' || ext[0] == 'b') && isDigit(ext[1]) && isDigit(ext[2]) {
		return FormatMIVIA
	}
	// Plain numbers: one on the first line is LAD's vertex count, two are
	// an edge list's header.
	r = textReader{data: head}
	for {
		l, ok := r.next()
		if !ok {
			return ""
		}
		tok, rest := field(l)
		if len(tok) == 0 || tok[0] == '#' || tok[0] == '%' {
			continue
		}
		nums := 0
		for len(tok) > 0 {
			if _, ok := parseInt(tok); !ok {
				return ""
			}
			nums++
			tok, rest = field(rest)
		}
		switch nums {
		case 1:
			return FormatLAD
		case 2:
			return FormatEdgeList
		}
		return ""
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// looksBinary: text graph formats hold only printable ASCII and whitespace.
func looksBinary(b []byte) bool {
	for _, c := range b {
		if c < 32 && c != '\n' && c != '\r' && c != '\t' && c != '\v' && c != '\f' || c == 127 {
			return true
		}
	}
	return false
}

// parseBytes reads a graph from data; par spreads the Matrix Market and
// edge-list readers over goroutines (the graph does not depend on it).
func parseBytes(data []byte, name string, opts ReadOptions, par parallelism) (*Graph, error) {
	if len(data) == 0 {
		return nil, &FormatError{File: name, Offset: -1, Msg: "file is empty"}
	}
	format := ""
	if opts.Format != "" {
		f, ok := canonicalFormat(opts.Format)
		if !ok {
			return nil, fmt.Errorf("%s: %w", name, CheckFormat(opts.Format))
		}
		format = f
	} else {
		format = DetectFormat(name, data)
		if format == "" && len(bytes.TrimSpace(data)) == 0 {
			return nil, &FormatError{File: name, Offset: -1, Msg: fmt.Sprintf(
				"no header or data line: the file holds only blank lines and spaces (%d bytes)", len(data))}
		}
		if format == "" {
			return nil, &FormatError{File: name, Offset: -1, Msg: fmt.Sprintf("cannot tell the graph format from the content or the name; force one (%s)", strings.Join(Formats(), ", "))}
		}
	}
	if format != FormatMIVIA && len(bytes.TrimSpace(data)) == 0 {
		return nil, &FormatError{File: name, Format: format, Offset: -1, Msg: fmt.Sprintf(
			"no header or data line: the file holds only blank lines and spaces (%d bytes)", len(data))}
	}
	lim, err := opts.limits()
	if err != nil {
		return nil, err
	}
	limit := lim.maxVertices
	t := &textReader{name: name, format: format, data: data, vertexLimit: int64(limit), limitFrom: lim.vertexFrom}
	var g *Graph
	switch format {
	case FormatMIVIA:
		g, err = readMIVIA(data, name, opts.Directed)
	case FormatMTX:
		g, err = readMTX(t, opts.Directed, limit, par)
	case FormatDIMACS:
		g, err = readDIMACS(t, limit)
	case FormatPACE:
		g, err = readPACE(t, limit)
	case FormatEdgeList, FormatEdgeList0, FormatEdgeList1:
		base := -1
		if format == FormatEdgeList0 {
			base = 0
		} else if format == FormatEdgeList1 {
			base = 1
		}
		format = FormatEdgeList
		t.format = format
		g, err = readEdgeList(t, base, limit, par)
	case FormatLAD, FormatVertexLabelledLAD, FormatLabelledLAD:
		g, err = readLAD(t, opts.Directed, format != FormatLAD, format == FormatLabelledLAD, limit)
	default:
		err = fmt.Errorf("%s: format %q has no reader", name, format)
	}
	if err != nil {
		return nil, err
	}
	g.Name = name
	if g.Format == "" {
		g.Format = format
	}
	return g, nil
}
