package par

// SortPairs sorts keys ascending and permutes vals alongside (equal keys
// keep their order), on all cores: a least-significant-digit radix sort, 8
// bits a pass, that skips the digits every key shares. Each pass reads and
// writes the arrays once, sequentially per core; for 10^8 pairs that is a
// fraction of a comparison sort's time. It needs a scratch copy of both.
func SortPairs(keys []uint64, vals []int32) {
	sortPairs(keys, vals, Workers(len(keys), sortPiece))
}

func sortPairs(keys []uint64, vals []int32, k int) {
	n := len(keys)
	if n < 2 {
		return
	}
	k = max(1, min(k, n))
	first := keys[0]
	diffs := make([]uint64, k)
	Pieces(n, k, func(i, lo, hi int) {
		var d uint64
		for _, x := range keys[lo:hi] {
			d |= x ^ first
		}
		diffs[i] = d
	})
	var diff uint64
	for _, d := range diffs {
		diff |= d
	}
	srcK, dstK := keys, make([]uint64, n)
	srcV, dstV := vals, make([]int32, n)
	counts := make([][256]int, k)
	for shift := uint(0); shift < 64; shift += 8 {
		if (diff>>shift)&0xff == 0 {
			continue
		}
		Pieces(n, k, func(i, lo, hi int) {
			c := &counts[i]
			*c = [256]int{}
			for _, x := range srcK[lo:hi] {
				c[(x>>shift)&0xff]++
			}
		})
		at := 0
		for d := range 256 {
			for i := range k {
				c := counts[i][d]
				counts[i][d] = at
				at += c
			}
		}
		Pieces(n, k, func(i, lo, hi int) {
			c := &counts[i]
			for j := lo; j < hi; j++ {
				x := srcK[j]
				d := (x >> shift) & 0xff
				p := c[d]
				dstK[p], dstV[p] = x, srcV[j]
				c[d] = p + 1
			}
		})
		srcK, dstK = dstK, srcK
		srcV, dstV = dstV, srcV
	}
	if &srcK[0] != &keys[0] {
		Copy(keys, srcK)
		Copy(vals, srcV)
	}
}
