package kcount

import (
	"cmp"
	"context"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/internal/ticker"
)

// countCPU is the CPU engine (see the package doc): threads share the
// start vertices, largest out-neighbourhood first, each counting the
// (k−1)-cliques among one start vertex's out-neighbours.
func (d *dag) countCPU(ctx context.Context, k, threads int, opts Options, start time.Time, res *Result) error {
	var starts []int32
	for i := 0; i < d.n; i++ {
		if d.off[i+1]-d.off[i] >= k-1 {
			starts = append(starts, int32(i))
		}
	}
	// The largest neighbourhoods hold most of the work: handing them out
	// first leaves the small ones to even out the threads' finish.
	slices.SortStableFunc(starts, func(a, b int32) int {
		return cmp.Compare(d.off[b+1]-d.off[b], d.off[a+1]-d.off[a])
	})
	threads = max(1, min(threads, len(starts)))
	var (
		next, done atomic.Int64
		stop       atomic.Bool
		wg         sync.WaitGroup
	)
	workers := make([]*counter, threads)
	for t := range workers {
		workers[t] = newCounter(d, k, &stop)
	}
	quit := context.AfterFunc(ctx, func() { stop.Store(true) })
	defer quit()
	if opts.Progress != nil {
		end := ticker.Every(opts.ProgressInterval, func() {
			p := Progress{Elapsed: time.Since(start)}
			for _, w := range workers {
				p.Count += w.seenCount.Load()
				p.Nodes += w.seenNodes.Load()
			}
			opts.Progress(p)
		})
		defer end()
	}
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				i := next.Add(1) - 1
				if i >= int64(len(starts)) {
					return
				}
				if w.start(int(starts[i])) {
					done.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	res.Threads = threads
	res.Proven = done.Load() == int64(len(starts))
	over := false
	for _, w := range workers {
		var carry uint64
		res.Count, carry = bits.Add64(res.Count, w.count, 0)
		over = over || carry != 0 || w.over
		res.Nodes += w.nodes
	}
	if over {
		return ErrOverflow
	}
	return nil
}

// counter is one thread of the CPU engine: the dense oriented subgraph of
// the current start vertex's out-neighbours and a stack of candidate sets.
type counter struct {
	d     *dag
	k     int
	loc   []int32  // rank → index among the current out-neighbours, or −1
	rows  []uint64 // the subgraph: row j (ws words) holds j's later neighbours
	stack []uint64 // one candidate set (ws words) per depth
	ws    int

	count  uint64
	nodes  int64
	over   bool // the count passed 2^64 − 1
	halted bool // stopped inside a start vertex
	stop   *atomic.Bool
	// What Progress reads, published every few thousand nodes.
	seenCount atomic.Uint64
	seenNodes atomic.Int64
}

func newCounter(d *dag, k int, stop *atomic.Bool) *counter {
	ws := (d.degeneracy + 63) / 64
	loc := make([]int32, d.n)
	for i := range loc {
		loc[i] = -1
	}
	return &counter{d: d, k: k, loc: loc, rows: make([]uint64, d.degeneracy*ws), stack: make([]uint64, k*ws), stop: stop}
}

// start counts the k-cliques whose lowest-ranked vertex is i; false when
// it was stopped before the end.
func (c *counter) start(i int) bool {
	outs := c.d.outs(i)
	s := len(outs)
	ws := (s + 63) / 64
	c.ws = ws
	for j, u := range outs {
		c.loc[u] = int32(j)
	}
	rows := c.rows[:s*ws]
	clear(rows)
	for j, a := range outs {
		row := rows[j*ws : (j+1)*ws]
		for _, u := range c.d.outs(int(a)) {
			if l := c.loc[u]; l >= 0 {
				row[l>>6] |= 1 << (uint(l) & 63)
			}
		}
	}
	for _, u := range outs {
		c.loc[u] = -1
	}
	p := c.stack[:ws]
	for j := range p {
		p[j] = ^uint64(0)
	}
	if r := s & 63; r != 0 {
		p[ws-1] = 1<<uint(r) - 1
	}
	c.rec(p, 0, c.k-1, 1)
	c.seenCount.Store(c.count)
	c.seenNodes.Store(c.nodes)
	return !c.halted
}

// add adds x to the count, noting an overflow.
func (c *counter) add(x int) {
	var carry uint64
	c.count, carry = bits.Add64(c.count, uint64(x), 0)
	c.over = c.over || carry != 0
}

// rec counts the cliques of need more vertices among the candidates p
// (ws words, of which words below lo are empty); the next candidate set
// goes to stack level depth. need ≥ 2.
func (c *counter) rec(p []uint64, lo, need, depth int) {
	c.nodes++
	if c.nodes&4095 == 0 {
		c.seenCount.Store(c.count)
		c.seenNodes.Store(c.nodes)
		if c.stop.Load() {
			c.halted = true
		}
	}
	if c.halted {
		return
	}
	ws := c.ws
	q := c.stack[depth*ws : (depth+1)*ws]
	for wi := lo; wi < ws; wi++ {
		for word := p[wi]; word != 0; word &= word - 1 {
			j := wi<<6 | bits.TrailingZeros64(word)
			row := c.rows[j*ws : (j+1)*ws]
			x := 0
			if need == 2 {
				// One level above the leaves: j closes |p ∩ N⁺(j)|
				// cliques (row j holds later vertices only: none twice).
				for t := wi; t < ws; t++ {
					x += bits.OnesCount64(p[t] & row[t])
				}
				c.add(x)
				continue
			}
			for t := wi; t < ws; t++ {
				q[t] = p[t] & row[t]
				x += bits.OnesCount64(q[t])
			}
			// A child needs need−1 more vertices among its candidates.
			if x >= need-1 {
				c.rec(q, wi, need-1, depth+1)
				if c.halted {
					return
				}
			}
		}
	}
}
