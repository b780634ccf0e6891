package prim

import (
	"fmt"
	"math/rand/v2"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
)

// The primitives' checks run each host wrapper over generated inputs: empty,
// one element, sizes around the work-group and tile boundaries, a million
// and more elements, in the shapes that break reductions and tie-breaks
// (all equal, sorted, reverse sorted, few distinct values, full-range
// random). The data checks (primitives_data.go) add real graphs.

// Sizes around the default tile (256×8 = 2048) and group (256) boundaries.
var (
	checkSizesSmall  = []int{0, 1, 2, 7, 255, 256, 257, 2047, 2048, 2049}
	checkSizeMillion = 1<<20 + 3
)

// primitiveChecks lists the checks of the search-tree primitives.
func primitiveChecks(dataDir string) []device.Check {
	var all []device.Check
	all = append(all, scanChecks()...)
	all = append(all, reduceChecks()...)
	all = append(all, compactChecks()...)
	all = append(all, argmaxChecks()...)
	all = append(all, segReduceChecks()...)
	all = append(all, bitsetChecks()...)
	all = append(all, primitiveDataChecks(dataDir)...)
	return all
}

// genI32 makes n int32 values of a shape, deterministically.
func genI32(n int, shape string) []int32 {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(len(shape))))
	out := make([]int32, n)
	for i := range out {
		switch shape {
		case "random":
			out[i] = int32(rng.Uint32())
		case "small": // few distinct values: many ties
			out[i] = rng.Int32N(7) - 3
		case "equal":
			out[i] = 42
		case "sorted":
			out[i] = int32(i / 3)
		case "reverse":
			out[i] = int32((n - i) / 3)
		case "half": // flags: about one in two set
			out[i] = rng.Int32N(2) * (rng.Int32N(1000) + 1)
		case "sparse": // flags: about one in a hundred set
			if rng.IntN(100) == 0 {
				out[i] = -1
			}
		case "ones":
			out[i] = 1
		case "zeros":
		default:
			panic("genI32: unknown shape " + shape)
		}
	}
	return out
}

// chk is one check run's device, queue and buffers.
type chk struct {
	dev  backend.Device
	q    backend.Queue
	bufs []backend.Buffer
}

// withChk runs body with a fresh queue and frees everything afterwards.
func withChk(dev backend.Device, body func(c *chk) ([]device.Output, error)) ([]device.Output, error) {
	q, err := dev.NewQueue()
	if err != nil {
		return nil, err
	}
	c := &chk{dev: dev, q: q}
	defer func() {
		for _, b := range c.bufs {
			b.Free()
		}
		q.Release()
	}()
	out, err := body(c)
	if err != nil {
		return nil, err
	}
	return out, q.Finish()
}

func chkUpload[T backend.Scalar](c *chk, s []T) backend.Buffer {
	b, err := backend.AllocSlice(c.dev, c.q, s)
	if err != nil {
		panic(chkFail{err})
	}
	c.bufs = append(c.bufs, b)
	return b
}

func chkAlloc[T backend.Scalar](c *chk, n int) backend.Buffer {
	b, err := backend.AllocN[T](c.dev, n)
	if err != nil {
		panic(chkFail{err})
	}
	c.bufs = append(c.bufs, b)
	return b
}

func chkRead[T backend.Scalar](c *chk, b backend.Buffer, n int) []T {
	out := make([]T, n)
	if err := backend.ReadSlice(c.q, b, out); err != nil {
		panic(chkFail{err})
	}
	return out
}

// chkFail carries a device error out of a check body; run recovers it.
type chkFail struct{ err error }

// primCheck builds a Check whose body may fail through chkFail panics.
func primCheck(kernel, cas string, size int, body func(c *chk) ([]device.Output, error)) device.Check {
	return device.Check{Kernel: kernel, Case: cas, Size: size, Run: func(dev backend.Device) (out []device.Output, err error) {
		defer func() {
			if p := recover(); p != nil {
				f, ok := p.(chkFail)
				if !ok {
					panic(p)
				}
				out, err = nil, f.err
			}
		}()
		return withChk(dev, body)
	}}
}

func oneOutput(name string, v int64) device.Output {
	return device.Output{Name: name, Values: []int64{v}}
}

