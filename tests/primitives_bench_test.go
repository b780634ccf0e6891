package tests

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/prim"
)

var (
	flagBenchN       = flag.Int("prim.n", 1<<24, "the primitive benchmarks' element count (int32)")
	flagBenchDevices = flag.String("prim.devices", "", "the primitive benchmarks' devices, comma-separated: backend, backend:index or backend:text")
)

// benchN is the element count of the primitive benchmarks: -prim.n,
// default 16M int32.
func benchN() int { return max(*flagBenchN, 1) }

// forEachBenchDevice opens every device of the backends under test in turn;
// -prim.devices (comma-separated, e.g. "cuda:0,opencl:1" or
// "cuda,opencl:NVIDIA") keeps only the devices it names.
func forEachBenchDevice(b *testing.B, fn func(label string, dev *device.BuildCache)) {
	var only []string
	if s := *flagBenchDevices; s != "" {
		only = strings.Split(s, ",")
	}
	for _, name := range backendtest.Backends() {
		det := backend.ProbeBackend(name)
		if !det.Available() {
			continue
		}
		for _, info := range det.Devices {
			label := fmt.Sprintf("%s:%d", name, info.Index)
			if only != nil && !slices.ContainsFunc(only, func(o string) bool { return benchPicks(o, info) }) {
				continue
			}
			dev, err := backend.OpenBackend(name, info.Index)
			if err != nil {
				b.Fatal(err)
			}
			c := device.CacheBuilds(dev)
			fn(label, c)
			c.Release()
			dev.Close()
		}
	}
}

// benchPicks reports whether a -prim.devices entry names a device:
// "backend" (all its devices), "backend:index", or "backend:text" with text
// in the device's name or vendor.
func benchPicks(entry string, info backend.Info) bool {
	name, rest, _ := strings.Cut(strings.TrimSpace(entry), ":")
	if name != info.Backend {
		return false
	}
	if rest == "" || rest == strconv.Itoa(info.Index) {
		return true
	}
	if _, err := strconv.Atoi(rest); err == nil {
		return false
	}
	return strings.Contains(info.Name, rest) || strings.Contains(info.Vendor, rest)
}

// warmFor is how long each benchmark runs its operation before timing: long
// enough for a GPU to leave its idle clocks, so that the first device
// benchmarked is not penalised against the later ones.
const warmFor = 200 * time.Millisecond

// BenchmarkPrimitive measures the primitives on device-resident data, on
// every device present: n int32 elements (-prim.n, default 16M).
// SetBytes counts the input once, so MB/s is input bandwidth. Besides ns/op
// (wall time per call, the small read-back of the result included) it
// reports
//
//	dev-us/call  device time of one call: events recorded before and after
//	             it, median of several calls (the call's kernels, its
//	             read-back and any gaps the host leaves between them);
//	queued-us    device time per call when calls are queued back to back
//	             without waiting (only where the primitive has such a form:
//	             scan, argmax): the kernels alone.
func BenchmarkPrimitive(b *testing.B) {
	n := benchN()
	forEachBenchDevice(b, func(label string, dev *device.BuildCache) { benchDevice(b, label, dev, n) })
}

// devicePerCall is the median device time of one call of fn, bracketed by
// events.
func devicePerCall(q backend.Queue, fn func() error, reps int) (time.Duration, error) {
	ts := make([]time.Duration, 0, reps)
	for i := 0; i < reps; i++ {
		start, err := q.Record()
		if err != nil {
			return 0, err
		}
		if err := fn(); err != nil {
			return 0, err
		}
		end, err := q.Record()
		if err != nil {
			return 0, err
		}
		d, err := end.Elapsed(start)
		start.Release()
		end.Release()
		if err != nil {
			return 0, err
		}
		ts = append(ts, d)
	}
	slices.Sort(ts)
	return ts[len(ts)/2], nil
}

