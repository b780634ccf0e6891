// Package dataset finds the shared benchmark data (../shared/data beside the
// checkout) for tests and benchmarks, which skip when it is absent, and for
// 'arbor bench' and 'arbor verify'; readers.go reads its answer files.
//
// .dev/data is the fallback for the GPU machine, which gets only a subset
// (the files scripts/gpu/*.sh name). Tests that enumerate a whole set (every
// MIVIA pair, every PACE instance) expect the complete data and fail on a
// subset; run them there with -test.run filters, as the round scripts do.
package dataset

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvDir overrides where the data is looked for.
const EnvDir = "ARBOR_DATA"

// Dir returns the data directory, or "" when there is none: $ARBOR_DATA,
// else ../shared/data relative to the module root (found by walking up
// from the working directory to go.mod), else ./.dev/data (what the GPU
// machine is given).
func Dir() string {
	if d := os.Getenv(EnvDir); d != "" {
		if isDir(d) {
			return d
		}
		return ""
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if d := filepath.Join(dir, "..", "shared", "data"); isDir(d) {
				return filepath.Clean(d)
			}
			if d := filepath.Join(dir, ".dev", "data"); isDir(d) {
				return d
			}
			return ""
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// Path returns Dir()/sub, or "" when the data or that part of it is absent.
func Path(sub string) string {
	d := Dir()
	if d == "" {
		return ""
	}
	p := filepath.Join(d, sub)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// Require returns Dir()/sub or skips the test with a message saying what is
// missing and how to provide it.
func Require(tb testing.TB, sub string) string {
	tb.Helper()
	p := Path(sub)
	if p == "" {
		tb.Skipf("shared data %q not found (looked in $%s, ../shared/data beside the checkout, .dev/data); skipping", sub, EnvDir)
	}
	return p
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
