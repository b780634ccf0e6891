package cuda

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/backend/cache"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/internal/testrole"
)

// These tests run on the first CUDA device. Without libcuda they skip with
// the reason; with ARBOR_REQUIRE=cuda they fail instead.

func openCUDA(t testing.TB) *Device {
	t.Helper()
	tt, ok := t.(*testing.T)
	if !ok {
		det := backend.ProbeBackend(Name)
		if !det.Available() {
			t.Skipf("cuda unavailable: %v", det.Err)
		}
		dev, err := backend.OpenBackend(Name, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dev.Close() })
		return dev.(*Device)
	}
	return backendtest.Open(tt, Name).(*Device)
}

// source assembles a test kernel the way kernels.Source does: feature
// defines, the CUDA prelude, then the body under `#line 1 "<name>.cl"`.
func source(d *Device, name, body string, kernelNames ...string) backend.Source {
	var sb strings.Builder
	for k, v := range device.FeatureDefines(d.Info()) {
		fmt.Fprintf(&sb, "#define %s %s\n", k, v)
	}
	sb.WriteString(device.Prelude(device.CUDA))
	fmt.Fprintf(&sb, "#line 1 \"%s.cl\"\n", name)
	sb.WriteString(body)
	return backend.Source{Name: name, Code: sb.String(), Kernels: kernelNames}
}

func build(t testing.TB, d *Device, name, body, kernel string) (backend.Program, backend.Kernel) {
	t.Helper()
	p := backendtest.Build(t, d, source(d, name, body, kernel))
	return p, backendtest.Kernel(t, p, kernel)
}

func newQueue(t testing.TB, d *Device) backend.Queue {
	t.Helper()
	return backendtest.Queue(t, d)
}

func alloc(t testing.TB, d *Device, n int) backend.Buffer {
	t.Helper()
	return backendtest.Alloc(t, d, n)
}

func TestDeviceInfo(t *testing.T) {
	d := openCUDA(t)
	i := d.Info()
	t.Logf("%s: %s, %s, %d SMs, %.1f GiB, %d KiB shared/block, %d threads/block, %v", i, i.Version, i.DriverVersion,
		i.ComputeUnits, float64(i.GlobalMemory)/(1<<30), i.LocalMemory>>10, i.MaxWorkGroup, i.Features)
	if i.Name == "" || i.Vendor != "NVIDIA" || i.Type != backend.TypeGPU {
		t.Errorf("identity: %+v", i)
	}
	var major, minor int
	if _, err := fmt.Sscanf(i.Version, "sm_%1d%d", &major, &minor); err != nil || major < 3 {
		t.Errorf("version %q is not sm_XY", i.Version)
	}
	if i.ComputeUnits <= 0 || i.GlobalMemory < 1<<30 || i.LocalMemory < 16<<10 || i.MaxWorkGroup < 256 ||
		i.MaxWorkItems[0] < 256 || !i.Atomics64 {
		t.Errorf("implausible limits: %+v", i)
	}
	if !strings.HasPrefix(i.DriverVersion, "CUDA ") {
		t.Errorf("driver version %q", i.DriverVersion)
	}
	feats := strings.Join(i.Features, " ")
	for _, f := range []string{"nvrtc=", "target=", "cc="} {
		if !strings.Contains(feats, f) {
			t.Errorf("features %q lack %s", feats, f)
		}
	}
	free, total, err := d.MemInfo()
	if err != nil || total != i.GlobalMemory || free == 0 || free > total {
		t.Errorf("MemInfo: free %d total %d (info %d), %v", free, total, i.GlobalMemory, err)
	}
}

