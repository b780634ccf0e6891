package search

import (
	"testing"

	"github.com/arbor-gpu/arbor/backend"
)

// testShape is a shape whose memory is perWorker bytes a worker and 8 a
// ring slot.
type testShape struct {
	Workers, Capacity int
	perWorker         int64
}

func (s testShape) Bytes() int64 { return int64(s.Workers)*s.perWorker + 8*int64(s.Capacity) }
func (s testShape) Resize(workers, capacity int) testShape {
	s.Workers, s.Capacity = workers, capacity
	return s
}

func TestFitShape(t *testing.T) {
	gpu := backend.Info{Type: backend.TypeGPU, ComputeUnits: 10, GlobalMemory: 1 << 30}
	// Room for everything: DefaultWorkers (16 a unit), 4 tasks each.
	s := FitShape(gpu, testShape{perWorker: 1 << 10}, 0)
	if s.Workers != 160 || s.Capacity != 1024 {
		t.Fatalf("roomy: %d workers, capacity %d; want 160, 1024", s.Workers, s.Capacity)
	}
	// A caller's own count is kept when it fits.
	if s := FitShape(gpu, testShape{perWorker: 1 << 10}, 7); s.Workers != 7 || s.Capacity != 64 {
		t.Fatalf("7 workers asked: %d workers, capacity %d", s.Workers, s.Capacity)
	}
	// 16 MiB a worker: half of 1 GiB takes 31, so 160 halves to 20.
	s = FitShape(gpu, testShape{perWorker: 16 << 20}, 0)
	if s.Workers != 20 || s.Capacity != 128 || s.Bytes() > 1<<29 {
		t.Fatalf("tight: %d workers, capacity %d, %d bytes", s.Workers, s.Capacity, s.Bytes())
	}
	// It equals Fit with the closure every engine used to write.
	w, c := Fit(gpu, 0, func(w, c int) int64 { return testShape{w, c, 16 << 20}.Bytes() })
	if w != s.Workers || c != s.Capacity {
		t.Fatalf("Fit %d, %d; FitShape %d, %d", w, c, s.Workers, s.Capacity)
	}
}

func TestBestWorker(t *testing.T) {
	// 32-bit certificates, stride 3: the largest size word above none, the
	// first of equals.
	c32 := []int32{2, 0, 0, 5, 0, 0, 5, 0, 0, -1, 0, 0}
	if b := BestWorker(c32, 4, 3, 0); b != 1 {
		t.Fatalf("int32: worker %d, want 1", b)
	}
	if b := BestWorker([]int32{-1, -1}, 2, 1, -1); b != -1 {
		t.Fatalf("none above -1: worker %d", b)
	}
	// 64-bit size words past 2^32, which a 32-bit word cannot hold.
	c64 := []uint64{1 << 33, 7, 1<<33 + 1, 9, 3, 1}
	if b := BestWorker(c64, 3, 2, 0); b != 1 {
		t.Fatalf("uint64: worker %d, want 1", b)
	}
	if b := BestWorker([]int64{-5, -3, -7}, 3, 1, -6); b != 1 {
		t.Fatalf("int64: worker %d, want 1", b)
	}
}
