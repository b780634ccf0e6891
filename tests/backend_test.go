package tests

// Conformance of the backend interface itself, on every device of every
// backend: launch geometry, scalar and local-memory arguments, buffer
// operations and their range checks, events. The kernels are written in the
// prelude's vocabulary so that OpenCL and NVRTC compile the same text; their
// Go twins below are what the CPU backend runs.

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/device"
)

const conformanceCode = `
#if defined(ARBOR_OPENCL)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* Every work-item inside (nx, ny, nz) writes its packed global id and counts
   itself; item (0,0,0) records the geometry it sees. */
KERNEL void conformance_ids(GLOBAL u32* out, GLOBAL u32* count, GLOBAL u32* geo,
                            const u32 nx, const u32 ny, const u32 nz)
{
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    if (x == 0 && y == 0 && z == 0) {
        for (int d = 0; d < 3; d++) {
            geo[d] = (u32)get_global_size(d);
            geo[3 + d] = (u32)get_local_size(d);
            geo[6 + d] = (u32)get_num_groups(d);
        }
    }
    if (x < nx && y < ny && z < nz) {
        size_t i = x + nx * (y + ny * z);
        out[i] = (u32)(x | (y << 11) | (z << 22));
        ATOMIC_ADD_U32(count + i, 1u);
    }
}

typedef union { float f; u32 u; } conformance_f32;
typedef union { double f; u64 u; } conformance_f64;

/* Each scalar argument's bits, widened to 64. */
KERNEL void conformance_scalars(GLOBAL u64* out, const i32 a, const u32 b, const i64 c, const u64 d,
                                const float e, const double f, const i32 g)
{
    if (get_global_id(0) != 0) return;
    conformance_f32 fe;
    conformance_f64 fd;
    fe.f = e;
    fd.f = f;
    out[0] = (u64)(u32)a;
    out[1] = (u64)b;
    out[2] = (u64)c;
    out[3] = d;
    out[4] = (u64)fe.u;
    out[5] = fd.u;
    out[6] = (u64)(u32)g;
}

/* Two dynamic local arrays of different element sizes, each read back
   reversed within the group after a barrier. */
KERNEL void conformance_reverse(GLOBAL const i32* in, GLOBAL i64* out, LOCAL_PTR(i32, a), LOCAL_PTR(i64, b))
{
    LOCAL_BIND(i32, a);
    LOCAL_BIND(i64, b);
    size_t l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);
    a[l] = in[g];
    b[l] = (i64)in[g] * 1000000007;
    BARRIER();
    out[g] = (i64)a[n - 1 - l] + b[n - 1 - l];
}
`

var conformanceKernels = []string{"conformance_ids", "conformance_scalars", "conformance_reverse"}

func init() {
	backend.RegisterTwin("conformance_ids", func(g *backend.Group) {
		out, count, geo := g.U32s(0), g.U32s(1), g.U32s(2)
		nx, ny, nz := int(g.U32(3)), int(g.U32(4)), int(g.U32(5))
		g.Items(func(it backend.Item) {
			x, y, z := it.Global[0], it.Global[1], it.Global[2]
			if x == 0 && y == 0 && z == 0 {
				for d := range 3 {
					geo[d], geo[3+d], geo[6+d] = uint32(g.Global[d]), uint32(g.Size[d]), uint32(g.Groups[d])
				}
			}
			if x < nx && y < ny && z < nz {
				i := x + nx*(y+ny*z)
				out[i] = uint32(x | y<<11 | z<<22)
				count[i]++
			}
		})
	})
	backend.RegisterTwin("conformance_scalars", func(g *backend.Group) {
		out := g.U64s(0)
		if g.ID != [3]int{} {
			return
		}
		out[0] = uint64(uint32(g.I32(1)))
		out[1] = uint64(g.U32(2))
		out[2] = uint64(g.I64(3))
		out[3] = g.U64(4)
		out[4] = uint64(math.Float32bits(g.F32(5)))
		out[5] = math.Float64bits(g.F64(6))
		out[6] = uint64(uint32(g.I32(7)))
	})
	backend.RegisterTwin("conformance_reverse", func(g *backend.Group) {
		in, out := g.I32s(0), g.I64s(1)
		a, b := g.LocalI32(2), g.LocalI64(3)
		n := g.Size[0]
		g.Each(func(l, gid int) {
			a[l] = in[gid]
			b[l] = int64(in[gid]) * 1000000007
		})
		g.Each(func(l, gid int) { out[gid] = int64(a[n-1-l]) + b[n-1-l] })
	})
}

