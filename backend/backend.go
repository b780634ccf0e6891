// Package backend is the one interface Arbor's algorithms see: devices,
// buffers, programs, kernels, launches, queues and events. CUDA, OpenCL and
// the CPU implement it and register themselves by name, the way database/sql
// drivers do; an algorithm never names an API, it asks for a Device and runs
// named kernels on it.
package backend

import (
	"fmt"
	"time"
)

// DeviceType says what kind of processor a device is.
type DeviceType int

const (
	TypeOther DeviceType = iota
	TypeGPU
	TypeCPU
	TypeAccelerator
)

func (t DeviceType) String() string {
	switch t {
	case TypeGPU:
		return "gpu"
	case TypeCPU:
		return "cpu"
	case TypeAccelerator:
		return "accelerator"
	}
	return "other"
}

// MarshalText lets --json print the type by name.
func (t DeviceType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Info describes one device. Fields a backend cannot know stay zero.
type Info struct {
	Backend       string     `json:"backend"`
	Index         int        `json:"index"` // index within its backend, as --device takes it
	Name          string     `json:"name"`
	Vendor        string     `json:"vendor"`
	Type          DeviceType `json:"type"`
	Version       string     `json:"version,omitempty"`        // API or device version (OpenCL version, compute capability)
	DriverVersion string     `json:"driver_version,omitempty"` // driver / runtime version
	Platform      string     `json:"platform,omitempty"`       // OpenCL platform name
	ComputeUnits  int        `json:"compute_units"`            // SMs, CUs or cores
	GlobalMemory  uint64     `json:"global_memory"`            // bytes
	LocalMemory   uint64     `json:"local_memory"`             // bytes of local/shared memory per work-group
	MaxWorkGroup  int        `json:"max_work_group"`           // work-items per work-group
	MaxWorkItems  [3]int     `json:"max_work_items"`           // per dimension
	Atomics64     bool       `json:"atomics64"`                // 64-bit integer atomics on global memory
	// Features lists further capabilities worth showing: SIMD sets for the
	// CPU, extensions for OpenCL, compute capability details for CUDA.
	Features []string `json:"features,omitempty"`
	// Extensions is the device's whole extension string (OpenCL), from
	// which the kernel prelude picks its sub-group path.
	Extensions []string `json:"extensions,omitempty"`
	// SubGroupSizes are the sub-group (warp, wavefront) widths the device
	// reports: 32 on CUDA; on OpenCL what CL_DEVICE_SUB_GROUP_SIZES_INTEL,
	// CL_DEVICE_WAVEFRONT_WIDTH_AMD or CL_DEVICE_WARP_SIZE_NV say (each an
	// extension's query), none when the device reports none.
	SubGroupSizes []int `json:"sub_group_sizes,omitempty"`
	// SubgroupPath, when set, forces the prelude's sub-group path
	// (device.OnPath sets it to build one device's kernels on each path it
	// can take); empty: the prelude picks from the extensions.
	SubgroupPath string `json:"subgroup_path,omitempty"`
}

func (i Info) String() string {
	return fmt.Sprintf("%s:%d %s", i.Backend, i.Index, i.Name)
}

// Device is an opened device. It owns every object created from it; Close
// releases the device's own context, not the objects, which the caller frees.
type Device interface {
	Info() Info
	// Alloc returns a device buffer of the given size in bytes, zero-filled
	// is not promised. Out of memory is returned as an error wrapping
	// ErrOutOfMemory so callers can fall back or split work.
	Alloc(bytes int) (Buffer, error)
	// Build compiles a program. Source.Code is the complete text the
	// compiler sees (device.Source prepends the prelude).
	Build(src Source) (Program, error)
	// NewQueue returns an in-order queue (stream) with timing enabled.
	NewQueue() (Queue, error)
	Close() error
}

// Source is a program to build.
type Source struct {
	Name    string            // shown in errors and used for the cache, e.g. "scan"
	Code    string            // the full source text
	Options []string          // compiler options beyond the defines
	Defines map[string]string // passed as -D NAME=VALUE to either compiler
	// Kernels lists the entry points the program must provide. The CPU
	// backend uses it to find the Go twins; others may check it.
	Kernels []string
}

// Program is a built program.
type Program interface {
	Kernel(name string) (Kernel, error)
	Release() error
}

// Kernel is one entry point of a program.
type Kernel interface {
	Name() string
	Release() error
}

// Buffer is device memory.
type Buffer interface {
	Size() int
	Free() error
}

// Queue is an in-order command queue: commands run one after the other in
// the order they were issued. Read and Write block until the data has moved.
type Queue interface {
	Write(dst Buffer, offset int, src []byte) error
	Read(src Buffer, offset int, dst []byte) error
	Copy(dst Buffer, dstOffset int, src Buffer, srcOffset int, bytes int) error
	// Fill sets bytes [offset, offset+bytes) of buf to value (repeated 4-byte pattern).
	Fill(buf Buffer, offset, bytes int, value uint32) error
	Launch(k Kernel, r Range, args ...Arg) error
	// Record places a marker in the queue; its time is when the commands
	// before it have finished.
	Record() (Event, error)
	Finish() error
	Release() error
}

// Event marks a point in a queue.
type Event interface {
	Wait() error
	// Elapsed is the device time from start to this event.
	Elapsed(start Event) (time.Duration, error)
	Release() error
}

// Range is launch geometry. Global is the number of work-items in each
// dimension; backends round it up to a multiple of Local, so a kernel must
// check its index against its own bound (the same rule on every backend,
// because CUDA grids and OpenCL 1.2 work-groups are uniform). A zero Local
// means the backend's default for 1-D launches (DefaultGroup, clamped).
type Range struct {
	Global [3]int
	Local  [3]int
}

// DefaultGroup is the work-group size used when a Range leaves Local zero.
const DefaultGroup = 256

// R1 is a one-dimensional range of n items in groups of local (0: default).
func R1(n, local int) Range { return Range{Global: [3]int{n, 1, 1}, Local: [3]int{local, 1, 1}} }

// R2 is a two-dimensional range.
func R2(nx, ny, lx, ly int) Range {
	return Range{Global: [3]int{nx, ny, 1}, Local: [3]int{lx, ly, 1}}
}

// R3 is a three-dimensional range.
func R3(nx, ny, nz, lx, ly, lz int) Range {
	return Range{Global: [3]int{nx, ny, nz}, Local: [3]int{lx, ly, lz}}
}

// Normalize fills defaults and rounds Global up to whole work-groups. It
// returns the number of groups in each dimension.
func (r Range) Normalize(maxGroup int) (Range, [3]int, error) {
	var groups [3]int
	dims := 1
	for d := 1; d < 3; d++ {
		if r.Global[d] > 1 || r.Local[d] > 1 {
			dims = d + 1
		}
	}
	for d := 0; d < 3; d++ {
		if r.Global[d] < 0 || r.Local[d] < 0 {
			return r, groups, fmt.Errorf("backend: negative range %v", r)
		}
		if r.Global[d] == 0 && d >= dims {
			r.Global[d] = 1
		}
		if r.Local[d] == 0 {
			r.Local[d] = 1
			if d == 0 {
				r.Local[0] = DefaultGroup
				if dims == 1 && r.Global[0] > 0 && r.Global[0] < DefaultGroup {
					// Round small launches to a warp multiple rather than a full group.
					r.Local[0] = (r.Global[0] + 31) / 32 * 32
				}
				if maxGroup > 0 && r.Local[0] > maxGroup {
					r.Local[0] = maxGroup
				}
			}
		}
	}
	total := r.Local[0] * r.Local[1] * r.Local[2]
	if maxGroup > 0 && total > maxGroup {
		return r, groups, fmt.Errorf("backend: work-group %v has %d items, device allows %d", r.Local, total, maxGroup)
	}
	for d := 0; d < 3; d++ {
		groups[d] = (r.Global[d] + r.Local[d] - 1) / r.Local[d]
		r.Global[d] = groups[d] * r.Local[d]
	}
	return r, groups, nil
}

// Empty reports whether the range has no work-items.
func (r Range) Empty() bool { return r.Global[0] == 0 || r.Global[1] == 0 || r.Global[2] == 0 }
