package core

import (
	"bufio"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/internal/dataset"
)

// Tests on the shared benchmark files: counts must agree with the headers
// and the facts the data's README states.

func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, k := range recs[0] {
			m[k] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// checkCSR checks the invariants every reader promises.
func checkCSR(t *testing.T, g *Graph) {
	t.Helper()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestReadMIVIAData(t *testing.T) {
	dir := dataset.Require(t, "mcs/mivia")
	rows := readCSV(t, filepath.Join(dir, "expected.csv"))
	step := 1
	if testing.Short() {
		step = 10
	}
	files := 0
	for i := 0; i < len(rows); i += step {
		r := rows[i]
		for _, name := range []string{r["g"], r["h"]} {
			path := filepath.Join(dir, name)
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			d, err := ReadGraph(path, ReadOptions{Directed: true})
			if err != nil {
				t.Fatal(err)
			}
			if d.Format != FormatMIVIA || !d.Directed {
				t.Fatalf("%s: format %q directed %v", name, d.Format, d.Directed)
			}
			if d.N != atoi(t, r["n"]) {
				t.Fatalf("%s: N=%d, expected.csv says %d", name, d.N, atoi(t, r["n"]))
			}
			if want := int64(2 + 4*d.N + 4*d.Arcs()); st.Size() != want {
				t.Fatalf("%s: size %d, 2+4N+4·arcs = %d", name, st.Size(), want)
			}
			checkCSR(t, d)
			u, err := ReadGraph(path, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkCSR(t, u)
			if u.Directed || u.N != d.N || u.VertexLabels == nil || u.EdgeLabels == nil {
				t.Fatalf("%s: undirected reading wrong: %+v", name, u.Directed)
			}
			// Every arc of the file is an edge, and nothing else is.
			for v := 0; v < d.N; v++ {
				for _, w := range d.Neighbors(v) {
					if !u.HasEdge(v, int(w)) {
						t.Fatalf("%s: arc %d→%d lost in the undirected reading", name, v, w)
					}
				}
				for _, w := range u.Neighbors(v) {
					if !d.HasEdge(v, int(w)) && !d.HasEdge(int(w), v) {
						t.Fatalf("%s: edge %d–%d invented", name, v, w)
					}
					// The label rule: the arc out of the larger vertex wins.
					a, b := v, int(w)
					if a < b {
						a, b = b, a
					}
					src, dst := a, b
					if !d.HasEdge(src, dst) {
						src, dst = b, a
					}
					if u.EdgeLabels[u.ArcIndex(v, int(w))] != d.EdgeLabels[d.ArcIndex(src, dst)] {
						t.Fatalf("%s: label of %d–%d is not the one of arc %d→%d", name, v, w, src, dst)
					}
				}
			}
			files++
		}
	}
	t.Logf("%d MIVIA files read both ways", files)
	// The 4D meshes of mcs90 have self-loops (found with a separate script):
	// they are kept, as McSplit gives them meaning.
	g, err := ReadGraph(filepath.Join(dir, "mcs90_m4D_s100.A00"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !g.HasEdge(28, 28) || g.Stats().SelfLoops < 1 || len(g.Notes) == 0 {
		t.Fatalf("mcs90_m4D_s100.A00: self-loop at vertex 28 lost (notes %q)", g.Notes)
	}
}

func TestReadPACEData(t *testing.T) {
	dir := dataset.Require(t, "vc/pace2019")
	rows := readCSV(t, filepath.Join(dir, "optima.csv"))
	if len(rows) != 100 {
		t.Fatalf("optima.csv has %d rows, want 100", len(rows))
	}
	for _, r := range rows {
		g, err := ReadGraph(filepath.Join(dir, r["instance"]+".gr"), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Some instances list edges twice; M counts records.
		if g.Format != FormatPACE || g.N != atoi(t, r["n"]) || g.Edges()+g.Repeated != atoi(t, r["m"]) || g.Base != 1 {
			t.Fatalf("%s: %s n=%d m=%d+%d base %d; optima.csv says n=%s m=%s", r["instance"], g.Format, g.N, g.Edges(), g.Repeated, g.Base, r["n"], r["m"])
		}
		if r["instance"] == "vc-exact_003" && g.Repeated != 25802 {
			t.Fatalf("vc-exact_003: %d repeats, want 25802 (counted with awk)", g.Repeated)
		}
		checkCSR(t, g)
	}
}

func TestReadBHOSLIBData(t *testing.T) {
	dir := dataset.Require(t, "vc/bhoslib")
	f, err := os.Open(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	read := 0
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "|")
		if len(cols) < 5 || !strings.HasSuffix(strings.TrimSpace(cols[1]), ".mis") {
			continue
		}
		name := strings.TrimSpace(cols[1])
		if testing.Short() && name == "frb100-40.mis" {
			continue
		}
		g, err := ReadGraph(filepath.Join(dir, name), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n, m := atoi(t, cols[2]), atoi(t, cols[3])
		if g.Format != FormatDIMACS || g.N != n || g.Edges() != m || len(g.Notes) != 0 {
			t.Fatalf("%s: %s n=%d m=%d notes %q; README says n=%d m=%d", name, g.Format, g.N, g.Edges(), g.Notes, n, m)
		}
		checkCSR(t, g)
		// Each block of K vertices is a clique (the README's construction).
		k := atoi(t, strings.Split(strings.TrimSuffix(name, ".mis"), "-")[1])
		for v := 0; v < k; v++ {
			for u := 0; u < k; u++ {
				if u != v && !g.HasEdge(u, v) {
					t.Fatalf("%s: block 1 is not a clique: %d–%d missing", name, u+1, v+1)
				}
			}
		}
		read++
	}
	if read < 40 {
		t.Fatalf("read %d BHOSLIB files from the README table, want ≥ 40", read)
	}
}

func TestReadYamoutData(t *testing.T) {
	dir := dataset.Require(t, "vc/yamout2022")
	rows := readCSV(t, filepath.Join(dir, "optima.csv"))
	for _, r := range rows {
		path := filepath.Join(dir, r["file"])
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		hdr := strings.Fields(string(data[:strings.IndexByte(string(data), '\n')]))
		n, m := atoi(t, hdr[0]), atoi(t, hdr[1])
		g, err := ReadGraph(path, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkCSR(t, g)
		if g.Format != FormatEdgeList || g.N != n || g.Edges() != m || g.Base != 0 {
			t.Fatalf("%s: %s n=%d m=%d base %d; header says %d %d", r["file"], g.Format, g.N, g.Edges(), g.Base, n, m)
		}
		spare := g.Degree(0) == 0
		if spare != (len(g.Notes) == 1) {
			t.Fatalf("%s: vertex 0 degree %d but notes %q", r["file"], g.Degree(0), g.Notes)
		}
		// Forcing 1-based must agree with the spare-vertex layout: it
		// fails exactly when vertex 0 is used.
		g1, err := ReadGraph(path, ReadOptions{Format: FormatEdgeList1})
		if spare {
			if err != nil || g1.N != n || g1.Edges() != m || g1.Base != 1 {
				t.Fatalf("%s as edgelist1: %v", r["file"], err)
			}
		} else if err == nil {
			t.Fatalf("%s as edgelist1: no error although vertex 0 occurs", r["file"])
		}
	}
}

func TestReadMatrixMarketData(t *testing.T) {
	dir := dataset.Require(t, "matching/suitesparse")
	for _, c := range []struct {
		name       string
		n, m, diag int
		intWeights bool
	}{
		{"karate.mtx", 34, 78, 0, true},
		{"football.mtx", 115, 613, 0, true},
		{"USAir97.mtx", 332, 2126, 0, false},
		{"delaunay_n10.mtx", 1024, 3056, 0, true},
		{"jagmesh7.mtx", 1138, 3156, 1138, true},
	} {
		g, err := ReadGraph(filepath.Join(dir, c.name), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkCSR(t, g)
		if g.Format != FormatMTX || g.Directed || g.N != c.n || g.Edges() != c.m || g.IntWeights != c.intWeights || g.Weights == nil {
			t.Fatalf("%s: %s n=%d m=%d directed %v int %v", c.name, g.Format, g.N, g.Edges(), g.Directed, g.IntWeights)
		}
		if (c.diag > 0) != (len(g.Notes) > 0) {
			t.Fatalf("%s: notes %q", c.name, g.Notes)
		}
	}
	cs := dataset.Require(t, "matching/cs314")
	for i := 1; i <= 4; i++ {
		path := filepath.Join(cs, "input"+strconv.Itoa(i)+".mtx")
		g, err := ReadGraph(path, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkCSR(t, g)
		// strongN.txt has one line per vertex.
		strong, err := os.ReadFile(filepath.Join(cs, "strong"+strconv.Itoa(i)+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		if lines := strings.Count(strings.TrimSpace(string(strong)), "\n") + 1; lines != g.N {
			t.Fatalf("%s: N=%d but strong%d.txt has %d lines", path, g.N, i, lines)
		}
		if g.IntWeights {
			t.Fatalf("%s: real file read with IntWeights", path)
		}
	}
}
