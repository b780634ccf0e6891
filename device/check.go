package device

import (
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
)

// Output is one named result of a kernel run, widened to int64 so that every
// integer type compares (and prints) the same way.
type Output struct {
	Name   string
	Values []int64
}

// Check is one verification case: Run executes a kernel's host wrapper on a
// device over a fixed input and returns its outputs. `arbor verify` and the
// conformance tests run it on the device under test and on the CPU backend
// (the twin) and compare the outputs bit for bit.
type Check struct {
	Kernel string // the kernel (or primitive) checked
	Case   string // the input, e.g. "n=1000003 random" or "cs314/input2.mtx"
	Size   int    // input elements, for the table's max-size column
	Run    func(dev backend.Device) ([]Output, error)
}

func init() { RegisterChecks("device", func(string) []Check { return vecaddChecks() }) }

// Compare returns nil when got equals want exactly, else an error naming the
// first differing output, index and values.
func Compare(got, want []Output) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d outputs, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Name != w.Name {
			return fmt.Errorf("output %d is %q, want %q", i, g.Name, w.Name)
		}
		if len(g.Values) != len(w.Values) {
			return fmt.Errorf("%s: %d values, want %d", w.Name, len(g.Values), len(w.Values))
		}
		for j := range w.Values {
			if g.Values[j] != w.Values[j] {
				return fmt.Errorf("%s[%d] = %d, want %d (CPU twin)", w.Name, j, g.Values[j], w.Values[j])
			}
		}
	}
	return nil
}

// Widen converts any integer slice to an Output.
func Widen[T ~int32 | ~uint32 | ~int64 | ~uint64 | ~int8 | ~uint8 | ~int16 | ~uint16 | ~int](name string, s []T) Output {
	v := make([]int64, len(s))
	for i, x := range s {
		v[i] = int64(x)
	}
	return Output{Name: name, Values: v}
}

func vecaddChecks() []Check {
	var out []Check
	for _, n := range []int{1, 255, 257, 1 << 20} {
		out = append(out, Check{Kernel: "vec_add", Case: fmt.Sprintf("n=%d", n), Size: n,
			Run: func(dev backend.Device) ([]Output, error) {
				a, b := make([]int32, n), make([]int32, n)
				for i := range a {
					a[i], b[i] = int32(i*7919%100003), int32(i%977)-400
				}
				c, err := VecAdd(dev, a, b, -3, 0)
				return []Output{Widen("c", c)}, err
			}})
		out = append(out, Check{Kernel: "group_sum", Case: fmt.Sprintf("n=%d group=128", n), Size: n,
			Run: func(dev backend.Device) ([]Output, error) {
				a := make([]int32, n)
				for i := range a {
					a[i] = int32(i*31%65537) - 30000
				}
				s, err := GroupSums(dev, a, 128)
				return []Output{Widen("sums", s)}, err
			}})
	}
	return out
}
