package tests

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	_ "github.com/arbor-gpu/arbor/algorithms/all" // every algorithm's checks
	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/cpu"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/prim"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// TestKernelChecks runs every device.Checks case (the cases `arbor verify`
// runs; the real-graph ones too when ../shared/data is present) on each
// device, on every sub-group path it can take, and on the CPU backend, and
// requires identical outputs. Programs are built once per device and path
// (device.CacheBuilds).
func TestKernelChecks(t *testing.T) {
	checks := device.Checks(dataset.Dir())
	ref := device.CacheBuilds(cpu.New(0))
	defer ref.Release()
	want := make([][]device.Output, len(checks))
	wantErr := make([]error, len(checks))
	for i, c := range checks {
		want[i], wantErr[i] = c.Run(ref)
	}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		// Every sub-group path the device can take, as `arbor verify`
		// runs them (PoCL: the fallback, and khr where it reports
		// cl_khr_subgroups with a width).
		for _, p := range device.PathsToCheck(dev.Info()) {
			t.Run(string(p), func(t *testing.T) {
				cached := device.CacheBuilds(device.OnPath(dev, p))
				defer cached.Release()
				for i, c := range checks {
					if wantErr[i] != nil {
						t.Errorf("%s %s: CPU twin: %v", c.Kernel, c.Case, wantErr[i])
						continue
					}
					got, err := c.Run(cached)
					if err != nil {
						t.Errorf("%s %s: %v", c.Kernel, c.Case, err)
						continue
					}
					if err := device.Compare(got, want[i]); err != nil {
						t.Errorf("%s %s: %v", c.Kernel, c.Case, err)
					}
				}
			})
		}
	})
}

// TestPrimitives checks each primitive on each device against a plain
// sequential Go reference, so the twins themselves are checked too.
func TestPrimitives(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		cached := device.CacheBuilds(dev)
		defer cached.Release()
		q, err := cached.NewQueue()
		if err != nil {
			t.Fatal(err)
		}
		defer q.Release()
		p := &primCase{t: t, dev: cached, q: q, rng: rand.New(rand.NewPCG(11, 12))}
		t.Run("scan", p.scan)
		t.Run("reduce", p.reduce)
		t.Run("compact", p.compact)
		t.Run("argmax", p.argmax)
		t.Run("argmax_rows", p.argmaxRows)
		t.Run("prefix_max", p.prefixMax)
		t.Run("segreduce", p.segReduce)
		t.Run("bitset", p.bitset)
	})
}

type primCase struct {
	t   *testing.T
	dev backend.Device
	q   backend.Queue
	rng *rand.Rand
}

// sizes straddle the work-group (256), tile (2048) and level boundaries.
var primSizes = []int{0, 1, 3, 255, 256, 257, 2048, 2049, 5003, 2048*2048 + 1}

func upload[T backend.Scalar](t *testing.T, p *primCase, s []T) backend.Buffer {
	t.Helper()
	return backendtest.Upload(t, p.dev, p.q, s)
}

// primitive is a primitive built on p's device, released when the test
// ends.
func primitive[T interface{ Release() error }](t *testing.T, p *primCase, build func(backend.Device) (T, error)) T {
	t.Helper()
	x, err := build(p.dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Release() })
	return x
}

func alloc[T backend.Scalar](t *testing.T, p *primCase, n int) backend.Buffer {
	t.Helper()
	return backendtest.AllocN[T](t, p.dev, n)
}

