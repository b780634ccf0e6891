package ticker

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestEvery: the callback runs repeatedly, and never once stop returned.
func TestEvery(t *testing.T) {
	var calls atomic.Int32
	stop := Every(time.Millisecond, func() { calls.Add(1) })
	deadline := time.Now().Add(5 * time.Second)
	for calls.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	stop()
	after := calls.Load()
	if after < 3 {
		t.Fatalf("%d calls in 5 s at a 1 ms interval", after)
	}
	time.Sleep(10 * time.Millisecond)
	if n := calls.Load(); n != after {
		t.Fatalf("%d calls after stop returned", n-after)
	}
}
