package device_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/arbor-gpu/arbor/algorithms/all" // every source, for the catalog and dialect tests
	matchkernel "github.com/arbor-gpu/arbor/algorithms/matching/kernel"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/prim"
)

func TestCompareNamesFirstDifference(t *testing.T) {
	want := []device.Output{{Name: "out", Values: []int64{1, 2, 3}}}
	if err := device.Compare([]device.Output{{Name: "out", Values: []int64{1, 2, 3}}}, want); err != nil {
		t.Fatal(err)
	}
	err := device.Compare([]device.Output{{Name: "out", Values: []int64{1, 5, 7}}}, want)
	if err == nil || !strings.Contains(err.Error(), "out[1] = 5, want 2") {
		t.Fatalf("got %v", err)
	}
	if err := device.Compare([]device.Output{{Name: "out", Values: []int64{1}}}, want); err == nil {
		t.Fatal("length difference not reported")
	}
}

func TestPackMax(t *testing.T) {
	// Larger key wins; equal keys: smaller index wins; 0 is "nothing".
	if !(prim.PackMax(5, 9) > prim.PackMax(4, 0)) || !(prim.PackMax(-1, 3) > prim.PackMax(-2, 0)) ||
		!(prim.PackMax(7, 2) > prim.PackMax(7, 3)) || !(prim.PackMax(-1<<31, 0) > 0) {
		t.Fatal("packed order is wrong")
	}
	for _, c := range []struct{ k, i int32 }{{0, 0}, {-1 << 31, 5}, {1<<31 - 1, 1<<31 - 2}, {-7, 12345}} {
		if k, i := prim.UnpackMax(prim.PackMax(c.k, uint32(c.i))); k != c.k || i != c.i {
			t.Fatalf("round trip of %v gave (%d, %d)", c, k, i)
		}
	}
	if k, i := prim.UnpackMax(0); k != -1<<31 || i != -1 {
		t.Fatalf("UnpackMax(0) = (%d, %d)", k, i)
	}
}

func TestKernelNames(t *testing.T) {
	// The sources whose entry points the Go side names itself: the catalog
	// must find exactly those (a declaration with launch bounds included).
	for src, want := range map[string][]string{"match_fast": matchkernel.MatchFastKernelNames, "cs314": matchkernel.CS314KernelNames} {
		if ks, err := device.KernelNames(src); err != nil || !slices.Equal(ks, want) {
			t.Errorf("%s: kernels %v, %v; want %v", src, ks, err, want)
		}
	}
	for _, src := range device.Names() {
		ks, err := device.KernelNames(src)
		if err != nil || len(ks) == 0 {
			t.Errorf("%s: kernels %v, %v", src, ks, err)
		}
		body, _ := device.Text(src)
		for _, k := range ks {
			if !strings.Contains(body, k) && !strings.Contains(body, "SCAN_KERNELS") {
				t.Errorf("%s: listed kernel %s not in the text", src, k)
			}
			if device.SourceOf(k) != src {
				t.Errorf("SourceOf(%s) = %q, want %s", k, device.SourceOf(k), src)
			}
		}
	}
}

// cudaStub declares just enough of CUDA for a C++ compiler to parse the
// CUDA dialect: NVRTC is not available here, but g++ catches what C++
// rejects and C accepts (implicit conversions, restrict, C-only
// builtins), the usual way a single source breaks on one side.
const cudaStub = `#include <cstddef>
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__
#define __align__(n)
#define __launch_bounds__(t, b)
struct arbor_dim3 { unsigned int x, y, z; };
extern arbor_dim3 threadIdx, blockIdx, blockDim, gridDim;
void __syncthreads();
int atomicAdd(int*, int); unsigned int atomicAdd(unsigned int*, unsigned int); unsigned long long atomicAdd(unsigned long long*, unsigned long long);
int atomicMin(int*, int); unsigned long long atomicMin(unsigned long long*, unsigned long long);
int atomicMax(int*, int); unsigned long long atomicMax(unsigned long long*, unsigned long long);
int atomicCAS(int*, int, int); unsigned int atomicCAS(unsigned int*, unsigned int, unsigned int);
unsigned long long atomicCAS(unsigned long long*, unsigned long long, unsigned long long);
int __popc(unsigned int); int __popcll(unsigned long long);
struct int4 { int x, y, z, w; };
int __shfl_up_sync(unsigned int, int, int); long long __shfl_xor_sync(unsigned int, long long, int);
int __shfl_xor_sync(unsigned int, int, int); unsigned long long __shfl_xor_sync(unsigned int, unsigned long long, int);
int __shfl_sync(unsigned int, int, int); void __threadfence(); unsigned int atomicOr(unsigned int*, unsigned int);
unsigned int __ballot_sync(unsigned int, int); int __ffs(int); int __any_sync(unsigned int, int);
unsigned long long __shfl_sync(unsigned int, unsigned long long, int);
struct ulonglong2 { unsigned long long x, y; };
`

// TestCUDADialectParses runs every source's CUDA text through g++
// -fsyntax-only (skipped without g++).
func TestCUDADialectParses(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not found: cannot syntax-check the CUDA dialect")
	}
	dir := t.TempDir()
	stub := filepath.Join(dir, "cudastub.h")
	if err := os.WriteFile(stub, []byte(cudaStub), 0o644); err != nil {
		t.Fatal(err)
	}
	info := backend.Info{Backend: "cuda", Name: "syntax check", MaxWorkGroup: 1024, LocalMemory: 48 << 10, Atomics64: true}
	for _, name := range device.Names() {
		src, err := device.Source(info, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, name+".cu")
		if err := os.WriteFile(file, []byte(src.Code), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(gxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Wno-unused-function",
			"-include", stub, "-x", "c++", file).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("%s (CUDA dialect): %v\n%s", name, err, out)
		}
	}
}

// TestKernelsDirOverride: a NAME.cl in $ARBOR_KERNELS_DIR replaces the
// built-in source of that name; the others stay built in.
func TestKernelsDirOverride(t *testing.T) {
	builtin, err := device.Text("scan")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const edited = "/* edited */\n"
	if err := os.WriteFile(filepath.Join(dir, "vecadd.cl"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ARBOR_KERNELS_DIR", dir)
	if got, err := device.Text("vecadd"); err != nil || got != edited {
		t.Fatalf("vecadd from ARBOR_KERNELS_DIR: %q, %v", got, err)
	}
	if got, err := device.Text("scan"); err != nil || got != builtin {
		t.Fatalf("scan (not in the folder) = %d bytes, %v; want the built-in %d bytes", len(got), err, len(builtin))
	}
}
