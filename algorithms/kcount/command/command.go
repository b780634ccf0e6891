// Package kcountcmd is kcount's registry entry: the arbor kcount command
// (flags, input, solve, check, text and JSON output, its schema
// docs/schema/kcount.json) and its bench problem, registered with
// cli.Register in init. Nothing outside this folder lists it: cmd/arbor
// dispatches over the registry, algorithms/all links this package.
package kcountcmd

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"

	"github.com/arbor-gpu/arbor/algorithms/kcount"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/bench"
)

// schema is docs/schema/kcount.json, kept here: go generate ./cmd/arbor
// writes it there.
//
//go:embed kcount.json
var schema []byte

// doc is docs/cli.md's text for the command beyond its -h (go generate
// ./cmd/arbor writes the section).
const doc = `The number of k-cliques of the graph: sets of K pairwise adjacent vertices (arcs in
either direction make two vertices adjacent; self-loops are ignored). ` + "`-k 1`" + ` counts
the vertices, ` + "`-k 2`" + ` the edges; a K above the degeneracy + 1 counts 0 without a search.
The cpu engine orients the graph along a degeneracy order and counts, from each vertex,
the (K−1)-cliques among its later neighbours with bitsets (algorithms/kcount); the gpu
engine runs the porting guide's kernel kcount_epoch on the device search layer (its Go
twin with ` + "`--backend cpu`" + `), ` + "`--workers`" + ` workers per device.

A count stopped by ` + "`--timeout`" + ` or Ctrl-C is partial: every clique it counted is real
and counted once, so it is a lower bound (` + "`proven`" + ` false; text: "partial: stopped
early, a lower bound"), exit status 0. Every count passes the guard (K = 1 is n, K = 2
is m, none exceeds C(n, K)); ` + "`--verify`" + ` also recounts it by an independent method
(kcount.Recount: vertex order, sorted-list intersections), as slow as the cliques are
many. ` + "`--threads N`, `--timeout D`, `--format F`, `--backend B`, `--device D`, `--max-input SIZE`, `--max-memory SIZE`, `-v`" + `:
as for mcs; ` + "`--batch LIST`, `--device-slots D`, `--hand-off D`" + `: many graphs in one process, as for mcs
(*Batches* under ` + "`arbor mcs`" + `). JSON: ` + "`files`, `vertices`, `edges`, `k`, `count`, `proven`, `degeneracy`, `nodes`, `seconds`, `threads`, `engine`, `why`, `backend`, `device`, `epochs`, `shared`, `verified`" + `.`

func init() {
	cli.Register(&cli.Algorithm{
		Name:     "kcount",
		Summary:  "count the k-cliques of a graph",
		Synopsis: "GRAPH -k K [--engine cpu|gpu] [--json]",
		Engines: []cli.Engine{
			{Name: string(kcount.EngineCPU), Help: "bitset counter over the degeneracy order, on every core"},
			{Name: string(kcount.EngineGPU), Help: "the kcount_epoch device search; its Go twin with --backend cpu", Device: true},
		},
		Schema:      "kcount.json",
		SchemaJSON:  schema,
		Doc:         doc,
		Examples:    examples,
		ReadsGraphs: true,
		Threads:     true,
		Run: cli.Pipeline(cli.Problem[options, *core.Graph, kcount.Result]{
			Flags: declare, Check: check, Input: input, Solve: solve, Verify: verify,
			Text: text, JSON: object, Line: line,
		}),
		Bench: &bench.Problem{
			Aliases:       []string{"k-clique", "kclique"},
			Engines:       []string{string(kcount.EngineCPU), string(kcount.EngineGPU)},
			DeviceEngines: []string{string(kcount.EngineGPU)},
			CPUThreads:    true,
			Parse:         parseAnswer,
			Check:         checkAnswer,
		},
	})
}

