package kcountcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/internal/bench"
	"github.com/arbor-gpu/arbor/internal/testfile"
)

// k4plus is K4 on 1..4 with a pendant path 4–5–6 (DIMACS): 4 vertices of
// a 4-clique, 4 triangles, 8 edges.
const k4plus = "p edge 6 8\ne 1 2\ne 1 3\ne 1 4\ne 2 3\ne 2 4\ne 3 4\ne 4 5\ne 5 6\n"

func graphFile(t *testing.T) string {
	t.Helper()
	return testfile.Write(t, t.TempDir(), "k4plus.clq", k4plus)
}

// run runs arbor kcount with args as the registry has it.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	a, ok := cli.Lookup("kcount")
	if !ok {
		t.Fatal("kcount is not registered")
	}
	var out, errb bytes.Buffer
	err := a.Run(&cli.Env{Ctx: context.Background(), Name: "kcount", Args: args, Stdout: &out, Stderr: &errb})
	return out.String(), err
}

// schemaCheck checks a --json object against kcount.json (the schema):
// every required field present, no field the schema lacks, integers and
// booleans where it says so.
func schemaCheck(t *testing.T, out string) map[string]any {
	t.Helper()
	var sch struct {
		Properties map[string]struct{ Type any } `json:"properties"`
		Required   []string                      `json:"required"`
	}
	if err := json.Unmarshal(schema, &sch); err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, r := range sch.Required {
		if _, ok := v[r]; !ok {
			t.Errorf("required field %q missing: %s", r, out)
		}
	}
	for k, x := range v {
		p, ok := sch.Properties[k]
		if !ok {
			t.Errorf("field %q is not in docs/schema/kcount.json", k)
			continue
		}
		switch p.Type {
		case "integer":
			if f, ok := x.(float64); !ok || f != float64(int64(f)) {
				t.Errorf("field %q = %v is not an integer", k, x)
			}
		case "boolean":
			if _, ok := x.(bool); !ok {
				t.Errorf("field %q = %v is not a boolean", k, x)
			}
		case "string":
			if _, ok := x.(string); !ok {
				t.Errorf("field %q = %v is not a string", k, x)
			}
		}
	}
	return v
}

func TestCommand(t *testing.T) {
	g := graphFile(t)
	for k, want := range map[string]float64{"1": 6, "2": 8, "3": 4, "4": 1, "5": 0, "40": 0} {
		for _, engine := range [][]string{{"--engine", "cpu"}, {"--engine", "gpu", "--backend", "cpu", "--workers", "3"}} {
			out, err := run(t, append([]string{g, "-k", k, "--json", "--verify"}, engine...)...)
			if err != nil {
				t.Fatalf("-k %s %v: %v", k, engine, err)
			}
			v := schemaCheck(t, out)
			if v["count"] != want || v["proven"] != true || v["verified"] != true || v["engine"] != engine[1] {
				t.Errorf("-k %s %v: %s, want count %v, proven, verified", k, engine, out, want)
			}
		}
	}
	out, err := run(t, g, "-k", "3")
	if err != nil || !strings.HasPrefix(out, "count 4 3-cliques (exact)\n") {
		t.Errorf("text: %q, %v", out, err)
	}
	for _, bad := range [][]string{{g}, {g, "-k", "0"}, {g, "-k", "-2"}, {g, "-k", "3", "--engine", "fpga"}, {g, "-k", "3", "--workers", "-1"}, {"-k", "3"}} {
		if _, err := run(t, bad...); !cli.IsUsage(err) {
			t.Errorf("%v: %v, want a usage error", bad, err)
		}
	}
	if _, err := run(t, filepath.Join(t.TempDir(), "absent.clq"), "-k", "3"); err == nil || cli.IsUsage(err) {
		t.Errorf("a missing file: %v", err)
	}
}

// TestCommandTimeout: a timeout prints a partial count, unproven, with a
// nil error (exit status 0).
func TestCommandTimeout(t *testing.T) {
	p := filepath.Join(t.TempDir(), "g.txt")
	var b strings.Builder
	m := 0
	// Dense and deterministic: i~j when (i·j + i + j) mod 5 < 3.
	for i := 0; i < 150; i++ {
		for j := i + 1; j < 150; j++ {
			if (i*j+i+j)%5 < 3 {
				fmt.Fprintf(&b, "%d %d\n", i, j)
				m++
			}
		}
	}
	if err := os.WriteFile(p, []byte(fmt.Sprintf("150 %d\n", m)+b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, p, "-k", "12", "--timeout", "1ms", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if v := schemaCheck(t, out); v["proven"] != false {
		t.Errorf("a 1 ms timeout: %s, want proven false", out)
	}
}

// TestBenchHooks: the bench problem is registered under the command's
// name; its parser reads the command's --json and its check accepts the
// right count and rejects a wrong one.
func TestBenchHooks(t *testing.T) {
	a, _ := cli.Lookup("kcount")
	if a.Bench == nil || a.Bench.Kind != "kcount" || !slices.Equal(a.Bench.Engines, []string{"cpu", "gpu"}) || !slices.Equal(a.Bench.DeviceEngines, []string{"gpu"}) {
		t.Fatalf("bench problem: %+v", a.Bench)
	}
	g := graphFile(t)
	out, err := run(t, g, "-k", "3", "--json")
	if err != nil {
		t.Fatal(err)
	}
	ans, err := a.Bench.Parse([]byte(out))
	if err != nil || ans.Size != 4 || !ans.Proven {
		t.Fatalf("parsed %+v, %v", ans, err)
	}
	in := bench.Instance{Name: "k4plus", Kind: "kcount", Files: []string{g}, Args: []string{"-k", "3"}}
	if err := a.Bench.Check(in, ans); err != nil {
		t.Errorf("the right count: %v", err)
	}
	ans.Size = 5
	if err := a.Bench.Check(in, ans); err == nil {
		t.Error("a wrong count passed the check")
	}
	ans.Proven, ans.Size = false, 3
	if err := a.Bench.Check(in, ans); err != nil {
		t.Errorf("a partial count below the true one: %v", err)
	}
	if err := a.Bench.Check(bench.Instance{Files: []string{g}}, ans); err == nil {
		t.Error("an instance without -k passed the check")
	}
}
