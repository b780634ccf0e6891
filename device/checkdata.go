package device

import "math/rand/v2"

// RandomBitRows is the adjacency bitsets of a G(n, p) graph.
func RandomBitRows(rng *rand.Rand, n int, p float64) []uint64 {
	w := (n + 63) / 64
	rows := make([]uint64, n*w)
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < p {
				rows[u*w+v/64] |= 1 << (v % 64)
				rows[v*w+u/64] |= 1 << (u % 64)
			}
		}
	}
	return rows
}

// NewCheckRand is the seeded generator of a check's random input.
func NewCheckRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 5)) }