// buildConformance builds the conformance program for dev.
func buildConformance(t *testing.T, dev backend.Device) (backend.Program, backend.Queue) {
	t.Helper()
	info := dev.Info()
	src := backend.Source{
		Name:    "conformance",
		Code:    device.Prelude(device.DialectOf(info)) + "#line 1 \"conformance.cl\"\n" + conformanceCode,
		Kernels: conformanceKernels,
	}
	return backendtest.Build(t, dev, src), backendtest.Queue(t, dev)
}

func conformanceKernel(t *testing.T, p backend.Program, name string) backend.Kernel {
	t.Helper()
	return backendtest.Kernel(t, p, name)
}

func conformanceAlloc(t *testing.T, dev backend.Device, n int) backend.Buffer {
	t.Helper()
	return backendtest.Alloc(t, dev, n)
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestLaunchGeometry: every work-item inside the range runs exactly once
// with its own ids — global sizes that are not multiples of the group, one
// item, a 2^24-item grid, 2-D and 3-D ranges — and the device sees the
// rounded-up geometry (global, local, groups) Range.Normalize promises.
func TestLaunchGeometry(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		p, q := buildConformance(t, dev)
		k := conformanceKernel(t, p, "conformance_ids")
		geo := conformanceAlloc(t, dev, 9*4)
		for _, r := range []backend.Range{
			backend.R1(1, 0), backend.R1(1, 1), backend.R1(3, 2), backend.R1(257, 0), backend.R1(1000, 64),
			backend.R1(4097, 256), backend.R1(1<<24, 0),
			backend.R2(33, 17, 8, 8), backend.R2(1, 100, 1, 64), backend.R2(64, 64, 0, 0), backend.R2(2048, 513, 32, 8),
			backend.R3(10, 7, 5, 4, 4, 2), backend.R3(3, 3, 3, 0, 0, 0), backend.R3(1, 1, 70, 1, 1, 16),
		} {
			t.Run(fmt.Sprintf("%dx%dx%d_%dx%dx%d", r.Global[0], r.Global[1], r.Global[2], r.Local[0], r.Local[1], r.Local[2]), func(t *testing.T) {
				nx, ny, nz := r.Global[0], r.Global[1], r.Global[2]
				n := nx * ny * nz
				out := conformanceAlloc(t, dev, n*4)
				count := conformanceAlloc(t, dev, n*4)
				mustOK(t, q.Fill(out, 0, n*4, 0xFFFFFFFF))
				mustOK(t, q.Fill(count, 0, n*4, 0))
				mustOK(t, q.Fill(geo, 0, 9*4, 0))
				mustOK(t, q.Launch(k, r, backend.Buf(out), backend.Buf(count), backend.Buf(geo),
					backend.U32(uint32(nx)), backend.U32(uint32(ny)), backend.U32(uint32(nz))))
				ids, counts, g := make([]uint32, n), make([]uint32, n), make([]uint32, 9)
				mustOK(t, backend.ReadSlice(q, out, ids))
				mustOK(t, backend.ReadSlice(q, count, counts))
				mustOK(t, backend.ReadSlice(q, geo, g))
				for i := range n {
					x, y, z := i%nx, (i/nx)%ny, i/(nx*ny)
					if want := uint32(x | y<<11 | z<<22); ids[i] != want || counts[i] != 1 {
						t.Fatalf("item (%d,%d,%d): id %#x, ran %d times; want %#x once", x, y, z, ids[i], counts[i], want)
					}
				}
				// The launch must be one of the geometries Normalize gives
				// for some group limit: global rounded up to whole groups.
				var local, groups, global [3]int
				for d := range 3 {
					global[d], local[d], groups[d] = int(g[d]), int(g[3+d]), int(g[6+d])
					if r.Local[d] > 0 && local[d] != r.Local[d] {
						t.Errorf("dimension %d: group size %d, asked for %d", d, local[d], r.Local[d])
					}
					if local[d] <= 0 || groups[d] != (r.Global[d]+local[d]-1)/local[d] || global[d] != groups[d]*local[d] {
						t.Errorf("dimension %d: device saw global %d, local %d, %d groups for %d items",
							d, global[d], local[d], groups[d], r.Global[d])
					}
				}
			})
		}
	})
}