// examples are runs whose --json the schema tests check: exact counts on
// both engines, with --verify, and a partial one.
func examples(dir string) ([][]string, error) {
	g := filepath.Join(dir, "k4plus.clq")
	// K4 on 1..4 with a pendant path 4–5–6.
	if err := os.WriteFile(g, []byte("p edge 6 8\ne 1 2\ne 1 3\ne 1 4\ne 2 3\ne 2 4\ne 3 4\ne 4 5\ne 5 6\n"), 0o644); err != nil {
		return nil, err
	}
	return [][]string{
		{g, "-k", "3"},
		{g, "-k", "4", "--verify"},
		{g, "-k", "3", "--engine", "gpu", "--backend", "cpu", "--workers", "3"},
		{g, "-k", "3", "--timeout", "1ns"},
	}, nil
}

// options are kcount's own flags.
type options struct {
	k, workers int
	// verify is the pipeline's --verify: with it the result is recounted
	// (kcount.Verify, as slow as the cliques are many); without it the
	// guard's bounds alone check it (see verify).
	verify *flag.Flag
}

func declare(fs *flag.FlagSet, o *options) {
	fs.IntVar(&o.k, "k", 0, "the clique size `K` to count (≥ 1; 1: vertices, 2: edges)")
	fs.IntVar(&o.workers, "workers", 0, "device workers per device for --engine gpu (0: sized from the device)")
	o.verify = fs.Lookup("verify")
}

func check(o *options) error {
	switch {
	case o.k == 0:
		return cli.Usagef("kcount needs -k K, the clique size to count")
	case o.k < 1:
		return cli.Usagef("-k must be ≥ 1, got %d", o.k)
	case o.workers < 0:
		return cli.Usagef("--workers must be ≥ 0")
	}
	return nil
}

func input(o *options, files []string, gs []*core.Graph) (*core.Graph, error) {
	if g := gs[0]; g.N > kcount.DeviceMaxVertices && o.workers > 0 {
		return nil, fmt.Errorf("%s: %d vertices; --workers is for the gpu engine, which takes at most %d", files[0], g.N, kcount.DeviceMaxVertices)
	}
	return gs[0], nil
}

func solve(s *cli.Session, o *options, g *core.Graph) (kcount.Result, error) {
	opts := kcount.Options{Engine: kcount.Engine(s.Engine.Name), Threads: s.Threads, Workers: o.workers}
	if s.Device != nil {
		opts.Devices = []backend.Device{s.Device}
	}
	return kcount.Count(s.Ctx, g, o.k, opts)
}

// verify is the guard every result passes: what is known without a
// search (k = 1 counts the vertices, k = 2 the edges, no count exceeds
// C(n, k)), and with --verify an independent recount.
func verify(o *options, g *core.Graph, r kcount.Result) error {
	if r.K != o.k {
		return fmt.Errorf("a count for k %d, asked for %d", r.K, o.k)
	}
	if r.Proven && (o.k == 1 && r.Count != uint64(g.N) || o.k == 2 && r.Count != uint64(simpleEdges(g))) {
		return fmt.Errorf("%d %d-cliques in a graph of %d vertices and %d edges", r.Count, o.k, g.N, simpleEdges(g))
	}
	if limit := new(big.Int).Binomial(int64(g.N), int64(o.k)); limit.Cmp(new(big.Int).SetUint64(r.Count)) < 0 {
		return fmt.Errorf("%d %d-cliques, more than C(%d, %d) = %s", r.Count, o.k, g.N, o.k, limit)
	}
	if o.verify != nil && o.verify.Value.String() == "true" {
		return kcount.Verify(context.Background(), g, r)
	}
	return nil
}

// simpleEdges is g's undirected edges without self-loops, either arc
// making one: what k = 2 counts.
func simpleEdges(g *core.Graph) int64 {
	var m int64
	for u := 0; u < g.N; u++ {
		for _, v := range g.Neighbors(u) {
			if int(v) > u || (g.Directed && int(v) < u && !g.HasEdge(int(v), u)) {
				m++
			}
		}
	}
	return m
}

// status says what the count is: exact, or a lower bound.
func status(r kcount.Result) string {
	if r.Proven {
		return "exact"
	}
	return "partial: stopped early, a lower bound"
}

