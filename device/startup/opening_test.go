package startup

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
)

// TestOpeningReleaseOnce: the devices are released exactly once whether
// Release comes before the opening ends, after it, or twice.
func TestOpeningReleaseOnce(t *testing.T) {
	for _, early := range []bool{true, false} {
		var closed atomic.Int32
		gate := make(chan struct{})
		o := OpenInBackground(func() ([]backend.Device, func(), error) {
			<-gate
			return nil, func() { closed.Add(1) }, nil
		})
		if o.Done() || o.Took() != 0 {
			t.Fatal("done before open returned")
		}
		if early {
			o.Release()
			o.Release()
			close(gate)
		} else {
			close(gate)
			if _, err := o.Wait(); err != nil {
				t.Fatal(err)
			}
			o.Release()
			o.Release()
		}
		<-o.Ready()
		deadline := time.Now().Add(5 * time.Second)
		for closed.Load() == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(10 * time.Millisecond)
		if n := closed.Load(); n != 1 {
			t.Errorf("early=%v: released %d times, want 1", early, n)
		}
	}
}

// TestOpeningError: a failed opening reports its reason and no devices.
func TestOpeningError(t *testing.T) {
	want := errors.New("no GPU")
	o := OpenInBackground(func() ([]backend.Device, func(), error) { return nil, nil, want })
	devs, err := o.Wait()
	if !errors.Is(err, want) || devs != nil || !o.Done() {
		t.Fatalf("Wait = %v, %v", devs, err)
	}
	o.ReleaseNow() // nothing to close: must not panic
	if o := Opened(nil); !o.Done() {
		t.Fatal("Opened is not done")
	}
}

// TestOpenWhenAsked: the devices open only once asked (Start, or Wait),
// once; an opening released before it was asked never opens, and
// ReleaseNow does not wait for one that never started.
func TestOpenWhenAsked(t *testing.T) {
	var opened atomic.Int32
	open := func() ([]backend.Device, func(), error) {
		opened.Add(1)
		return nil, nil, nil
	}
	o := OpenWhenAsked(open)
	time.Sleep(5 * time.Millisecond)
	if o.Done() || opened.Load() != 0 {
		t.Fatal("opened before it was asked")
	}
	o.Start()
	o.Start()
	if _, err := o.Wait(); err != nil || opened.Load() != 1 {
		t.Fatalf("after Start: %v, opened %d times", err, opened.Load())
	}
	o.ReleaseNow()

	if _, err := OpenWhenAsked(open).Wait(); err != nil || opened.Load() != 2 {
		t.Fatalf("Wait did not start it: %v, opened %d times", err, opened.Load())
	}

	o = OpenWhenAsked(open)
	o.Release()
	o.Start()
	if _, err := o.Wait(); err == nil || opened.Load() != 2 {
		t.Fatalf("released before it started: %v, opened %d times", err, opened.Load())
	}
	o = OpenWhenAsked(open)
	o.ReleaseNow() // must not wait for an opening nobody asked for
	if !o.Done() || opened.Load() != 2 {
		t.Fatalf("ReleaseNow on an unstarted opening: done %v, opened %d times", o.Done(), opened.Load())
	}
}
