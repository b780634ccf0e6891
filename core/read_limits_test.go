package core

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSparseHeaderReads: a valid sparse graph of millions of vertices
// reads under the default limit, which follows the memory (the old guard,
// 1<<20 + 64 bytes of file, refused it); a budget too small refuses it
// saying where the limit comes from and how to raise it.
func TestSparseHeaderReads(t *testing.T) {
	const body = "p td 2000000 1\n1 2000000\n"
	g, err := ParseGraph(strings.NewReader(body), "sparse.gr", ReadOptions{})
	if err != nil {
		t.Fatalf("default limits: %v", err)
	}
	if g.N != 2000000 || g.Edges() != 1 {
		t.Fatalf("n=%d m=%d", g.N, g.Edges())
	}
	_, err = ParseGraph(strings.NewReader(body), "sparse.gr", ReadOptions{MaxMemory: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "larger than the limit 43690") || !strings.Contains(err.Error(), "--max-memory") {
		t.Errorf("MaxMemory 1 MiB: %v; want the limit and how to raise it", err)
	}
	t.Setenv(EnvMaxMemory, "1M")
	for _, body := range []string{body, "2000000\n", "%%MatrixMarket matrix coordinate pattern symmetric\n2000000 2000000 0\n", "p edge 2000000 0\n", "2000000 0\n"} {
		_, err = ParseGraph(strings.NewReader(body), "sparse", ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), "from ARBOR_MAX_MEMORY") {
			t.Errorf("%q with ARBOR_MAX_MEMORY=1M: %v; want the limit naming the variable", body, err)
		}
	}
	t.Setenv(EnvMaxMemory, "lots")
	if _, err = ParseGraph(strings.NewReader(body), "sparse.gr", ReadOptions{}); err == nil || !strings.Contains(err.Error(), "ARBOR_MAX_MEMORY=lots") {
		t.Errorf("ARBOR_MAX_MEMORY=lots: %v", err)
	}
}

// TestCompressedInputBounded: gzip that expands beyond the input limit is
// refused with the file and the limit named, before it is all in memory;
// under the limit it reads.
func TestCompressedInputBounded(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("p td 3 1\n1 2\n"))
	zw.Write(bytes.Repeat([]byte("\n"), 8<<20))
	zw.Close()
	path := filepath.Join(t.TempDir(), "bomb.gr.gz")
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadGraph(path, ReadOptions{MaxInput: 1 << 20})
	var fe *FormatError
	if !errors.As(err, &fe) || fe.File != path || !strings.Contains(err.Error(), "decompresses to more than the input limit, 1.0 MiB") ||
		!strings.Contains(err.Error(), "--max-input") {
		t.Errorf("MaxInput 1 MiB: %v; want a FormatError naming the file and the limit", err)
	}
	t.Setenv(EnvMaxInput, "2M")
	if _, err := ReadGraph(path, ReadOptions{}); err == nil || !strings.Contains(err.Error(), "2.0 MiB, from ARBOR_MAX_INPUT") {
		t.Errorf("ARBOR_MAX_INPUT=2M: %v", err)
	}
	// A stream has no size on disk either.
	if _, err := ParseGraph(bytes.NewReader(bytes.Repeat([]byte("\n"), 3<<20)), "-", ReadOptions{}); err == nil || !strings.Contains(err.Error(), "more input than the limit") {
		t.Errorf("a 3 MiB stream under a 2 MiB limit: %v", err)
	}
	t.Setenv(EnvMaxInput, "")
	g, err := ReadGraph(path, ReadOptions{MaxInput: 16 << 20})
	if err != nil || g.N != 3 || g.Edges() != 1 {
		t.Fatalf("MaxInput 16 MiB: %v", err)
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"1000": 1000, "1k": 1024, "512M": 512 << 20, "16G": 16 << 30, "16GiB": 16 << 30,
		"1.5g": 3 << 29, " 2 T ": 2 << 40, "4KB": 4096} {
		if got, err := ParseSize(s); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "G", "-1G", "0", "lots", "1X", "NaN", "1e30T"} {
		if got, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", s, got)
		}
	}
}