func text(w io.Writer, s *cli.Session, o *options, g *core.Graph, r kcount.Result) error {
	workers := cli.Plural(r.Threads, "thread")
	if r.Device != "" {
		workers = cli.Plural(r.Threads, "device worker")
	}
	_, err := fmt.Fprintf(w, "count %d %d-cliques (%s)\nvertices %d, edges %d, degeneracy %d\nengine %s (%s), %s, %d nodes, %.3f s\n",
		r.Count, r.K, status(r), g.N, g.Edges(), r.Degeneracy, r.Engine, r.Why, workers, r.Nodes, s.Elapsed.Seconds())
	if err == nil && r.Device != "" {
		_, err = fmt.Fprintf(w, "device %s, %d epochs, %d tasks shared\n", r.Device, r.Epochs, r.Shared)
	}
	if err == nil && s.Verified {
		_, err = fmt.Fprintln(w, "verified by an independent recount")
	}
	return err
}

func line(s *cli.Session, o *options, g *core.Graph, r kcount.Result) string {
	return fmt.Sprintf("k %d count %d %s %.3f s", r.K, r.Count, map[bool]string{true: "exact", false: "partial"}[r.Proven], s.Elapsed.Seconds())
}

// result is the --json object (docs/schema/kcount.json).
type result struct {
	Files      []string `json:"files"`
	Vertices   int      `json:"vertices"`
	Edges      int      `json:"edges"`
	K          int      `json:"k"`
	Count      uint64   `json:"count"`
	Proven     bool     `json:"proven"`
	Degeneracy int      `json:"degeneracy"`
	cli.SearchReport
	Shared   int64 `json:"shared"`
	Verified bool  `json:"verified"`
}

func object(s *cli.Session, o *options, g *core.Graph, r kcount.Result) any {
	out := result{Files: s.Files, Vertices: g.N, Edges: g.Edges(), K: r.K, Count: r.Count, Proven: r.Proven, Degeneracy: r.Degeneracy,
		SearchReport: cli.SearchReport{Nodes: r.Nodes, Seconds: s.Elapsed.Seconds(), Threads: r.Threads,
			Engine: string(r.Engine), Why: r.Why, Device: r.Device, Epochs: r.Epochs},
		Shared: r.Shared, Verified: s.Verified}
	if r.Device != "" && s.Device != nil {
		out.Backend = s.Device.Info().Backend
	}
	return out
}

// parseAnswer reads arbor kcount --json into a bench answer: the count is
// its size.
func parseAnswer(out []byte) (bench.Answer, error) {
	var r result
	if err := json.Unmarshal(out, &r); err != nil {
		return bench.Answer{}, fmt.Errorf("kcount --json: %w", err)
	}
	if r.Count > math.MaxInt {
		return bench.Answer{}, fmt.Errorf("kcount --json: a count of %d does not fit a bench answer", r.Count)
	}
	dev := r.Device
	if r.Backend != "" {
		dev = r.Backend + ":" + r.Device
	}
	return bench.Answer{Size: int(r.Count), Proven: r.Proven, Nodes: r.Nodes, Seconds: r.Seconds, Device: dev,
		Engine: r.Why, Threads: r.Threads, Verified: r.Verified}, nil
}

// checkAnswer recounts the instance (its -k from the instance's Args) and
// compares: an exact count must equal the recount, a partial one must not
// exceed it.
func checkAnswer(in bench.Instance, a bench.Answer) error {
	k := 0
	for i := 0; i+1 < len(in.Args); i++ {
		if in.Args[i] == "-k" || in.Args[i] == "--k" {
			k, _ = strconv.Atoi(in.Args[i+1])
		}
	}
	if k < 1 || len(in.Files) != 1 {
		return errors.New("a kcount instance needs one graph file and -k K in its arguments")
	}
	g, err := core.ReadGraph(in.Files[0], core.ReadOptions{})
	if err != nil {
		return err
	}
	return kcount.Verify(context.Background(), g, kcount.Result{K: k, Count: uint64(a.Size), Proven: a.Proven})
}
