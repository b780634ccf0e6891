package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"

	_ "github.com/arbor-gpu/arbor/algorithms/all"
)

// sgDevice is a device that is not here, described as its driver would
// describe it, so that the prelude takes that device's sub-group path.
type sgDevice struct {
	name   string
	info   backend.Info
	path   device.Path
	lanes  int
	target []string // clang's target flags
	asm    bool     // compile to assembly (PTX) and look for the instructions
}

var int64Atomics = []string{"cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics"}

func sgDevices() []sgDevice {
	amd := backend.Info{Backend: "opencl", Name: "AMD GCN (described)", Vendor: "Advanced Micro Devices, Inc.", Type: backend.TypeGPU,
		Atomics64: true, MaxWorkGroup: 256, LocalMemory: 64 << 10, SubGroupSizes: []int{64},
		Extensions: append([]string{"cl_khr_subgroups", "cl_khr_subgroup_ballot", "cl_khr_subgroup_shuffle", "cl_amd_device_attribute_query"}, int64Atomics...)}
	// A khr device without the ballot and shuffle extensions (the prelude's
	// reduce-add ballot and broadcast shuffle), 32 lanes.
	plain := backend.Info{Backend: "opencl", Name: "khr sub-groups only (described)", Vendor: "Some vendor", Type: backend.TypeGPU,
		Atomics64: true, MaxWorkGroup: 256, LocalMemory: 64 << 10, SubGroupSizes: []int{8, 16, 32},
		Extensions: append([]string{"cl_khr_subgroups", "cl_intel_subgroups"}, int64Atomics...)}
	nv := backend.Info{Backend: "opencl", Name: "NVIDIA H100 (described)", Vendor: "NVIDIA Corporation", Type: backend.TypeGPU,
		Atomics64: true, MaxWorkGroup: 1024, LocalMemory: 48 << 10, SubGroupSizes: []int{32},
		Extensions: append([]string{"cl_nv_device_attribute_query"}, int64Atomics...)}
	// clang defines the sub-group extension macros (which opencl-c.h's
	// declarations need) only for SPIR targets; AMD's compiler, which
	// reports the extensions, defines them, so the AMD builds do too.
	return []sgDevice{
		{name: "amd-khr-64", info: amd, path: device.PathKHR, lanes: 64,
			target: []string{"-target", "amdgcn-amd-amdhsa", "-mcpu=gfx906", "-nogpulib", "-Dcl_khr_subgroup_ballot=1", "-Dcl_khr_subgroup_shuffle=1"}},
		{name: "amd-khr-32", info: amd, path: device.PathKHR, lanes: 32,
			target: []string{"-target", "amdgcn-amd-amdhsa", "-mcpu=gfx1030", "-nogpulib", "-Dcl_khr_subgroup_ballot=1", "-Dcl_khr_subgroup_shuffle=1"}},
		{name: "khr-plain-32", info: plain, path: device.PathKHR, lanes: 32,
			target: []string{"-target", "spir64", "-emit-llvm"}},
		{name: "nvidia-ptx", info: nv, path: device.PathPTX, lanes: 32,
			target: []string{"-target", "nvptx64-nvidia-nvcl", "-fgnu-keywords"}, asm: true},
	}
}

// TestSubgroupPaths checks which path each described device takes, from
// its extensions.
func TestSubgroupPaths(t *testing.T) {
	t.Setenv(device.EnvSubgroups, "")
	for _, d := range sgDevices() {
		p, err := device.PathOf(d.info)
		if err != nil || p != d.path {
			t.Errorf("%s: path %q (%v), want %q", d.name, p, err, d.path)
		}
		if got := device.Paths(d.info); got[len(got)-1] != device.PathFallback {
			t.Errorf("%s: paths %v do not end in the fallback", d.name, got)
		}
	}
	if l := device.Lanes(sgDevices()[0].info); l != 64 {
		t.Errorf("AMD wave64: %d lanes, want 64", l)
	}
	if l := device.Lanes(sgDevices()[3].info); l != 32 {
		t.Errorf("NVIDIA: %d lanes, want 32", l)
	}
	t.Setenv(device.EnvSubgroups, "fallback")
	if p, _ := device.PathOf(sgDevices()[0].info); p != device.PathFallback {
		t.Errorf("ARBOR_SUBGROUPS=fallback: path %q", p)
	}
	t.Setenv(device.EnvSubgroups, "warp")
	if _, err := device.Source(sgDevices()[0].info, "clique", nil); err == nil || !strings.Contains(err.Error(), device.EnvSubgroups) {
		t.Errorf("ARBOR_SUBGROUPS=warp: %v, want an error naming the variable", err)
	}
}

