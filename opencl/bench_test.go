package opencl

import (
	"fmt"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/cache"
)

// benchDevices runs fn on every OpenCL device as a sub-benchmark.
func benchDevices(b *testing.B, fn func(b *testing.B, d *Device)) {
	det := backend.ProbeBackend(Name)
	if !det.Available() {
		b.Skipf("opencl unavailable: %v", det.Err)
	}
	for _, info := range det.Devices {
		b.Run(fmt.Sprintf("%d-%s", info.Index, unsafeName(info.Name)), func(b *testing.B) {
			dev, err := backend.OpenBackend(Name, info.Index)
			if err != nil {
				b.Fatal(err)
			}
			defer dev.Close()
			fn(b, dev.(*Device))
		})
	}
}

func unsafeName(s string) string {
	out := []byte(s)
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			out[i] = '_'
		}
	}
	return string(out)
}

// BenchmarkLaunch is the cost of one small launch plus Finish: the
// host-side overhead (argument setting, enqueue) and the driver's latency.
func BenchmarkLaunch(b *testing.B) {
	benchDevices(b, func(b *testing.B, d *Device) {
		p, err := d.Build(testSource("twice", twiceCode, "twice"))
		if err != nil {
			b.Fatal(err)
		}
		defer p.Release()
		k, _ := p.Kernel("twice")
		defer k.Release()
		q, _ := d.NewQueue()
		defer q.Release()
		buf, _ := d.Alloc(256 * 4)
		defer buf.Free()
		q.Fill(buf, 0, 256*4, 0)
		b.ResetTimer()
		for range b.N {
			if err := q.Launch(k, backend.R1(256, 0), backend.Buf(buf), backend.I32(256)); err != nil {
				b.Fatal(err)
			}
			if err := q.Finish(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkBuild compares compiling from source (cache off; each iteration
// a new source so no driver-side cache helps) with loading the cached
// binary.
func BenchmarkBuild(b *testing.B) {
	benchDevices(b, func(b *testing.B, d *Device) {
		b.Run("source", func(b *testing.B) {
			b.Setenv(cache.EnvSwitch, "off")
			for i := range b.N {
				p, err := d.Build(testSource("twice", twiceCode+fmt.Sprintf("/* %d %d */\n", i, b.N), "twice"))
				if err != nil {
					b.Fatal(err)
				}
				p.Release()
			}
		})
		b.Run("cached", func(b *testing.B) {
			b.Setenv(cache.EnvDir, b.TempDir())
			src := testSource("twice", twiceCode, "twice")
			p, err := d.Build(src)
			if err != nil {
				b.Fatal(err)
			}
			p.Release()
			b.ResetTimer()
			for range b.N {
				p, err := d.Build(src)
				if err != nil {
					b.Fatal(err)
				}
				if !p.(*Program).CacheHit() {
					b.Fatal("not a cache hit")
				}
				p.Release()
			}
		})
	})
}

// BenchmarkTransfer writes and reads back 16 MiB.
func BenchmarkTransfer(b *testing.B) {
	const n = 16 << 20
	benchDevices(b, func(b *testing.B, d *Device) {
		q, _ := d.NewQueue()
		defer q.Release()
		buf, err := d.Alloc(n)
		if err != nil {
			b.Fatal(err)
		}
		defer buf.Free()
		host := make([]byte, n)
		b.SetBytes(2 * n)
		b.ResetTimer()
		for range b.N {
			if err := q.Write(buf, 0, host); err != nil {
				b.Fatal(err)
			}
			if err := q.Read(buf, 0, host); err != nil {
				b.Fatal(err)
			}
		}
	})
}
