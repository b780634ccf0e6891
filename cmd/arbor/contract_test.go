package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/algorithms/clique"
	cliquecmd "github.com/arbor-gpu/arbor/algorithms/clique/command"
	"github.com/arbor-gpu/arbor/algorithms/mcs"
	mcscmd "github.com/arbor-gpu/arbor/algorithms/mcs/command"
	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	vccmd "github.com/arbor-gpu/arbor/algorithms/vertexcover/command"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// runStdin is runCLI with standard input.
func runStdin(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runIO(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// goalResult is the verdict part of every solver's JSON.
type goalResult struct {
	Size    *int   `json:"size"`
	Status  string `json:"status"`
	Proven  bool   `json:"proven"`
	Goal    *int   `json:"goal"`
	GoalMet *bool  `json:"goal_met"`
}

func (r goalResult) String() string {
	s := fmt.Sprintf("status %s proven %v", r.Status, r.Proven)
	if r.Size != nil {
		s += fmt.Sprintf(" size %d", *r.Size)
	}
	if r.Goal != nil {
		s += fmt.Sprintf(" goal %d", *r.Goal)
	}
	if r.GoalMet != nil {
		s += fmt.Sprintf(" goal_met %v", *r.GoalMet)
	}
	return s
}

// TestGoalAboveOptimum is issue #32's wrong "proven": a goal above the
// optimum is answered "infeasible", proven, with no solution; at the
// optimum "optimal" with the goal met. mcs (CPU and device engines) and
// clique (device engine, the CPU backend's twin).
func TestGoalAboveOptimum(t *testing.T) {
	paths, _ := demoPairFiles(t)
	opt := runJSON[goalResult](t, "mcs", paths[0], paths[1], "--json")
	if opt.Status != "optimal" || !opt.Proven || opt.Size == nil || opt.Goal != nil || opt.GoalMet != nil {
		t.Fatalf("plain run: %v", opt)
	}
	best := *opt.Size
	for _, engine := range []string{"cpu", "gpu"} {
		above := runJSON[goalResult](t, "mcs", paths[0], paths[1], "--json", "--engine", engine, "--backend", "cpu", "--goal", fmt.Sprint(best+1), "--require-optimal")
		if above.Status != "infeasible" || !above.Proven || above.Size != nil || *above.Goal != best+1 || *above.GoalMet {
			t.Errorf("%s: goal %d above the optimum %d: %v", engine, best+1, best, above)
		}
		at := runJSON[goalResult](t, "mcs", paths[0], paths[1], "--json", "--engine", engine, "--backend", "cpu", "--goal", fmt.Sprint(best))
		if at.Status != "optimal" || !at.Proven || *at.Size != best || !*at.GoalMet {
			t.Errorf("%s: goal %d at the optimum: %v", engine, best, at)
		}
	}
	code, out, stderr := runCLI(t, "mcs", paths[0], paths[1], "--goal", fmt.Sprint(best+1))
	want := fmt.Sprintf("size none  no common subgraph of ≥ %d vertices (proven)", best+1)
	if code != 0 || !strings.Contains(out, want) || strings.Contains(out, "proven maximum") {
		t.Errorf("text: exit %d, want %q:\n%s%s", code, want, out, stderr)
	}

	// clique: the same on a 5-cycle with a chord (ω = 3).
	gr := writeTemp(t, "c.gr", "p td 5 6\n1 2\n2 3\n3 4\n4 5\n5 1\n1 3\n")
	cl := runJSON[goalResult](t, "clique", gr, "--json", "--engine", "gpu", "--backend", "cpu", "--goal", "4")
	// (the device search may report a smaller clique it holds: it says
	// so as the best found, with the proof that none reaches 4)
	if cl.Status != "infeasible" || !cl.Proven || (cl.Size != nil && *cl.Size >= 4) || *cl.GoalMet {
		t.Errorf("clique --goal 4 of ω 3: %v", cl)
	}
	cl = runJSON[goalResult](t, "clique", gr, "--json", "--engine", "gpu", "--backend", "cpu", "--goal", "3")
	if cl.Status != "optimal" || *cl.Size != 3 || !*cl.GoalMet {
		t.Errorf("clique --goal 3 of ω 3: %v", cl)
	}
	if code, out, _ := runCLI(t, "clique", gr, "--engine", "gpu", "--backend", "cpu", "--goal", "4"); code != 0 || !strings.Contains(out, "no clique of ≥ 4 vertices (proven)") {
		t.Errorf("clique text: exit %d\n%s", code, out)
	}

	// vc -k: no sentinel size; below the minimum infeasible, at it met.
	vg := writeTemp(t, "c5.gr", vcTestGraph)
	code, out, _ = runCLI(t, "vc", vg, "-k", "2", "--json")
	if code != 0 || strings.Contains(out, `"size"`) || strings.Contains(out, "-1") {
		t.Errorf("vc -k 2: exit %d, a size or a -1 in %s", code, out)
	}
	var none goalResult
	if json.Unmarshal([]byte(out), &none) != nil || none.Status != "infeasible" || !none.Proven || *none.Goal != 2 || *none.GoalMet {
		t.Errorf("vc -k 2: %v", none)
	}
	met := runJSON[goalResult](t, "vc", vg, "-k", "3", "--json", "--require-optimal")
	if *met.Size != 3 || !*met.GoalMet || (met.Status == "optimal") != met.Proven || met.Status == "infeasible" {
		t.Errorf("vc -k 3: %v", met)
	}
	met = runJSON[goalResult](t, "vc", vg, "-k", "0", "--json")
	if met.Goal == nil || *met.Goal != 0 || met.Status != "infeasible" {
		t.Errorf("vc -k 0: %v (a goal of 0 is a goal)", met)
	}
}

// TestGoalMIVIA is the issue's own reproduction: optimum 17, goal 18.
func TestGoalMIVIA(t *testing.T) {
	dir := dataset.Require(t, "mcs/mivia")
	a, b := filepath.Join(dir, "mcs10_r005_s20.A00"), filepath.Join(dir, "mcs10_r005_s20.B00")
	r := runJSON[goalResult](t, "mcs", a, b, "--goal", "18", "--json")
	if r.Status != "infeasible" || !r.Proven || r.Size != nil || *r.GoalMet {
		t.Fatalf("goal 18 of optimum 17: %v", r)
	}
	r = runJSON[goalResult](t, "mcs", a, b, "--goal", "17", "--json")
	if r.Status != "optimal" || *r.Size != 17 {
		t.Fatalf("goal 17 of optimum 17: %v", r)
	}
}

// TestGuard: a result that contradicts what is known without search is
// an internal error, never an answer; right ones pass.
func TestGuard(t *testing.T) {
	b := core.NewBuilder(3, false)
	b.AddEdge(0, 1)
	b.AddEdge(1, 2)
	path, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	opts := mcs.Options{}
	ok := mcs.Result{Size: 3, Mapping: [][2]int{{0, 0}, {1, 1}, {2, 2}}, Proven: true, Status: core.StatusOptimal}
	if err := mcscmd.GuardMCS(path, path, ok, opts); err != nil {
		t.Errorf("a right MCS: %v", err)
	}
	for name, r := range map[string]mcs.Result{
		"size 0 proven":              {Proven: true, Status: core.StatusOptimal},
		"proven none reaching 1":     {Proven: true, Status: core.StatusInfeasible},
		"proven with a size above":   {Size: 3, Mapping: ok.Mapping, Proven: true, Status: core.StatusInfeasible},
		"not a common subgraph":      {Size: 2, Mapping: [][2]int{{0, 0}, {2, 1}}, Proven: true, Status: core.StatusOptimal},
		"size without the mapping":   {Size: 3, Mapping: ok.Mapping[:2], Proven: true, Status: core.StatusOptimal},
		"unproven but says optimal":  {Size: 3, Mapping: ok.Mapping, Status: core.StatusOptimal},
		"proven but says feasible":   {Size: 3, Mapping: ok.Mapping, Proven: true, Status: core.StatusFeasible},
		"status missing altogether":  {Size: 3, Mapping: ok.Mapping, Proven: true},
		"mapped twice on one side":   {Size: 2, Mapping: [][2]int{{0, 0}, {0, 1}}, Proven: true, Status: core.StatusOptimal},
		"a vertex outside the graph": {Size: 1, Mapping: [][2]int{{3, 0}}, Proven: true, Status: core.StatusOptimal},
	} {
		o := opts
		if name == "proven none reaching 1" || name == "proven with a size above" {
			o.Goal = 1
		}
		if err := mcscmd.GuardMCS(path, path, r, o); err == nil || !strings.Contains(err.Error(), "internal error") {
			t.Errorf("MCS %s: guard says %v", name, err)
		}
	}
	// Labels that differ everywhere: size 0 is right.
	lg, lh := labelled(t, 1), labelled(t, 2)
	if err := mcscmd.GuardMCS(lg, lh, mcs.Result{Proven: true, Status: core.StatusOptimal}, mcs.Options{VertexLabels: true}); err != nil {
		t.Errorf("MCS of disjoint labels, size 0: %v", err)
	}

	if err := cliquecmd.GuardClique(path, clique.Result{Size: 2, Clique: []int{0, 1}, UpperBound: 2, Proven: true, Status: core.StatusOptimal}, clique.Options{}); err != nil {
		t.Errorf("a right clique: %v", err)
	}
	for name, c := range map[string]struct {
		R    clique.Result
		opts clique.Options
	}{
		"size 1 in a graph with an edge":     {clique.Result{Size: 1, Clique: []int{0}, UpperBound: 1, Proven: true, Status: core.StatusOptimal}, clique.Options{}},
		"size 0 in a graph with a vertex":    {clique.Result{UpperBound: 0, Proven: true, Status: core.StatusOptimal}, clique.Options{}},
		"not a clique":                       {clique.Result{Size: 2, Clique: []int{0, 2}, UpperBound: 2, Proven: true, Status: core.StatusOptimal}, clique.Options{}},
		"complement: size 1 with a non-edge": {clique.Result{Size: 1, Clique: []int{0}, UpperBound: 1, Proven: true, Status: core.StatusOptimal}, clique.Options{Complement: true}},
		"above its own bound":                {clique.Result{Size: 2, Clique: []int{0, 1}, UpperBound: 1, Proven: true, Status: core.StatusOptimal}, clique.Options{}},
	} {
		if err := cliquecmd.GuardClique(path, c.R, c.opts); err == nil {
			t.Errorf("clique %s: passed the guard", name)
		}
	}

	// vc: the path's minimum cover is {1}; a matching of 1 edge.
	if err := vccmd.GuardVC(path, vertexcover.Result{Cover: []int{1}, Proven: true, Status: core.StatusOptimal}, -1); err != nil {
		t.Errorf("a right cover: %v", err)
	}
	c5, err := core.ParseGraph(strings.NewReader(vcTestGraph), "c5.gr", core.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		R vertexcover.Result
		k int
	}{
		"not a cover":                {vertexcover.Result{Cover: []int{0}, Proven: true, Status: core.StatusOptimal}, -1},
		"below a maximal matching":   {vertexcover.Result{Cover: []int{}, Proven: true, Status: core.StatusOptimal}, -1},
		"none of ≤ k where 2|M| ≤ k": {vertexcover.Result{Proven: true, Status: core.StatusInfeasible}, 6},
		"a cover above k":            {vertexcover.Result{Cover: []int{0, 1, 2, 3, 4}, Proven: true, Status: core.StatusFeasible}, 3},
		"no cover in minimum mode":   {vertexcover.Result{Status: core.StatusFeasible}, -1},
	} {
		if err := vccmd.GuardVC(c5, c.R, c.k); err == nil {
			t.Errorf("vc %s: passed the guard", name)
		}
	}
}

// labelled is one vertex labelled l.
func labelled(t *testing.T, l int32) *core.Graph {
	t.Helper()
	b := core.NewBuilder(1, false)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	g.VertexLabels = []int32{l}
	return g
}

// TestRequireOptimal: exit 3 only when the question asked was not
// settled; the answer is printed either way.
func TestRequireOptimal(t *testing.T) {
	g, h, _ := demoPair(t)
	paths := writeGraphs(t, core.FormatMIVIA, "mivia", g, h, g)
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"mcs", paths[0], paths[1], "--require-optimal"}, 0},
		{[]string{"mcs", paths[0], paths[1], "--require-optimal", "--goal", "1000"}, 0}, // proven none: settled
		{[]string{"mcs", paths[0], paths[1], "--require-optimal", "--timeout", "1ns"}, 3},
		{[]string{"mcs", paths[0], paths[1], "--timeout", "1ns"}, 0},
		{[]string{"mcs", paths[0], paths[1], paths[2], "--approximate", "--require-optimal", "--json"}, 3},
		{[]string{"clique", paths[0], "--require-optimal", "--timeout", "1ns", "--json"}, 3},
		{[]string{"clique", paths[0], "--require-optimal", "--json"}, 0},
		{[]string{"vc", writeTemp(t, "c5.gr", vcTestGraph), "--require-optimal", "-k", "2"}, 0},
	} {
		code, out, stderr := runCLI(t, c.args...)
		if code != c.code {
			t.Errorf("arbor %v: exit %d, want %d (stderr %q)", c.args, code, c.code, stderr)
		}
		if !strings.Contains(out, "size") {
			t.Errorf("arbor %v: no answer printed: %q", c.args, out)
		}
		if c.code == 3 && !strings.Contains(stderr, "--require-optimal") {
			t.Errorf("arbor %v: stderr does not say why: %q", c.args, stderr)
		}
	}
}

