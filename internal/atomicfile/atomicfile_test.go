package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// text writes s.
func text(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// TestWrite: a complete write replaces the file, readable by all; a
// failed one leaves the earlier file as it was and no temporary file,
// with an error naming the path.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := Write(path, text("first\n")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Errorf("failed write: %v, want boom naming %s", err, path)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "first\n" {
		t.Errorf("after a failed write the file holds %q (%v), want the first", b, err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v (%v), want 0644", st.Mode(), err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("%d files in the folder, want 1 (a temporary file left?)", len(es))
	}
	// A device is written in place, not replaced.
	if err := Write(os.DevNull, text("x")); err != nil {
		t.Errorf("writing %s: %v", os.DevNull, err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode().IsRegular() {
		t.Errorf("%s is now %v (%v)", os.DevNull, st.Mode(), err)
	}
}
