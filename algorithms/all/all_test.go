package all

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestComplete: all.go imports exactly the algorithm folders with Go code
// (and their kernel/ folders), so that nothing a porter adds goes
// unregistered in the CLI. Regenerate with go generate ./algorithms/all.
func TestComplete(t *testing.T) {
	want := map[string]bool{}
	for _, pattern := range []string{"../*/*.go", "../*/kernel/*.go", "../*/command/*.go"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			rel, _ := filepath.Rel("..", filepath.Dir(f))
			if rel != "all" && !strings.HasSuffix(f, "_test.go") {
				want["github.com/arbor-gpu/arbor/algorithms/"+filepath.ToSlash(rel)] = true
			}
		}
	}
	f, err := parser.ParseFile(token.NewFileSet(), "all.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		got[p] = true
		if !want[p] {
			t.Errorf("all.go imports %s, which is no algorithm folder: run go generate ./algorithms/all", p)
		}
	}
	for p := range want {
		if !got[p] {
			t.Errorf("all.go misses %s: run go generate ./algorithms/all", p)
		}
	}
}