// TestNumbering: every command prints the file's own numbering, or from
// 0 with --zero-based; the printed ids check against the graph.
func TestNumbering(t *testing.T) {
	g, h, _ := demoPair(t)
	for _, c := range []struct {
		Format, ext string
		Base        int
	}{{core.FormatPACE, "gr", 1}, {core.FormatMIVIA, "mivia", 0}} {
		paths := writeGraphs(t, c.Format, c.ext, g, h)
		for _, zero := range []bool{false, true} {
			args := []string{"mcs", paths[0], paths[1], "--json"}
			base := c.Base
			if zero {
				args, base = append(args, "--zero-based"), 0
			}
			r := runJSON[struct {
				Base    []int    `json:"base"`
				Mapping [][2]int `json:"mapping"`
			}](t, args...)
			if len(r.Base) != 2 || r.Base[0] != base || r.Base[1] != base {
				t.Errorf("%s zero %v: base %v, want %d", c.Format, zero, r.Base, base)
			}
			if err := mcs.Verify(g, h, cli.ShiftedPairs(r.Mapping, -base, -base), mcs.Options{}); err != nil {
				t.Errorf("%s zero %v: the mapping less %d fails the checker: %v", c.Format, zero, base, err)
			}
		}
	}
	// vc and clique: a MIVIA (0-based) graph gives 0-based vertices.
	paths := writeGraphs(t, core.FormatMIVIA, "mivia", g)
	vc := runJSON[struct {
		Cover []int `json:"cover"`
	}](t, "vc", paths[0], "--json")
	if err := vertexcover.Verify(g, vc.Cover); err != nil {
		t.Errorf("vc of a 0-based file: %v", err)
	}
	// match: partners in the file's numbering, -1 unmatched.
	mtx := writeTemp(t, "p.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 2 1\n2 3 5\n")
	for _, c := range []struct {
		zero bool
		want string
	}{{false, "-1\n3\n2\n"}, {true, "-1\n2\n1\n"}} {
		args := []string{"match", mtx, "--backend", "cpu"}
		if c.zero {
			args = append(args, "--zero-based")
		}
		if code, out, stderr := runCLI(t, args...); code != 0 || out != c.want {
			t.Errorf("match zero %v: exit %d, %q, want %q (%s)", c.zero, code, out, c.want, stderr)
		}
	}
}

