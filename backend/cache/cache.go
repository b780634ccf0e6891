// Package cache keeps compiled device programs (OpenCL binaries, CUDA
// cubins/PTX) on disk between runs, so a kernel is compiled once per
// source, options, device and driver.
//
// The cache is an optimisation and never a reason to fail: every problem
// (unwritable directory, corrupt entry, full disk) is logged with slog.Warn
// and treated as a miss. Entries carry a header with a checksum of their
// payload; a corrupt entry is removed on load. Writes go to a temporary file
// in the same directory and are renamed into place, so a reader never sees
// half an entry and concurrent writers of the same key are harmless.
//
// Environment:
//
//	ARBOR_CACHE_DIR  the directory (default: os.UserCacheDir()/arbor)
//	ARBOR_CACHE=off  disables the cache (Load always misses, Store does nothing)
//
// Both are read on every call, so tests can change them with t.Setenv.
package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// FormatVersion is mixed into every key: change it when the entry layout
// or the meaning of what the backends store changes, and old entries are
// simply never found again.
const FormatVersion = "arbor-cache-v1"

// Environment variables the cache reads.
const (
	EnvDir    = "ARBOR_CACHE_DIR"
	EnvSwitch = "ARBOR_CACHE"
)

// magic starts every entry file.
var magic = [8]byte{'A', 'R', 'B', 'O', 'R', 'C', '1', '\n'}

// headerSize is magic, payload length (uint64, little endian) and the
// SHA-256 of the payload.
const headerSize = len(magic) + 8 + sha256.Size

// Key hashes its parts, and FormatVersion, into a hex string usable as a
// file name. Each part is length-prefixed so ("ab", "c") and ("a", "bc")
// differ.
func Key(parts ...string) string {
	h := sha256.New()
	var n [8]byte
	for _, p := range append([]string{FormatVersion}, parts...) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Enabled reports whether the cache is on: it is unless ARBOR_CACHE is
// "off" (or "0", "false", "no").
func Enabled() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(EnvSwitch))) {
	case "off", "0", "false", "no":
		return false
	}
	return true
}

// Dir returns the cache directory: $ARBOR_CACHE_DIR, else the user cache
// directory's "arbor". It does not create it.
func Dir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cache: no cache directory (set %s): %w", EnvDir, err)
	}
	return filepath.Join(base, "arbor"), nil
}

// path is the file of key, refusing keys that are not plain names.
func path(key string) (string, error) {
	if key == "" || strings.ContainsAny(key, `/\`) || key == "." || key == ".." {
		return "", fmt.Errorf("cache: invalid key %q", key)
	}
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, key+".bin"), nil
}

// Load returns the payload stored under key. A missing entry is a silent
// miss; an unreadable or corrupt one is a miss with a warning, and a
// corrupt one is removed so the next Store replaces it.
func Load(key string) ([]byte, bool) {
	if !Enabled() {
		return nil, false
	}
	p, err := path(key)
	if err != nil {
		slog.Warn("program cache: load skipped", "err", err)
		return nil, false
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			slog.Warn("program cache: cannot read entry", "path", p, "err", err)
		}
		return nil, false
	}
	data, err := decode(raw)
	if err != nil {
		slog.Warn("program cache: corrupt entry removed", "path", p, "err", err)
		if rerr := os.Remove(p); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			slog.Warn("program cache: cannot remove corrupt entry", "path", p, "err", rerr)
		}
		return nil, false
	}
	return data, true
}

// Store saves data under key. Failures are logged, never returned: the
// caller has its program either way.
func Store(key string, data []byte) {
	if !Enabled() {
		return
	}
	if err := store(key, data); err != nil {
		slog.Warn("program cache: entry not stored", "key", key, "err", err)
	}
}

func store(key string, data []byte) error {
	p, err := path(key)
	if err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-"+key[:min(len(key), 16)]+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(encode(data))
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, p)
	}
	if werr != nil {
		os.Remove(tmp)
		return werr
	}
	return nil
}

func encode(data []byte) []byte {
	out := make([]byte, headerSize, headerSize+len(data))
	copy(out, magic[:])
	binary.LittleEndian.PutUint64(out[len(magic):], uint64(len(data)))
	sum := sha256.Sum256(data)
	copy(out[len(magic)+8:], sum[:])
	return append(out, data...)
}

func decode(raw []byte) ([]byte, error) {
	if len(raw) < headerSize {
		return nil, fmt.Errorf("%d bytes, shorter than the %d-byte header", len(raw), headerSize)
	}
	if !bytes.Equal(raw[:len(magic)], magic[:]) {
		return nil, errors.New("bad magic")
	}
	n := binary.LittleEndian.Uint64(raw[len(magic):])
	data := raw[headerSize:]
	if uint64(len(data)) != n {
		return nil, fmt.Errorf("payload is %d bytes, header says %d", len(data), n)
	}
	sum := sha256.Sum256(data)
	if !bytes.Equal(sum[:], raw[len(magic)+8:headerSize]) {
		return nil, errors.New("checksum mismatch")
	}
	return data, nil
}