// TestRoundTrip writes, copies and reads back sizes on both sides of the
// staging threshold, including one larger than the staging buffers that is
// not a multiple of their size, at non-zero offsets.
func TestRoundTrip(t *testing.T) {
	d := openCUDA(t)
	q := newQueue(t, d)
	rng := rand.New(rand.NewPCG(3, 4))
	chunk, nb := defaultStaging().chunk, len(defaultStaging().bufs)
	// Past every buffer, so that each is refilled, and not a multiple of them.
	for _, n := range []int{1, 3, 4096, stagingThreshold, stagingThreshold + 1, 2*chunk + 1, (nb+1)*chunk + 12345} {
		const off = 13
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(rng.Uint32())
		}
		a := alloc(t, d, n+off+7)
		b := alloc(t, d, n+off+7)
		if err := q.Write(a, off, src); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if err := q.Copy(b, 5, a, off, n); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		got := make([]byte, n)
		if err := q.Read(a, off, got); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if i := firstDiff(got, src); i >= 0 {
			t.Fatalf("n=%d: written then read, byte %d is %d, want %d", n, i, got[i], src[i])
		}
		clear(got)
		if err := q.Read(b, 5, got); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if i := firstDiff(got, src); i >= 0 {
			t.Fatalf("n=%d: copied, byte %d is %d, want %d", n, i, got[i], src[i])
		}
	}
	// Out-of-range transfers are refused before they reach the driver.
	a := alloc(t, d, 64)
	if err := q.Write(a, 60, make([]byte, 8)); err == nil {
		t.Error("write past the end succeeded")
	}
	if err := q.Read(a, -1, make([]byte, 8)); err == nil {
		t.Error("read at -1 succeeded")
	}
}

func firstDiff(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return len(a)
}

func TestFill(t *testing.T) {
	d := openCUDA(t)
	q := newQueue(t, d)
	const n = 1 << 16
	b := alloc(t, d, 4*n)
	if err := q.Fill(b, 0, 4*n, 0x01020304); err != nil {
		t.Fatal(err)
	}
	if err := q.Fill(b, 4*100, 4*(n-200), 0xdeadbeef); err != nil {
		t.Fatal(err)
	}
	got := make([]uint32, n)
	if err := backend.ReadSlice(q, b, got); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		want := uint32(0xdeadbeef)
		if i < 100 || i >= n-100 {
			want = 0x01020304
		}
		if v != want {
			t.Fatalf("word %d = %#x, want %#x", i, v, want)
		}
	}
	if err := q.Fill(b, 2, 8, 0); err == nil {
		t.Error("misaligned fill succeeded")
	}
}

// TestOutOfMemory asks for more than the device has: the error must wrap
// backend.ErrOutOfMemory, and the device must keep working.
func TestOutOfMemory(t *testing.T) {
	d := openCUDA(t)
	huge := int(d.Info().GlobalMemory + 1<<30)
	b, err := d.Alloc(huge)
	if err == nil {
		b.Free()
		t.Fatalf("allocating %d bytes on a %d-byte device succeeded", huge, d.Info().GlobalMemory)
	}
	if !backend.IsOutOfMemory(err) || !strings.Contains(err.Error(), "CUDA_ERROR_OUT_OF_MEMORY") {
		t.Fatalf("error %v does not wrap backend.ErrOutOfMemory", err)
	}
	t.Logf("as expected: %v", err)
	q := newQueue(t, d)
	small := alloc(t, d, 1024)
	in := []int32{1, 2, 3, 4}
	if err := backend.WriteSlice(q, small, in); err != nil {
		t.Fatal(err)
	}
	out := make([]int32, 4)
	if err := backend.ReadSlice(q, small, out); err != nil || out[3] != 4 {
		t.Fatalf("after OOM: %v %v", out, err)
	}
	got, err := device.VecAdd(d, in, in, 2, 0)
	if err != nil || got[3] != 12 {
		t.Fatalf("kernel after OOM: %v %v", got, err)
	}
}

func TestCompileError(t *testing.T) {
	d := openCUDA(t)
	body := "KERNEL void broken(GLOBAL i32* out)\n{\n    out[0] = not_declared + 1;\n}\n"
	_, err := d.Build(source(d, "broken", body, "broken"))
	if err == nil {
		t.Fatal("a kernel with an undeclared identifier compiled")
	}
	msg := err.Error()
	t.Logf("the error reads:\n%s", msg)
	for _, w := range []string{`cuda: build "broken"`, "NVRTC_ERROR_COMPILATION", "broken.cl(3): error", "not_declared",
		"source:\nbroken.cl:3:", ">     3 |     out[0] = not_declared + 1;", "      1 | KERNEL void broken"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error lacks %q", w)
		}
	}
	if !IsCompileError(err) {
		t.Error("not a CompileError")
	}
	// A kernel the source lacks is reported at Build.
	if _, err := d.Build(source(d, "lacking", "KERNEL void present() {}\n", "absent")); err == nil || !strings.Contains(err.Error(), "absent") {
		t.Errorf("missing kernel: %v", err)
	}
}

