package tests

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	_ "github.com/arbor-gpu/arbor/backend/all"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/device"
)

// TestVecAdd fails if a launch skips a work-group (some c[i] stays wrong),
// runs past n (would fault or change the guard), or passes an argument
// wrongly (scale and n are distinct non-trivial values).
func TestVecAdd(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		rng := rand.New(rand.NewPCG(1, 2))
		for _, n := range []int{1, 31, 255, 256, 257, 4099, 1 << 20} {
			for _, local := range []int{0, 1, 64, 256} {
				a := make([]int32, n)
				b := make([]int32, n)
				for i := range a {
					a[i] = rng.Int32N(1 << 20)
					b[i] = rng.Int32N(1<<20) - 1<<19
				}
				got, err := device.VecAdd(dev, a, b, 7, local)
				if err != nil {
					t.Fatal(err)
				}
				for i := range got {
					if want := a[i] + 7*b[i]; got[i] != want {
						t.Fatalf("n=%d local=%d: c[%d] = %d, want %d", n, local, i, got[i], want)
					}
				}
			}
		}
	})
}

// TestGroupSum checks local memory, barriers and group ids: each group's sum
// must be exactly its own slice's.
func TestGroupSum(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		for _, tc := range []struct{ n, local int }{{1, 1}, {5, 4}, {1000, 64}, {1 << 16, 256}, {100003, 128}} {
			t.Run(fmt.Sprintf("n%d_l%d", tc.n, tc.local), func(t *testing.T) {
				a := make([]int32, tc.n)
				for i := range a {
					a[i] = int32(i%1013) - 300
				}
				got, err := device.GroupSums(dev, a, tc.local)
				if err != nil {
					t.Fatal(err)
				}
				for g := range got {
					var want int64
					for i := g * tc.local; i < min((g+1)*tc.local, tc.n); i++ {
						want += int64(a[i])
					}
					if got[g] != want {
						t.Fatalf("group %d: sum %d, want %d", g, got[g], want)
					}
				}
			})
		}
	})
}
