package startup

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/cpu" // the CPU backend: a device that always opens
)

func cpuSelection(require string) Selection {
	return Selection{Selection: backend.Selection{Backend: "cpu", Require: require}}
}

// takeAll is a placement rule that gives the engine every opened device
// and falls back to none when opening failed.
func takeAll(opened []backend.Device, err error) (Placement, error) {
	if err != nil {
		return Placement{Fallback: "no device (" + err.Error() + "): the CPU engine runs"}, nil
	}
	return Placement{Devices: opened, Note: "a note"}, nil
}

// TestReportLines: the fallback is said whatever the verbosity; the
// devices and the note only with verbose, after it.
func TestReportLines(t *testing.T) {
	r := Report{Fallback: "fell back", Using: []backend.Info{{Backend: "cpu", Index: 0, Name: "X"}}, Note: "left out"}
	if got := r.Lines(false); !slices.Equal(got, []string{"fell back"}) {
		t.Errorf("quiet: %q", got)
	}
	got := r.Lines(true)
	if len(got) != 3 || got[0] != "fell back" || got[1] != "using "+r.Using[0].String() || got[2] != "left out" {
		t.Errorf("verbose: %q", got)
	}
	if (Report{}).Lines(true) != nil {
		t.Error("an empty report says something")
	}
}

// TestOpenStrategies: AtOnce opens without being asked, AfterHeadStart
// not before HeadStart but then on its own, WhenAsked only when asked; the
// report and the devices appear once the opening is over.
func TestOpenStrategies(t *testing.T) {
	wait := func(o *Opening) bool {
		select {
		case <-o.Ready():
			return true
		case <-time.After(10 * time.Second):
			return false
		}
	}
	now := Open(cpuSelection(""), AtOnce, takeAll)
	defer now.ReleaseNow()
	if !wait(now) {
		t.Fatal("AtOnce did not open")
	}
	if len(now.Devices()) != 1 || len(now.Report().Using) != 1 || now.Report().Note != "a note" {
		t.Fatalf("AtOnce: devices %v, report %+v", now.Devices(), now.Report())
	}

	later := Open(cpuSelection(""), AfterHeadStart, takeAll)
	defer later.ReleaseNow()
	begin := time.Now()
	if later.Done() || later.Devices() != nil || len(later.Report().Using) != 0 {
		t.Fatal("AfterHeadStart: over before its head start")
	}
	if !wait(later) {
		t.Fatal("AfterHeadStart did not open on its own")
	}
	if took := time.Since(begin); took < HeadStart/2 {
		t.Errorf("AfterHeadStart opened after %v, before its head start %v", took, HeadStart)
	}

	asked := Open(cpuSelection(""), WhenAsked, takeAll)
	defer asked.ReleaseNow()
	if err := asked.Settle(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * HeadStart)
	if asked.Done() {
		t.Fatal("WhenAsked opened unasked (Settle without ARBOR_REQUIRE must not start it)")
	}
	if devs, err := asked.Wait(); err != nil || len(devs) != 1 {
		t.Fatalf("WhenAsked, asked: %v, %v", devs, err)
	}
}

// TestSettle: with a required backend Settle opens and waits, and returns
// the rule's error; the fallback is reported.
func TestSettle(t *testing.T) {
	o := Open(cpuSelection("cpu"), WhenAsked, takeAll)
	defer o.ReleaseNow()
	if err := o.Settle(); err != nil || !o.Done() || len(o.Devices()) != 1 {
		t.Fatalf("required: %v, done %v", err, o.Done())
	}
	bad := errors.New("the engine needs a device")
	failing := Open(Selection{Selection: backend.Selection{Backend: "no-such-backend", Require: "no-such-backend"}}, WhenAsked,
		func(opened []backend.Device, err error) (Placement, error) {
			if err == nil {
				t.Error("a backend that does not exist opened")
			}
			return Placement{}, bad
		})
	defer failing.ReleaseNow()
	if err := failing.Settle(); !errors.Is(err, bad) {
		t.Fatalf("Settle: %v, want the rule's error", err)
	}
	fallback := Open(Selection{Selection: backend.Selection{Backend: "no-such-backend", Require: "no-such-backend"}}, WhenAsked, takeAll)
	defer fallback.ReleaseNow()
	if err := fallback.Settle(); err != nil || fallback.Report().Fallback == "" || fallback.Devices() != nil {
		t.Fatalf("fallback: %v, report %+v", err, fallback.Report())
	}
}

// TestOpenNow: the batch's opening, at once: the devices, a report, and a
// close for them; a rule's error is returned.
func TestOpenNow(t *testing.T) {
	devs, closeAll, r, err := OpenNow(cpuSelection(""), takeAll)
	if err != nil || len(devs) != 1 || len(r.Using) != 1 || r.Note != "a note" {
		t.Fatalf("OpenNow: %v, %v, %+v", devs, err, r)
	}
	closeAll()
	bad := errors.New("no")
	_, closeAll, _, err = OpenNow(cpuSelection(""), func([]backend.Device, error) (Placement, error) { return Placement{}, bad })
	if !errors.Is(err, bad) {
		t.Fatalf("OpenNow with a failing rule: %v", err)
	}
	closeAll()
}