const vecBody = `KERNEL void scale_add(GLOBAL const i32* a, GLOBAL i32* out, const i32 n, const i32 s)
{
    size_t i = get_global_id(0);
    if (i < (size_t)n) out[i] = a[i] * s + (i32)i;
}
`

// runScaleAdd runs scale_add on 1000 elements and checks the result.
func runScaleAdd(t *testing.T, d *Device, k backend.Kernel) {
	t.Helper()
	q := newQueue(t, d)
	n := 1000
	a := make([]int32, n)
	for i := range a {
		a[i] = int32(i*31 - 7000)
	}
	ba, err := backend.AllocSlice(d, q, a)
	if err != nil {
		t.Fatal(err)
	}
	defer ba.Free()
	bo := alloc(t, d, 4*n)
	if err := q.Launch(k, backend.R1(n, 0), backend.Buf(ba), backend.Buf(bo), backend.I32(int32(n)), backend.I32(-3)); err != nil {
		t.Fatal(err)
	}
	out := make([]int32, n)
	if err := backend.ReadSlice(q, bo, out); err != nil {
		t.Fatal(err)
	}
	for i := range out {
		if want := a[i]*-3 + int32(i); out[i] != want {
			t.Fatalf("out[%d] = %d, want %d", i, out[i], want)
		}
	}
}

func TestCacheHit(t *testing.T) {
	d := openCUDA(t)
	t.Setenv(cache.EnvDir, t.TempDir())
	t.Setenv(cache.EnvSwitch, "on")
	src := source(d, "cached", vecBody+"/* "+t.Name()+" */\n", "scale_add")
	c0, h0 := d.stats.compiles.Load(), d.stats.cacheHits.Load()
	start := time.Now()
	p1, err := d.Build(src)
	if err != nil {
		t.Fatal(err)
	}
	cold := time.Since(start)
	p1.Release()
	start = time.Now()
	p2, err := d.Build(src)
	if err != nil {
		t.Fatal(err)
	}
	warm := time.Since(start)
	defer p2.Release()
	if c, h := d.stats.compiles.Load()-c0, d.stats.cacheHits.Load()-h0; c != 1 || h != 1 {
		t.Fatalf("two builds: %d compiles and %d cache hits, want 1 and 1", c, h)
	}
	t.Logf("build: %v compiling, %v from the cache", cold, warm)
	k, err := p2.Kernel("scale_add")
	if err != nil {
		t.Fatal(err)
	}
	runScaleAdd(t, d, k)
	// A different define is a different program.
	src.Defines = map[string]string{"EXTRA": "1"}
	p3, err := d.Build(src)
	if err != nil {
		t.Fatal(err)
	}
	p3.Release()
	if c := d.stats.compiles.Load() - c0; c != 2 {
		t.Errorf("a changed define did not recompile (%d compiles)", c)
	}
}

// TestPTXFallback forces the path a device newer than NVRTC takes: PTX for
// the newest architecture, JIT-compiled by the driver at load.
func TestPTXFallback(t *testing.T) {
	d := openCUDA(t)
	t.Setenv(cache.EnvSwitch, "off")
	tgt, err := chooseTarget(d.lim.arch, d.st.nvArchs, d.st.nvCubins, true)
	if err != nil || tgt.cubin {
		t.Fatalf("forced target %v, %v", tgt, err)
	}
	src := source(d, "ptx", vecBody, "scale_add")
	img, err := d.compile(src, tgt, compileOptions(tgt, src))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(img[:min(len(img), 4096)], []byte(".target sm_")) {
		t.Fatalf("the PTX path produced no PTX: %q", img[:min(len(img), 200)])
	}
	t.Setenv(EnvPTX, "1")
	_, k := build(t, d, "ptx", vecBody, "scale_add")
	runScaleAdd(t, d, k)
	t.Logf("ran from %s PTX (JIT by the driver)", tgt)
}

