package tests

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/kernels"
)

// BenchmarkPrimitive measures the primitives on device-resident data, on
// every device present: n int32 elements (ARBOR_BENCH_N, default 16M).
// SetBytes counts the input once, so MB/s is input bandwidth.
func BenchmarkPrimitive(b *testing.B) {
	n := 1 << 24
	if s := os.Getenv("ARBOR_BENCH_N"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			n = v
		}
	}
	for _, name := range backendtest.Backends() {
		det := backend.ProbeBackend(name)
		if !det.Available() {
			continue
		}
		for _, info := range det.Devices {
			dev, err := backend.OpenBackend(name, info.Index)
			if err != nil {
				b.Fatal(err)
			}
			benchDevice(b, fmt.Sprintf("%s:%d", name, info.Index), kernels.CacheBuilds(dev), n)
			dev.Close()
		}
	}
}

func benchDevice(b *testing.B, label string, dev *kernels.BuildCache, n int) {
	defer dev.Release()
	q, err := dev.NewQueue()
	if err != nil {
		b.Fatal(err)
	}
	defer q.Release()
	vals := make([]int32, n)
	flags := make([]int32, n)
	for i := range vals {
		vals[i] = int32(i*7919%100003) - 50000
		flags[i] = int32(i % 3 % 2)
	}
	in, err := backend.AllocSlice(dev, q, vals)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Free()
	fb, err := backend.AllocSlice(dev, q, flags)
	if err != nil {
		b.Fatal(err)
	}
	defer fb.Free()
	out, err := backend.AllocN[int32](dev, n)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Free()
	s, err := kernels.NewScan(dev)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Release()
	r, err := kernels.NewReduce(dev)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Release()
	a, err := kernels.NewArgmax(dev)
	if err != nil {
		b.Fatal(err)
	}
	defer a.Release()
	c, err := kernels.NewCompact(dev)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Release()
	run := func(op string, fn func() error) {
		b.Run(op+"/"+label, func(b *testing.B) {
			b.SetBytes(int64(n) * 4)
			if err := fn(); err != nil { // warm-up: compile, allocate temporaries
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := fn(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
		})
	}
	run("scan", func() error { _, err := s.Exclusive(q, in, out, n); return err })
	run("reduce_sum", func() error { _, err := r.SumI32(q, in, n); return err })
	run("argmax", func() error { _, _, err := a.Run(q, in, n); return err })
	run("compact", func() error { _, err := c.Indices(q, fb, n, out); return err })
}