func scanChecks() []device.Check {
	var out []device.Check
	type tc struct {
		n              int
		shape          string
		group, perItem int
		inPlace        bool
	}
	var cases []tc
	for _, n := range append(checkSizesSmall, 4099, 100003, checkSizeMillion) {
		cases = append(cases, tc{n: n, shape: "random"})
	}
	for _, s := range []string{"equal", "small", "reverse", "zeros"} {
		cases = append(cases, tc{n: 2049, shape: s}, tc{n: checkSizeMillion, shape: s})
	}
	cases = append(cases,
		tc{n: 100003, shape: "random", inPlace: true},
		tc{n: 1, shape: "random", group: 32, perItem: 1},
		tc{n: 33, shape: "small", group: 32, perItem: 1},
		tc{n: 32*32*32 + 5, shape: "random", group: 32, perItem: 1}, // four levels
		tc{n: 100003, shape: "small", group: 64, perItem: 3},
	)
	for _, c := range cases {
		name := fmt.Sprintf("n=%d %s", c.n, c.shape)
		if c.group > 0 {
			name += fmt.Sprintf(" tile=%dx%d", c.group, c.perItem)
		}
		if c.inPlace {
			name += " in-place"
		}
		out = append(out, primCheck("scan", name, c.n, func(k *chk) ([]device.Output, error) {
			s, err := NewScanSize(k.dev, c.group, c.perItem)
			if err != nil {
				return nil, err
			}
			defer s.Release()
			in := chkUpload(k, genI32(c.n, c.shape))
			dst := in
			if !c.inPlace {
				dst = chkAlloc[int32](k, c.n)
			}
			total, err := s.Exclusive(k.q, in, dst, c.n)
			if err != nil {
				return nil, err
			}
			return []device.Output{device.Widen("out", chkRead[int32](k, dst, c.n)), oneOutput("total", total)}, nil
		}))
	}
	out = append(out, primCheck("scan", "inclusive n=5000 small", 5000, func(k *chk) ([]device.Output, error) {
		s, err := NewScan(k.dev)
		if err != nil {
			return nil, err
		}
		defer s.Release()
		in, dst := chkUpload(k, genI32(5000, "small")), chkAlloc[int32](k, 5000)
		total, err := s.Inclusive(k.q, in, dst, 5000)
		if err != nil {
			return nil, err
		}
		return []device.Output{device.Widen("out", chkRead[int32](k, dst, 5000)), oneOutput("total", total)}, nil
	}))
	for _, n := range []int{0, 70001} {
		out = append(out, primCheck("scan", fmt.Sprintf("uint32 n=%d random", n), n, func(k *chk) ([]device.Output, error) {
			s, err := NewScan(k.dev)
			if err != nil {
				return nil, err
			}
			defer s.Release()
			src := make([]uint32, n)
			for i, v := range genI32(n, "random") {
				src[i] = uint32(v)
			}
			in, dst := chkUpload(k, src), chkAlloc[uint32](k, n)
			total, err := s.ExclusiveU32(k.q, in, dst, n)
			if err != nil {
				return nil, err
			}
			return []device.Output{device.Widen("out", chkRead[uint32](k, dst, n)), oneOutput("total", total)}, nil
		}))
		out = append(out, primCheck("scan", fmt.Sprintf("int64 n=%d random", n), n, func(k *chk) ([]device.Output, error) {
			s, err := NewScan(k.dev)
			if err != nil {
				return nil, err
			}
			defer s.Release()
			src := make([]int64, n)
			for i, v := range genI32(n, "random") {
				src[i] = int64(v) << 9
			}
			in, dst := chkUpload(k, src), chkAlloc[int64](k, n)
			total, err := s.ExclusiveI64(k.q, in, dst, n)
			if err != nil {
				return nil, err
			}
			return []device.Output{device.Widen("out", chkRead[int64](k, dst, n)), oneOutput("total", total)}, nil
		}))
	}
	return append(out, prefixMaxChecks()...)
}

