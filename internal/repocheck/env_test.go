package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// maxEnv is the most ARBOR_* environment variables (code and scripts
// together) the project keeps (issue #41): a tuning value that no user
// sets is a constant, a single test's knob a go test flag.
const maxEnv = 40

var arborName = regexp.MustCompile(`\bARBOR_[A-Z0-9_]+`)

// root is the module root, found from this package's folder.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

// sources calls fn for every Go file and script of the repository (the
// hidden folders but .ci skipped, and .dev with them).
func sources(t *testing.T, fn func(rel string, text []byte)) {
	t.Helper()
	top := root(t)
	err := filepath.WalkDir(top, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(top, path)
		name := d.Name()
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(name, ".") && name != ".ci" {
				return filepath.SkipDir
			}
			return nil
		}
		script := strings.HasPrefix(rel, "scripts"+string(filepath.Separator)) || strings.HasPrefix(rel, "deploy"+string(filepath.Separator)) || strings.HasPrefix(rel, ".ci"+string(filepath.Separator))
		if !strings.HasSuffix(name, ".go") && !(script && !strings.HasSuffix(name, ".md")) {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fn(filepath.ToSlash(rel), text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// documented reads docs/env.md: the variables of its tables, and the
// names its prose says are not variables (kernel macros, JetStream
// assets).
func documented(t *testing.T) (vars, others map[string]bool) {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(root(t), "docs", "env.md"))
	if err != nil {
		t.Fatal(err)
	}
	vars, others = map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(string(text), "\n") {
		if cells := strings.Split(line, "|"); strings.HasPrefix(line, "|") && len(cells) > 2 {
			for _, n := range arborName.FindAllString(cells[1], -1) {
				vars[n] = true
			}
			continue
		}
		for _, n := range arborName.FindAllString(line, -1) {
			others[n] = true
		}
	}
	return vars, others
}

// TestEnvDocumented: every ARBOR_* name in the Go code and the scripts is
// in docs/env.md, as a variable in a table or among the names that are
// not variables, and every name there is still used; at most maxEnv
// variables.
func TestEnvDocumented(t *testing.T) {
	vars, others := documented(t)
	used := map[string][]string{}
	sources(t, func(rel string, text []byte) {
		for _, n := range arborName.FindAllString(string(text), -1) {
			if !slices.Contains(used[n], rel) {
				used[n] = append(used[n], rel)
			}
		}
	})
	for n, files := range used {
		if !vars[n] && !others[n] {
			t.Errorf("%s (read in %s) is not in docs/env.md", n, strings.Join(files, ", "))
		}
	}
	for n := range vars {
		if used[n] == nil {
			t.Errorf("docs/env.md lists %s, which no Go file or script names", n)
		}
	}
	for n := range others {
		if used[n] == nil && !vars[n] {
			t.Errorf("docs/env.md names %s, which no Go file or script names", n)
		}
	}
	if len(vars) > maxEnv {
		t.Errorf("docs/env.md lists %d variables, more than %d: make a knob nobody sets a constant, a test's knob a go test flag", len(vars), maxEnv)
	}
	t.Logf("%d variables, %d other ARBOR_* names", len(vars), len(others))
}
