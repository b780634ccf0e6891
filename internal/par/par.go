// Package par holds the few data-parallel loops the host side of Arbor
// needs when it prepares, moves or checks arrays of hundreds of millions of
// elements: a range split over the cores, a parallel copy and a parallel
// sort. Every function gives the same result for any number of cores.
package par

import (
	"runtime"
	"slices"
	"sync"
)

// Workers is the number of goroutines a loop over n elements uses when each
// should get at least minPer of them: at most GOMAXPROCS, at least 1.
func Workers(n, minPer int) int {
	if minPer < 1 {
		minPer = 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), n/minPer))
}

// Range calls fn on consecutive pieces [lo, hi) that cover [0, n), one per
// worker (Workers(n, minPer) of them), concurrently, and returns when all
// have returned. Small n runs fn(0, n) on the calling goroutine.
func Range(n, minPer int, fn func(lo, hi int)) {
	Pieces(n, Workers(n, minPer), func(_, lo, hi int) { fn(lo, hi) })
}

// Pieces splits [0, n) into k pieces of nearly equal length and calls
// fn(i, lo, hi) for piece i concurrently (piece 0 on the calling
// goroutine). Empty pieces are skipped.
func Pieces(n, k int, fn func(i, lo, hi int)) {
	if k <= 1 || n <= 1 {
		if n > 0 {
			fn(0, 0, n)
		}
		return
	}
	var wg sync.WaitGroup
	for i := 1; i < k; i++ {
		lo, hi := i*n/k, (i+1)*n/k
		if lo == hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(i, lo, hi)
		}()
	}
	if hi := n / k; hi > 0 {
		fn(0, 0, hi)
	}
	wg.Wait()
}

// copyPiece is the least a copying goroutine takes: below it the start-up
// costs more than the copy.
const copyPiece = 1 << 20

// Copy copies src into dst (min of the lengths, like copy) on several
// cores: one core moves memory at a fraction of what the memory system
// gives all of them.
func Copy[T any](dst, src []T) int {
	n := min(len(dst), len(src))
	if n == 0 {
		return 0
	}
	Range(n, copyPiece, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
	return n
}

// Fill sets every element of s to v on several cores.
func Fill[T any](s []T, v T) {
	Range(len(s), copyPiece, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s[i] = v
		}
	})
}

// sortPiece is the least a sorting goroutine takes.
const sortPiece = 1 << 16

// SortFunc sorts s by cmp, which must be a strict weak order that never
// reports two distinct elements equal unless their order does not matter:
// pieces are sorted concurrently, then merged pairwise, the merges of a
// round running concurrently. Like slices.SortFunc it is not stable.
func SortFunc[T any](s []T, cmp func(a, b T) int) {
	sortPieces(s, Workers(len(s), sortPiece), cmp)
}

// sortPieces is SortFunc with k pieces.
func sortPieces[T any](s []T, k int, cmp func(a, b T) int) {
	k = min(k, len(s))
	if k <= 1 {
		slices.SortFunc(s, cmp)
		return
	}
	bounds := make([]int, k+1)
	for i := range bounds {
		bounds[i] = i * len(s) / k
	}
	Pieces(len(s), k, func(i, lo, hi int) { slices.SortFunc(s[lo:hi], cmp) })
	tmp := make([]T, len(s))
	src, dst := s, tmp
	for len(bounds) > 2 {
		var next []int
		pairs := (len(bounds) - 1) / 2
		// The cores not needed for one merge each split the merges: the
		// last round is one merge over the whole slice.
		per := max(1, k/max(pairs, 1))
		var wg sync.WaitGroup
		for i := 0; i+1 < len(bounds); i += 2 {
			lo := bounds[i]
			next = append(next, lo)
			if i+2 >= len(bounds) { // an odd run out: carried over
				hi := bounds[i+1]
				wg.Add(1)
				go func() {
					defer wg.Done()
					copy(dst[lo:hi], src[lo:hi])
				}()
				continue
			}
			mid, hi := bounds[i+1], bounds[i+2]
			wg.Add(1)
			go func() {
				defer wg.Done()
				mergeSplit(dst[lo:hi], src[lo:mid], src[mid:hi], cmp, per)
			}()
		}
		next = append(next, len(s))
		wg.Wait()
		bounds = next
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		Copy(s, src)
	}
}

// mergeSplit is merge on up to parts goroutines: a is cut into parts
// equal runs, and each run's first element finds where it goes in b (the
// first element of b not less than it, so that ties still come from a
// first); the pieces between the cuts merge independently.
func mergeSplit[T any](out, a, b []T, cmp func(a, b T) int, parts int) {
	if parts <= 1 || len(a) < 2*sortPiece {
		merge(out, a, b, cmp)
		return
	}
	ia := make([]int, parts+1)
	ib := make([]int, parts+1)
	ia[parts], ib[parts] = len(a), len(b)
	for p := 1; p < parts; p++ {
		ia[p] = p * len(a) / parts
		x := a[ia[p]]
		ib[p], _ = slices.BinarySearchFunc(b, x, func(e, t T) int {
			if cmp(e, t) < 0 {
				return -1
			}
			return 1
		})
		ib[p] = max(ib[p], ib[p-1])
	}
	Pieces(parts, parts, func(p, _, _ int) {
		o := ia[p] + ib[p]
		merge(out[o:o+(ia[p+1]-ia[p])+(ib[p+1]-ib[p])], a[ia[p]:ia[p+1]], b[ib[p]:ib[p+1]], cmp)
	})
}

// merge writes the merge of the sorted a and b into out (len(a)+len(b)),
// taking from a on ties.
func merge[T any](out, a, b []T, cmp func(a, b T) int) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if cmp(b[j], a[i]) < 0 {
			out[k] = b[j]
			j++
		} else {
			out[k] = a[i]
			i++
		}
		k++
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
}
