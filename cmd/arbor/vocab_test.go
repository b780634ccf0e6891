package main

// Tests of issue #45's items 5–11 and its vocabulary LOW items.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutNamesInput: -o naming any input (a graph file, by another path
// or a link, a --batch list, an instance of the list, --against's list)
// is a usage error, and the input is left as it was.
func TestOutNamesInput(t *testing.T) {
	dir := t.TempDir()
	gr := filepath.Join(dir, "c5.gr")
	if err := os.WriteFile(gr, []byte(vcTestGraph), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.gr")
	if err := os.Symlink(gr, link); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.gr")
	if err := os.WriteFile(other, []byte(vcTestGraph), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs := writeList(t, dir, "c5.gr,other.gr")
	singles := filepath.Join(dir, "singles.csv")
	if err := os.WriteFile(singles, []byte("c5.gr\nother.gr\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dotted := filepath.Join(dir, ".", "sub", "..", "c5.gr")
	cases := [][]string{
		{"vc", gr, "-o", gr},
		{"vc", gr, "-o", link},
		{"vc", gr, "-o", dotted},
		{"clique", link, "-o", gr},
		{"match", gr, "--backend", "cpu", "-o", gr},
		{"mcs", gr, other, "-o", other},
		{"mcs", "--batch", pairs, "-o", pairs},
		{"mcs", "--batch", pairs, "-o", other},
		{"vc", "--batch", singles, "-o", singles},
		{"clique", "--batch", singles, "-o", gr},
		{"mcs", gr, "--against", singles, "--top", "1", "-o", singles},
		{"mcs", gr, "--against", singles, "--top", "1", "-o", gr},
	}
	for _, args := range cases {
		before := map[string]string{}
		for _, p := range []string{gr, other, pairs, singles} {
			b, _ := os.ReadFile(p)
			before[p] = string(b)
		}
		code, out, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, "names an input") || out != "" {
			t.Errorf("arbor %v: exit %d, stdout %q, stderr %q; want exit 2 saying -o names an input", args, code, out, stderr)
		}
		for p, b := range before {
			if now, _ := os.ReadFile(p); string(now) != b {
				t.Errorf("arbor %v changed %s", args, p)
			}
		}
	}
	// An -o beside the inputs, and /dev/null, are still fine.
	for _, args := range [][]string{
		{"vc", gr, "-o", filepath.Join(dir, "c5.sol")},
		{"vc", os.DevNull, "-o", os.DevNull},
	} {
		if code, _, stderr := runCLI(t, args...); code == 2 {
			t.Errorf("arbor %v: usage error %s", args, stderr)
		}
	}
}
