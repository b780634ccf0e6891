package kcountcmd

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/internal/dataset"
)

// TestCopyIsACommand is the registry's completeness proof (issue #41): in
// a copy of the module, algorithms/kcount copied to algorithms/kcopy with
// its identifiers renamed (kcount → kcopy, KCount → KCopy: packages,
// kernel, twin, sources, checks, the command), and go generate ./... run,
// with no other edit, is a new command: arbor help lists it, it counts,
// arbor kernels lists its kernel, go generate wrote its docs/cli.md
// section, README row and schema, and the tests that enumerate the
// registry (TestComplete, TestDocsCoverHelp, TestGolden, TestJSONSchemas)
// hold in the copy.
// It copies the module (about 9 MB) and builds arbor: skipped under -short.
func TestCopyIsACommand(t *testing.T) {
	if testing.Short() {
		t.Skip("copies the module and builds arbor; skipped under -short")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no module root at %s: %v", root, err)
	}
	dst := filepath.Join(t.TempDir(), "arbor")
	copyTree(t, root, dst, func(rel string) (string, []byte, bool) { return rel, nil, true })
	rename := strings.NewReplacer("kcount", "kcopy", "KCount", "KCopy")
	from := filepath.Join(root, "algorithms", "kcount")
	copyTree(t, from, filepath.Join(dst, "algorithms", "kcopy"), func(rel string) (string, []byte, bool) {
		b, err := os.ReadFile(filepath.Join(from, rel))
		if err != nil {
			t.Fatal(err)
		}
		return rename.Replace(rel), []byte(rename.Replace(string(b))), true
	})

	// The whole go generate, as the porting guide says: internal/bench's
	// manifest generator hashes the shared data when there is some (the
	// same manifest) and leaves the committed one alone when there is not.
	gen := exec.Command("go", "generate", "./...")
	gen.Dir = dst
	gen.Env = append(os.Environ(), "CGO_ENABLED=0")
	if d := dataset.Dir(); d != "" {
		gen.Env = append(gen.Env, "ARBOR_DATA="+d)
	}
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("go generate: %v\n%s", err, out)
	}
	bin := filepath.Join(dst, "arbor-test")
	build := exec.Command("go", "build", "-o", bin, "./cmd/arbor")
	build.Dir = dst
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	arbor := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("arbor %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if help := arbor("help"); !strings.Contains(help, "\n  kcopy ") || !strings.Contains(help, "\n  kcount ") {
		t.Fatalf("arbor help does not list both kcount and kcopy:\n%s", help)
	}
	g := filepath.Join(t.TempDir(), "k4plus.clq")
	if err := os.WriteFile(g, []byte(k4plus), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, engine := range []string{"cpu", "gpu"} {
		if out := arbor("kcopy", g, "-k", "3", "--engine", engine, "--backend", "cpu", "--verify"); !strings.HasPrefix(out, "count 4 3-cliques (exact)") {
			t.Errorf("arbor kcopy --engine %s: %s", engine, out)
		}
	}
	if out := arbor("kernels"); !strings.Contains(out, "kcopy_epoch") {
		t.Errorf("arbor kernels does not list kcopy_epoch:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dst, "docs", "schema", "kcopy.json")); err != nil {
		t.Errorf("go generate wrote no docs/schema/kcopy.json: %v", err)
	}
	// The tests that enumerate the registry: all.go complete, docs/cli.md
	// and the README covering every command's -h, the goldens, and every
	// registered command's --json against its schema.
	test := exec.Command("go", "test", "./algorithms/all", "./cmd/arbor", "-run", "TestComplete|TestDocsCoverHelp|TestGolden|TestJSONSchemas")
	test.Dir = dst
	test.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := test.CombinedOutput(); err != nil {
		t.Errorf("the registry's tests in the copy: %v\n%s", err, out)
	}
}

// copyTree copies the regular files under src to dst (leaving out .git
// and dot folders), each through edit: its path relative to dst, its
// content (nil: the file's own), whether to copy it.
func copyTree(t *testing.T, src, dst string, edit func(rel string) (string, []byte, bool)) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		to, b, ok := edit(rel)
		if !ok {
			return nil
		}
		if b == nil {
			if b, err = os.ReadFile(p); err != nil {
				return err
			}
		}
		to = filepath.Join(dst, to)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
