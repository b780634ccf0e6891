package search

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
