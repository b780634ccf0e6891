package backend

import (
	"errors"
	"fmt"
	"math"
	"unsafe"
)

// ArgKind says what a kernel argument is.
type ArgKind int

const (
	ArgBuffer ArgKind = iota
	ArgInt32
	ArgUint32
	ArgInt64
	ArgUint64
	ArgFloat32
	ArgFloat64
	ArgLocal // local (shared) memory of Size bytes per work-group
)

func (k ArgKind) String() string {
	return [...]string{"buffer", "int32", "uint32", "int64", "uint64", "float32", "float64", "local"}[k]
}

// Arg is one typed kernel argument. Build them with Buf, I32, U32, I64, U64,
// F32, F64 and Local.
type Arg struct {
	Kind ArgKind
	Buf  Buffer // ArgBuffer
	Bits uint64 // scalars, as their bit pattern
	Size int    // ArgLocal: bytes per work-group
}

func Buf(b Buffer) Arg     { return Arg{Kind: ArgBuffer, Buf: b} }
func I32(v int32) Arg      { return Arg{Kind: ArgInt32, Bits: uint64(uint32(v))} }
func U32(v uint32) Arg     { return Arg{Kind: ArgUint32, Bits: uint64(v)} }
func I64(v int64) Arg      { return Arg{Kind: ArgInt64, Bits: uint64(v)} }
func U64(v uint64) Arg     { return Arg{Kind: ArgUint64, Bits: v} }
func F32(v float32) Arg    { return Arg{Kind: ArgFloat32, Bits: uint64(math.Float32bits(v))} }
func F64(v float64) Arg    { return Arg{Kind: ArgFloat64, Bits: math.Float64bits(v)} }
func Local(bytes int) Arg  { return Arg{Kind: ArgLocal, Size: bytes} }
func (a Arg) Int32() int32 { return int32(uint32(a.Bits)) }
func (a Arg) Uint32() uint32 {
	return uint32(a.Bits)
}
func (a Arg) Int64() int64     { return int64(a.Bits) }
func (a Arg) Uint64() uint64   { return a.Bits }
func (a Arg) Float32() float32 { return math.Float32frombits(uint32(a.Bits)) }
func (a Arg) Float64() float64 { return math.Float64frombits(a.Bits) }

// ScalarSize is the size in bytes of a scalar argument (0 for buffers and local).
func (a Arg) ScalarSize() int {
	switch a.Kind {
	case ArgInt32, ArgUint32, ArgFloat32:
		return 4
	case ArgInt64, ArgUint64, ArgFloat64:
		return 8
	}
	return 0
}

func (a Arg) String() string {
	switch a.Kind {
	case ArgBuffer:
		if a.Buf == nil {
			return "buffer(nil)"
		}
		return fmt.Sprintf("buffer(%d bytes)", a.Buf.Size())
	case ArgLocal:
		return fmt.Sprintf("local(%d bytes)", a.Size)
	case ArgInt32:
		return fmt.Sprintf("int32(%d)", a.Int32())
	case ArgUint32:
		return fmt.Sprintf("uint32(%d)", a.Uint32())
	case ArgInt64:
		return fmt.Sprintf("int64(%d)", a.Int64())
	case ArgUint64:
		return fmt.Sprintf("uint64(%d)", a.Uint64())
	case ArgFloat32:
		return fmt.Sprintf("float32(%g)", a.Float32())
	case ArgFloat64:
		return fmt.Sprintf("float64(%g)", a.Float64())
	}
	return "?"
}

// Errors every backend wraps so callers can act on them.
var (
	ErrOutOfMemory = errors.New("out of device memory")
	ErrUnavailable = errors.New("backend unavailable")
	ErrNoDevice    = errors.New("no such device")
	// ErrSelection marks a selection that names a backend that is not
	// registered or a device that no backend has: the user's mistake
	// (a usage error), never a reason to fall back to another device.
	ErrSelection = errors.New("no such backend or device")
)

// Scalar is an element type buffers are read and written in.
type Scalar interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// Bytes views a slice of scalars as its bytes, without copying.
func Bytes[T Scalar](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(z)))
}

// AllocSlice allocates a buffer holding len(s) elements and writes s to it.
func AllocSlice[T Scalar](d Device, q Queue, s []T) (Buffer, error) {
	var z T
	n := len(s) * int(unsafe.Sizeof(z))
	if n == 0 {
		n = int(unsafe.Sizeof(z)) // zero-size allocations are errors on some APIs
	}
	b, err := d.Alloc(n)
	if err != nil {
		return nil, err
	}
	if len(s) > 0 {
		if err := q.Write(b, 0, Bytes(s)); err != nil {
			b.Free()
			return nil, err
		}
	}
	return b, nil
}

// AllocN allocates a buffer for n elements of T.
func AllocN[T Scalar](d Device, n int) (Buffer, error) {
	var z T
	size := n * int(unsafe.Sizeof(z))
	if size == 0 {
		size = int(unsafe.Sizeof(z))
	}
	return d.Alloc(size)
}

// ReadSlice reads len(dst) elements from the start of b.
func ReadSlice[T Scalar](q Queue, b Buffer, dst []T) error {
	if len(dst) == 0 {
		return nil
	}
	return q.Read(b, 0, Bytes(dst))
}

// WriteSlice writes src to the start of b.
func WriteSlice[T Scalar](q Queue, b Buffer, src []T) error {
	if len(src) == 0 {
		return nil
	}
	return q.Write(b, 0, Bytes(src))
}
