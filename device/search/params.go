package search

// Params: the one Go description of a search kernel's parameters, which
// the wrapper launches with, the twin reads its arguments through, and a
// test checks every kernel's signature against.

import (
	"fmt"
	"sort"
	"sync"

	"github.com/arbor-gpu/arbor/backend"
)

// Elem is the element type of a buffer parameter.
type Elem int

const (
	I32 Elem = iota // i32 (int32)
	U32             // u32 (uint32)
	I64             // i64 (int64)
	U64             // u64 (uint64)
)

// String is the type's name in the kernel source.
func (e Elem) String() string { return [...]string{"i32", "u32", "i64", "u64"}[e] }

// Param is one buffer parameter that a kernel declares itself.
type Param struct {
	Name string
	Elem Elem
}

// Buf is a buffer parameter of elements T.
func Buf[T int32 | uint32 | int64 | uint64](name string) Param {
	var z T
	switch any(z).(type) {
	case int32:
		return Param{name, I32}
	case uint32:
		return Param{name, U32}
	case int64:
		return Param{name, I64}
	default:
		return Param{name, U64}
	}
}

// Params declares a search kernel's parameters, in the layer's order: the
// kernel's inputs (In), the ring and the workers' status words
// (devsearch.cl's DS_RING_PARAMS: slots, seq, ctrl, wstate), the kernel's
// own state (State), then the node budget and the idle limit, and with
// Goal the goal and its frozen flag (DS_LAUNCH_PARAMS, DS_GOAL_PARAMS).
// Source is the kernel's source, NAME.cl, whose entry point is
// NAME_epoch.
type Params struct {
	Source    string
	In, State []Param
	Goal      bool
}

// Kernel is the entry point's name.
func (p Params) Kernel() string { return p.Source + "_epoch" }

// Full is the whole parameter list as the kernel declares it: buffers
// with their element type, scalars with Scalar set.
func (p Params) Full() []FullParam {
	var out []FullParam
	for _, q := range p.In {
		out = append(out, FullParam{Param: q})
	}
	out = append(out, FullParam{Param: Param{"slots", U64}}, FullParam{Param: Param{"seq", U32}},
		FullParam{Param: Param{"ctrl", U32}}, FullParam{Param: Param{"wstate", I64}})
	for _, q := range p.State {
		out = append(out, FullParam{Param: q})
	}
	out = append(out, FullParam{Param{"budget", I64}, true}, FullParam{Param{"idle_limit", I32}, true})
	if p.Goal {
		out = append(out, FullParam{Param{"goal", I32}, true}, FullParam{Param{"frozen", I32}, true})
	}
	return out
}

// FullParam is a parameter of Params.Full: a buffer, or a scalar.
type FullParam struct {
	Param
	Scalar bool
}

// index is the position of name in the full list, checked against elem;
// it panics on a name the kernel does not declare or another type: a
// programming error that the first twin run or launch in a test shows.
func (p Params) index(name string, elem Elem) int {
	for i, q := range p.Full() {
		if q.Name == name {
			if q.Elem != elem || q.Scalar {
				panic(fmt.Sprintf("search: %s: %s is declared %v, read as %v", p.Kernel(), name, q.Elem, elem))
			}
			return i
		}
	}
	panic(fmt.Sprintf("search: %s declares no parameter %q", p.Kernel(), name))
}

// launchArgs are the launch's arguments: bufs names a buffer for every
// buffer parameter but the layer's own (the ring's and wstate, given
// here), then the scalars.
func (p Params) launchArgs(bufs map[string]backend.Buffer, r *Ring, wstate backend.Buffer, budget int64, idleLimit, goal int32, frozen bool) ([]backend.Arg, error) {
	if n := len(p.In) + len(p.State); len(bufs) != n {
		return nil, fmt.Errorf("%s: %d buffers bound, the kernel declares %d", p.Kernel(), len(bufs), n)
	}
	layer := map[string]backend.Buffer{"slots": r.Slots, "seq": r.Seq, "ctrl": r.Ctrl, "wstate": wstate}
	var args []backend.Arg
	for _, q := range p.Full() {
		switch {
		case q.Name == "budget":
			args = append(args, backend.I64(budget))
		case q.Name == "idle_limit":
			args = append(args, backend.I32(idleLimit))
		case q.Name == "goal":
			args = append(args, backend.I32(goal))
		case q.Name == "frozen":
			fz := int32(0)
			if frozen {
				fz = 1
			}
			args = append(args, backend.I32(fz))
		default:
			b, ok := layer[q.Name]
			if !ok {
				if b, ok = bufs[q.Name]; !ok {
					return nil, fmt.Errorf("%s: no buffer bound to %s", p.Kernel(), q.Name)
				}
			}
			args = append(args, backend.Buf(b))
		}
	}
	return args, nil
}

// Arg is a twin's view of the buffer parameter name of elements T: the
// whole buffer.
func Arg[T int32 | uint32 | int64 | uint64](g *backend.Group, p Params, name string) []T {
	return viewOf[T](g, p.index(name, Buf[T]("").Elem))
}

// WorkerArg is the part of buffer parameter name that belongs to this
// work-group's worker: words words from group id × words.
func WorkerArg[T int32 | uint32 | int64 | uint64](g *backend.Group, p Params, name string, words int) []T {
	w := g.ID[0]
	return Arg[T](g, p, name)[w*words : (w+1)*words]
}

func viewOf[T int32 | uint32 | int64 | uint64](g *backend.Group, i int) []T {
	var out any
	switch any(*new(T)).(type) {
	case int32:
		out = g.I32s(i)
	case uint32:
		out = g.U32s(i)
	case int64:
		out = g.I64s(i)
	default:
		out = g.U64s(i)
	}
	return out.([]T)
}

// The search kernels registered with RegisterTwin, for the signature test.
var (
	paramsMu sync.Mutex
	params   = map[string]Params{}
)

// RegisterTwin registers a search kernel's twin with backend under the
// kernel's name and keeps its parameters, which the twin and the wrapper
// share, for the test that checks them against the kernel's signature.
func RegisterTwin(p Params, twin backend.Twin) {
	paramsMu.Lock()
	params[p.Kernel()] = p
	paramsMu.Unlock()
	backend.RegisterTwin(p.Kernel(), twin)
}

// Registered lists the parameters of every search kernel registered with
// RegisterTwin, by kernel name.
func Registered() []Params {
	paramsMu.Lock()
	defer paramsMu.Unlock()
	out := make([]Params, 0, len(params))
	for _, p := range params {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Source < out[j].Source })
	return out
}
