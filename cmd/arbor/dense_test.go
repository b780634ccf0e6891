package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileHeaders are tiny files of every reader format whose header claims
// far more vertices than the file holds: the text formats 100 000 vertices
// and one edge (valid, so a command reads them and goes on to build what
// it builds), LAD and MIVIA as many as their headers can say, without the
// per-vertex records that follow (so their readers refuse them).
func hostileHeaders(t *testing.T) map[string]string {
	dir := t.TempDir()
	mivia := make([]byte, 2)
	binary.LittleEndian.PutUint16(mivia, 65535)
	files := map[string][]byte{
		"dimacs.clq": []byte("p edge 100000 1\ne 1 2\n"),
		"pace.gr":    []byte("p td 100000 1\n1 2\n"),
		"mtx.mtx":    []byte("%%MatrixMarket matrix coordinate pattern symmetric\n100000 100000 1\n2 1\n"),
		"edges.txt":  []byte("100000 1\n0 1\n"),
		"graph.lad":  []byte("100000\n1 1\n1 0\n"),
		"vl.lad":     []byte("100000\n7 1 1\n7 1 0\n"),
		"graph.A00":  mivia,
	}
	out := map[string]string{}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	return out
}

// TestHostileHeaderDense: for a tiny file of every format with a hostile
// header, every command that builds an n² structure from the graph (vc
// --complement's complement, clique's bit matrices with and without
// --complement, mcs's adjacency matrices) refuses it against --max-memory
// before building it, naming the file and the need; the others read it
// (or its reader refuses it). Run as processes: a crash (the out-of-memory
// fatal error vc --complement met before) must not take the test binary.
func TestHostileHeaderDense(t *testing.T) {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	readable := map[string]bool{"dimacs.clq": true, "pace.gr": true, "mtx.mtx": true, "edges.txt": true}
	for name, path := range hostileHeaders(t) {
		for _, c := range []struct {
			args  []string
			dense string // the refusal when the file reads; "" when it runs
		}{
			{[]string{"info", path}, ""},
			{[]string{"vc", path}, ""},
			{[]string{"vc", "--complement", path}, path + ": the complement (100000 vertices) would take 37.3 GiB, more than the memory limit, 256.0 MiB"},
			{[]string{"clique", path}, path + ": the clique engine's bit matrices (100000 vertices) would take 2.3 GiB, more than the memory limit, 256.0 MiB"},
			{[]string{"clique", "--complement", path}, "the clique engine's bit matrices (100000 vertices) would take 2.3 GiB"},
			{[]string{"mcs", path, path}, "the adjacency matrices of 2 graphs (largest " + path + ", 100000 vertices) would take 37.3 GiB, more than the memory limit, 256.0 MiB"},
		} {
			args := append(c.args, "--max-memory", "256M")
			st, stderr := cliProcess(t, devNull, args...)
			if strings.Contains(stderr, "fatal error") || strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
				t.Errorf("arbor %v crashed: %s", args, stderr)
				continue
			}
			switch {
			case !readable[name]:
				if st.ExitCode() != 1 || !strings.Contains(stderr, path) {
					t.Errorf("arbor %v: exit %d, stderr %q; want the reader's error naming the file", args, st.ExitCode(), stderr)
				}
			case c.dense != "":
				if st.ExitCode() != 1 || !strings.Contains(stderr, c.dense) {
					t.Errorf("arbor %v: exit %d, stderr %q; want 1 and %q", args, st.ExitCode(), stderr, c.dense)
				}
			default:
				if st.ExitCode() != 0 {
					t.Errorf("arbor %v: exit %d, stderr %q; want 0", args, st.ExitCode(), stderr)
				}
			}
		}
	}
}
