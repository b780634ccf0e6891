package opencl

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
)

// idsCode records, for every work-item inside (nx, ny, nz), its packed
// global id and how many times it ran; item (0,0,0) also records the
// geometry the device saw.
const idsCode = `__kernel void ids(__global uint* out, __global uint* count, __global uint* geo,
                  const uint nx, const uint ny, const uint nz)
{
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    if (x == 0 && y == 0 && z == 0) {
        for (uint d = 0; d < 3; d++) {
            geo[d] = (uint)get_global_size(d);
            geo[3 + d] = (uint)get_local_size(d);
            geo[6 + d] = (uint)get_num_groups(d);
        }
        geo[9] = get_work_dim();
    }
    if (x < nx && y < ny && z < nz) {
        size_t i = x + nx * (y + ny * z);
        out[i] = (uint)(x | (y << 11) | (z << 22));
        atomic_inc(&count[i]);
    }
}
`

// TestGeometry: every work-item inside the range runs exactly once with the
// right ids, and the device sees the rounded-up geometry and the work
// dimension Normalize and dims promise. The full list of edge cases (one
// item, 2^24 items, ...) is the cross-backend TestLaunchGeometry in tests/;
// each new group size costs PoCL a compilation, so this list stays short.
func TestGeometry(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		k := kernel(t, d, "ids", idsCode)
		q := queue(t, d)
		geo := alloc(t, d, 10*4)
		cases := []backend.Range{
			backend.R1(1, 0), backend.R1(1000, 64), backend.R1(70000, 0),
			backend.R2(33, 17, 8, 8), backend.R2(1, 100, 1, 64), backend.R3(10, 7, 5, 4, 4, 2),
		}
		for _, r := range cases {
			t.Run(fmt.Sprintf("%v_%v", r.Global, r.Local), func(t *testing.T) {
				nx, ny, nz := r.Global[0], max(r.Global[1], 1), max(r.Global[2], 1)
				n := nx * ny * nz
				out := alloc(t, d, n*4)
				count := alloc(t, d, n*4)
				must(t, q.Fill(out, 0, n*4, 0xFFFFFFFF))
				must(t, q.Fill(count, 0, n*4, 0))
				must(t, q.Fill(geo, 0, 40, 0))
				must(t, q.Launch(k, r, backend.Buf(out), backend.Buf(count), backend.Buf(geo),
					backend.U32(uint32(nx)), backend.U32(uint32(ny)), backend.U32(uint32(nz))))
				ids := make([]uint32, n)
				counts := make([]uint32, n)
				g := make([]uint32, 10)
				must(t, backend.ReadSlice(q, out, ids))
				must(t, backend.ReadSlice(q, count, counts))
				must(t, backend.ReadSlice(q, geo, g))
				for i := range n {
					x, y, z := i%nx, (i/nx)%ny, i/(nx*ny)
					if want := uint32(x | y<<11 | z<<22); ids[i] != want || counts[i] != 1 {
						t.Fatalf("item (%d,%d,%d): id %#x count %d, want %#x once", x, y, z, ids[i], counts[i], want)
					}
				}
				nr, groups, err := r.Normalize(k.MaxGroup())
				if err != nil {
					t.Fatal(err)
				}
				var want []uint32
				for _, v := range [][3]int{nr.Global, nr.Local, groups} {
					for _, x := range v {
						want = append(want, uint32(x))
					}
				}
				want = append(want, uint32(dims(nr)))
				if !slices.Equal(g, want) {
					t.Errorf("device saw global/local/groups/dims %v, want %v", g, want)
				}
			})
		}
		// A work-group larger than the kernel allows is a clear error, not
		// CL_INVALID_WORK_GROUP_SIZE from the driver.
		err := q.Launch(k, backend.R1(64, k.MaxGroup()*2), backend.Buf(geo), backend.Buf(geo), backend.Buf(geo),
			backend.U32(0), backend.U32(0), backend.U32(0))
		if err == nil || !strings.Contains(err.Error(), "device allows") {
			t.Errorf("oversized work-group: %v", err)
		}
		// An empty range launches nothing and is not an error.
		must(t, q.Launch(k, backend.R1(0, 0)))
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestScalarArgs: an argument whose size does not match the kernel's
// parameter is refused by the backend, naming the argument, before OpenCL
// sees it. (That every scalar kind arrives bit for bit is the cross-backend
// TestScalarArguments in tests/.)
func TestScalarArgs(t *testing.T) {
	const code = `__kernel void scalars(__global ulong* out, int a) { out[0] = (ulong)(uint)a; }
`
	forEachDevice(t, func(t *testing.T, d *Device) {
		k := kernel(t, d, "scalars", code)
		q := queue(t, d)
		out := alloc(t, d, 8)
		must(t, q.Launch(k, backend.R1(1, 1), backend.Buf(out), backend.I32(-7)))
		got := make([]uint64, 1)
		must(t, backend.ReadSlice(q, out, got))
		if got[0] != uint64(uint32(0xFFFFFFF9)) {
			t.Errorf("kernel saw %#x, want 0xfffffff9", got[0])
		}
		// An 8-byte value for a 4-byte parameter is refused by name.
		err := q.Launch(k, backend.R1(1, 1), backend.Buf(out), backend.I64(1))
		if err == nil || !strings.Contains(err.Error(), "argument 1") {
			t.Errorf("wrong-size argument: %v", err)
		}
	})
}

// TestLocalArgs: local-memory arguments the device cannot take (zero bytes,
// more than it has) are refused before the launch. (Two dynamic arrays
// that do not overlap are the cross-backend TestLocalArguments in tests/.)
func TestLocalArgs(t *testing.T) {
	const code = `__kernel void rev(__global const int* in, __global long* out, __local int* a, __local long* b)
{
    size_t l = get_local_id(0), g = get_global_id(0);
    a[l] = in[g];
    b[l] = (long)in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = (long)a[l] + b[l];
}
`
	forEachDevice(t, func(t *testing.T, d *Device) {
		k := kernel(t, d, "rev", code)
		q := queue(t, d)
		if err := q.Launch(k, backend.R1(4, 4), backend.Buf(alloc(t, d, 16)), backend.Buf(alloc(t, d, 32)),
			backend.Local(0), backend.Local(32)); err == nil {
			t.Error("zero bytes of local memory accepted")
		}
		huge := int(d.Info().LocalMemory) + 8
		if err := q.Launch(k, backend.R1(4, 4), backend.Buf(alloc(t, d, 16)), backend.Buf(alloc(t, d, 32)),
			backend.Local(huge), backend.Local(32)); err == nil {
			t.Error("more local memory than the device has was accepted")
		}
	})
}

// TestBuffers: zero-length operations, and every bad request (ranges,
// overlap, foreign or freed objects) refused by the backend itself, before
// OpenCL could answer with a bare CL_ code. (The data of Write, Read, Copy
// and Fill is the cross-backend TestBufferOperations in tests/.)
func TestBuffers(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		q := queue(t, d)
		a := alloc(t, d, 64)
		b := alloc(t, d, 64)
		// Zero-length operations are no-ops, even at the end.
		must(t, q.Read(a, 64, nil))
		must(t, q.Write(a, 64, nil))
		must(t, q.Copy(a, 64, b, 64, 0))
		must(t, q.Fill(a, 64, 0, 1))

		for name, err := range map[string]error{
			"read past the end":       q.Read(a, 60, make([]byte, 5)),
			"write past the end":      q.Write(a, 63, []byte{1, 2}),
			"negative offset":         q.Read(a, -1, make([]byte, 1)),
			"huge offset":             q.Write(a, math.MaxInt-1, []byte{1, 2, 3}),
			"copy source overflow":    q.Copy(b, 0, a, 60, 8),
			"copy destination":        q.Copy(b, 60, a, 0, 8),
			"overlapping copy":        q.Copy(a, 4, a, 0, 8),
			"fill past the end":       q.Fill(a, 60, 8, 0),
			"unaligned fill":          q.Fill(a, 2, 4, 0),
			"foreign buffer":          q.Write(foreignBuffer{}, 0, []byte{1}),
			"zero-byte alloc":         allocErr(d, 0),
			"negative alloc":          allocErr(d, -5),
			"launch of a nil kernel":  q.Launch(nil, backend.R1(1, 1)),
			"elapsed of a foreign ev": elapsedForeign(t, q),
		} {
			if err == nil {
				t.Errorf("%s: no error", name)
			} else if strings.Contains(err.Error(), "CL_") {
				t.Errorf("%s: %v; the backend should catch it before OpenCL does", name, err)
			}
		}
		c, err := d.Alloc(8)
		must(t, err)
		must(t, c.Free())
		if err := c.Free(); err == nil {
			t.Error("double free: no error")
		}
		if err := q.Write(c, 0, []byte{1}); err == nil {
			t.Error("write to a freed buffer: no error")
		}
	})
}