// prefixMaxChecks are the scan kernels' running maxima: of int32
// values, and of argmax's packed (value, index) words.
func prefixMaxChecks() []device.Check {
	var out []device.Check
	type tc struct {
		n     int
		shape string
	}
	for _, c := range []tc{{n: 0, shape: "small"}, {n: 1, shape: "random"}, {n: 3000, shape: "small"}, {n: checkSizeMillion, shape: "random"}} {
		out = append(out, primCheck("prefix_max", fmt.Sprintf("int32 n=%d %s", c.n, c.shape), c.n, func(k *chk) ([]device.Output, error) {
			s, err := NewScan(k.dev)
			if err != nil {
				return nil, err
			}
			defer s.Release()
			in, dst := chkUpload(k, genI32(c.n, c.shape)), chkAlloc[int32](k, c.n)
			m, err := s.PrefixMaxI32(k.q, in, dst, c.n)
			if err != nil {
				return nil, err
			}
			return []device.Output{device.Widen("out", chkRead[int32](k, dst, c.n)), oneOutput("max", int64(m))}, nil
		}))
	}
	for _, c := range []tc{{n: 0, shape: "small"}, {n: 1, shape: "small"}, {n: 2049, shape: "equal"}, {n: 2049, shape: "small"},
		{n: 300007, shape: "small"}, {n: 300007, shape: "sorted"}} {
		out = append(out, primCheck("prefix_max", fmt.Sprintf("argmax words n=%d %s", c.n, c.shape), c.n, func(k *chk) ([]device.Output, error) {
			s, err := NewScan(k.dev)
			if err != nil {
				return nil, err
			}
			defer s.Release()
			a, err := NewArgmax(k.dev)
			if err != nil {
				return nil, err
			}
			defer a.Release()
			in, packed := chkUpload(k, genI32(c.n, c.shape)), chkAlloc[uint64](k, c.n)
			if err := a.Pack(k.q, in, c.n, packed); err != nil {
				return nil, err
			}
			m, err := s.PrefixMaxU64(k.q, packed, packed, c.n)
			if err != nil {
				return nil, err
			}
			return []device.Output{device.Widen("out", chkRead[uint64](k, packed, c.n)), oneOutput("max", int64(m))}, nil
		}))
	}
	return out
}

func reduceChecks() []device.Check {
	var out []device.Check
	type tc struct {
		op    string
		n     int
		shape string
	}
	var cases []tc
	for _, n := range []int{0, 1, 257, 2049, 100003, checkSizeMillion} {
		cases = append(cases, tc{"sum_i32", n, "random"}, tc{"max_i32", n, "random"})
	}
	cases = append(cases, tc{"max_i32", 2049, "reverse"}, tc{"max_i32", checkSizeMillion, "equal"}, tc{"max_i32", 5000, "small"},
		tc{"sum_i32", checkSizeMillion, "equal"}, tc{"sum_u32", 100003, "random"},
		tc{"sum_i64", 0, "random"}, tc{"sum_i64", 100003, "random"}, tc{"max_i64", 0, "random"}, tc{"max_i64", 100003, "random"},
		tc{"max_u64", 5000, "small"})
	for _, c := range cases {
		out = append(out, primCheck("reduce", fmt.Sprintf("%s n=%d %s", c.op, c.n, c.shape), c.n, func(k *chk) ([]device.Output, error) {
			r, err := NewReduce(k.dev)
			if err != nil {
				return nil, err
			}
			defer r.Release()
			src := genI32(c.n, c.shape)
			var v int64
			switch c.op {
			case "sum_i32":
				v, err = r.SumI32(k.q, chkUpload(k, src), c.n)
			case "max_i32":
				var m int32
				m, err = r.MaxI32(k.q, chkUpload(k, src), c.n)
				v = int64(m)
			case "sum_u32":
				v, err = r.SumU32(k.q, chkUpload(k, src), c.n) // the same bits read as uint32
			case "sum_i64", "max_i64":
				wide := make([]int64, c.n)
				for i, x := range src {
					wide[i] = int64(x) * 1000003
				}
				if c.op == "sum_i64" {
					v, err = r.SumI64(k.q, chkUpload(k, wide), c.n)
				} else {
					v, err = r.MaxI64(k.q, chkUpload(k, wide), c.n)
				}
			case "max_u64":
				words := make([]uint64, c.n)
				for i, x := range src {
					words[i] = PackMax(x, uint32(i))
				}
				var m uint64
				m, err = r.MaxU64(k.q, chkUpload(k, words), c.n)
				v = int64(m)
			}
			return []device.Output{oneOutput(c.op, v)}, err
		}))
	}
	return out
}

// sizedCase is a check's input size and the kind of data (genI32's shape).
type sizedCase struct {
	n    int
	kind string
}

// sizedCases is one case of kind per size.
func sizedCases(kind string, ns ...int) []sizedCase {
	out := make([]sizedCase, len(ns))
	for i, n := range ns {
		out[i] = sizedCase{n, kind}
	}
	return out
}

