package testfile

import (
	"os"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		write func(testing.TB, string, string, string) string
		mode  os.FileMode
	}{{Write, 0o644}, {Executable, 0o755}} {
		p := c.write(t, dir, "f", "body\n")
		b, err := os.ReadFile(p)
		st, serr := os.Stat(p)
		if err != nil || serr != nil || string(b) != "body\n" || st.Mode().Perm()&^0o022 != c.mode&^0o022 {
			t.Errorf("wrote %q mode %v (%v, %v), want body mode %v", b, st.Mode(), err, serr, c.mode)
		}
		os.Remove(p)
	}
}
