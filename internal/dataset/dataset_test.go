package dataset

import (
	"testing"
)

// TestDataPresent: under $ARBOR_REQUIRE_DATA the data folder must exist,
// for the tests that take whatever Dir() gives (kernels.Checks, which adds
// data-based checks only when there is data) as for those that ask
// Require.
func TestDataPresent(t *testing.T) {
	if Required() && Dir() == "" {
		t.Fatalf("%s, and $%s is set", notFound(""), EnvRequire)
	}
}

// fakeTB records what Require and Optional do.
type fakeTB struct {
	testing.TB
	skipped, fatal, errored bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Skipf(string, ...any)  { f.skipped = true }
func (f *fakeTB) Fatalf(string, ...any) { f.fatal = true }
func (f *fakeTB) Errorf(string, ...any) { f.errored = true }
func (f *fakeTB) Logf(string, ...any)   {}

func TestRequireDecides(t *testing.T) {
	t.Setenv(EnvDir, t.TempDir()) // a data folder without the part asked for
	t.Setenv(EnvRequire, "")
	var f fakeTB
	Require(&f, "no/such/part")
	if !f.skipped || f.fatal {
		t.Errorf("absent, not required: %+v, want a skip", f)
	}
	f = fakeTB{}
	if Optional(&f, "no/such/part") != "" || f.errored {
		t.Errorf("Optional, not required: %+v", f)
	}
	t.Setenv(EnvRequire, "1")
	f = fakeTB{}
	Require(&f, "no/such/part")
	if f.skipped || !f.fatal {
		t.Errorf("absent, required: %+v, want a failure", f)
	}
	f = fakeTB{}
	if Optional(&f, "no/such/part") != "" || !f.errored {
		t.Errorf("Optional, required: %+v, want an error", f)
	}
	f = fakeTB{}
	Missing(&f, "a listed file")
	if f.skipped || !f.fatal {
		t.Errorf("Missing, required: %+v, want a failure", f)
	}
	t.Setenv(EnvRequire, "0")
	if Required() {
		t.Error("ARBOR_REQUIRE_DATA=0 requires the data")
	}
}
