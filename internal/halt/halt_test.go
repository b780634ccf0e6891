package halt

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestOnDone(t *testing.T) {
	var n atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stop := OnDone(ctx, func() { n.Add(1) })
	if n.Load() < 1 {
		t.Fatal("a context done already did not halt before OnDone returned")
	}
	stop()

	var m atomic.Int32
	ctx, cancel = context.WithCancel(context.Background())
	stop = OnDone(ctx, func() { m.Add(1) })
	if m.Load() != 0 {
		t.Fatal("halted before the context was done")
	}
	cancel()
	for start := time.Now(); m.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatal("not halted after the context was done")
		}
	}
	stop()

	ctx, cancel = context.WithCancel(context.Background())
	var k atomic.Int32
	OnDone(ctx, func() { k.Add(1) })()
	cancel()
	time.Sleep(10 * time.Millisecond)
	if k.Load() != 0 {
		t.Fatal("halted after stop")
	}
}
