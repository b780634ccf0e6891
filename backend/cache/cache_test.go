package cache

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/backend/backendtest"
)

func TestKey(t *testing.T) {
	a := Key("ab", "c")
	if a == Key("a", "bc") {
		t.Fatal("Key does not separate its parts")
	}
	if a != Key("ab", "c") {
		t.Fatal("Key is not deterministic")
	}
	if len(a) != 64 || strings.Trim(a, "0123456789abcdef") != "" {
		t.Fatalf("Key %q is not 64 hex digits", a)
	}
	if Key() == Key("") {
		t.Fatal("Key() and Key(\"\") collide")
	}
}

func TestDir(t *testing.T) {
	d := t.TempDir()
	t.Setenv(EnvDir, d)
	if got, err := Dir(); err != nil || got != d {
		t.Fatalf("Dir() = %q, %v; want %q", got, err, d)
	}
	t.Setenv(EnvDir, "")
	got, err := Dir()
	if base, uerr := os.UserCacheDir(); uerr == nil {
		if err != nil || got != filepath.Join(base, "arbor") {
			t.Fatalf("Dir() = %q, %v; want %q", got, err, filepath.Join(base, "arbor"))
		}
	} else if err == nil {
		t.Fatalf("Dir() = %q with no user cache dir (%v)", got, uerr)
	}
}

func TestRoundTripAndCorruption(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDir, dir)
	t.Setenv(EnvSwitch, "")
	warn := backendtest.CaptureWarnings(t)
	key := Key("program", "device")
	if _, ok := Load(key); ok {
		t.Fatal("hit in an empty cache")
	}
	if warn.Len() != 0 {
		t.Fatalf("a plain miss warned: %s", warn)
	}
	payload := []byte("compiled \x00 binary \xff")
	Store(key, payload)
	got, ok := Load(key)
	if !ok || !bytes.Equal(got, payload) {
		t.Fatalf("Load = %q, %v; want %q, true", got, ok, payload)
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("cache dir holds %d entries, want 1", len(entries))
	}
	// Flip one payload byte: the checksum must catch it and the entry go.
	p := filepath.Join(dir, key+".bin")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, corrupt := range [][]byte{
		append(append([]byte{}, raw[:len(raw)-1]...), raw[len(raw)-1]^1), // payload bit flip
		raw[:len(raw)-3],                 // truncated payload
		raw[:10],                         // truncated header
		append([]byte("XX"), raw[2:]...), // bad magic
	} {
		warn.Reset()
		if err := os.WriteFile(p, corrupt, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, ok := Load(key); ok {
			t.Fatalf("corrupt entry loaded: %q", got)
		}
		if !strings.Contains(warn.String(), "corrupt") {
			t.Fatalf("no warning for a corrupt entry; log: %q", warn)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("corrupt entry not removed: %v", err)
		}
	}
	Store(key, payload)
	if got, ok := Load(key); !ok || !bytes.Equal(got, payload) {
		t.Fatal("entry not restored after corruption")
	}
	// An empty payload is a valid entry.
	Store(Key("empty"), nil)
	if got, ok := Load(Key("empty")); !ok || len(got) != 0 {
		t.Fatalf("empty entry: %q, %v", got, ok)
	}
}

func TestOff(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDir, dir)
	key := Key("x")
	Store(key, []byte("on"))
	t.Setenv(EnvSwitch, "off")
	if Enabled() {
		t.Fatal("Enabled with ARBOR_CACHE=off")
	}
	if _, ok := Load(key); ok {
		t.Fatal("hit with ARBOR_CACHE=off")
	}
	Store(Key("y"), []byte("off"))
	if _, err := os.Stat(filepath.Join(dir, Key("y")+".bin")); !os.IsNotExist(err) {
		t.Fatalf("Store wrote with ARBOR_CACHE=off: %v", err)
	}
	t.Setenv(EnvSwitch, "on")
	if !Enabled() {
		t.Fatal("not Enabled with ARBOR_CACHE=on")
	}
}

// An unwritable directory (here: a path below a regular file, which no
// user, root included, can create) is a warning and a miss, not a failure.
func TestUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvDir, filepath.Join(file, "sub"))
	t.Setenv(EnvSwitch, "")
	warn := backendtest.CaptureWarnings(t)
	Store(Key("z"), []byte("data"))
	if !strings.Contains(warn.String(), "not stored") {
		t.Fatalf("no warning for an unwritable cache; log: %q", warn)
	}
	if _, ok := Load(Key("z")); ok {
		t.Fatal("hit from an unwritable cache")
	}
}

func TestInvalidKey(t *testing.T) {
	t.Setenv(EnvDir, t.TempDir())
	t.Setenv(EnvSwitch, "")
	warn := backendtest.CaptureWarnings(t)
	Store("../escape", []byte("x"))
	if _, ok := Load("../escape"); ok {
		t.Fatal("hit for an invalid key")
	}
	if !strings.Contains(warn.String(), "invalid key") {
		t.Fatalf("no warning for an invalid key; log: %q", warn)
	}
}
