package tests

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/device"
)

// sgOpsCode runs every sub-group operation of the prelude once per
// work-item; a work-group is one sub-group of LANES lanes.
const sgOpsCode = `
#define SG_OUTS 8
KERNEL void sg_ops(GLOBAL const u64* vals, GLOBAL const i32* preds, GLOBAL const i32* srcs, GLOBAL u64* out)
{
    ARBOR_SG_SCRATCH;
    const size_t gid = get_global_id(0);
    const i32 src = srcs[get_group_id(0)];
    const u64 x = vals[gid];
    const i32 p = preds[gid];
    GLOBAL u64* o = out + gid * SG_OUTS;
#if ARBOR_SG_WARP
    o[0] = arbor_sg_ballot(p);
    o[1] = arbor_sg_any(p) ? 1 : 0;
    o[2] = arbor_sg_shfl_u64(x, src);
    o[3] = (u64)(i64)arbor_sg_shfl_i32((i32)(u32)x, src);
    o[4] = (u64)(i64)arbor_sg_sum_i32((i32)(x & 0xffff) - 30000);
    o[5] = arbor_sg_min_u64(x);
    o[6] = (u64)(i64)arbor_sg_inclusive_i32((i32)(x & 0xff) - 100);
    o[7] = (u64)arbor_sg_lane();
#else
    o[0] = 0xdeadbeefu; /* no sub-group route at this LANES on this path */
#endif
}
`

// TestSubgroupOps runs the prelude's sub-group operations (ballot, any,
// shuffle, sum, min, inclusive scan, lane id) on every device, on every
// sub-group path it can take at that path's width (CUDA's intrinsics and
// NVIDIA OpenCL's inline PTX at 32 lanes, khr at the device's width), and
// on OpenCL devices also on the local-memory emulation at 4, 32 and 64
// lanes (PoCL in CI), against a plain Go reference: one all-false group,
// one all-true group, then random predicates, values and source lanes.
func TestSubgroupOps(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		info := dev.Info()
		if device.DialectOf(info) == device.Go {
			t.Skip("the CPU backend runs Go twins: no prelude")
		}
		type run struct {
			path  device.Path
			lanes int
		}
		var runs []run
		for _, p := range device.Paths(info) {
			if w := device.SubgroupWidth(info, p); w > 0 {
				runs = append(runs, run{p, w})
			}
		}
		if device.DialectOf(info) == device.OpenCL {
			for _, l := range []int{4, 32, 64} {
				runs = append(runs, run{device.PathLocal, l})
			}
		}
		for _, r := range runs {
			t.Run(fmt.Sprintf("%s-%d", r.path, r.lanes), func(t *testing.T) {
				sgOps(t, device.OnPath(dev, r.path), r.lanes)
			})
		}
	})
}

func sgOps(t *testing.T, dev backend.Device, lanes int) {
	info := dev.Info()
	defs := device.FeatureDefines(info)
	defs["LANES"] = fmt.Sprint(lanes)
	keys := make([]string, 0, len(defs))
	for k := range defs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&sb, "#define %s %s\n", k, defs[k])
	}
	sb.WriteString(device.Prelude(device.DialectOf(info)))
	sb.WriteString("#line 1 \"sg_ops.cl\"\n" + sgOpsCode)
	k := backendtest.Kernel(t, backendtest.Build(t, dev, backend.Source{Name: "sg_ops", Code: sb.String(), Kernels: []string{"sg_ops"}}), "sg_ops")
	if err := device.CheckSubgroupKernel(dev, k, lanes); err != nil {
		t.Fatal(err)
	}
	q := backendtest.Queue(t, dev)

	const groups = 9
	n := groups * lanes
	rng := rand.New(rand.NewPCG(uint64(lanes), 36))
	vals, preds, srcs := make([]uint64, n), make([]int32, n), make([]int32, groups)
	for i := range vals {
		vals[i] = rng.Uint64()
		if g := i / lanes; g == 1 {
			preds[i] = 1
		} else if g > 1 && rng.IntN(3) == 0 {
			preds[i] = int32(rng.IntN(5) + 1)
		}
	}
	for g := range srcs {
		srcs[g] = int32(rng.IntN(lanes))
	}
	srcs[0], srcs[1] = 0, int32(lanes-1)
	vb, err := backend.AllocSlice(dev, q, vals)
	if err != nil {
		t.Fatal(err)
	}
	defer vb.Free()
	pb, err := backend.AllocSlice(dev, q, preds)
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Free()
	sbuf, err := backend.AllocSlice(dev, q, srcs)
	if err != nil {
		t.Fatal(err)
	}
	defer sbuf.Free()
	ob, err := backend.AllocN[uint64](dev, n*8)
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Free()
	if err := q.Launch(k, backend.R1(n, lanes), backend.Buf(vb), backend.Buf(pb), backend.Buf(sbuf), backend.Buf(ob)); err != nil {
		t.Fatal(err)
	}
	out := make([]uint64, n*8)
	if err := backend.ReadSlice(q, ob, out); err != nil {
		t.Fatal(err)
	}
	names := []string{"ballot", "any", "shfl_u64", "shfl_i32", "sum_i32", "min_u64", "inclusive_i32", "lane"}
	bad := 0
	for g := 0; g < groups; g++ {
		base := g * lanes
		var ballot uint64
		var sum int64
		mn := ^uint64(0)
		for l := 0; l < lanes; l++ {
			if preds[base+l] != 0 {
				ballot |= 1 << uint(l)
			}
			sum += int64(vals[base+l]&0xffff) - 30000
			mn = min(mn, vals[base+l])
		}
		any := uint64(0)
		if ballot != 0 {
			any = 1
		}
		src := vals[base+int(srcs[g])]
		var incl int64
		for l := 0; l < lanes; l++ {
			incl += int64(vals[base+l]&0xff) - 100
			want := []uint64{ballot, any, src, uint64(int64(int32(uint32(src)))), uint64(sum), mn, uint64(incl), uint64(l)}
			got := out[(base+l)*8 : (base+l+1)*8]
			if got[0] == 0xdeadbeef && lanes > 1 {
				t.Fatalf("%s: ARBOR_SG_WARP is false at %d lanes", info, lanes)
			}
			for j := range want {
				if got[j] != want[j] && bad < 10 {
					bad++
					t.Errorf("group %d lane %d: %s = %#x, want %#x", g, l, names[j], got[j], want[j])
				}
			}
		}
		if g == 0 && ballot != 0 || g == 1 && bits.OnesCount64(ballot) != lanes {
			t.Fatalf("test data: group %d's ballot %#x", g, ballot)
		}
	}
}
