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
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// EnvDir overrides where the data is looked for.
const EnvDir = "ARBOR_DATA"

// EnvRequire, set to anything but "" or "0" (CI sets ARBOR_REQUIRE_DATA=1),
// makes absent data a test failure instead of a skip: a CI run that
// silently skipped every data test would look green and test little. This
// package is the one place that decides: tests ask Require or Optional.
const EnvRequire = "ARBOR_REQUIRE_DATA"

// Required reports whether $ARBOR_REQUIRE_DATA asks for the data.
func Required() bool {
	v := os.Getenv(EnvRequire)
	return v != "" && v != "0"
}

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

// Require returns Dir()/sub (sub "" is the data folder itself), or, when
// it is absent, skips the test with a message saying what is missing and
// how to provide it; under $ARBOR_REQUIRE_DATA it fails the test instead.
func Require(tb testing.TB, sub string) string {
	tb.Helper()
	return lookUp(tb, sub, tb.Fatalf, tb.Skipf, "%s; skipping")
}

// Optional returns Dir()/sub, or "" for a test that then runs without it
// (on generated cases only), saying so in the test's log; under
// $ARBOR_REQUIRE_DATA the absence fails the test (which runs on).
func Optional(tb testing.TB, sub string) string {
	tb.Helper()
	return lookUp(tb, sub, tb.Errorf, tb.Logf, "%s: without it")
}

// lookUp is Path(sub); where it is absent, fail says so under
// $ARBOR_REQUIRE_DATA, else otherwise does, in note's words (a format
// given what is missing).
func lookUp(tb testing.TB, sub string, fail, otherwise func(string, ...any), note string) string {
	tb.Helper()
	p := Path(sub)
	switch {
	case p != "":
	case Required():
		fail("%s, and $%s is set: the data is required", notFound(sub), EnvRequire)
	default:
		otherwise(note, notFound(sub))
	}
	return p
}

// Missing skips the test, or under $ARBOR_REQUIRE_DATA fails it, for data
// the test found absent by itself (a file a table lists, say); what says
// what is missing.
func Missing(tb testing.TB, what string) {
	tb.Helper()
	if Required() {
		tb.Fatalf("%s, and $%s is set: the data is required", what, EnvRequire)
	} else {
		tb.Skipf("%s; skipping", what)
	}
}

func notFound(sub string) string {
	what := "shared data"
	if sub != "" {
		what = fmt.Sprintf("shared data %q", sub)
	}
	return fmt.Sprintf("%s not found (looked in $%s, ../shared/data beside the checkout, .dev/data)", what, EnvDir)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