// TestScalarArguments: each scalar kind reaches the kernel bit for bit, and
// an argument after 8-byte ones still lands at its own index.
func TestScalarArguments(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		info := dev.Info()
		if info.Backend == "opencl" && !slices.Contains(info.Features, "cl_khr_fp64") {
			t.Skip("OpenCL device without cl_khr_fp64")
		}
		p, q := buildConformance(t, dev)
		k := conformanceKernel(t, p, "conformance_scalars")
		out := conformanceAlloc(t, dev, 7*8)
		for _, v := range []struct {
			a int32
			b uint32
			c int64
			d uint64
			e float32
			f float64
			g int32
		}{
			{-123456789, 0xFFFFFFF0, math.MinInt64 + 5, 0xFEDCBA9876543210, -1.5e-20, math.Pi, 7},
			{math.MaxInt32, 1, -1, 1 << 63, float32(math.Inf(1)), math.Copysign(0, -1), math.MinInt32},
		} {
			mustOK(t, q.Launch(k, backend.R1(1, 1), backend.Buf(out), backend.I32(v.a), backend.U32(v.b), backend.I64(v.c),
				backend.U64(v.d), backend.F32(v.e), backend.F64(v.f), backend.I32(v.g)))
			got := make([]uint64, 7)
			mustOK(t, backend.ReadSlice(q, out, got))
			want := []uint64{uint64(uint32(v.a)), uint64(v.b), uint64(v.c), v.d, uint64(math.Float32bits(v.e)),
				math.Float64bits(v.f), uint64(uint32(v.g))}
			if !slices.Equal(got, want) {
				t.Errorf("kernel saw %#x\nwant %#x", got, want)
			}
		}
	})
}

// TestLocalArguments: two dynamic local arrays of 4- and 8-byte elements,
// sized so the second one starts unaligned unless the backend aligns it,
// do not overlap and survive a barrier.
func TestLocalArguments(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		p, q := buildConformance(t, dev)
		k := conformanceKernel(t, p, "conformance_reverse")
		for _, local := range []int{1, 3, 16, 64} {
			n := local * 5
			in := make([]int32, n)
			for i := range in {
				in[i] = int32(i*7 - 100)
			}
			bin, err := backend.AllocSlice(dev, q, in)
			mustOK(t, err)
			bout := conformanceAlloc(t, dev, n*8)
			mustOK(t, q.Launch(k, backend.R1(n, local), backend.Buf(bin), backend.Buf(bout),
				backend.Local(local*4), backend.Local(local*8)))
			got := make([]int64, n)
			mustOK(t, backend.ReadSlice(q, bout, got))
			bin.Free()
			for i := range n {
				j := i - i%local + (local - 1 - i%local)
				if want := int64(in[j]) + int64(in[j])*1000000007; got[i] != want {
					t.Fatalf("group size %d: out[%d] = %d, want %d", local, i, got[i], want)
				}
			}
		}
	})
}

