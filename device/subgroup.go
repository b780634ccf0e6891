package device

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/arbor-gpu/arbor/backend"
)

// Path is how the prelude implements sub-group (warp, wavefront)
// operations on a device: the kernels' warp-level code (ballots,
// shuffles, sub-group reductions and scans) runs where a path other than
// PathFallback is taken and the worker's LANES equal the path's width;
// otherwise the kernels take their work-group (local memory and barrier)
// route.
type Path string

const (
	// PathCUDA: CUDA's intrinsics (__ballot_sync, __shfl_sync, ...).
	PathCUDA Path = "cuda"
	// PathKHR: OpenCL's cl_khr_subgroups, with cl_khr_subgroup_ballot and
	// cl_khr_subgroup_shuffle where offered (AMD, Intel); without them a
	// ballot is a sub-group sum of one bit per lane and a shuffle of a
	// lane every lane names the same is sub_group_broadcast.
	PathKHR Path = "khr"
	// PathPTX: inline PTX (vote.sync.ballot.b32, shfl.sync) on NVIDIA's
	// OpenCL, which offers no sub-group extension but compiles PTX asm.
	PathPTX Path = "ptx"
	// PathFallback: no sub-group operations; the work-group route.
	PathFallback Path = "fallback"
	// PathLocal: the sub-group operations emulated through local memory
	// and barriers, the worker's work-items being the sub-group. Never
	// picked by itself (ARBOR_SUBGROUPS=local or OnPath): it runs the
	// kernels' sub-group code on devices without sub-groups, PoCL in CI.
	PathLocal Path = "local"
	// PathTwin: the CPU backend, which runs the Go twins.
	PathTwin Path = "twin"
)

// EnvSubgroups names the variable that forces a path (auto, cuda, khr,
// ptx, fallback, local) for testing. A path the device cannot take then fails to
// build rather than being replaced silently.
const EnvSubgroups = "ARBOR_SUBGROUPS"

// subgroupMacro is the value of the prelude's ARBOR_SUBGROUP macro.
func (p Path) subgroupMacro() int {
	switch p {
	case PathCUDA:
		return 1
	case PathKHR:
		return 2
	case PathPTX:
		return 3
	case PathLocal:
		return 4
	}
	return 0
}

// ParsePath reads a path name as ARBOR_SUBGROUPS takes it ("" and "auto"
// give "": no path forced).
func ParsePath(s string) (Path, error) {
	switch p := Path(strings.ToLower(strings.TrimSpace(s))); p {
	case "", "auto":
		return "", nil
	case PathCUDA, PathKHR, PathPTX, PathFallback, PathLocal:
		return p, nil
	}
	return "", fmt.Errorf("device: %s=%q: want auto, cuda, khr, ptx, fallback or local", EnvSubgroups, s)
}

func hasExt(info backend.Info, name string) bool {
	return slices.Contains(info.Extensions, name) || slices.Contains(info.Features, name)
}

// Paths lists every sub-group path the device can take, the preferred one
// first; the last is always the fallback (the twin on the CPU backend).
// The choice follows the reported extensions, never the vendor's name:
// cl_khr_subgroups gives khr; cl_nv_device_attribute_query (NVIDIA's
// OpenCL, whose compiler takes inline PTX) without it gives ptx.
func Paths(info backend.Info) []Path {
	switch DialectOf(info) {
	case CUDA:
		return []Path{PathCUDA, PathFallback}
	case Go:
		return []Path{PathTwin}
	}
	var out []Path
	if hasExt(info, "cl_khr_subgroups") && SubgroupWidth(info, PathKHR) > 0 {
		out = append(out, PathKHR)
	}
	if hasExt(info, "cl_nv_device_attribute_query") && info.Type == backend.TypeGPU {
		out = append(out, PathPTX)
	}
	return append(out, PathFallback)
}

// PathsToCheck are the paths `arbor verify` and the tests run a device's
// kernels on: the one ARBOR_SUBGROUPS forces, else every one of Paths.
func PathsToCheck(info backend.Info) []Path {
	if DialectOf(info) != Go {
		if p, err := ParsePath(os.Getenv(EnvSubgroups)); err == nil && p != "" {
			return []Path{p}
		}
	}
	return Paths(info)
}

// PathOf is the path the prelude takes on the device: the one forced by
// info.SubgroupPath (OnPath) or ARBOR_SUBGROUPS, else the first of Paths.
func PathOf(info backend.Info) (Path, error) {
	if info.SubgroupPath != "" {
		return ParsePath(info.SubgroupPath)
	}
	if DialectOf(info) == Go {
		return PathTwin, nil
	}
	p, err := ParsePath(os.Getenv(EnvSubgroups))
	if err != nil || p != "" {
		return p, err
	}
	return Paths(info)[0], nil
}

