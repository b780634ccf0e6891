package dataset

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/internal/testfile"
)

var write = testfile.Write

func TestReadMIVIA(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "expected.csv", "g,h,n,size,nodes,seconds,proven\na.A00,a.B00,10,7,123,0.01,yes\nb.A00,b.B00,20,9,456,1000,no\n")
	pairs, err := ReadMIVIA(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 || pairs[0] != (MIVIAPair{"a.A00", "a.B00", 10, 7, 123, 0.01, true}) || pairs[1].Proven {
		t.Fatalf("%+v", pairs)
	}
	write(t, dir, "expected.csv", "g,h,n,size,nodes,seconds,proven\na.A00,a.B00,10,x,123,0.01,yes\n")
	if _, err := ReadMIVIA(dir); err == nil || !strings.Contains(err.Error(), "expected.csv:2: column size") {
		t.Fatalf("bad size: %v", err)
	}
	write(t, dir, "expected.csv", "g,h,n\n")
	if _, err := ReadMIVIA(dir); err == nil || !strings.Contains(err.Error(), `no column "size"`) {
		t.Fatalf("missing column: %v", err)
	}
}

func TestReadOptimaAndInts(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "optima.csv", "instance,n,min_vc\nx,10,4\ny,500,7\n")
	rows, err := ReadOptima(dir, "optima.csv", "instance", "min_vc", ".gr", func(r Row) bool { return r.Fields["n"] == "10" })
	if err != nil || len(rows) != 1 || rows[0].Opt != 4 || rows[0].Path != filepath.Join(dir, "x.gr") {
		t.Fatalf("%+v %v", rows, err)
	}
	p := write(t, dir, "m.txt", "3\n-1\n\n0\n")
	got, err := ReadInts(p)
	if err != nil || len(got) != 3 || got[1] != -1 {
		t.Fatalf("%v %v", got, err)
	}
	write(t, dir, "m.txt", "3\nz\n")
	if _, err := ReadInts(p); err == nil || !strings.Contains(err.Error(), "m.txt:2") {
		t.Fatalf("bad line: %v", err)
	}
}

func TestBHOSLIBAndOmega(t *testing.T) {
	for name, want := range map[string]int{"frb30-15-1.mis": 420, "frb100-40.mis": 3900, "frb53-24-1.mis.gz": 1219} {
		if got, ok := BHOSLIBMinCover(name); !ok || got != want {
			t.Errorf("%s: %d %v, want %d", name, got, ok, want)
		}
	}
	if _, ok := BHOSLIBMinCover("cop_hat300_1.txt"); ok {
		t.Error("a non-BHOSLIB name parsed")
	}
	c := CliqueInstance{Path: "x", N: 300, Omega: 8}
	if w, err := c.OmegaFor(301, true); err != nil || w != 9 {
		t.Errorf("spare vertex: %d %v", w, err)
	}
	if _, err := c.OmegaFor(302, true); err == nil {
		t.Error("wrong n accepted")
	}
}
