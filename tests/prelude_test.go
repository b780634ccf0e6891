package tests

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/device"
)

// preludeCode exercises the prelude's shared helpers in both dialects: the
// work-group sum and argmax, the packed argmax words, the popcounts and
// ARBOR_MIN/ARBOR_MAX.
const preludeCode = `
KERNEL void prelude_helpers(GLOBAL const i32* in, GLOBAL const u64* words, const i32 n,
                            GLOBAL i64* sums, GLOBAL i32* index, GLOBAL i32* value, GLOBAL i32* misc,
                            LOCAL_PTR(u64, smax), LOCAL_PTR(i64, ssum))
{
    LOCAL_BIND(u64, smax);
    LOCAL_BIND(i64, ssum);
    size_t gid = get_global_id(0);
    i32 v = gid < (size_t)n ? in[gid] : 0;
    u64 p = gid < (size_t)n ? arbor_pack_max(v, (u32)gid) : 0;
    i64 s = arbor_group_sum_i64(ssum, (i64)v);
    u64 m = arbor_group_max_u64(smax, p);
    if (get_local_id(0) == 0) {
        sums[get_group_id(0)] = s;
        index[get_group_id(0)] = arbor_packed_index(m);
        value[get_group_id(0)] = arbor_packed_key(m);
    }
    if (gid < (size_t)n) {
        u64 w = words[gid];
        misc[gid] = POPCOUNT64(w) * 100 + POPCOUNT32((u32)w) + ARBOR_MAX(v, 0) - ARBOR_MIN(v, 0) - (v < 0 ? -v : v);
    }
}
`

func init() { backend.RegisterTwin("prelude_helpers", preludeHelpersTwin) }

// preludeHelpersTwin is prelude_helpers in Go, written from the definitions
// (not from the kernels package) so the test checks the prelude itself.
func preludeHelpersTwin(g *backend.Group) {
	in, words, n := g.I32s(0), g.U64s(1), int(g.I32(2))
	sums, index, value, misc := g.I64s(3), g.I32s(4), g.I32s(5), g.I32s(6)
	var s int64
	bi, bv := int32(-1), int32(math.MinInt32)
	g.Each(func(_, gid int) {
		if gid >= n {
			return
		}
		v := in[gid]
		s += int64(v)
		if bi < 0 || v > bv {
			bi, bv = int32(gid), v
		}
		misc[gid] = int32(bits.OnesCount64(words[gid])*100 + bits.OnesCount32(uint32(words[gid])))
	})
	sums[g.ID[0]], index[g.ID[0]], value[g.ID[0]] = s, bi, bv
}

func TestPreludeHelpers(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		info := dev.Info()
		k := backendtest.Kernel(t, backendtest.Build(t, dev, backend.Source{
			Name:    "prelude_helpers",
			Code:    device.Prelude(device.DialectOf(info)) + "#line 1 \"prelude_helpers.cl\"\n" + preludeCode,
			Kernels: []string{"prelude_helpers"},
		}), "prelude_helpers")
		q := backendtest.Queue(t, dev)
		rng := rand.New(rand.NewPCG(5, 6))
		for _, tc := range []struct{ n, group int }{{1, 1}, {5, 8}, {1000, 64}, {4099, 256}} {
			in := make([]int32, tc.n)
			words := make([]uint64, tc.n)
			for i := range in {
				in[i] = rng.Int32N(9) - 4
				if i%7 == 3 {
					in[i] = math.MinInt32 + 1
				}
				words[i] = rng.Uint64()
			}
			groups := (tc.n + tc.group - 1) / tc.group
			var bufs []backend.Buffer
			keep := func(b backend.Buffer, err error) backend.Buffer {
				if err != nil {
					t.Fatal(err)
				}
				bufs = append(bufs, b)
				return b
			}
			ib, wb := keep(backend.AllocSlice(dev, q, in)), keep(backend.AllocSlice(dev, q, words))
			sb, xb := keep(backend.AllocN[int64](dev, groups)), keep(backend.AllocN[int32](dev, groups))
			vb, mb := keep(backend.AllocN[int32](dev, groups)), keep(backend.AllocN[int32](dev, tc.n))
			if err := q.Launch(k, backend.R1(tc.n, tc.group), backend.Buf(ib), backend.Buf(wb), backend.I32(int32(tc.n)),
				backend.Buf(sb), backend.Buf(xb), backend.Buf(vb), backend.Buf(mb),
				backend.Local(tc.group*8), backend.Local(tc.group*8)); err != nil {
				t.Fatal(err)
			}
			sums, idx, val, misc := make([]int64, groups), make([]int32, groups), make([]int32, groups), make([]int32, tc.n)
			for _, e := range []error{backend.ReadSlice(q, sb, sums), backend.ReadSlice(q, xb, idx), backend.ReadSlice(q, vb, val), backend.ReadSlice(q, mb, misc)} {
				if e != nil {
					t.Fatal(e)
				}
			}
			for _, b := range bufs {
				b.Free()
			}
			for g := 0; g < groups; g++ {
				var s int64
				bi := -1
				for i := g * tc.group; i < min((g+1)*tc.group, tc.n); i++ {
					s += int64(in[i])
					if bi < 0 || in[i] > in[bi] {
						bi = i
					}
				}
				if sums[g] != s || int(idx[g]) != bi || val[g] != in[bi] {
					t.Fatalf("n=%d group=%d: group %d: sum %d argmax (%d, %d), want %d (%d, %d)", tc.n, tc.group, g, sums[g], idx[g], val[g], s, bi, in[bi])
				}
			}
			for i, w := range words {
				if want := int32(bits.OnesCount64(w)*100 + bits.OnesCount32(uint32(w))); misc[i] != want {
					t.Fatalf("n=%d: misc[%d] = %d, want %d (popcounts %d, %d; v=%d)", tc.n, i, misc[i], want, bits.OnesCount64(w), bits.OnesCount32(uint32(w)), in[i])
				}
			}
		}
	})
}
