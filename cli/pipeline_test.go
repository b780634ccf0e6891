package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/core"
)

// edgeCount is a toy algorithm registered through Pipeline: the edges of
// a graph with both ends of degree ≥ K.
type edgeCountOpts struct{ k int }

func init() {
	Register(&Algorithm{
		Name: "edgecount-test", Summary: "a test of Pipeline", Synopsis: "GRAPH [-k K]",
		Engines:     []Engine{{Name: "cpu", Help: "count"}, {Name: "twice", Help: "count twice"}},
		ReadsGraphs: true,
		Run: Pipeline(Problem[edgeCountOpts, *core.Graph, int]{
			Flags: func(fs *flag.FlagSet, o *edgeCountOpts) { fs.IntVar(&o.k, "k", 0, "least degree `K`") },
			Check: func(o *edgeCountOpts) error {
				if o.k < 0 {
					return Usagef("-k must be ≥ 0")
				}
				return nil
			},
			Input: func(o *edgeCountOpts, files []string, gs []*core.Graph) (*core.Graph, error) { return gs[0], nil },
			Solve: func(s *Session, o *edgeCountOpts, g *core.Graph) (int, error) {
				n := 0
				for u := range g.N {
					for _, v := range g.Neighbors(u) {
						if int(v) > u && g.Degree(u) >= o.k && g.Degree(int(v)) >= o.k {
							n++
						}
					}
				}
				return n, nil
			},
			Verify: func(o *edgeCountOpts, g *core.Graph, n int) error {
				if n > g.Edges() {
					return fmt.Errorf("%d edges counted of %d", n, g.Edges())
				}
				return nil
			},
			Text: func(w io.Writer, s *Session, o *edgeCountOpts, g *core.Graph, n int) error {
				_, err := fmt.Fprintf(w, "count %d (engine %s)\n", n, s.Engine.Name)
				return err
			},
			JSON: func(s *Session, o *edgeCountOpts, g *core.Graph, n int) any {
				return map[string]any{"count": n, "verified": s.Verified}
			},
		}),
	})
}

func runToy(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	a, _ := Lookup("edgecount-test")
	err := a.Run(&Env{Ctx: context.Background(), Name: a.Name, Args: args, Stdout: &out, Stderr: &errb})
	return out.String(), errb.String(), err
}

func TestPipeline(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "g.clq")
	if err := os.WriteFile(g, []byte("p edge 4 4\ne 1 2\ne 2 3\ne 3 1\ne 3 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, err := runToy(t, g, "-k", "2"); err != nil || out != "count 3 (engine cpu)\n" {
		t.Errorf("text: %q, %v", out, err)
	}
	out, _, err := runToy(t, g, "--json", "--verify", "--engine", "twice")
	var j struct {
		Count    int  `json:"count"`
		Verified bool `json:"verified"`
	}
	if err != nil || json.Unmarshal([]byte(out), &j) != nil || j.Count != 4 || !j.Verified {
		t.Errorf("json: %q, %v", out, err)
	}
	for _, bad := range [][]string{{g, "-k", "-1"}, {g, "--engine", "gpu"}, {}, {g, g}} {
		if _, _, err := runToy(t, bad...); !IsUsage(err) {
			t.Errorf("%v: %v, want a usage error", bad, err)
		}
	}
	if _, _, err := runToy(t, filepath.Join(dir, "absent.clq")); err == nil || IsUsage(err) {
		t.Errorf("a missing file: %v", err)
	}
	list := filepath.Join(dir, "list.csv")
	if err := os.WriteFile(list, []byte("g.clq\nabsent.clq\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err = runToy(t, "--batch", list, "--json", "-k", "2")
	if err == nil || !strings.Contains(out, `"count":3`) || !strings.Contains(out, "absent.clq") {
		t.Errorf("batch: %q, %v (want a row for each line, and an error for the absent file)", out, err)
	}
}

func TestPipelineHelp(t *testing.T) {
	out, _, err := runToy(t, "-h")
	if err != ErrHelp || !strings.HasPrefix(out, "usage: arbor edgecount-test GRAPH [-k K]\n") || !strings.Contains(out, "-k K") || !strings.Contains(out, "-batch LIST") {
		t.Errorf("-h: %v\n%s", err, out)
	}
}
