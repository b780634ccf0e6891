package matching

import (
	"fmt"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/matching/kernel"
	"github.com/arbor-gpu/arbor/backend"
)

func minusOnes(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = -1
	}
	return s
}

func readCount(q backend.Queue, b backend.Buffer, index int) (int, error) {
	var v [1]int32
	if err := q.Read(b, 4*index, backend.Bytes(v[:])); err != nil {
		return 0, err
	}
	return int(v[0]), nil
}

// runSpec is the CS314 host loop: per pass, the segmented max-scan stride
// by stride until no arc changes, collate, handshake, mark, the
// Hillis-Steele exclusive scan, pack. The only reads back are the scan's
// change flag per stride and the kept-arc count per pass.
func runSpec(s *session, in *Input, opt Options, res *Result) error {
	c, err := kernel.NewCS314(s.dev)
	if err != nil {
		return err
	}
	defer c.Release()
	c.Threads = opt.Threads
	q, clock, bs := s.q, s.clock, s.bs
	m, n := in.Arcs(), in.N
	srcs, dsts, ranks := in.columns()
	src, dst, wgt := backend.Upload(bs, srcs), backend.Upload(bs, dsts), backend.Upload(bs, ranks)
	arcBytes := 4 * (m + 1)
	t1, t2, t3, t4 := bs.Alloc(arcBytes), bs.Alloc(arcBytes), bs.Alloc(arcBytes), bs.Alloc(arcBytes)
	changes := bs.Alloc(4)
	strong, matches := backend.Upload(bs, minusOnes(n)), backend.Upload(bs, minusOnes(n))
	if err := bs.Err(); err != nil {
		return err
	}
	if err := clock.end("upload"); err != nil {
		return err
	}
	var before time.Duration // device loop time before this pass
	for m > 0 {
		res.Passes++
		res.ArcsProcessed += int64(m)
		res.ArcsPerPass = append(res.ArcsPerPass, m)
		if err := opt.interrupted(); err != nil {
			return err
		}
		if res.Passes > n+1 {
			return fmt.Errorf("no convergence after %d passes", res.Passes)
		}
		// Step 1: the segmented max-scan, stride by stride.
		if t1, t2, t3, t4, err = scanStrongest(q, c, src, dst, wgt, t1, t2, t3, t4, changes, m); err != nil {
			return err
		}
		if err := c.CollateSegments(q, src, t1, strong, m); err != nil {
			return err
		}
		if err := clock.end("strongest"); err != nil {
			return err
		}
		if opt.StrongOnly {
			break
		}
		// Step 2: handshake.
		if err := c.CheckHandshaking(q, strong, matches, n); err != nil {
			return err
		}
		if err := clock.end("handshake"); err != nil {
			return err
		}
		// Step 3: filter: mark, exclusive scan over m+1 entries, pack.
		g := specArcs{src, dst, wgt, t1, t2, t3, t4}
		kept, err := g.filter(q, c, matches, m)
		if err != nil {
			return err
		}
		if kept >= m {
			return fmt.Errorf("pass %d removed no arc (%d left): the handshake made no pair", res.Passes, m)
		}
		src, dst, wgt, t1, t2, t3, t4 = g.src, g.dst, g.wgt, g.t1, g.t2, g.t3, g.t4
		m = kept
		if err := clock.end("filter"); err != nil {
			return err
		}
		if err := clock.settle(); err != nil {
			return err
		}
		loop := clock.sum("strongest", "handshake", "filter")
		res.PassTimes = append(res.PassTimes, loop-before)
		before = loop
	}
	out := strong
	if !opt.StrongOnly {
		out = matches
	}
	res.Mate = make(Matching, n)
	if err := backend.ReadSlice(q, out, res.Mate); err != nil {
		return err
	}
	return clock.end("download")
}

// scanStrongest is the spec engine's step 1: the segmented max-scan over
// the m arcs (src, dst, wgt), stride by stride until no arc changes, in the
// ping-pong columns t1/t2 (targets) and t3/t4 (weights). It returns the
// columns swapped as the strides left them: t1 and t3 hold the result.
func scanStrongest(q backend.Queue, c *kernel.CS314, src, dst, wgt, t1, t2, t3, t4, changes backend.Buffer, m int) (_, _, _, _ backend.Buffer, err error) {
	if err := q.Copy(t1, 0, dst, 0, 4*m); err != nil {
		return t1, t2, t3, t4, err
	}
	if err := q.Copy(t3, 0, wgt, 0, 4*m); err != nil {
		return t1, t2, t3, t4, err
	}
	for d := 1; ; d *= 2 {
		if d > 2*m+1 {
			return t1, t2, t3, t4, fmt.Errorf("segmented scan did not stop by stride %d", d)
		}
		if err := q.Fill(changes, 0, 4, 0); err != nil {
			return t1, t2, t3, t4, err
		}
		if err := c.StrongestNeighborScan(q, src, t1, t2, t3, t4, changes, d, m); err != nil {
			return t1, t2, t3, t4, err
		}
		t1, t2, t3, t4 = t2, t1, t4, t3
		flag, err := readCount(q, changes, 0)
		if err != nil || flag == 0 {
			return t1, t2, t3, t4, err
		}
	}
}

// specArcs are the spec engine's arc columns and its four scratch
// columns, which the pack swaps in and out.
type specArcs struct {
	src, dst, wgt, t1, t2, t3, t4 backend.Buffer
}

// filter is the spec engine's step 3 on m arcs: mark the arcs to keep
// (neither end matched), the exclusive scan of the marks over m+1
// entries, and the pack of the kept arcs into the scratch columns, which
// become the arcs. It returns how many arcs are kept.
func (g *specArcs) filter(q backend.Queue, c *kernel.CS314, matches backend.Buffer, m int) (int, error) {
	if err := c.MarkFilterEdges(q, g.src, g.dst, matches, g.t2, m); err != nil {
		return 0, err
	}
	edgeMap, err := c.ExclusivePrefixSum(q, g.t2, g.t4, m+1)
	if err != nil {
		return 0, err
	}
	spare := g.t2
	if edgeMap == g.t2 {
		spare = g.t4
	}
	kept, err := readCount(q, edgeMap, m)
	if err != nil || kept == 0 || kept >= m {
		return kept, err
	}
	if err := c.PackGraph(q, g.t1, g.src, g.t3, g.dst, spare, g.wgt, edgeMap, m); err != nil {
		return 0, err
	}
	g.src, g.t1 = g.t1, g.src
	g.dst, g.t3 = g.t3, g.dst
	g.wgt, spare = spare, g.wgt
	if edgeMap == g.t2 {
		g.t4 = spare
	} else {
		g.t2 = spare
	}
	return kept, nil
}

// specLoopPhases are the spec engine's device-loop phases.
var specLoopPhases = []string{"strongest", "handshake", "filter"}