type foreignBuffer struct{}

func (foreignBuffer) Size() int   { return 1 << 20 }
func (foreignBuffer) Free() error { return nil }

func allocErr(d *Device, n int) error {
	b, err := d.Alloc(n)
	if err == nil {
		b.Free()
	}
	return err
}

func elapsedForeign(t *testing.T, q *Queue) error {
	e, err := q.Record()
	must(t, err)
	defer e.Release()
	_, err = e.Elapsed(nil)
	return err
}

// TestEvents: markers around real work give an elapsed time ≥ 0 that grows
// with the work, and Wait/Finish succeed.
func TestEvents(t *testing.T) {
	const code = `__kernel void spin(__global uint* a, uint n, uint rounds)
{
    size_t i = get_global_id(0);
    if (i >= n) return;
    uint x = a[i];
    for (uint r = 0; r < rounds; r++) x = x * 1664525u + 1013904223u;
    a[i] = x;
}
`
	forEachDevice(t, func(t *testing.T, d *Device) {
		k := kernel(t, d, "spin", code)
		q := queue(t, d)
		const n = 1 << 16
		buf := alloc(t, d, n*4)
		must(t, q.Fill(buf, 0, n*4, 1))
		start, err := q.Record()
		must(t, err)
		defer start.Release()
		must(t, q.Launch(k, backend.R1(n, 0), backend.Buf(buf), backend.U32(n), backend.U32(2000)))
		end, err := q.Record()
		must(t, err)
		defer end.Release()
		must(t, end.Wait())
		el, err := end.Elapsed(start)
		must(t, err)
		if el <= 0 || el > time.Minute {
			t.Errorf("elapsed %v for 1.3e8 multiply-adds", el)
		}
		same, err := start.Elapsed(start)
		if err != nil || same != 0 {
			t.Errorf("an event's time to itself: %v, %v", same, err)
		}
		t.Logf("spin: %v", el)
		must(t, q.Finish())
		if err := end.Release(); err != nil {
			t.Fatal(err)
		}
		if err := end.Release(); err == nil {
			t.Error("event released twice without error")
		}
		if err := end.Wait(); err == nil {
			t.Error("wait on a released event: no error")
		}
	})
}