func compactChecks() []device.Check {
	var out []device.Check
	cases := append(sizedCases("half", 0, 1, 257, 100003, checkSizeMillion),
		sizedCase{1, "zeros"}, sizedCase{2049, "zeros"}, sizedCase{2049, "ones"}, sizedCase{100003, "sparse"}, sizedCase{checkSizeMillion, "sparse"}, sizedCase{4099, "ones"})
	for _, c := range cases {
		out = append(out, primCheck("compact", fmt.Sprintf("n=%d flags=%s", c.n, c.kind), c.n, func(k *chk) ([]device.Output, error) {
			cp, err := NewCompact(k.dev)
			if err != nil {
				return nil, err
			}
			defer cp.Release()
			flags := chkUpload(k, genI32(c.n, c.kind))
			src4 := genI32(c.n, "random")
			src8 := make([]int64, c.n)
			for i := range src8 {
				src8[i] = int64(i)<<32 | int64(uint32(src4[i]))
			}
			d4, d8, di := chkAlloc[int32](k, c.n), chkAlloc[int64](k, c.n), chkAlloc[int32](k, c.n)
			kept, err := cp.Run(k.q, flags, c.n, Column{chkUpload(k, src4), d4, 4}, Column{chkUpload(k, src8), d8, 8})
			if err != nil {
				return nil, err
			}
			kept2, err := cp.Indices(k.q, flags, c.n, di)
			if err != nil {
				return nil, err
			}
			if kept2 != kept {
				return nil, fmt.Errorf("compact: Indices kept %d, Run kept %d", kept2, kept)
			}
			return []device.Output{oneOutput("kept", int64(kept)), device.Widen("values4", chkRead[int32](k, d4, kept)),
				device.Widen("values8", chkRead[int64](k, d8, kept)), device.Widen("indices", chkRead[int32](k, di, kept))}, nil
		}))
	}
	return out
}

func argmaxChecks() []device.Check {
	var out []device.Check
	cases := sizedCases("small", 0, 1, 2, 257, 65536, checkSizeMillion)
	for _, s := range []string{"equal", "sorted", "reverse", "random"} {
		cases = append(cases, sizedCase{2049, s}, sizedCase{checkSizeMillion, s})
	}
	for _, c := range cases {
		for _, twoPass := range []bool{false, true} {
			mode := "atomic where available"
			if twoPass {
				mode = "two-pass"
			}
			out = append(out, primCheck("argmax", fmt.Sprintf("n=%d %s %s", c.n, c.kind, mode), c.n, func(k *chk) ([]device.Output, error) {
				a, err := NewArgmax(k.dev)
				if err != nil {
					return nil, err
				}
				defer a.Release()
				if twoPass {
					a.Atomics = false
				}
				idx, v, err := a.Run(k.q, chkUpload(k, genI32(c.n, c.kind)), c.n)
				return []device.Output{oneOutput("index", int64(idx)), oneOutput("value", int64(v))}, err
			}))
		}
	}
	for _, c := range []struct{ rows, cols, stride, group int }{
		{1, 0, 0, 0}, {1, 1, 1, 0}, {5, 7, 9, 0}, {100, 1000, 1000, 0}, {1000, 37, 40, 64}, {3, 5000, 5001, 32}, {20000, 3, 3, 0},
	} {
		out = append(out, primCheck("argmax_rows", fmt.Sprintf("%dx%d stride=%d group=%d", c.rows, c.cols, c.stride, c.group), c.rows*c.cols,
			func(k *chk) ([]device.Output, error) {
				a, err := NewArgmax(k.dev)
				if err != nil {
					return nil, err
				}
				defer a.Release()
				n := max((c.rows-1)*c.stride+c.cols, 0)
				vals := chkUpload(k, genI32(n, "small"))
				idx, val := chkAlloc[int32](k, c.rows), chkAlloc[int32](k, c.rows)
				if err := a.Rows(k.q, vals, c.rows, c.cols, c.stride, c.group, idx, val); err != nil {
					return nil, err
				}
				return []device.Output{device.Widen("index", chkRead[int32](k, idx, c.rows)), device.Widen("value", chkRead[int32](k, val, c.rows))}, nil
			}))
	}
	return out
}