const idsBody = `KERNEL void ids(GLOBAL u32* out, const i32 nx, const i32 ny, const i32 nz)
{
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    if (x < (size_t)nx && y < (size_t)ny && z < (size_t)nz) {
        size_t i = (z * (size_t)ny + y) * (size_t)nx + x;
        ATOMIC_ADD_U32(&out[i], (u32)(i + 1));
    }
}
`

// TestLaunchGeometry: every item in range is visited exactly once (an item
// visited twice reads 2(i+1), one skipped reads 0), in 1, 2 and 3
// dimensions, for sizes that are not multiples of the group and for a grid
// wider than 65535 groups.
func TestLaunchGeometry(t *testing.T) {
	d := openCUDA(t)
	_, k := build(t, d, "ids", idsBody, "ids")
	q := newQueue(t, d)
	for _, r := range []backend.Range{
		backend.R1(1, 0), backend.R1(1, 1), backend.R1(1000, 256), backend.R1(1000, 0), backend.R1(257, 64),
		backend.R1(1024, 1024), backend.R1(1<<24+3, 256), // 65537 groups: beyond the y/z limit, fine in x
		backend.R2(37, 53, 8, 8), backend.R2(1, 1000, 1, 32), backend.R2(513, 3, 0, 0),
		backend.R3(5, 7, 11, 4, 4, 4), backend.R3(64, 64, 64, 8, 8, 8), backend.R3(3, 1, 129, 1, 1, 64),
	} {
		n := r.Global[0] * max(r.Global[1], 1) * max(r.Global[2], 1)
		out := alloc(t, d, 4*n)
		if err := q.Fill(out, 0, 4*n, 0); err != nil {
			t.Fatal(err)
		}
		nx, ny, nz := r.Global[0], max(r.Global[1], 1), max(r.Global[2], 1)
		if err := q.Launch(k, r, backend.Buf(out), backend.I32(int32(nx)), backend.I32(int32(ny)), backend.I32(int32(nz))); err != nil {
			t.Fatalf("%v: %v", r, err)
		}
		got := make([]uint32, n)
		if err := backend.ReadSlice(q, out, got); err != nil {
			t.Fatalf("%v: %v", r, err)
		}
		for i, v := range got {
			if v != uint32(i+1) {
				t.Fatalf("range %v: item %d holds %d, want %d", r, i, v, i+1)
			}
		}
	}
	// An empty range launches nothing and is no error.
	if err := q.Launch(k, backend.R1(0, 0)); err != nil {
		t.Errorf("empty launch: %v", err)
	}
	// A group larger than the device allows is refused with a clear error.
	if err := q.Launch(k, backend.R1(4096, 4096)); err == nil {
		t.Error("a 4096-thread block was accepted")
	}
}

const scalarBody = `KERNEL void scalars(GLOBAL u64* out, const i32 a, const i64 c, const u32 b, const u64 d,
                     const float e, const double f, const i32 g)
{
    if (get_global_id(0) == 0) {
        out[0] = (u64)(i64)a;
        out[1] = (u64)b;
        out[2] = (u64)c;
        out[3] = d;
        out[4] = (u64)__float_as_uint(e);
        out[5] = (u64)__double_as_longlong(f);
        out[6] = (u64)(i64)g;
        out[7] = (u64)(i64)(e * 2.0f) + (u64)(i64)f;
    }
}
`

// TestScalarTypes passes every scalar kind, 4- and 8-byte ones interleaved,
// and checks the kernel saw the exact bits.
func TestScalarTypes(t *testing.T) {
	d := openCUDA(t)
	_, k := build(t, d, "scalars", scalarBody, "scalars")
	q := newQueue(t, d)
	out := alloc(t, d, 8*8)
	a, c, b, dd, e, f, g := int32(-123456789), int64(-1<<40-3), uint32(0xdeadbeef), uint64(1<<63+5), float32(3.25), -1.5e300, int32(math.MaxInt32)
	if err := q.Launch(k, backend.R1(1, 0), backend.Buf(out), backend.I32(a), backend.I64(c), backend.U32(b), backend.U64(dd),
		backend.F32(e), backend.F64(f), backend.I32(g)); err != nil {
		t.Fatal(err)
	}
	got := make([]uint64, 8)
	if err := backend.ReadSlice(q, out, got); err != nil {
		t.Fatal(err)
	}
	want := []uint64{uint64(int64(a)), uint64(b), uint64(c), dd, uint64(math.Float32bits(e)), math.Float64bits(f), uint64(int64(g)),
		uint64(int64(e*2)) + uint64(int64(f))}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("out[%d] = %#x, want %#x", i, got[i], want[i])
		}
	}
}