// TestOutOfMemory: more than the device's memory is an error matching
// backend.ErrOutOfMemory, never a crash. Allocations within the limit
// are made until the device refuses or twice its memory is reserved
// (drivers that allocate lazily, like PoCL, may accept them all).
func TestOutOfMemory(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		info := d.Info()
		_, err := d.Alloc(int(min(info.GlobalMemory+1, math.MaxInt/2)))
		if err == nil || !errors.Is(err, backend.ErrOutOfMemory) {
			t.Fatalf("alloc of global memory + 1: %v, want ErrOutOfMemory", err)
		}
		t.Logf("over-sized alloc: %v", err)
		chunk := int(d.dev.maxAlloc)
		if chunk <= 0 {
			t.Skip("the device reports no max allocation size")
		}
		var held []backend.Buffer
		defer func() {
			for _, b := range held {
				if err := b.Free(); err != nil {
					t.Error(err)
				}
			}
		}()
		for total := uint64(0); total < 2*info.GlobalMemory; total += uint64(chunk) {
			b, err := d.Alloc(chunk)
			if err != nil {
				if !errors.Is(err, backend.ErrOutOfMemory) {
					t.Fatalf("alloc failed without ErrOutOfMemory: %v", err)
				}
				t.Logf("refused after %d MiB: %v", total>>20, err)
				return
			}
			held = append(held, b)
		}
		t.Logf("the driver accepted %d buffers of %d MiB (lazy allocation)", len(held), chunk>>20)
	})
}

