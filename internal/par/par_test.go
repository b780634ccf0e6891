package par

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
)

func TestPiecesCoverOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100, 1001} {
		for k := 1; k <= 9; k++ {
			seen := make([]int32, n)
			Pieces(n, k, func(_, lo, hi int) {
				for i := lo; i < hi; i++ {
					atomic.AddInt32(&seen[i], 1)
				}
			})
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("n=%d k=%d: element %d visited %d times", n, k, i, c)
				}
			}
		}
	}
}

func TestSortPiecesEqualsSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 10, 257, 5000} {
		for k := 1; k <= 9; k++ {
			s := make([]int, n)
			for i := range s {
				s[i] = r.IntN(n/3 + 1) // many duplicates
			}
			want := slices.Clone(s)
			slices.Sort(want)
			sortPieces(s, k, cmp.Compare[int])
			if !slices.Equal(s, want) {
				t.Fatalf("n=%d k=%d: %v, want %v", n, k, s, want)
			}
		}
	}
}

func TestCopyAndFill(t *testing.T) {
	src := make([]uint32, 3<<20+5)
	for i := range src {
		src[i] = uint32(i * 7)
	}
	dst := make([]uint32, len(src))
	if n := Copy(dst, src); n != len(src) || !slices.Equal(dst, src) {
		t.Fatalf("Copy: %d elements, equal %v", n, slices.Equal(dst, src))
	}
	Fill(dst, 9)
	for i, v := range dst {
		if v != 9 {
			t.Fatalf("Fill: element %d is %d", i, v)
		}
	}
}

// TestMergeSplit: a merge cut into pieces equals the plain merge, ties
// taken from the first run, whatever the number of pieces.
func TestMergeSplit(t *testing.T) {
	type kv struct{ k, from int }
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{3 * sortPiece, 5*sortPiece + 7} {
		a, b := make([]kv, n), make([]kv, n/3)
		for i := range a {
			a[i] = kv{r.IntN(1000), 0}
		}
		for i := range b {
			b[i] = kv{r.IntN(1000), 1}
		}
		byKey := func(x, y kv) int { return cmp.Compare(x.k, y.k) }
		slices.SortStableFunc(a, byKey)
		slices.SortStableFunc(b, byKey)
		want := make([]kv, len(a)+len(b))
		merge(want, a, b, byKey)
		for i := 1; i < len(want); i++ {
			if want[i-1].k == want[i].k && want[i-1].from > want[i].from {
				t.Fatalf("merge took a tie from the second run first")
			}
		}
		for parts := 1; parts <= 6; parts++ {
			got := make([]kv, len(want))
			mergeSplit(got, a, b, byKey, parts)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d parts=%d: differs from the plain merge", n, parts)
			}
		}
	}
}

// TestSortPairs: the flat-array radix sort equals a stable sort of the pairs.
func TestSortPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	for _, n := range []int{0, 1, 5, 3000, 70000} {
		for _, mask := range []uint64{^uint64(0), 0x00ff0000ff00000f, 0} {
			keys, vals := make([]uint64, n), make([]int32, n)
			type kv struct {
				k uint64
				v int32
			}
			want := make([]kv, n)
			for i := range keys {
				keys[i], vals[i] = r.Uint64()&mask|1<<63, int32(i)
				want[i] = kv{keys[i], vals[i]}
			}
			slices.SortStableFunc(want, func(a, b kv) int { return cmp.Compare(a.k, b.k) })
			for _, k := range []int{1, 4} {
				gk, gv := slices.Clone(keys), slices.Clone(vals)
				sortPairs(gk, gv, k)
				for i := range want {
					if gk[i] != want[i].k || gv[i] != want[i].v {
						t.Fatalf("n=%d mask=%x k=%d: position %d differs", n, mask, k, i)
					}
				}
			}
		}
	}
}