// TestSubgroupKernelBuild compiles the search kernels' sub-group paths for
// devices that are not here, with the clang that PoCL installs: the khr
// path for AMD's GCN (64 lanes) and RDNA (32) and for a generic SPIR
// target without the ballot and shuffle extensions, and the inline-PTX
// path for NVIDIA's OpenCL to PTX, which must then hold the vote and
// shuffle instructions. It checks that the sources compile, not that they
// run: no such device is reachable.
func TestSubgroupKernelBuild(t *testing.T) {
	clang := ""
	for _, c := range []string{"clang-15", "clang-16", "clang-17", "clang-18", "clang"} {
		if p, err := exec.LookPath(c); err == nil {
			clang = p
			break
		}
	}
	if clang == "" {
		t.Skip("no clang on PATH (PoCL's Debian packages install clang-15)")
	}
	t.Setenv(device.EnvSubgroups, "")
	kernels := []struct {
		name    string
		defines func(lanes int) map[string]string
	}{
		{"clique", func(l int) map[string]string { return map[string]string{"LANES": fmt.Sprint(l), "W": "3"} }},
		{"mcsplit", func(l int) map[string]string {
			return map[string]string{"LANES": fmt.Sprint(l), "W": "2", "MINPRODUCT": "0"}
		}},
		{"vc", func(l int) map[string]string { return map[string]string{"LANES": fmt.Sprint(l)} }},
	}
	dir := t.TempDir()
	for _, d := range sgDevices() {
		for _, k := range kernels {
			t.Run(d.name+"/"+k.name, func(t *testing.T) {
				src, err := device.Source(d.info, k.name, k.defines(d.lanes))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(src.Code, fmt.Sprintf("#define ARBOR_SG_SIZE %d", d.lanes)) && d.lanes == 64 {
					t.Fatalf("source does not define ARBOR_SG_SIZE %d", d.lanes)
				}
				in := filepath.Join(dir, d.name+"-"+k.name+".cl")
				out := filepath.Join(dir, d.name+"-"+k.name+".out")
				if err := os.WriteFile(in, []byte(src.Code), 0o644); err != nil {
					t.Fatal(err)
				}
				args := []string{"-x", "cl", "-cl-std=CL2.0", "-Xclang", "-finclude-default-header", "-O2",
					"-Xclang", "-cl-ext=+cl_khr_subgroups,+cl_khr_subgroup_ballot,+cl_khr_subgroup_shuffle,+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics"}
				args = append(args, d.target...)
				if d.asm {
					args = append(args, "-S")
				} else {
					args = append(args, "-c")
				}
				args = append(args, "-o", out, in)
				cmd := exec.Command(clang, args...)
				msg, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s %s: %v\n%s", clang, strings.Join(args, " "), err, msg)
				}
				if d.asm {
					b, err := os.ReadFile(out)
					if err != nil {
						t.Fatal(err)
					}
					want := []string{"shfl.sync"} // the reductions and scans
					if k.name == "clique" {
						want = append(want, "vote.sync.ballot.b32") // the colouring
					}
					for _, want := range want {
						if !strings.Contains(string(b), want) {
							t.Errorf("the PTX holds no %s", want)
						}
					}
				}
			})
		}
	}
}
