// Package testfile writes the small files tests need (graphs, lists,
// fake solvers), failing the test on an error. It imports nothing of the
// project, so that any package's tests can use it.
package testfile

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes body to dir/name and returns its path.
func Write(tb testing.TB, dir, name, body string) string {
	tb.Helper()
	return write(tb, dir, name, body, 0o644)
}

// Executable writes body to dir/name as an executable (a script) and
// returns its path.
func Executable(tb testing.TB, dir, name, body string) string {
	tb.Helper()
	return write(tb, dir, name, body, 0o755)
}

func write(tb testing.TB, dir, name, body string, mode os.FileMode) string {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		tb.Fatal(err)
	}
	return p
}