// genCSR makes offsets for segments segments with degrees of a shape.
func genCSR(segments int, shape string) []int32 {
	rng := rand.New(rand.NewPCG(uint64(segments), 7))
	off := make([]int32, segments+1)
	for s := 0; s < segments; s++ {
		d := 0
		switch shape {
		case "uniform":
			d = rng.IntN(9)
		case "skewed": // mostly short, some very long
			d = rng.IntN(4)
			if rng.IntN(200) == 0 {
				d = rng.IntN(5000)
			}
		case "one-huge":
			if s == segments/2 {
				d = 300000
			}
		case "empty":
		}
		off[s+1] = off[s] + int32(d)
	}
	return off
}

func segReduceChecks() []device.Check {
	var out []device.Check
	for _, c := range []struct {
		segments int
		shape    string
		lanes    int
	}{
		{0, "uniform", 0}, {1, "uniform", 0}, {1, "one-huge", 0}, {5, "uniform", 1}, {1000, "empty", 0}, {1000, "uniform", 0},
		{1000, "uniform", 4}, {100000, "uniform", 0}, {100000, "skewed", 0}, {100000, "skewed", 32}, {3, "one-huge", 256}, {300000, "uniform", 1},
	} {
		name := fmt.Sprintf("segments=%d %s lanes=%d", c.segments, c.shape, c.lanes)
		offsets := func() []int32 { return genCSR(c.segments, c.shape) }
		out = append(out, primCheck("segreduce", name, c.segments, func(k *chk) ([]device.Output, error) {
			s, err := NewSegReduce(k.dev)
			if err != nil {
				return nil, err
			}
			defer s.Release()
			off := offsets()
			arcs := int(off[c.segments])
			vals := genI32(arcs, "small")
			ob, vb := chkUpload(k, off), chkUpload(k, vals)
			sums, maxes, arg := chkAlloc[int64](k, c.segments), chkAlloc[int32](k, c.segments), chkAlloc[int32](k, c.segments)
			o := SegOutputs{Sums: sums, Max: maxes, Argmax: arg}
			if c.lanes == 0 {
				err = s.Run(k.q, ob, vb, c.segments, arcs, o)
			} else {
				err = s.RunLanes(k.q, ob, vb, c.segments, min(c.lanes, s.group), o)
			}
			if err != nil {
				return nil, err
			}
			return []device.Output{device.Widen("sums", chkRead[int64](k, sums, c.segments)), device.Widen("max", chkRead[int32](k, maxes, c.segments)),
				device.Widen("argmax", chkRead[int32](k, arg, c.segments))}, nil
		}))
	}
	return out
}

// genBits makes n random words with about density/64 of their bits set.
func genBits(n, density int, seed uint64) []uint64 {
	rng := rand.New(rand.NewPCG(uint64(n), seed))
	out := make([]uint64, n)
	for i := range out {
		for b := 0; b < 64; b++ {
			if rng.IntN(64) < density {
				out[i] |= 1 << b
			}
		}
	}
	return out
}

func bitsetChecks() []device.Check {
	var out []device.Check
	for _, c := range []struct{ rows, words, rowStride, maskStride int }{
		{0, 1, 1, 0}, {1, 1, 1, 0}, {1, 1, 1, 1}, {1000, 2, 2, 0}, {1000, 2, 3, 3}, {100, 300, 300, 0}, {5000, 17, 17, 17}, {3, 4096, 4096, 0},
	} {
		name := fmt.Sprintf("%dx%d strides=%d,%d", c.rows, c.words, c.rowStride, c.maskStride)
		out = append(out, primCheck("bitset", name, c.rows*c.words, func(k *chk) ([]device.Output, error) {
			b, err := NewBitsets(k.dev)
			if err != nil {
				return nil, err
			}
			defer b.Release()
			nrows := max((c.rows-1)*c.rowStride+c.words, 1)
			nmask := max((c.rows-1)*c.maskStride+c.words, 1)
			rows, mask := chkUpload(k, genBits(nrows, 20, 1)), chkUpload(k, genBits(nmask, 40, 2))
			counts := chkAlloc[int32](k, c.rows)
			if err := b.AndCount(k.q, rows, c.rows, c.words, c.rowStride, mask, c.maskStride, counts); err != nil {
				return nil, err
			}
			return []device.Output{device.Widen("counts", chkRead[int32](k, counts, c.rows))}, nil
		}))
	}
	return out
}