// TestBufferOperations: Write and Read at offsets, Copy between and within
// buffers, Fill's 4-byte pattern, and the range checks every backend makes
// before its API sees the request.
func TestBufferOperations(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		q, err := dev.NewQueue()
		mustOK(t, err)
		defer q.Release()
		a := conformanceAlloc(t, dev, 64)
		b := conformanceAlloc(t, dev, 64)
		if a.Size() != 64 {
			t.Fatalf("Size() = %d, want 64", a.Size())
		}
		src := make([]byte, 64)
		for i := range src {
			src[i] = byte(i + 1)
		}
		mustOK(t, q.Write(a, 0, src))
		mustOK(t, q.Write(a, 10, []byte{200, 201, 202}))
		mustOK(t, q.Fill(b, 0, 64, 0xA1B2C3D4))
		mustOK(t, q.Fill(b, 8, 8, 0x01020304))
		mustOK(t, q.Copy(b, 32, a, 8, 16))
		mustOK(t, q.Copy(a, 0, a, 32, 32)) // the same buffer, disjoint ranges
		gotA, gotB := make([]byte, 64), make([]byte, 64)
		mustOK(t, q.Read(a, 0, gotA))
		mustOK(t, q.Read(b, 0, gotB))
		wantA := slices.Clone(src)
		copy(wantA[10:], []byte{200, 201, 202})
		copy(wantA[0:32], wantA[32:64])
		wantB := make([]byte, 64)
		for i := 0; i < 64; i += 4 {
			copy(wantB[i:], []byte{0xD4, 0xC3, 0xB2, 0xA1}) // little-endian devices
		}
		copy(wantB[8:], []byte{4, 3, 2, 1, 4, 3, 2, 1})
		copy(wantB[32:48], src[8:24])
		copy(wantB[34:], []byte{200, 201, 202})
		if !slices.Equal(gotA, wantA) {
			t.Errorf("a = %v\nwant %v", gotA, wantA)
		}
		if !slices.Equal(gotB, wantB) {
			t.Errorf("b = %v\nwant %v", gotB, wantB)
		}
		tail := make([]byte, 5)
		mustOK(t, q.Read(a, 59, tail))
		if !slices.Equal(tail, wantA[59:]) {
			t.Errorf("read at 59 = %v, want %v", tail, wantA[59:])
		}
		for name, err := range map[string]error{
			"read past the end":    q.Read(a, 60, make([]byte, 5)),
			"write past the end":   q.Write(a, 63, []byte{1, 2}),
			"negative offset":      q.Read(a, -1, make([]byte, 1)),
			"copy source overflow": q.Copy(b, 0, a, 60, 8),
			"copy destination":     q.Copy(b, 60, a, 0, 8),
			"fill past the end":    q.Fill(a, 60, 8, 0),
			"unaligned fill":       q.Fill(a, 2, 4, 0),
		} {
			if err == nil {
				t.Errorf("%s: no error", name)
			}
		}
		// Nothing above changed the buffer.
		mustOK(t, q.Read(a, 0, gotA))
		if !slices.Equal(gotA, wantA) {
			t.Errorf("a rejected request changed the buffer: %v", gotA)
		}
		mustOK(t, q.Finish())
	})
}

// TestEventTiming: markers around a launch give a non-negative elapsed time.
func TestEventTiming(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		p, q := buildConformance(t, dev)
		k := conformanceKernel(t, p, "conformance_ids")
		const n = 1 << 16
		out := conformanceAlloc(t, dev, n*4)
		count := conformanceAlloc(t, dev, n*4)
		geo := conformanceAlloc(t, dev, 9*4)
		start, err := q.Record()
		mustOK(t, err)
		defer start.Release()
		mustOK(t, q.Launch(k, backend.R1(n, 0), backend.Buf(out), backend.Buf(count), backend.Buf(geo),
			backend.U32(n), backend.U32(1), backend.U32(1)))
		end, err := q.Record()
		mustOK(t, err)
		defer end.Release()
		mustOK(t, end.Wait())
		el, err := end.Elapsed(start)
		mustOK(t, err)
		if el < 0 {
			t.Errorf("elapsed %v < 0", el)
		}
		mustOK(t, q.Finish())
	})
}
