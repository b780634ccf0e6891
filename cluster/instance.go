package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/arbor-gpu/arbor/algorithms/mcs"
	"github.com/arbor-gpu/arbor/core"
)

// graphData is a graph's content, without its name or file format: two
// reads of the same graph give the same bytes, so the same hash.
type graphData struct {
	N            int     `json:"n"`
	Directed     bool    `json:"directed"`
	Offsets      []int   `json:"offsets"`
	Adj          []int32 `json:"adj"`
	VertexLabels []int32 `json:"vertex_labels,omitempty"`
	EdgeLabels   []int32 `json:"edge_labels,omitempty"`
}

// instanceData is an instance: the two graphs of mcs, the graph of vc.
type instanceData struct {
	Problem string     `json:"problem"` // the codec's name: "mcs", "vc"
	G       graphData  `json:"g"`
	H       *graphData `json:"h,omitempty"`
}

func toData(g *core.Graph) graphData {
	return graphData{N: g.N, Directed: g.Directed, Offsets: g.Offsets, Adj: g.Adj, VertexLabels: g.VertexLabels, EdgeLabels: g.EdgeLabels}
}

func (d graphData) graph(name string) (*core.Graph, error) {
	g := &core.Graph{N: d.N, Directed: d.Directed, Offsets: d.Offsets, Adj: d.Adj, VertexLabels: d.VertexLabels, EdgeLabels: d.EdgeLabels, Name: name}
	if g.N < 0 || len(g.Offsets) != g.N+1 {
		return nil, fmt.Errorf("graph %s: %d offsets for %d vertices", name, len(g.Offsets), g.N)
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return g, nil
}

// encodeMCS returns the canonical bytes of the pair and their sha256 (hex).
func encodeMCS(g, h *core.Graph) ([]byte, string, error) {
	hd := toData(h)
	return encodeInstance(instanceData{Problem: "mcs", G: toData(g), H: &hd})
}

// encodeInstance returns the canonical bytes of an instance and their
// sha256 (hex).
func encodeInstance(d instanceData) ([]byte, string, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return nil, "", fmt.Errorf("cluster: encoding the instance: %w", err)
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:]), nil
}

// instance is a decoded instance: its problem's codec and its graphs,
// checked by the codec.
type instance struct {
	problem string
	codec   Codec
	graphs  []*core.Graph
}

// decodeInstance checks data against its hash and reads the graphs.
func decodeInstance(data []byte, hash string) (*instance, error) {
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != hash {
		return nil, fmt.Errorf("instance %.12s…: the stored bytes hash to %.12s…", hash, got)
	}
	var d instanceData
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("instance %.12s…: %w", hash, err)
	}
	c, ok := codecOf(d.Problem)
	if !ok {
		return nil, fmt.Errorf("instance %.12s…: unknown problem %q", hash, d.Problem)
	}
	g, err := d.G.graph("G")
	if err != nil {
		return nil, fmt.Errorf("instance %.12s…: %w", hash, err)
	}
	inst := &instance{problem: d.Problem, codec: c, graphs: []*core.Graph{g}}
	if d.H != nil {
		h, err := d.H.graph("H")
		if err != nil {
			return nil, fmt.Errorf("instance %.12s…: %w", hash, err)
		}
		inst.graphs = append(inst.graphs, h)
	}
	if err := c.CheckInstance(inst.graphs); err != nil {
		return nil, fmt.Errorf("instance %.12s…: %w", hash, err)
	}
	return inst, nil
}

// EncodeInstance returns the canonical bytes of an instance of problem
// (one graph, or two) and their sha256 (hex), which names it in the
// object store and in its job's id (JobID).
func EncodeInstance(problem string, graphs ...*core.Graph) ([]byte, string, error) {
	if len(graphs) < 1 || len(graphs) > 2 {
		return nil, "", fmt.Errorf("cluster: an instance of %d graphs (one or two)", len(graphs))
	}
	d := instanceData{Problem: problem, G: toData(graphs[0])}
	if len(graphs) == 2 {
		hd := toData(graphs[1])
		d.H = &hd
	}
	return encodeInstance(d)
}

// MCSOptions are the options of mcs.Options a distributed search honours.
type MCSOptions struct {
	Connected    bool   `json:"connected,omitempty"`
	Directed     bool   `json:"directed,omitempty"`
	VertexLabels bool   `json:"vertex_labels,omitempty"`
	EdgeLabels   bool   `json:"edge_labels,omitempty"`
	Heuristic    string `json:"heuristic,omitempty"`
	// Prune is the search tree (mcs.Pruning's name): a task's path names
	// a node of that tree, so every worker and audit searches it.
	Prune string `json:"prune,omitempty"`
	// Run tells apart runs of the same instance and options, which would
	// otherwise be one job (CoordinatorConfig.Fresh); it changes nothing
	// in the search.
	Run string `json:"run,omitempty"`
	// Params are the options of a problem other than mcs, in its codec's
	// own encoding (JSON, say): absent for mcs and vc, so their tasks and
	// job ids are what they were.
	Params string `json:"params,omitempty"`
}

// FromMCS takes the honoured options from opts; BigFirst and Goal, which
// change what the search is, are refused.
func FromMCS(opts mcs.Options) (MCSOptions, error) {
	if opts.BigFirst || opts.Goal > 0 {
		return MCSOptions{}, errors.New("cluster: --big-first and --goal are not distributed; run them on one machine")
	}
	return MCSOptions{Connected: opts.Connected, Directed: opts.Directed, VertexLabels: opts.VertexLabels,
		EdgeLabels: opts.EdgeLabels, Heuristic: opts.Heuristic.String(), Prune: opts.Prune.String()}, nil
}

// MCS returns the options as mcs.Options.
func (o MCSOptions) MCS() (mcs.Options, error) {
	h, err := mcs.ParseHeuristic(o.Heuristic)
	if err != nil {
		return mcs.Options{}, err
	}
	if o.Prune == "" {
		// ParsePruning reads "" as the default, rr: a task must name its
		// tree (an older coordinator's tasks were of the original tree).
		return mcs.Options{}, errors.New("cluster: the task names no search tree (prune)")
	}
	prune, err := mcs.ParsePruning(o.Prune)
	if err != nil {
		return mcs.Options{}, err
	}
	return mcs.Options{Connected: o.Connected, Directed: o.Directed, VertexLabels: o.VertexLabels, EdgeLabels: o.EdgeLabels, Heuristic: h, Prune: prune}, nil
}

// JobID names the job of a problem ("mcs", "vc"), instance hash and
// options: the same pair and options give the same job, so a restarted
// coordinator finds its records. The id starts with the problem.
func JobID(problem, instance string, opts MCSOptions) string {
	b, _ := json.Marshal(struct {
		I string     `json:"i"`
		O MCSOptions `json:"o"`
	}{instance, opts})
	sum := sha256.Sum256(b)
	return problem + "-" + hex.EncodeToString(sum[:12])
}

// taskID names the task of a path within a scope (job, epoch, round). Two
// tasks for the same subtree get the same id, which makes duplicates
// harmless.
func taskID(scope string, path []mcs.Step) string {
	h := sha256.New()
	h.Write([]byte(scope))
	var b [8]byte
	for _, s := range path {
		b[0], b[1], b[2], b[3] = byte(s.V), byte(s.V>>8), byte(s.V>>16), byte(s.V>>24)
		b[4], b[5], b[6], b[7] = byte(s.W), byte(s.W>>8), byte(s.W>>16), byte(s.W>>24)
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}
