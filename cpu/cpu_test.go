package cpu

import (
	"strings"
	"sync"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
)

// Test twins are registered once under names no real kernel uses.
var registerOnce sync.Once

func registerTestTwins() {
	registerOnce.Do(func() {
		// ids3d writes, for each in-range work-item, its flat global index
		// into out[gx + gy*nx + gz*nx*ny], plus group and local ids.
		backend.RegisterTwin("test_ids3d", func(g *backend.Group) {
			out, grp := g.I32s(0), g.I32s(1)
			nx, ny, nz := int(g.I32(2)), int(g.I32(3)), int(g.I32(4))
			g.Items(func(it backend.Item) {
				x, y, z := it.Global[0], it.Global[1], it.Global[2]
				if x < nx && y < ny && z < nz {
					i := x + y*nx + z*nx*ny
					out[i] = int32(i)
					grp[i] = int32(g.ID[0] + 100*g.ID[1] + 10000*g.ID[2])
				}
			})
		})
		// localProbe checks that local memory starts zeroed in every group and
		// is private to it: each item adds 1 to scratch[0], then item 0 writes it.
		backend.RegisterTwin("test_local_probe", func(g *backend.Group) {
			out := g.I32s(0)
			scratch := g.LocalI32(1)
			g.Each(func(lid, _ int) { scratch[0]++ })
			out[g.ID[0]] = scratch[0]
		})
		backend.RegisterTwin("test_fault", func(g *backend.Group) {
			out := g.I32s(0)
			g.Each(func(_, gid int) { out[gid+len(out)] = 1 })
		})
	})
}

func build(t *testing.T, d *Device, kernel string) (backend.Queue, backend.Kernel) {
	t.Helper()
	registerTestTwins()
	p, err := d.Build(backend.Source{Name: "test", Kernels: []string{kernel}})
	if err != nil {
		t.Fatal(err)
	}
	k, err := p.Kernel(kernel)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := d.NewQueue()
	return q, k
}

func TestLaunch3DCoversEveryItemOnce(t *testing.T) {
	d := New(3)
	q, k := build(t, d, "test_ids3d")
	nx, ny, nz := 13, 7, 5
	n := nx * ny * nz
	out, _ := backend.AllocN[int32](d, n)
	grp, _ := backend.AllocN[int32](d, n)
	if err := q.Fill(out, 0, 4*n, 0xffffffff); err != nil {
		t.Fatal(err)
	}
	if err := q.Launch(k, backend.R3(nx, ny, nz, 4, 2, 2), backend.Buf(out), backend.Buf(grp),
		backend.I32(int32(nx)), backend.I32(int32(ny)), backend.I32(int32(nz))); err != nil {
		t.Fatal(err)
	}
	got, gids := make([]int32, n), make([]int32, n)
	backend.ReadSlice(q, out, got)
	backend.ReadSlice(q, grp, gids)
	for i := range got {
		x, y, z := i%nx, (i/nx)%ny, i/(nx*ny)
		want := int32(x/4 + 100*(y/2) + 10000*(z/2))
		if got[i] != int32(i) || gids[i] != want {
			t.Fatalf("item %d (%d,%d,%d): wrote %d in group %d, want %d in group %d", i, x, y, z, got[i], gids[i], i, want)
		}
	}
}

func TestLocalMemoryIsPerGroupAndZeroed(t *testing.T) {
	d := New(2)
	q, k := build(t, d, "test_local_probe")
	groups := 50
	out, _ := backend.AllocN[int32](d, groups)
	for rep := 0; rep < 2; rep++ { // a second launch must not see the first's local memory
		if err := q.Launch(k, backend.R1(groups*32, 32), backend.Buf(out), backend.Local(64)); err != nil {
			t.Fatal(err)
		}
		got := make([]int32, groups)
		backend.ReadSlice(q, out, got)
		for g, v := range got {
			if v != 32 {
				t.Fatalf("launch %d group %d counted %d items in local memory, want 32", rep, g, v)
			}
		}
	}
}

func TestFaultIsAnErrorNotACrash(t *testing.T) {
	d := New(2)
	q, k := build(t, d, "test_fault")
	out, _ := backend.AllocN[int32](d, 8)
	err := q.Launch(k, backend.R1(8, 8), backend.Buf(out))
	if err == nil || !strings.Contains(err.Error(), "kernel fault") {
		t.Fatalf("err = %v, want a kernel fault", err)
	}
}

func TestArgumentAndBufferErrors(t *testing.T) {
	d := New(1)
	registerTestTwins()
	if _, err := d.Build(backend.Source{Name: "x", Kernels: []string{"no_such_kernel"}}); err == nil ||
		!strings.Contains(err.Error(), "no_such_kernel") {
		t.Errorf("missing twin: err = %v", err)
	}
	q, k := build(t, d, "test_local_probe")
	b, _ := d.Alloc(16)
	if err := q.Write(b, 8, make([]byte, 16)); err == nil {
		t.Error("write past the end should fail")
	}
	if err := q.Read(b, -1, make([]byte, 4)); err == nil {
		t.Error("read at a negative offset should fail")
	}
	if err := q.Launch(k, backend.R1(32, 32), backend.Buf(b), backend.Local(1<<20)); err == nil {
		t.Error("more local memory than the device has should fail")
	}
	if err := q.Launch(k, backend.R1(2048, 2048), backend.Buf(b), backend.Local(64)); err == nil {
		t.Error("a work-group over the maximum should fail")
	}
	b.Free()
	if err := q.Write(b, 0, []byte{1}); err == nil {
		t.Error("write to a freed buffer should fail")
	}
	if err := b.Free(); err == nil {
		t.Error("double free should be reported")
	}
	if _, err := d.Alloc(0); err == nil {
		t.Error("zero-size alloc should fail")
	}
}

func TestCopyFillAndEvents(t *testing.T) {
	d := New(1)
	q, _ := d.NewQueue()
	src, _ := backend.AllocSlice(d, q, []int32{1, 2, 3, 4, 5, 6})
	dst, _ := backend.AllocN[int32](d, 6)
	q.Fill(dst, 0, 24, 9)
	start, _ := q.Record()
	if err := q.Copy(dst, 4, src, 8, 12); err != nil {
		t.Fatal(err)
	}
	end, _ := q.Record()
	got := make([]int32, 6)
	backend.ReadSlice(q, dst, got)
	want := []int32{9, 3, 4, 5, 9, 9}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("after copy: %v, want %v", got, want)
		}
	}
	if el, err := end.Elapsed(start); err != nil || el < 0 {
		t.Fatalf("elapsed %v, %v", el, err)
	}
	if err := q.Fill(dst, 2, 4, 0); err == nil {
		t.Error("unaligned fill should fail")
	}
}