// TestConcurrent: goroutines with their own queues share one device and one
// kernel; the kernel's lock keeps argument setting and launch together.
func TestConcurrent(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		p, err := device.Build(d, "vecadd", nil, "vec_add")
		must(t, err)
		defer p.Release()
		k, err := p.Kernel("vec_add")
		must(t, err)
		defer k.Release()
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				q, err := d.NewQueue()
				if err != nil {
					errs <- err
					return
				}
				defer q.Release()
				n := 1000 + w*37
				a := make([]int32, n)
				for i := range a {
					a[i] = int32(i * (w + 1))
				}
				for round := range 20 {
					ba, err := backend.AllocSlice(d, q, a)
					if err != nil {
						errs <- err
						return
					}
					bc, _ := backend.AllocN[int32](d, n)
					err = q.Launch(k, backend.R1(n, 64), backend.Buf(ba), backend.Buf(ba), backend.Buf(bc),
						backend.I32(int32(n)), backend.I32(int32(round)))
					got := make([]int32, n)
					if err == nil {
						err = backend.ReadSlice(q, bc, got)
					}
					ba.Free()
					bc.Free()
					if err != nil {
						errs <- err
						return
					}
					for i := range got {
						if want := a[i] * int32(round+1); got[i] != want {
							errs <- fmt.Errorf("worker %d round %d: c[%d] = %d, want %d", w, round, i, got[i], want)
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

// TestLifecycle: double releases and use after close are errors, not
// crashes.
func TestLifecycle(t *testing.T) {
	forEachDevice(t, func(t *testing.T, opened *Device) {
		// A device of its own, to close while its objects live on.
		dev, err := backend.OpenBackend(Name, opened.Info().Index)
		must(t, err)
		d := dev.(*Device)
		p, err := d.Build(testSource("twice", twiceCode, "twice"))
		must(t, err)
		k, err := p.Kernel("twice")
		must(t, err)
		q, err := d.NewQueue()
		must(t, err)
		b, err := d.Alloc(16)
		must(t, err)
		must(t, d.Close())
		if err := d.Close(); err == nil {
			t.Error("device closed twice without error")
		}
		if _, err := d.Alloc(4); err == nil {
			t.Error("alloc on a closed device: no error")
		}
		if _, err := d.Build(testSource("twice", twiceCode)); err == nil {
			t.Error("build on a closed device: no error")
		}
		// Objects made before Close stay usable until released.
		must(t, q.Launch(k, backend.R1(4, 0), backend.Buf(b), backend.I32(4)))
		must(t, q.Finish())
		must(t, p.Release())
		if err := p.Release(); err == nil {
			t.Error("program released twice without error")
		}
		must(t, k.Release())
		if err := k.Release(); err == nil {
			t.Error("kernel released twice without error")
		}
		if err := q.Launch(k, backend.R1(4, 0), backend.Buf(b), backend.I32(4)); err == nil {
			t.Error("launch of a released kernel: no error")
		}
		must(t, b.Free())
		must(t, q.Release())
		if err := q.Release(); err == nil {
			t.Error("queue released twice without error")
		}
		if err := q.Finish(); err == nil {
			t.Error("finish on a released queue: no error")
		}
	})
}

// TestForeignObjects: buffers and kernels belong to the device (context)
// that made them; using them with another device's queue is refused, and
// a launch OpenCL rejects is reported with the status's name.
func TestForeignObjects(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d1 *Device) {
		dev2, err := backend.OpenBackend(Name, d1.Info().Index)
		must(t, err)
		defer dev2.Close()
		d2 := dev2.(*Device)
		k1 := kernel(t, d1, "twice", twiceCode)
		b1 := alloc(t, d1, 16)
		q2 := queue(t, d2)
		if err := q2.Write(b1, 0, []byte{1}); err == nil || !strings.Contains(err.Error(), "used on a queue of") {
			t.Errorf("another device's buffer: %v", err)
		}
		if err := q2.Launch(k1, backend.R1(4, 0), backend.Buf(alloc(t, d2, 16)), backend.I32(4)); err == nil {
			t.Error("another device's kernel launched")
		}
		q1 := queue(t, d1)
		err = q1.Launch(k1, backend.R1(4, 0), backend.Buf(b1)) // the count argument is missing
		if c, _ := Code(err); c != -52 || !strings.Contains(err.Error(), "CL_INVALID_KERNEL_ARGS") {
			t.Errorf("launch with an argument missing: %v", err)
		}
	})
}
