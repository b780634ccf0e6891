package mcscmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
)

// GuardMCS is the last-line check of a two-graph result before it is
// printed: the mapping passes the independent checker and has Size pairs,
// and a proof agrees with what is known without search — a goal run's
// status against its size, and a maximum of at least one pair when some
// single pair is compatible (a label-and-self-loop match is a common
// subgraph of one vertex).
func GuardMCS(g, h *core.Graph, res mcs.Result, opts mcs.Options) error {
	if err := mcs.Verify(g, h, res.Mapping, opts); err != nil {
		return cli.Internalf("the mapping fails the checker: %w", err)
	}
	if len(res.Mapping) != res.Size {
		return cli.Internalf("size %d but %d mapped pairs", res.Size, len(res.Mapping))
	}
	return cli.GuardMax(res.Status, res.Proven, res.Size, max(opts.Goal, opts.Floor), mcsLowerBound(g, h, opts), "common subgraph")
}

// mcsLowerBound is 1 when some pair of vertices is compatible (checked by
// mcs.Verify on that one pair), else 0.
func mcsLowerBound(g, h *core.Graph, opts mcs.Options) int {
	type sig struct {
		label int32
		loop  bool
	}
	of := func(x *core.Graph, v int) sig {
		s := sig{loop: x.HasEdge(v, v)}
		if opts.VertexLabels && x.VertexLabels != nil {
			s.label = x.VertexLabels[v]
		}
		return s
	}
	inH := map[sig]int{}
	for w := h.N - 1; w >= 0; w-- {
		inH[of(h, w)] = w
	}
	for v := range g.N {
		if w, ok := inH[of(g, v)]; ok && mcs.Verify(g, h, [][2]int{{v, w}}, opts) == nil {
			return 1
		}
	}
	return 0
}

// GuardMCSMany is guardMCS for three or more graphs.
func GuardMCSMany(graphs []*core.Graph, res mcs.MultiResult, opts mcs.Options) error {
	if err := mcs.VerifyMany(graphs, res.Tuples, opts); err != nil {
		return cli.Internalf("the common subgraph fails the checker: %w", err)
	}
	if len(res.Tuples) != res.Size {
		return cli.Internalf("size %d but %d rows", res.Size, len(res.Tuples))
	}
	return cli.GuardMax(res.Status, res.Proven, res.Size, 0, 0, "common subgraph")
}

// WriteMapping prints a mapping's line: "mapping v→w v→w …".
func WriteMapping(w io.Writer, mapping [][2]int) {
	var sb strings.Builder
	for i, p := range mapping {
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "%d→%d", p[0], p[1])
	}
	fmt.Fprintf(w, "mapping %s\n", sb.String())
}
