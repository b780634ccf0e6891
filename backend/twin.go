package backend

import (
	"fmt"
	"sort"
	"sync"
	"unsafe"
)

// Twin is the Go twin of a device kernel: it runs one work-group on the
// CPU backend, which is the twin's only runner. Twins register here rather
// than with the cpu package so that the packages defining kernels never
// import a driver (only the registrar, backend/all, does).
//
// A twin runs one work-group. Code that
// a device runs between two barriers is written as one g.Items (or g.Each)
// call, which visits every work-item of the group; the call's return is the
// barrier. Local memory arguments are per-group slices (g.LocalI32, ...),
// fresh for each group as on a device.
type Twin func(g *Group)

var (
	twinMu sync.RWMutex
	twins  = map[string]Twin{}
)

// RegisterTwin makes fn the CPU implementation of the kernel called name.
// It panics on a duplicate, a programming error caught at start-up.
func RegisterTwin(name string, fn Twin) {
	twinMu.Lock()
	defer twinMu.Unlock()
	if _, dup := twins[name]; dup {
		panic("backend: RegisterTwin called twice for " + name)
	}
	twins[name] = fn
}

// LookupTwin returns the twin registered under name.
func LookupTwin(name string) (Twin, bool) {
	twinMu.RLock()
	defer twinMu.RUnlock()
	t, ok := twins[name]
	return t, ok
}

// TwinNames lists the registered twins.
func TwinNames() []string {
	twinMu.RLock()
	defer twinMu.RUnlock()
	out := make([]string, 0, len(twins))
	for n := range twins {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Group is one work-group being run by a twin.
type Group struct {
	ID     [3]int // group id (get_group_id / blockIdx)
	Groups [3]int // number of groups (get_num_groups / gridDim)
	Size   [3]int // work-group size (get_local_size / blockDim)
	Global [3]int // global size, rounded up to whole groups (get_global_size)
	Args   []Arg
	// Local is the per-argument local memory (nil for other arguments),
	// set by the backend that runs the twin, fresh for each group.
	Local [][]byte
}

// HostBuffer is a buffer whose memory the host addresses directly: the
// CPU backend's, the only one twins run on.
type HostBuffer interface {
	Buffer
	HostBytes() []byte
}

// Item is one work-item's ids.
type Item struct {
	Local  [3]int // get_local_id
	Global [3]int // get_global_id
	Flat   int    // flattened local id: x + y*sx + z*sx*sy
}

// Items calls fn for every work-item of the group, in local-id order. One
// call is one barrier-free phase of the kernel.
func (g *Group) Items(fn func(it Item)) {
	var it Item
	for z := 0; z < g.Size[2]; z++ {
		for y := 0; y < g.Size[1]; y++ {
			for x := 0; x < g.Size[0]; x++ {
				it.Local = [3]int{x, y, z}
				it.Global = [3]int{g.ID[0]*g.Size[0] + x, g.ID[1]*g.Size[1] + y, g.ID[2]*g.Size[2] + z}
				fn(it)
				it.Flat++
			}
		}
	}
}

// Each calls fn(local id, global id) for every work-item of a 1-D group.
func (g *Group) Each(fn func(lid, gid int)) {
	base := g.ID[0] * g.Size[0]
	for l := 0; l < g.Size[0]; l++ {
		fn(l, base+l)
	}
}

// N is the number of work-items in the group.
func (g *Group) N() int { return g.Size[0] * g.Size[1] * g.Size[2] }

func (g *Group) arg(i int, kind ArgKind) Arg {
	if i < 0 || i >= len(g.Args) {
		panic(fmt.Sprintf("twin: argument %d of %d requested", i, len(g.Args)))
	}
	a := g.Args[i]
	if a.Kind != kind {
		panic(fmt.Sprintf("twin: argument %d is %s, read as %s", i, a.Kind, kind))
	}
	return a
}

// Bytes returns buffer argument i's memory.
func (g *Group) Bytes(i int) []byte {
	return g.arg(i, ArgBuffer).Buf.(HostBuffer).HostBytes()
}

// View is b as a slice of T: the memory is shared, not copied (the CPU
// backend's buffers and the twins' arguments are such views).
func View[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// Views of buffer arguments as typed slices (the memory is shared, not copied).
func (g *Group) I32s(i int) []int32   { return View[int32](g.Bytes(i)) }
func (g *Group) U32s(i int) []uint32  { return View[uint32](g.Bytes(i)) }
func (g *Group) I64s(i int) []int64   { return View[int64](g.Bytes(i)) }
func (g *Group) U64s(i int) []uint64  { return View[uint64](g.Bytes(i)) }
func (g *Group) F32s(i int) []float32 { return View[float32](g.Bytes(i)) }
func (g *Group) F64s(i int) []float64 { return View[float64](g.Bytes(i)) }

// Scalar arguments.
func (g *Group) I32(i int) int32   { return g.arg(i, ArgInt32).Int32() }
func (g *Group) U32(i int) uint32  { return g.arg(i, ArgUint32).Uint32() }
func (g *Group) I64(i int) int64   { return g.arg(i, ArgInt64).Int64() }
func (g *Group) U64(i int) uint64  { return g.arg(i, ArgUint64).Uint64() }
func (g *Group) F32(i int) float32 { return g.arg(i, ArgFloat32).Float32() }
func (g *Group) F64(i int) float64 { return g.arg(i, ArgFloat64).Float64() }
func (g *Group) LocalBytes(i int) []byte {
	g.arg(i, ArgLocal)
	return g.Local[i]
}

// Views of local-memory arguments.
func (g *Group) LocalI32(i int) []int32  { return View[int32](g.LocalBytes(i)) }
func (g *Group) LocalU32(i int) []uint32 { return View[uint32](g.LocalBytes(i)) }
func (g *Group) LocalI64(i int) []int64  { return View[int64](g.LocalBytes(i)) }
func (g *Group) LocalU64(i int) []uint64 { return View[uint64](g.LocalBytes(i)) }