// TestStdinAndOutputFiles: "-" reads standard input in every command
// that reads a graph; -o writes atomically, with the status inside.
func TestStdinAndOutputFiles(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"info", "-"},
		{"vc", "-"},
		{"clique", "-"},
		{"match", "-", "--backend", "cpu"},
		{"mcs", "-", writeTemp(t, "c5.gr", vcTestGraph)},
	} {
		code, out, stderr := runStdin(t, vcTestGraph, args...)
		if code != 0 || out == "" {
			t.Errorf("arbor %v from stdin: exit %d, %q %q", args, code, out, stderr)
		}
	}
	if code, _, stderr := runStdin(t, vcTestGraph, "mcs", "-", "-"); code != 2 || !strings.Contains(stderr, "only once") {
		t.Errorf("mcs - -: exit %d, %q", code, stderr)
	}

	g, h, _ := demoPair(t)
	paths := writeGraphs(t, core.FormatPACE, "gr", g, h, g)
	gr := writeTemp(t, "c5.gr", vcTestGraph)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"mcs", paths[0], paths[1]}, []string{"# arbor mcs: size ", "status optimal\n"}},
		{[]string{"mcs", paths[0], paths[1], paths[2], "--approximate"}, []string{"status feasible (not proven)"}},
		{[]string{"clique", gr}, []string{"# arbor clique: size 2, status optimal\n"}},
		{[]string{"clique", gr, "--timeout", "1ns"}, []string{"(not proven)"}},
		{[]string{"vc", gr}, []string{"c arbor vc: status optimal\ns vc 6 3\n"}},
		{[]string{"vc", gr, "-k", "5"}, []string{"c arbor vc: status ", "c goal: a cover of at most 5 vertices, met true\ns vc 6 "}},
		{[]string{"match", gr, "--backend", "cpu"}, []string{"\n"}},
	} {
		file := filepath.Join(dir, c.args[0]+".out")
		if err := os.WriteFile(file, []byte("an earlier result\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, append(c.args, "-o", file)...)
		data, _ := os.ReadFile(file)
		for _, w := range c.want {
			if code != 0 || !strings.Contains(string(data), w) {
				t.Errorf("arbor %v -o: exit %d, file %q lacks %q (%s)", c.args, code, data, w, stderr)
			}
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// Devices are written in place, never renamed over.
	if code, _, stderr := runCLI(t, "vc", gr, "-o", os.DevNull); code != 0 {
		t.Errorf("-o /dev/null: exit %d %s", code, stderr)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode().IsRegular() {
		t.Fatalf("/dev/null is no longer a device: %v", err)
	}
	// A folder that does not exist: exit 1, naming it.
	if code, _, stderr := runCLI(t, "vc", gr, "-o", filepath.Join(dir, "no", "such.sol")); code != 1 || !strings.Contains(stderr, "such.sol") {
		t.Errorf("-o into a missing folder: exit %d, %q", code, stderr)
	}
}

// TestHelpAndQuiet: -h and help CMD on stdout with exit 0, --version,
// and no device line on stderr unless -v.
func TestHelpAndQuiet(t *testing.T) {
	for _, cmd := range []string{"mcs", "vc", "clique", "match", "info", "bench", "generate", "devices", "verify", "kernels", "demo", "version", "worker", "server"} {
		for _, args := range [][]string{{cmd, "-h"}, {cmd, "--help"}, {"help", cmd}} {
			code, out, stderr := runCLI(t, args...)
			if code != 0 || !strings.Contains(out, "usage: arbor "+cmd) || stderr != "" {
				t.Errorf("arbor %v: exit %d, stdout %.80q, stderr %q", args, code, out, stderr)
			}
		}
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		if code, out, stderr := runCLI(t, args...); code != 0 || !strings.Contains(out, "commands:") || stderr != "" {
			t.Errorf("arbor %v: exit %d, %q %q", args, code, out, stderr)
		}
	}
	if code, out, _ := runCLI(t, "--version"); code != 0 || !strings.HasPrefix(out, "arbor ") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
	if code, _, stderr := runCLI(t, "help", "nonsense"); code != 2 || stderr == "" {
		t.Errorf("help nonsense: exit %d, %q", code, stderr)
	}
	if code, out, stderr := runCLI(t, "mcs", "--bogus"); code != 2 || out != "" || !strings.Contains(stderr, "bogus") || strings.Contains(stderr, "usage:") {
		t.Errorf("a bad flag: exit %d, stdout %q, stderr %q (want a one-line usage error)", code, out, stderr)
	}

	gr := writeTemp(t, "c5.gr", vcTestGraph)
	paths, _ := demoPairFiles(t)
	for _, args := range [][]string{
		{"mcs", paths[0], paths[1], "--engine", "gpu", "--backend", "cpu"},
		{"clique", gr, "--engine", "gpu", "--backend", "cpu"},
		{"vc", gr, "--engine", "gpu", "--backend", "cpu"},
		{"match", gr, "--backend", "cpu", "--json"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 0 || stderr != "" {
			t.Errorf("arbor %v: exit %d, stderr %q (want quiet)", args, code, stderr)
		}
		if code, _, stderr := runCLI(t, append(args, "-v")...); code != 0 || !strings.Contains(stderr, "arbor: using cpu:0") {
			t.Errorf("arbor %v -v: exit %d, stderr %q (want the device)", args, code, stderr)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		N    int
		word string
		want string
	}{{1, "run", "1 run"}, {0, "run", "0 runs"}, {2, "pass", "2 passes"}, {1, "vertex", "1 vertex"}, {3, "vertex", "3 vertices"}, {1, "argument", "1 argument"}} {
		if got := cli.Plural(c.N, c.word); got != c.want {
			t.Errorf("plural(%d, %q) = %q, want %q", c.N, c.word, got, c.want)
		}
	}
	if code, _, stderr := runCLI(t, "mcs", "only-one"); code != 2 || !strings.Contains(stderr, "got 1 argument)") {
		t.Errorf("mcs with one file: exit %d, %q", code, stderr)
	}
}

// TestNoSentinels: absent means unknown. info leaves out the label
// counts of a graph without labels and gives them where there are some.
func TestNoSentinels(t *testing.T) {
	plain := writeTemp(t, "p.gr", vcTestGraph)
	labelled := writeTemp(t, "l.clq", "p edge 3 2\nn 1 7\nn 2 8\ne 1 2\ne 2 3\n")
	code, out, _ := runCLI(t, "info", plain, "--json")
	if code != 0 || strings.Contains(out, "vertex_labels") || strings.Contains(out, "edge_labels") || strings.Contains(out, "-1") {
		t.Errorf("info of an unlabelled graph: exit %d\n%s", code, out)
	}
	r := runJSON[struct {
		VertexLabels *int `json:"vertex_labels"`
	}](t, "info", labelled, "--json")
	if r.VertexLabels == nil || *r.VertexLabels < 2 {
		t.Errorf("info of a labelled graph: vertex_labels %v", r.VertexLabels)
	}
	if code, out, _ := runCLI(t, "version", "--json"); code != 0 || !strings.HasPrefix(out, `{"version":`) {
		t.Errorf("version --json: exit %d, %q", code, out)
	}
}