const localsBody = `KERNEL void two_locals(GLOBAL i64* out, LOCAL_PTR(i32, a), const i32 na, LOCAL_PTR(i64, b), const i32 nb)
{
    LOCAL_BIND(i32, a);
    LOCAL_BIND(i64, b);
    size_t lid = get_local_id(0), size = get_local_size(0);
    for (size_t i = lid; i < (size_t)na; i += size) a[i] = (i32)i;
    for (size_t i = lid; i < (size_t)nb; i += size) b[i] = (i64)i * 3 + (i64)get_group_id(0);
    BARRIER();
    if (lid == 0) {
        i64 s = 0;
        for (i32 i = 0; i < na; i++) s += a[i];
        for (i32 i = 0; i < nb; i++) s += b[i];
        out[get_group_id(0)] = s;
    }
}
`

// TestLocalMemory: two dynamic local arguments must not overlap (their sums
// would be wrong), including a total above 48 KiB, which needs the opt-in
// attribute; more than the device has is a clear error. GroupSums is the
// shared kernel's use of the convention.
func TestLocalMemory(t *testing.T) {
	d := openCUDA(t)
	_, k := build(t, d, "locals", localsBody, "two_locals")
	q := newQueue(t, d)
	const groups = 40
	out := alloc(t, d, 8*groups)
	for _, tc := range []struct{ na, nb int }{{1, 1}, {1001, 8}, {1001, 2000}, {1001, 8000}} {
		if 4*tc.na+8*tc.nb+32 > int(d.lim.sharedOptin) {
			continue
		}
		err := q.Launch(k, backend.R1(groups*128, 128), backend.Buf(out), backend.Local(4*tc.na), backend.I32(int32(tc.na)),
			backend.Local(8*tc.nb), backend.I32(int32(tc.nb)))
		if err != nil {
			t.Fatalf("na=%d nb=%d: %v", tc.na, tc.nb, err)
		}
		got := make([]int64, groups)
		if err := backend.ReadSlice(q, out, got); err != nil {
			t.Fatal(err)
		}
		for g, s := range got {
			na, nb := int64(tc.na), int64(tc.nb)
			want := na*(na-1)/2 + 3*nb*(nb-1)/2 + nb*int64(g)
			if s != want {
				t.Fatalf("na=%d nb=%d (%d bytes of local memory): group %d sum %d, want %d", tc.na, tc.nb, 4*tc.na+8*tc.nb, g, s, want)
			}
		}
	}
	err := q.Launch(k, backend.R1(128, 128), backend.Buf(out), backend.Local(int(d.lim.sharedOptin)), backend.I32(1),
		backend.Local(64), backend.I32(1))
	if err == nil || !strings.Contains(err.Error(), "local memory") {
		t.Errorf("too much local memory: %v", err)
	}
	a := make([]int32, 100003)
	for i := range a {
		a[i] = int32(i%1013) - 300
	}
	for _, local := range []int{1, 32, 256, 1024} {
		sums, err := device.GroupSums(d, a, local)
		if err != nil {
			t.Fatal(err)
		}
		for g := range sums {
			var want int64
			for i := g * local; i < min((g+1)*local, len(a)); i++ {
				want += int64(a[i])
			}
			if sums[g] != want {
				t.Fatalf("local %d: group %d sum %d, want %d", local, g, sums[g], want)
			}
		}
	}
}