// deviceQueued is the device time per call of reps calls of queue (which
// must not wait), queued back to back between two events.
func deviceQueued(q backend.Queue, queue func() error, reps int) (time.Duration, error) {
	if err := q.Finish(); err != nil {
		return 0, err
	}
	start, err := q.Record()
	if err != nil {
		return 0, err
	}
	defer start.Release()
	for i := 0; i < reps; i++ {
		if err := queue(); err != nil {
			return 0, err
		}
	}
	end, err := q.Record()
	if err != nil {
		return 0, err
	}
	defer end.Release()
	d, err := end.Elapsed(start)
	return d / time.Duration(reps), err
}

// benchHeld is a benchmark's queue on one device and what it allocated
// there: release frees it all, before the device is closed.
type benchHeld struct {
	b    *testing.B
	dev  backend.Device
	q    backend.Queue
	free []func()
}

// benchStart opens a queue on dev and makes the benchmarks' n values
// (spread over ±50000) and flags (i%3%2: every third one set).
func benchStart(b *testing.B, dev backend.Device, n int) (h *benchHeld, vals, flags []int32) {
	q, err := dev.NewQueue()
	if err != nil {
		b.Fatal(err)
	}
	h = &benchHeld{b: b, dev: dev, q: q, free: []func(){func() { q.Release() }}}
	vals, flags = make([]int32, n), make([]int32, n)
	for i := range vals {
		vals[i] = int32(i*7919%100003) - 50000
		flags[i] = int32(i % 3 % 2)
	}
	return h, vals, flags
}

func (h *benchHeld) release() {
	for i := len(h.free) - 1; i >= 0; i-- {
		h.free[i]()
	}
}

// benchUpload is a device copy of v.
func benchUpload[T backend.Scalar](h *benchHeld, v []T) backend.Buffer {
	buf, err := backend.AllocSlice(h.dev, h.q, v)
	if err != nil {
		h.b.Fatal(err)
	}
	h.free = append(h.free, func() { buf.Free() })
	return buf
}

// benchAlloc is a device buffer of n Ts.
func benchAlloc[T backend.Scalar](h *benchHeld, n int) backend.Buffer {
	buf, err := backend.AllocN[T](h.dev, n)
	if err != nil {
		h.b.Fatal(err)
	}
	h.free = append(h.free, func() { buf.Free() })
	return buf
}

