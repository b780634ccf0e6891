package backend_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cpu"
)

// TestBuffers: uploads land, the first error sticks and stops further
// allocations, and Free releases everything the set took.
func TestBuffers(t *testing.T) {
	dev := cpu.New(1)
	q, _ := dev.NewQueue()
	bs := backend.NewBuffers(dev, q)
	a := backend.Upload(bs, []int32{4, 5, 6})
	b := backend.AllocIn[uint64](bs, 2)
	c := bs.Alloc(0)
	if a == nil || b == nil || c == nil || bs.Err() != nil {
		t.Fatalf("allocations failed: %v", bs.Err())
	}
	got := make([]int32, 3)
	if err := backend.ReadSlice(q, a, got); err != nil || got[2] != 6 {
		t.Fatalf("upload read back %v, %v", got, err)
	}
	if b.Size() != 16 || c.Size() != 8 {
		t.Fatalf("sizes %d and %d, want 16 and 8", b.Size(), c.Size())
	}
	first := errors.New("first failure")
	if bs.Add(nil, first) != nil || backend.Upload(bs, []int32{1}) != nil || bs.Alloc(64) != nil {
		t.Fatal("allocations after a failure must return nil")
	}
	if !errors.Is(bs.Err(), first) {
		t.Fatalf("Err = %v, want the first failure", bs.Err())
	}
	bs.Free()
	for i, buf := range []backend.Buffer{a, b, c} {
		if err := buf.Free(); err == nil {
			t.Errorf("buffer %d was not freed by the set", i)
		}
	}
}

// TestOpenWorkers: the CPU backend opens through the registry with a
// sized worker pool (arbor verify's one-worker reference), and refuses an
// index it does not have.
func TestOpenWorkers(t *testing.T) {
	dev, err := backend.OpenWorkers(cpu.Name, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	if _, ok := dev.(*cpu.Device); !ok || dev.Info().Backend != cpu.Name {
		t.Fatalf("OpenWorkers(cpu) gave %T on %s", dev, dev.Info())
	}
	if _, err := backend.OpenWorkers(cpu.Name, 1, 1); !errors.Is(err, backend.ErrNoDevice) {
		t.Fatalf("index 1: %v, want ErrNoDevice", err)
	}
}

// TestCheckSpan: ranges inside the buffer pass, whatever touches outside
// it (or overflows) is refused with the backend, the purpose and the range.
func TestCheckSpan(t *testing.T) {
	for _, c := range []struct{ off, n, size int }{{0, 0, 0}, {0, 8, 8}, {8, 0, 8}, {3, 4, 8}} {
		if err := backend.CheckSpan("cpu", "read", c.off, c.n, c.size); err != nil {
			t.Errorf("%v: %v", c, err)
		}
	}
	for _, c := range []struct{ off, n, size int }{{-1, 2, 8}, {0, -1, 8}, {9, 0, 8}, {5, 4, 8}, {1, int(^uint(0) >> 1), 8}} {
		if err := backend.CheckSpan("cpu", "read", c.off, c.n, c.size); err == nil || !strings.HasPrefix(err.Error(), "cpu: read [") {
			t.Errorf("%v: %v", c, err)
		}
	}
	if err := backend.CheckCopy("cuda", 0, 4, 2, 4, 4); err == nil || err.Error() != "cuda: copy destination [2, 6) outside buffer of 4 bytes" {
		t.Errorf("copy past the destination: %v", err)
	}
	if err := backend.CheckFill("opencl", 4, 8, 16); err != nil {
		t.Errorf("aligned fill: %v", err)
	}
	if err := backend.CheckFill("opencl", 2, 4, 16); err == nil || err.Error() != "opencl: fill [2, 6) is not 4-byte aligned" {
		t.Errorf("unaligned fill: %v", err)
	}
	if err := backend.CheckCopy("cuda", 1, 4, 0, 8, 4); err == nil || !strings.Contains(err.Error(), "copy source [1, 5)") {
		t.Errorf("copy past the source: %v", err)
	}
}