func TestEvents(t *testing.T) {
	d := openCUDA(t)
	q := newQueue(t, d)
	const n = 256 << 20
	b := alloc(t, d, n)
	start, err := q.Record()
	if err != nil {
		t.Fatal(err)
	}
	defer start.Release()
	for i := 0; i < 4; i++ {
		if err := q.Fill(b, 0, n, uint32(i)); err != nil {
			t.Fatal(err)
		}
	}
	end, err := q.Record()
	if err != nil {
		t.Fatal(err)
	}
	defer end.Release()
	if err := end.Wait(); err != nil {
		t.Fatal(err)
	}
	el, err := end.Elapsed(start)
	if err != nil {
		t.Fatal(err)
	}
	// 1 GiB of writes takes between ~0.1 ms (10 TB/s) and a second.
	if el < 50*time.Microsecond || el > time.Second {
		t.Errorf("4 fills of 256 MiB took %v of device time", el)
	}
	t.Logf("4 × 256 MiB fill: %v (%.0f GB/s)", el, 4*n/el.Seconds()/1e9)
	if back, err := start.Elapsed(end); err != nil || back > 0 {
		t.Errorf("elapsed backwards: %v, %v", back, err)
	}
	if err := q.Finish(); err != nil {
		t.Fatal(err)
	}
}

// TestClosedDevice: calls on a closed device fail cleanly.
func TestClosedDevice(t *testing.T) {
	d := openCUDA(t)
	dev, err := backend.OpenBackend(Name, d.Info().Index)
	if err != nil {
		t.Fatal(err)
	}
	b, err := dev.Alloc(64)
	if err != nil {
		t.Fatal(err)
	}
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := dev.Alloc(64); err == nil {
		t.Error("alloc on a closed device succeeded")
	}
	if err := b.Free(); err == nil {
		t.Error("free on a closed device succeeded")
	}
	// The first device (another handle on the same primary context) still works.
	if _, err := device.VecAdd(d, []int32{1}, []int32{2}, 3, 0); err != nil {
		t.Errorf("the other handle broke: %v", err)
	}
}

// TestNoNVRTC: a machine with the driver but no NVRTC reports the backend
// unavailable, naming the devices it sees and why, so that auto selection
// moves on (to OpenCL) instead of choosing a device that cannot build.
func TestNoNVRTC(t *testing.T) {
	openCUDA(t) // skip where there is no driver at all
	t.Setenv(EnvNVRTC, "none")
	drv := &driver{}
	infos, err := drv.Probe()
	if err == nil || !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("Probe without NVRTC: %v, %v", infos, err)
	}
	for _, w := range []string{"NVRTC", "device(s)", EnvNVRTC} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q lacks %q", err, w)
		}
	}
	if _, err := drv.Open(0); err == nil {
		t.Error("Open without NVRTC succeeded")
	}
	t.Logf("without NVRTC: %v", err)
}

// TestIllegalAddress: a kernel that writes through a bad pointer faults,
// and the error names CUDA_ERROR_ILLEGAL_ADDRESS and says the context is
// lost. A fault poisons CUDA for the whole process, so the faulting part
// runs in a child process (this test binary again), and this process goes
// on unharmed.
func TestIllegalAddress(t *testing.T) {
	if testrole.Is("cuda-fault") {
		faultingKernel(t)
		return
	}
	openCUDA(t) // skip (or fail, when required) without a device
	cmd := exec.Command(os.Args[0], "-test.run=^TestIllegalAddress$", "-test.v")
	cmd.Env = append(os.Environ(), testrole.Env("cuda-fault"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "CUDA_ERROR_ILLEGAL_ADDRESS") || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("child output:\n%s", out)
	}
	t.Logf("child process:\n%s", out)
}

func faultingKernel(t *testing.T) {
	d := openCUDA(t)
	q := newQueue(t, d)
	_, k := build(t, d, "fault", "KERNEL void fault(const u64 addr) { *(GLOBAL volatile i32*)addr = 1; }\n", "fault")
	if err := q.Launch(k, backend.R1(1, 1), backend.U64(0x10)); err != nil {
		t.Fatal(err)
	}
	err := q.Finish()
	if err == nil || !strings.Contains(err.Error(), "CUDA_ERROR_ILLEGAL_ADDRESS") || !strings.Contains(err.Error(), "unusable") {
		t.Fatalf("faulting kernel: %v", err)
	}
	t.Logf("Finish: %v", err)
	// Later calls return (an error, as a rule) rather than hang or panic.
	b, err := d.Alloc(64)
	t.Logf("Alloc after the fault: %v", err)
	if err == nil {
		b.Free()
	}
}