func read[T backend.Scalar](t *testing.T, p *primCase, b backend.Buffer, n int) []T {
	t.Helper()
	out := make([]T, n)
	if err := backend.ReadSlice(p.q, b, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// values makes n int32s: full range when spread is 0, else in [-spread, spread].
func (p *primCase) values(n int, spread int32) []int32 {
	out := make([]int32, n)
	for i := range out {
		if spread == 0 {
			out[i] = int32(p.rng.Uint32())
		} else {
			out[i] = p.rng.Int32N(2*spread+1) - spread
		}
	}
	return out
}

func (p *primCase) scan(t *testing.T) {
	s := primitive(t, p, prim.NewScan)
	small, err := prim.NewScanSize(p.dev, 4, 2) // tiles of 8: many levels at small n
	if err != nil {
		t.Fatal(err)
	}
	defer small.Release()
	for _, sc := range []*prim.Scan{s, small} {
		for _, n := range primSizes {
			if sc == small && n > 100000 {
				continue
			}
			in := p.values(n, 0)
			b := upload(t, p, in)
			out := alloc[int32](t, p, n)
			total, err := sc.Exclusive(p.q, b, out, n)
			if err != nil {
				t.Fatal(err)
			}
			got := read[int32](t, p, out, n)
			var run int64
			for i, v := range in {
				if got[i] != int32(run) {
					t.Fatalf("tile %dx%d n=%d: out[%d] = %d, want %d", sc.Group(), sc.PerItem(), n, i, got[i], int32(run))
				}
				run += int64(v)
			}
			if total != run {
				t.Fatalf("tile %dx%d n=%d: total %d, want %d", sc.Group(), sc.PerItem(), n, total, run)
			}
			// In place, inclusive: out[i] = in[0..i].
			if _, err := sc.Inclusive(p.q, b, b, n); err != nil {
				t.Fatal(err)
			}
			got = read[int32](t, p, b, n)
			run = 0
			for i, v := range in {
				run += int64(v)
				if got[i] != int32(run) {
					t.Fatalf("inclusive in place n=%d: out[%d] = %d, want %d", n, i, got[i], int32(run))
				}
			}
		}
	}
	// int64 with a total beyond 32 bits; uint32 wrapping.
	n := 300001
	wide := make([]int64, n)
	for i := range wide {
		wide[i] = int64(p.rng.Uint32()) << 8
	}
	out := alloc[int64](t, p, n)
	total, err := s.ExclusiveI64(p.q, upload(t, p, wide), out, n)
	if err != nil {
		t.Fatal(err)
	}
	got := read[int64](t, p, out, n)
	var run int64
	for i, v := range wide {
		if got[i] != run {
			t.Fatalf("int64: out[%d] = %d, want %d", i, got[i], run)
		}
		run += v
	}
	if total != run {
		t.Fatalf("int64 total %d, want %d", total, run)
	}
}

func (p *primCase) reduce(t *testing.T) {
	r := primitive(t, p, prim.NewReduce)
	for _, n := range primSizes {
		in := p.values(n, 0)
		b := upload(t, p, in)
		var sum int64
		mx := int32(math.MinInt32)
		for _, v := range in {
			sum += int64(v)
			mx = max(mx, v)
		}
		if got, err := r.SumI32(p.q, b, n); err != nil || got != sum {
			t.Fatalf("n=%d: sum %d (%v), want %d", n, got, err, sum)
		}
		if got, err := r.MaxI32(p.q, b, n); err != nil || got != mx {
			t.Fatalf("n=%d: max %d (%v), want %d", n, got, err, mx)
		}
		wide := make([]int64, n)
		var sum64 int64
		mx64 := int64(math.MinInt64)
		for i, v := range in {
			wide[i] = int64(v) * -77777
			sum64 += wide[i]
			mx64 = max(mx64, wide[i])
		}
		wb := upload(t, p, wide)
		if got, err := r.SumI64(p.q, wb, n); err != nil || got != sum64 {
			t.Fatalf("n=%d: int64 sum %d (%v), want %d", n, got, err, sum64)
		}
		if got, err := r.MaxI64(p.q, wb, n); err != nil || got != mx64 {
			t.Fatalf("n=%d: int64 max %d (%v), want %d", n, got, err, mx64)
		}
	}
}

func (p *primCase) compact(t *testing.T) {
	c := primitive(t, p, prim.NewCompact)
	for _, n := range primSizes {
		for _, density := range []int{0, 3, 50, 100} {
			flags := make([]int32, n)
			for i := range flags {
				if p.rng.IntN(100) < density {
					flags[i] = p.rng.Int32N(5) - 2
					if flags[i] == 0 {
						flags[i] = 7
					}
				}
			}
			vals := p.values(n, 0)
			wide := make([]uint64, n)
			for i := range wide {
				wide[i] = p.rng.Uint64()
			}
			var wantIdx []int32
			for i, f := range flags {
				if f != 0 {
					wantIdx = append(wantIdx, int32(i))
				}
			}
			fb := upload(t, p, flags)
			d4, d8, di := alloc[int32](t, p, n), alloc[uint64](t, p, n), alloc[int32](t, p, n)
			kept, err := c.Run(p.q, fb, n, prim.Column{Src: upload(t, p, vals), Dst: d4, Width: 4},
				prim.Column{Src: upload(t, p, wide), Dst: d8, Width: 8})
			if err != nil {
				t.Fatal(err)
			}
			if kept != len(wantIdx) {
				t.Fatalf("n=%d density %d: kept %d, want %d", n, density, kept, len(wantIdx))
			}
			if _, err := c.Indices(p.q, fb, n, di); err != nil {
				t.Fatal(err)
			}
			g4, g8, gi := read[int32](t, p, d4, kept), read[uint64](t, p, d8, kept), read[int32](t, p, di, kept)
			for j, i := range wantIdx {
				if gi[j] != i || g4[j] != vals[i] || g8[j] != wide[i] {
					t.Fatalf("n=%d density %d: kept #%d is (%d, %d, %d), want index %d (%d, %d)", n, density, j, gi[j], g4[j], g8[j], i, vals[i], wide[i])
				}
			}
		}
	}
}

// refArgmax is the first index of the largest value, -1 when empty.
func refArgmax(v []int32) (int, int32) {
	best := -1
	for i, x := range v {
		if best < 0 || x > v[best] {
			best = i
		}
	}
	if best < 0 {
		return -1, math.MinInt32
	}
	return best, v[best]
}

func (p *primCase) argmax(t *testing.T) {
	a := primitive(t, p, prim.NewArgmax)
	for _, n := range primSizes {
		for _, spread := range []int32{0, 2} { // 2: many ties
			in := p.values(n, spread)
			if n > 10 {
				in[n-1] = math.MaxInt32 // ties at the end and the start
				in[n/3] = math.MaxInt32
			}
			wantI, wantV := refArgmax(in)
			b := upload(t, p, in)
			for _, atomics := range []bool{true, false} {
				a.Atomics = atomics && p.dev.Info().Atomics64
				i, v, err := a.Run(p.q, b, n)
				if err != nil {
					t.Fatal(err)
				}
				if i != wantI || v != wantV {
					t.Fatalf("n=%d spread %d atomics %v: argmax (%d, %d), want (%d, %d)", n, spread, a.Atomics, i, v, wantI, wantV)
				}
			}
		}
	}
}

func (p *primCase) argmaxRows(t *testing.T) {
	a := primitive(t, p, prim.NewArgmax)
	for _, c := range []struct{ rows, cols, stride, group int }{{1, 0, 0, 0}, {4, 1, 3, 0}, {300, 257, 260, 0}, {50, 3000, 3000, 64}} {
		n := max((c.rows-1)*c.stride+c.cols, 0)
		in := p.values(n, 3)
		idx, val := alloc[int32](t, p, c.rows), alloc[int32](t, p, c.rows)
		if err := a.Rows(p.q, upload(t, p, in), c.rows, c.cols, c.stride, c.group, idx, val); err != nil {
			t.Fatal(err)
		}
		gi, gv := read[int32](t, p, idx, c.rows), read[int32](t, p, val, c.rows)
		for r := 0; r < c.rows; r++ {
			wi, wv := refArgmax(in[r*c.stride : r*c.stride+c.cols])
			if int(gi[r]) != wi || gv[r] != wv {
				t.Fatalf("%+v row %d: (%d, %d), want (%d, %d)", c, r, gi[r], gv[r], wi, wv)
			}
		}
	}
}

func (p *primCase) prefixMax(t *testing.T) {
	s := primitive(t, p, prim.NewScan)
	a := primitive(t, p, prim.NewArgmax)
	for _, n := range []int{0, 1, 257, 2049, 100003} {
		in := p.values(n, 2)
		packed := alloc[uint64](t, p, n)
		if err := a.Pack(p.q, upload(t, p, in), n, packed); err != nil {
			t.Fatal(err)
		}
		if _, err := s.PrefixMaxU64(p.q, packed, packed, n); err != nil {
			t.Fatal(err)
		}
		got := read[uint64](t, p, packed, n)
		best := 0
		for i := range in {
			if in[i] > in[best] {
				best = i
			}
			v, idx := prim.UnpackMax(got[i])
			if int(idx) != best || v != in[best] {
				t.Fatalf("n=%d: running argmax at %d is (%d, %d), want (%d, %d)", n, i, idx, v, best, in[best])
			}
		}
	}
}

func (p *primCase) segReduce(t *testing.T) {
	s := primitive(t, p, prim.NewSegReduce)
	for _, segs := range []int{0, 1, 7, 1000, 50000} {
		off := make([]int32, segs+1)
		for i := 0; i < segs; i++ {
			d := p.rng.IntN(6)
			if p.rng.IntN(50) == 0 {
				d = p.rng.IntN(3000)
			}
			off[i+1] = off[i] + int32(d)
		}
		arcs := int(off[segs])
		vals := p.values(arcs, 4)
		ob, vb := upload(t, p, off), upload(t, p, vals)
		for _, lanes := range []int{0, 1, 8, 256} {
			sums, mx, arg := alloc[int64](t, p, segs), alloc[int32](t, p, segs), alloc[int32](t, p, segs)
			o := prim.SegOutputs{Sums: sums, Max: mx, Argmax: arg}
			var err error
			if lanes == 0 {
				err = s.Run(p.q, ob, vb, segs, arcs, o)
			} else {
				err = s.RunLanes(p.q, ob, vb, segs, lanes, o)
			}
			if err != nil {
				t.Fatal(err)
			}
			gs, gm, ga := read[int64](t, p, sums, segs), read[int32](t, p, mx, segs), read[int32](t, p, arg, segs)
			for i := 0; i < segs; i++ {
				var sum int64
				for _, v := range vals[off[i]:off[i+1]] {
					sum += int64(v)
				}
				wi, wv := refArgmax(vals[off[i]:off[i+1]])
				if wi >= 0 {
					wi += int(off[i])
				}
				if gs[i] != sum || gm[i] != wv || int(ga[i]) != wi {
					t.Fatalf("segments %d lanes %d: segment %d: (%d, %d, %d), want (%d, %d, %d)", segs, lanes, i, gs[i], gm[i], ga[i], sum, wv, wi)
				}
			}
		}
	}
}

func (p *primCase) bitset(t *testing.T) {
	b := primitive(t, p, prim.NewBitsets)
	for _, c := range []struct{ rows, words, rowStride, maskStride int }{{1, 1, 1, 0}, {700, 2, 2, 0}, {300, 5, 6, 5}, {40, 1000, 1000, 0}} {
		rows := make([]uint64, (c.rows-1)*c.rowStride+c.words)
		mask := make([]uint64, (c.rows-1)*c.maskStride+c.words)
		for i := range rows {
			rows[i] = p.rng.Uint64() & p.rng.Uint64()
		}
		for i := range mask {
			mask[i] = p.rng.Uint64()
		}
		counts := alloc[int32](t, p, c.rows)
		if err := b.AndCount(p.q, upload(t, p, rows), c.rows, c.words, c.rowStride, upload(t, p, mask), c.maskStride, counts); err != nil {
			t.Fatal(err)
		}
		got := read[int32](t, p, counts, c.rows)
		for r := 0; r < c.rows; r++ {
			want := 0
			for w := 0; w < c.words; w++ {
				want += bits.OnesCount64(rows[r*c.rowStride+w] & mask[r*c.maskStride+w])
			}
			if int(got[r]) != want {
				t.Fatalf("%+v: row %d counts %d, want %d", c, r, got[r], want)
			}
		}
	}
}
