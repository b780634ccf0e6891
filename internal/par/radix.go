package par

// SortByKey sorts s by the uint64 key of each element, on all cores: a
// least-significant-digit radix sort, 8 bits a pass, that skips the digits
// every key shares. It is stable, and needs a scratch copy of s. For 10^8
// elements it takes a fraction of a comparison sort's time: each pass
// reads and writes s once, sequentially per core.
func SortByKey[T any](s []T, key func(T) uint64) {
	sortByKey(s, key, Workers(len(s), sortPiece))
}

func sortByKey[T any](s []T, key func(T) uint64, k int) {
	if len(s) < 2 {
		return
	}
	k = max(1, min(k, len(s)))
	// Which digits differ between keys: OR of (key XOR first key).
	first := key(s[0])
	diffs := make([]uint64, k)
	Pieces(len(s), k, func(i, lo, hi int) {
		var d uint64
		for _, x := range s[lo:hi] {
			d |= key(x) ^ first
		}
		diffs[i] = d
	})
	var diff uint64
	for _, d := range diffs {
		diff |= d
	}
	src, dst := s, make([]T, len(s))
	counts := make([][256]int, k)
	for shift := uint(0); shift < 64; shift += 8 {
		if (diff>>shift)&0xff == 0 {
			continue
		}
		Pieces(len(src), k, func(i, lo, hi int) {
			c := &counts[i]
			*c = [256]int{}
			for _, x := range src[lo:hi] {
				c[(key(x)>>shift)&0xff]++
			}
		})
		// Piece i's first slot for digit d: every smaller digit, then d
		// in the pieces before i (which keeps the sort stable).
		at := 0
		for d := range 256 {
			for i := range k {
				c := counts[i][d]
				counts[i][d] = at
				at += c
			}
		}
		Pieces(len(src), k, func(i, lo, hi int) {
			c := &counts[i]
			for _, x := range src[lo:hi] {
				d := (key(x) >> shift) & 0xff
				dst[c[d]] = x
				c[d]++
			}
		})
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		Copy(s, src)
	}
}
