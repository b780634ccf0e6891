package mcs

import "math/bits"

// The edge-count bound of the pruned search (B2, docs/design/mcs.md):
// the pairs a solution takes from one bidomain (L, R) induce isomorphic
// subgraphs of G[L] and H[R], so they span equally many edges. A k-subset
// of L spans at least minE_L(k) and at most maxE_L(k) edges, which the
// degree sequence inside L bounds; a bidomain can give only a k with
// minE_L(k) ≤ maxE_R(k) and minE_R(k) ≤ maxE_L(k). Where one side is much
// denser than the other inside a bidomain (a clique of common neighbours
// against an independent set, a mesh's row against a scatter), this is
// below min(|L|, |R|).
//
// It costs O((|L| + |R|)·n/64) a bidomain (bit rows), more than the
// bidomain sum, so the search asks for it only at nodes that the sum
// misses by at most boundSlack.

// boundSlack: the edge-count bound is computed only at nodes whose
// bidomain sum is at most this much above what the bound must reach.
const boundSlack = 1

// adjBits is a graph's adjacency as bit rows: bit a of row u is set when
// cell(u, a) is non-zero, a ≠ u. B2 counts degrees inside a set with it.
type adjBits struct {
	words int // per row
	rows  []uint64
}

func newAdjBits[C cell](adj []C, n int) adjBits {
	b := adjBits{words: (n + 63) / 64}
	b.rows = make([]uint64, n*b.words)
	for u := 0; u < n; u++ {
		for a, c := range adj[u*n : u*n+n] {
			if c != 0 && a != u {
				b.rows[u*b.words+a/64] |= 1 << (a % 64)
			}
		}
	}
	return b
}

// degrees counts the degrees of the vertices vs inside vs into hist
// (hist[d]: how many have degree d; len(vs) entries, cleared here) and
// returns their sum (twice the edges); mask (b.words words) is scratch.
// A histogram, not a sorted list: the bound needs only sums of the
// smallest and largest degrees (a comparison sort was half of B2's time).
func (b adjBits) degrees(vs []int32, hist []int32, mask []uint64) int32 {
	clear(mask)
	for _, u := range vs {
		mask[u/64] |= 1 << (u % 64)
	}
	hist = hist[:len(vs)]
	clear(hist)
	var sum int
	for _, u := range vs {
		row := b.rows[int(u)*b.words : int(u)*b.words+len(mask)]
		d := 0
		for j, m := range mask {
			d += bits.OnesCount64(row[j] & m)
		}
		hist[d]++
		sum += d
	}
	return int32(sum)
}

// edgeRange returns the fewest and most edges a k-subset of a set can
// span, bounded from its degree histogram hist (sum: the degrees' sum):
// dropping r vertices D removes Σ_D deg − e(D) edges, at most the r
// largest degrees' sum, and at least the r smallest ones' sum less the
// C(r,2) edges D can hold among itself, and at least half of that sum.
func edgeRange(hist []int32, sum int32, k int) (lo, hi int32) {
	r := int32(len(hist) - k)
	e := sum / 2
	var large, small int32
	for d, left := 0, r; left > 0; d++ {
		take := min(left, hist[d])
		small += take * int32(d)
		left -= take
	}
	for d, left := len(hist)-1, r; left > 0; d-- {
		take := min(left, hist[d])
		large += take * int32(d)
		left -= take
	}
	lo = max(0, e-large)
	removed := max((small+1)/2, small-r*(r-1)/2)
	hi = min(e-removed, int32(k*(k-1)/2))
	return lo, hi
}

// edgeBound returns how many pairs the bidomain d can give at most under
// the edge-count argument (at most min(ll, rl)).
func (w *worker[C]) edgeBound(d *bidomain) int32 {
	if d.eb > 0 {
		return d.eb - 1
	}
	d.eb = w.edgeBoundOf(d) + 1
	return d.eb - 1
}

// edgeBoundOf computes edgeBound.
func (w *worker[C]) edgeBoundOf(d *bidomain) int32 {
	p := w.p
	ls, rs := w.left[d.l:d.l+d.ll], w.right[d.r:d.r+d.rl]
	hl, hr := w.histL[:len(ls)], w.histR[:len(rs)]
	sl := p.bits0.degrees(ls, hl, w.maskL)
	sr := p.bits1.degrees(rs, hr, w.maskR)
	for k := int(min(d.ll, d.rl)); k > 1; k-- {
		loL, hiL := edgeRange(hl, sl, k)
		loR, hiR := edgeRange(hr, sr, k)
		if loL <= hiR && loR <= hiL {
			if p.mutate&mutB2Tight != 0 {
				return int32(k) - 1
			}
			return int32(k)
		}
	}
	return min(d.ll, d.rl, 1)
}

// tighten lowers bound (the node's bidomain sum, m included) by the
// edge-count bound of each bidomain but skip (whose bound B1 lowered
// already: the two do not add up), stopping once it is at most stop.
func (w *worker[C]) tighten(doms []bidomain, bound, stop int32, skip int) int32 {
	for i := range doms {
		d := &doms[i]
		if min(d.ll, d.rl) < 2 || i == skip {
			continue
		}
		bound -= min(d.ll, d.rl) - w.edgeBound(d)
		if bound <= stop {
			break
		}
	}
	return bound
}

// useRR2 turns on what PruneRR2 adds to PruneRR: B2 and learned
// branching. B2 counts non-zero cells, which every option keeps
// symmetric (a directed cell holds both arcs, a labelled one the label)
// and which a solution maps to non-zero cells: it holds for every option.
func (p *problem[C]) useRR2() {
	p.learn = learnV | learnW
	p.bound2 = true
	p.bits0, p.bits1 = newAdjBits(p.adj0, p.n0), newAdjBits(p.adj1, p.n1)
}

// mutation breaks one of PruneRR2's safety conditions, for the mutation
// tests only (TestRR2Mutations): each must make the brute-force check fail.
type mutation uint8

const (
	mutB2Tight    mutation = 1 << iota // B2 one pair too low
	mutOrderTwins                      // candidates reordered for a v with twins
)
