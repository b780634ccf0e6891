package kernel

import (
	"math/bits"
	"sync/atomic"

	"github.com/arbor-gpu/arbor/backend"
)

func init() {
	backend.RegisterTwin("vcls_init", vclsInitTwin)
	backend.RegisterTwin("vcls_epoch", vclsTwin)
}

// vclsRNG is the chains' generator, splitmix64: one word of state.
type vclsRNG uint64

const vclsGolden = 0x9E3779B97F4A7C15

func (s *vclsRNG) next() uint64 {
	*s += vclsGolden
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// rand is uniform in [0, n) for 0 < n < 2^31 (multiply-shift).
func (s *vclsRNG) rand(n int32) int32 { return int32(((s.next() >> 32) * uint64(n)) >> 32) }

// vclsUpper counts the bits of row above q: clique q's pairs q < q2.
func vclsUpper(row []uint32, q int32) int32 {
	var c int
	for j := int(q >> 5); j < len(row); j++ {
		x := row[j]
		if j == int(q>>5) {
			x &^= (2 << uint(q&31)) - 1
		}
		c += bits.OnesCount32(x)
	}
	return int32(c)
}

// vclsPop counts every bit of row: all pairs of its clique.
func vclsPop(row []uint32) int32 {
	var c int
	for _, x := range row {
		c += bits.OnesCount32(x)
	}
	return int32(c)
}

// vclsChain is one chain's view of the kernels' arguments.
type vclsChain struct {
	n, k, kw                            int
	part, members, start, off, adj, rev []int32
	w, score, conf, chosen              []int32
	age, cs                             []int64
	vm                                  []uint32
	found                               *int32
	ddeg                                []int32
	bias                                int64 // the degree bias of the current step
}

// vclsDdegArg is the argument number of ddeg: after the 19 buffers and
// scalars, vcls.go's 9 local-memory arguments and padj.
const vclsDdegArg = 29

func vclsView(g *backend.Group) *vclsChain {
	sh := g.I32s(0)
	n, k, kw, na := int(sh[0]), int(sh[1]), int(sh[2]), int(sh[3])
	c := g.ID[0]
	return &vclsChain{n: n, k: k, kw: kw,
		part: g.I32s(1), members: g.I32s(2), start: g.I32s(3), off: g.I32s(4), adj: g.I32s(5), rev: g.I32s(6),
		w: g.I32s(7)[c*na : (c+1)*na], score: g.I32s(8)[c*n : (c+1)*n], age: g.I64s(9)[c*n : (c+1)*n],
		conf: g.I32s(10)[c*n : (c+1)*n], chosen: g.I32s(11)[c*k : (c+1)*k], vm: g.U32s(12)[c*k*kw : (c+1)*k*kw],
		cs: g.I64s(14)[c*vclsCSW : (c+1)*vclsCSW], found: &g.I32s(15)[0], ddeg: g.I32s(vclsDdegArg)}
}

// key is v's score key: the score in 1024ths plus the degree bias.
func (ch *vclsChain) key(v int32) int64 { return int64(ch.score[v])<<10 + ch.bias*int64(ch.ddeg[v]) }

func (ch *vclsChain) row(q int32) []uint32 { return ch.vm[int(q)*ch.kw : (int(q)+1)*ch.kw] }

// better: is candidate x better than y (fewer weighted conflicts, with
// the degree bias, then older, then the smaller vertex)? -1 is none.
func (ch *vclsChain) better(x, y int32) bool {
	switch {
	case x < 0:
		return false
	case y < 0:
		return true
	case ch.key(x) != ch.key(y):
		return ch.key(x) < ch.key(y)
	case ch.age[x] != ch.age[y]:
		return ch.age[x] < ch.age[y]
	}
	return x < y
}

// vclsInitTwin is vcls_init for one chain: unit weights, the greedy start
// in a random clique order, the violated pairs.
func vclsInitTwin(g *backend.Group) {
	ch := vclsView(g)
	rng := vclsRNG(ch.cs[vclsRNGWord])
	for i := range ch.w {
		ch.w[i] = 1
	}
	for v := range ch.score {
		ch.score[v], ch.age[v], ch.conf[v] = 0, 0, 1
	}
	order := make([]int32, ch.k)
	for q := range order {
		order[q] = int32(q)
	}
	for i := int32(ch.k - 1); i > 0; i-- {
		j := rng.rand(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	for _, q := range order {
		b := int32(-1)
		for _, v := range ch.members[ch.start[q]:ch.start[q+1]] {
			if ch.better(v, b) {
				b = v
			}
		}
		for i := ch.off[b]; i < ch.off[b+1]; i++ {
			ch.score[ch.adj[i]] += ch.w[i]
			ch.conf[ch.adj[i]] = 1
		}
		ch.chosen[q] = b
	}
	var V int32
	for q := int32(0); q < int32(ch.k); q++ {
		r := ch.row(q)
		clear(r)
		a := ch.chosen[q]
		for _, u := range ch.adj[ch.off[a]:ch.off[a+1]] {
			if qu := ch.part[u]; ch.chosen[qu] == u {
				r[qu>>5] |= 1 << uint(qu&31)
			}
		}
		V += vclsUpper(r, q)
	}
	ch.cs[vclsRNGWord], ch.cs[vclsStep], ch.cs[vclsTotalW], ch.cs[vclsV], ch.cs[vclsSolved] = int64(rng), 1, int64(len(ch.w)/2), int64(V), 0
}

// vclsTwin is one chain of vcls_epoch on the CPU backend: the kernel's
// steps in the kernel's order, one work-item doing every lane's share (the
// kernel's results do not depend on the lanes, so neither do these). The
// kernel's arc cache (which arc a violated pair's weight is on) is the
// kernel's own: the twin searches the lists instead, and the weights the
// tests compare show that the cache was right.
func vclsTwin(g *backend.Group) {
	ch := vclsView(g)
	n, k := ch.n, ch.k
	part, members, start, off, adj, rev := ch.part, ch.members, ch.start, ch.off, ch.adj, ch.rev
	w, score, age, conf, chosen, vm, cs := ch.w, ch.score, ch.age, ch.conf, ch.chosen, ch.vm, ch.cs
	kw, found, better, row := ch.kw, ch.found, ch.better, ch.row
	steps, stopEarly, forgetAt := g.I64(16), g.I32(17) != 0, g.I64(18)
	rng := vclsRNG(cs[vclsRNGWord])
	step, totalW, V := cs[vclsStep], cs[vclsTotalW], int32(cs[vclsV])
	beta, m := cs[vclsBeta], int64(len(w)/2)
	rowc := make([]int32, k)
	for q := int32(0); q < int32(k); q++ {
		rowc[q] = vclsUpper(row(q), q)
	}
	flag := make([]int32, k)
	solved := false
	for spent := int64(0); ; spent++ {
		if V == 0 {
			solved = true
			break
		}
		if spent >= steps {
			break
		}
		if stopEarly && step&255 == 0 && atomic.LoadInt32(found) != 0 {
			break
		}
		r, qa, qc := rng.rand(V), int32(0), int32(-1)
		for r >= rowc[qa] {
			r -= rowc[qa]
			qa++
		}
		ra := row(qa)
		for j := int(qa >> 5); qc < 0; j++ {
			x := ra[j]
			if j == int(qa>>5) {
				x &^= (2 << uint(qa&31)) - 1
			}
			if pc := int32(bits.OnesCount32(x)); r < pc {
				for ; r > 0; r-- {
					x &= x - 1
				}
				qc = int32(j*32 + bits.TrailingZeros32(x))
			} else {
				r -= pc
			}
		}
		a, cc := chosen[qa], chosen[qc]
		ch.bias = 0
		if beta > 0 {
			ch.bias = beta * totalW / m
		}
		bestIn := func(q, cur int32) int32 {
			b := int32(-1)
			for _, v := range members[start[q]:start[q+1]] {
				if v != cur && conf[v] != 0 && better(v, b) {
					b = v
				}
			}
			return b
		}
		ba, bc := bestIn(qa, a), bestIn(qc, cc)
		from, to, qf := a, ba, qa
		switch {
		case ba < 0 && bc < 0:
			to = members[start[qa]+rng.rand(start[qa+1]-start[qa])]
		case ba < 0:
			from, to, qf = cc, bc, qc
		case bc >= 0:
			da, dc := ch.key(ba)-ch.key(a), ch.key(bc)-ch.key(cc)
			if dc < da || (dc == da && age[bc] < age[ba]) {
				from, to, qf = cc, bc, qc
			}
		}
		if to == from {
			step++
			continue
		}
		oldpop := vclsPop(row(qf))
		for i := off[from]; i < off[from+1]; i++ {
			score[adj[i]] -= w[i]
			conf[adj[i]] = 1
		}
		clear(flag)
		for i := off[to]; i < off[to+1]; i++ {
			u := adj[i]
			score[u] += w[i]
			conf[u] = 1
			if qu := part[u]; chosen[qu] == u {
				flag[qu] = 1
			}
		}
		conf[from] = 0
		chosen[qf] = to
		age[from], age[to] = step, step
		bit := uint32(1) << uint(qf&31)
		for q := int32(0); q < int32(k); q++ {
			if q == qf {
				continue
			}
			x := &vm[int(q)*kw+int(qf>>5)]
			now, was := flag[q] != 0, *x&bit != 0
			if now != was {
				*x ^= bit
				if q < qf {
					if now {
						rowc[q]++
					} else {
						rowc[q]--
					}
				}
			}
		}
		rf := row(qf)
		clear(rf)
		for q := range flag {
			if flag[q] != 0 {
				rf[q>>5] |= 1 << uint(q&31)
			}
		}
		V += vclsPop(rf) - oldpop
		rowc[qf] = vclsUpper(rf, qf)
		for q := int32(0); q < int32(k); q++ {
			x := chosen[q]
			if all := vclsPop(row(q)); all != 0 {
				score[x] += all
			}
			for q2 := q + 1; q2 < int32(k); q2++ {
				if row(q)[q2>>5]>>uint(q2&31)&1 != 0 {
					e := vclsArc(off, adj, x, chosen[q2])
					w[e]++
					w[rev[e]]++
				}
			}
		}
		totalW += int64(V)
		if totalW > forgetAt {
			var sum int64
			for i := range w {
				w[i] = max(1, int32(int64(w[i])*3/10))
				sum += int64(w[i])
			}
			totalW = sum / 2
			for v := 0; v < n; v++ {
				var s int32
				for i := off[v]; i < off[v+1]; i++ {
					if u := adj[i]; chosen[part[u]] == u {
						s += w[i]
					}
				}
				score[v] = s
			}
		}
		step++
	}
	cs[vclsRNGWord], cs[vclsStep], cs[vclsTotalW], cs[vclsV] = int64(rng), step, totalW, int64(V)
	if solved {
		cs[vclsSolved] = 1
		atomic.StoreInt32(found, 1)
	}
}

// vclsArc is the arc a -> c of two adjacent vertices (a's list is ascending).
func vclsArc(off, adj []int32, a, c int32) int32 {
	lo, hi := off[a], off[a+1]-1
	for lo < hi {
		mid := (lo + hi) >> 1
		if adj[mid] < c {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
