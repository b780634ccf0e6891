package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
)

// infoReport is what `arbor info --json` prints (docs/schema/info.json).
type infoReport struct {
	Files  []string `json:"files"`
	Format string   `json:"format"`
	Base   int      `json:"base"` // what the file's vertex numbers start from
	Notes  []string `json:"notes,omitempty"`
	core.Stats
	// The label counts, absent when the graph has no such labels (Stats
	// says -1 there; these shallower fields hide its).
	VertexLabels *int `json:"vertex_labels,omitempty"`
	EdgeLabels   *int `json:"edge_labels,omitempty"`
}

// labelField is a Stats label count for JSON: nil (absent) when unknown.
func labelField(n int) *int {
	if n < 0 {
		return nil
	}
	return &n
}

func runInfo(e *cli.Env) error {
	fs := cli.NewFlags(e, "info", "GRAPH [--format F] [--directed] [--json]")
	format := fs.String("format", "", "force the format: "+strings.Join(core.Formats(), ", ")+" (default: detect)")
	directed := fs.Bool("directed", false, "keep arcs directed (MIVIA, LAD, general Matrix Market)")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := cli.Parse(fs, e.Args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("info takes one graph file (got %s)", cli.Plural(len(pos), "argument"))
	}
	g, err := e.ReadGraph(pos[0], core.ReadOptions{Format: *format, Directed: *directed})
	if err != nil {
		if strings.Contains(err.Error(), "unknown format") {
			return cli.Usagef("%v", err)
		}
		return err
	}
	r := infoReport{Files: pos, Format: g.Format, Base: g.Base, Notes: g.Notes, Stats: g.Stats()}
	r.VertexLabels, r.EdgeLabels = labelField(r.Stats.VertexLabels), labelField(r.Stats.EdgeLabels)
	if *asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	s := r.Stats
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "file:\t%s\n", r.Files[0])
	fmt.Fprintf(tw, "format:\t%s (vertices numbered from %d in the file)\n", r.Format, r.Base)
	fmt.Fprintf(tw, "vertices:\t%d\n", s.Vertices)
	edges := fmt.Sprintf("%d", s.Edges)
	if s.Repeated > 0 {
		edges += fmt.Sprintf(" (and %d repeated records merged)", s.Repeated)
	}
	fmt.Fprintf(tw, "edges:\t%s\n", edges)
	fmt.Fprintf(tw, "directed:\t%s\n", yesNo(s.Directed))
	fmt.Fprintf(tw, "self-loops:\t%d\n", s.SelfLoops)
	if s.Vertices > 0 {
		kind := "degree"
		if s.Directed {
			kind = "out-degree"
		}
		fmt.Fprintf(tw, "%s:\tmin %d, max %d, avg %.2f; %d isolated\n", kind, s.MinDegree, s.MaxDegree, s.AvgDegree, s.Isolated)
	}
	comps := fmt.Sprintf("%d", s.Components)
	if s.Components > 0 {
		comps += fmt.Sprintf(" (largest %d vertices)", s.Largest)
	}
	if s.Directed {
		comps += ", weakly connected"
	}
	fmt.Fprintf(tw, "components:\t%s\n", comps)
	fmt.Fprintf(tw, "vertex labels:\t%s\n", labelCount(s.VertexLabels))
	fmt.Fprintf(tw, "edge labels:\t%s\n", labelCount(s.EdgeLabels))
	switch {
	case s.Weights == "":
		fmt.Fprintf(tw, "weights:\tnone\n")
	case s.Weights == "pattern":
		fmt.Fprintf(tw, "weights:\tnone (a pattern file: every edge weighs 1)\n")
	case s.Arcs == 0:
		fmt.Fprintf(tw, "weights:\t%s\n", s.Weights)
	default:
		fmt.Fprintf(tw, "weights:\t%s, %g .. %g\n", s.Weights, s.MinWeight, s.MaxWeight)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(tw, "note:\t%s\n", n)
	}
	return tw.Flush()
}

func labelCount(n int) string {
	if n < 0 {
		return "none"
	}
	return fmt.Sprintf("%d distinct", n)
}