// benchPrim is a primitive built on the device.
func benchPrim[T interface{ Release() error }](h *benchHeld, build func(backend.Device) (T, error)) T {
	p, err := build(h.dev)
	if err != nil {
		h.b.Fatal(err)
	}
	h.free = append(h.free, func() { p.Release() })
	return p
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func benchDevice(b *testing.B, label string, dev *device.BuildCache, n int) {
	h, vals, flags := benchStart(b, dev, n)
	defer h.release()
	q := h.q
	in, fb := benchUpload(h, vals), benchUpload(h, flags)
	out, packed := benchAlloc[int32](h, n), benchAlloc[uint64](h, 1)
	s, r := benchPrim(h, prim.NewScan), benchPrim(h, prim.NewReduce)
	a, c := benchPrim(h, prim.NewArgmax), benchPrim(h, prim.NewCompact)
	run := func(op string, fn, queued func() error) {
		b.Run(op+"/"+label, func(b *testing.B) {
			b.SetBytes(int64(n) * 4)
			// Warm-up: compile, allocate temporaries, raise the clocks.
			for start, i := time.Now(), 0; i < 3 || time.Since(start) < warmFor; i++ {
				if err := fn(); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := fn(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
			dt, err := devicePerCall(q, fn, 21)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(us(dt), "dev-us/call")
			if queued != nil {
				dq, err := deviceQueued(q, queued, 50)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(us(dq), "queued-us")
			}
		})
	}
	run("scan", func() error { _, err := s.Exclusive(q, in, out, n); return err },
		func() error { return s.ExclusiveAsync(q, in, out, n) })
	run("reduce_sum", func() error { _, err := r.SumI32(q, in, n); return err }, nil)
	run("argmax", func() error { _, _, err := a.Run(q, in, n); return err },
		func() error { return a.Packed(q, in, n, packed) })
	run("compact", func() error { _, err := c.Indices(q, fb, n, out); return err }, nil)
}

// BenchmarkPrimitiveKernel times the primitives' main kernels alone, with
// the launch shapes the host wrappers use (tiles of 256×8 for scan.cl, grids
// of at most 4096 groups of 256 for the grid-stride kernels), queued back to
// back between two events: the device time per launch ("dev-us"), which
// compares the code each backend's compiler made of the same source.
func BenchmarkPrimitiveKernel(b *testing.B) {
	n := benchN()
	forEachBenchDevice(b, func(label string, dev *device.BuildCache) { benchKernels(b, label, dev, n) })
}

func benchKernels(b *testing.B, label string, dev *device.BuildCache, n int) {
	const group, perItem, gridGroups = 256, 8, 4096
	h, vals, flags := benchStart(b, dev, n)
	defer h.release()
	q := h.q
	pos := make([]int32, n) // the exclusive scan of flags: compact_index's positions
	kept := int32(0)
	for i, f := range flags {
		pos[i] = kept
		kept += f
	}
	in, fb, pb := benchUpload(h, vals), benchUpload(h, flags), benchUpload(h, pos)
	out := benchAlloc[int32](h, n)
	tiles := (n + group*perItem - 1) / (group * perItem)
	part, word := benchAlloc[int64](h, max(tiles, gridGroups)+1), benchAlloc[uint64](h, 1)
	build := func(src string, names ...string) map[string]backend.Kernel {
		_, ks, err := device.BuildKernels(dev, src, nil, names...)
		if err != nil {
			b.Fatal(err)
		}
		return ks
	}
	sk := build("scan", "scan_reduce_sum_i32", "scan_down_sum_i32")
	ak := build("argmax", "argmax_groups_i32")
	ck := build("compact", "compact_mark", "compact_index")
	tileRange := backend.R1(tiles*group, group)
	gridItems := min(n, group*gridGroups)
	grid := backend.R1((gridItems+group-1)/group*group, group)
	tile := group * perItem
	padded := tile + (tile-1)>>5 + 1
	launches := []struct {
		name string
		k    backend.Kernel
		r    backend.Range
		args []backend.Arg
	}{
		{"scan_reduce_sum_i32", sk["scan_reduce_sum_i32"], tileRange, []backend.Arg{backend.Buf(in), backend.I64(int64(n)),
			backend.I32(perItem), backend.Buf(part), backend.Local(group * 8)}},
		{"scan_down_sum_i32", sk["scan_down_sum_i32"], tileRange, []backend.Arg{backend.Buf(in), backend.Buf(out),
			backend.I64(int64(n)), backend.I32(perItem), backend.Buf(part), backend.I32(1), backend.I32(0), backend.Buf(word),
			backend.Local(padded * 4), backend.Local(group * 8)}},
		{"argmax_groups_i32", ak["argmax_groups_i32"], grid, []backend.Arg{backend.Buf(in), backend.I64(int64(n)),
			backend.Buf(part), backend.Local(group * 8)}},
		{"compact_mark", ck["compact_mark"], grid, []backend.Arg{backend.Buf(fb), backend.I64(int64(n)), backend.Buf(out)}},
		{"compact_index", ck["compact_index"], grid, []backend.Arg{backend.Buf(fb), backend.Buf(pb), backend.I64(int64(n)),
			backend.Buf(out)}},
	}
	for _, l := range launches {
		b.Run(l.name+"/"+label, func(b *testing.B) {
			b.SetBytes(int64(n) * 4)
			launch := func() error { return q.Launch(l.k, l.r, l.args...) }
			for start := time.Now(); time.Since(start) < warmFor; {
				if _, err := deviceQueued(q, launch, 20); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			var dev time.Duration
			for i := 0; i < b.N; i++ {
				d, err := deviceQueued(q, launch, 20)
				if err != nil {
					b.Fatal(err)
				}
				dev += d
			}
			b.ReportMetric(us(dev)/float64(b.N), "dev-us")
		})
	}
}