// SubgroupWidth is the number of lanes path p's operations span on the
// device (0 for the fallback): 32 on CUDA and through PTX (a warp); for
// khr, the largest width the device reports (a work-group of at most that
// many work-items is one sub-group), 0 when it reports none.
func SubgroupWidth(info backend.Info, p Path) int {
	switch p {
	case PathCUDA, PathPTX:
		return 32
	case PathKHR:
		w := 0
		for _, s := range info.SubGroupSizes {
			if s <= 64 && s&(s-1) == 0 {
				w = max(w, s)
			}
		}
		return w
	}
	return 0
}

// Lanes is the work-group size a search kernel's worker should have on a
// GPU: the sub-group width of the path the device takes when that is 64
// (a wavefront of AMD's GCN and CDNA), else 32 (a warp; RDNA's wave32;
// Intel's widest).
func Lanes(info backend.Info) int {
	p, err := PathOf(info)
	if err == nil && SubgroupWidth(info, p) == 64 {
		return 64
	}
	return 32
}

// subgroupDefines are the prelude's sub-group macros for the device.
func subgroupDefines(info backend.Info) (map[string]string, error) {
	p, err := PathOf(info)
	if err != nil {
		return nil, err
	}
	m := map[string]string{
		"ARBOR_SUBGROUP":       fmt.Sprint(p.subgroupMacro()),
		"ARBOR_SG_SIZE":        fmt.Sprint(SubgroupWidth(info, p)),
		"ARBOR_SG_KHR_BALLOT":  "0",
		"ARBOR_SG_KHR_SHUFFLE": "0",
	}
	if p == PathLocal {
		// The emulation spans the work-group, whatever its size.
		m["ARBOR_SG_SIZE"] = "LANES"
	}
	if p == PathKHR {
		if hasExt(info, "cl_khr_subgroup_ballot") {
			m["ARBOR_SG_KHR_BALLOT"] = "1"
		}
		if hasExt(info, "cl_khr_subgroup_shuffle") {
			m["ARBOR_SG_KHR_SHUFFLE"] = "1"
		}
	}
	return m, nil
}

// OnPath returns dev with its kernels built on path p (for `arbor verify`
// and the tests, which run every path a device can take).
func OnPath(dev backend.Device, p Path) backend.Device {
	return pathDevice{Device: dev, path: p}
}

type pathDevice struct {
	backend.Device
	path Path
}

// Phases passes the wrapped device's start-up phases through.
func (d pathDevice) Phases() []backend.Phase { return backend.PhasesOf(d.Device) }

func (d pathDevice) Info() backend.Info {
	i := d.Device.Info()
	if d.path != PathTwin {
		i.SubgroupPath = string(d.path)
	}
	return i
}

// CheckSubgroupKernel fails when kernel k, built for dev with workers of
// lanes work-items, was compiled for the khr sub-group path with LANES
// equal to the sub-group width, but the driver says a work-group of lanes
// items forms more than one sub-group for it (a compiler may pick a
// narrower width per kernel, as Intel's does): the kernel's ballots and
// reductions would then span part of a worker. Drivers that cannot say
// pass.
func CheckSubgroupKernel(dev backend.Device, k backend.Kernel, lanes int) error {
	info := dev.Info()
	p, err := PathOf(info)
	if err != nil || p != PathKHR || lanes <= 1 || SubgroupWidth(info, p) != lanes {
		return err
	}
	sg, ok := k.(interface{ SubGroups(local int) (int, bool) })
	if !ok {
		return nil
	}
	if n, ok := sg.SubGroups(lanes); ok && n != 1 {
		return fmt.Errorf("device: %s on %s: a work-group of %d work-items forms %d sub-groups, the khr path needs one (%s=fallback avoids it)",
			k.Name(), info, lanes, n, EnvSubgroups)
	}
	return nil
}

// WarpLevel reports whether the device's kernels run their warp-level
// code (a sub-group path other than the fallback): what the device search
// engines' speed rests on, and so what the engines' auto rules ask of an
// OpenCL GPU. Measured on the H100 (docs/results/subgroups.md): NVIDIA's
// OpenCL on the ptx path ran the mcs and clique device engines at 0.94–1.06×
// CUDA's time.
func WarpLevel(info backend.Info) bool {
	p, err := PathOf(info)
	return err == nil && (p == PathCUDA || p == PathPTX || p == PathKHR)
}
