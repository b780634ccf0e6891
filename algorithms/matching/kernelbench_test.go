package matching

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/matching/kernel"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/prim"
)

// BenchmarkPass1Kernels times each fast-engine kernel alone on the first
// pass of the benchmark graphs from 10^7 edges (device events, after a
// warm-up launch; the mean of 5 launches, except the handshake, whose
// matched bits are not idempotent: one launch), and reports its bytes by
// the model of passBytes and the bandwidth that makes. The outputs are not
// checked here (BenchmarkHandshake and the tests do), so a kernel variant
// loaded through ARBOR_KERNELS_DIR can be timed even when it is wrong.
func BenchmarkPass1Kernels(b *testing.B) {
	for _, bg := range benchGraphs() {
		if bg.edges < 10_000_000 {
			continue
		}
		var in *Input
		for _, be := range benchBackends() {
			b.Run(fmt.Sprintf("%s/%s", bg.name, be), func(b *testing.B) {
				if in == nil {
					in = benchInput(b, bg.make())
				}
				dev, err := backend.OpenBackend(be, 0)
				if err != nil {
					b.Fatal(err)
				}
				defer dev.Close()
				if err := pass1Kernels(b, dev, in); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

var (
	flagGroup   = flag.Int("match.group", 0, "BenchmarkPass1Kernels: the tile kernels' work-group size (0: 256)")
	flagThreads = flag.Int("match.threads", 0, "BenchmarkPass1Kernels: work-items per launch (0: the engine's)")
)

func pass1Kernels(b *testing.B, dev backend.Device, in *Input) error {
	f, err := kernel.NewMatchFast(dev)
	if err != nil {
		return err
	}
	defer f.Release()
	// -match.group: the tile kernels' work-group size (default 256);
	// -match.threads: the work-items per launch (default: the engine's),
	// which sets the number of work-groups.
	if *flagGroup > 0 {
		f.Local = *flagGroup
	}
	if *flagThreads > 0 {
		f.Threads = *flagThreads
	}
	scan, err := prim.NewScan(dev)
	if err != nil {
		return err
	}
	defer scan.Release()
	q, err := dev.NewQueue()
	if err != nil {
		return err
	}
	defer q.Release()
	m, n := in.Arcs(), in.N
	bs := backend.NewBuffers(dev, q)
	defer bs.Free()
	p, offsets, err := allocPass(bs, in, 2, 0)
	if err != nil {
		return err
	}
	if err := uploadPass(f, q, p, offsets, in); err != nil {
		return err
	}
	if err := backend.WriteSlice(q, p.Counts, []int64{int64(m)}); err != nil {
		return err
	}
	_, _, tiles := f.Tiles(m)
	mask := bs.Alloc(4 * ((m + kernel.MatchChunk - 1) / kernel.MatchChunk))
	tileCount := backend.Upload(bs, make([]int32, tiles))
	tileOffset := bs.Alloc(4 * tiles)
	lb := f.NewLookback(bs, m)
	if err := bs.Err(); err != nil {
		return err
	}
	// timed runs fn reps times after a warm-up and returns the mean
	// device time of one run.
	timed := func(reps int, fn func() error) (time.Duration, error) {
		if reps > 1 {
			if err := fn(); err != nil {
				return 0, err
			}
		}
		start, err := q.Record()
		if err != nil {
			return 0, err
		}
		defer start.Release()
		for range reps {
			if err := fn(); err != nil {
				return 0, err
			}
		}
		end, err := q.Record()
		if err != nil {
			return 0, err
		}
		defer end.Release()
		if err := end.Wait(); err != nil {
			return 0, err
		}
		d, err := end.Elapsed(start)
		return d / time.Duration(reps), err
	}
	type row struct {
		name  string
		t     time.Duration
		bytes float64
	}
	var rows []row
	add := func(name string, reps int, bytes float64, fn func() error) error {
		d, err := timed(reps, fn)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		rows = append(rows, row{name, d, bytes})
		return nil
	}
	M := float64(m)
	// Repeating argmax, filter, mark or pack on the same input gives the
	// same output (maxima and stores of the same values).
	if err := add("argmax", 5, 12*M, func() error { return f.Argmax(q, p, m) }); err != nil {
		return err
	}
	if err := add("handshake", 1, 8*float64(n), func() error { return f.Handshake(q, p, 2*n) }); err != nil {
		return err
	}
	if err := add("filter", 5, 0, func() error { return f.Filter(q, p, lb) }); err != nil {
		return err
	}
	var kept [2]int64
	if err := backend.ReadSlice(q, p.Counts, kept[:]); err != nil {
		return err
	}
	K := float64(kept[1])
	rows[len(rows)-1].bytes = 12*M + 12*K
	if err := add("mark", 5, 12.5*M, func() error { return f.MarkTiles(q, p, mask, tileCount) }); err != nil {
		return err
	}
	if err := add("scan", 5, 8*float64(tiles), func() error { return scan.ExclusiveAsync(q, tileCount, tileOffset, tiles) }); err != nil {
		return err
	}
	if err := add("pack", 5, 12.5*M+12*K, func() error { return f.PackTiles(q, p, mask, tileOffset) }); err != nil {
		return err
	}
	for _, r := range rows {
		b.ReportMetric(r.t.Seconds()*1e3, r.name+"-ms")
		if r.bytes > 0 && r.t > 0 {
			b.ReportMetric(r.bytes/r.t.Seconds()/1e9, r.name+"-GB/s")
		}
	}
	b.ReportMetric(float64(m), "arcs")
	b.ReportMetric(K, "kept")
	return q.Finish()
}
