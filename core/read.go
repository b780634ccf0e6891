package core

import (
	"fmt"
	"io"
)

// ReadOptions controls ReadGraph.
type ReadOptions struct {
	// Format forces a format ("mtx", "dimacs", "pace", "mivia", "lad",
	// "edgelist"); "" detects it from the content and the file extension.
	Format string
	// Directed keeps arcs directed in formats that store arcs (MIVIA, LAD,
	// general Matrix Market); false symmetrises them.
	Directed bool
}

// ReadGraph reads a graph file in any supported format.
func ReadGraph(path string, opts ReadOptions) (*Graph, error) {
	return nil, fmt.Errorf("%s: graph readers not yet implemented", path)
}

// ParseGraph reads a graph from r; name is used in errors.
func ParseGraph(r io.Reader, name string, opts ReadOptions) (*Graph, error) {
	return nil, fmt.Errorf("%s: graph readers not yet implemented", name)
}
