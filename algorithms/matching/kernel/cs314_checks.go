package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/prim"
)

// cs314Checks lists the checks of the CS314 matching kernels: each kernel on
// generated edge lists (empty, one edge, a star with all-equal weights, and
// random graphs whose size is no multiple of any group size), with several
// thread counts, since any thread count must give the same result.
func cs314Checks(dataDir string) []device.Check {
	type shape struct {
		name string
		n, m int // vertices, undirected edges
		ties bool
		star bool
	}
	shapes := []shape{
		{"empty", 3, 0, false, false},
		{"one edge", 2, 1, false, false},
		{"star, equal weights", 600, 599, true, true},
		{"star n=6000 (the hub's arcs span tiles)", 6000, 5999, false, true},
		{"random n=1000", 1000, 3001, false, false},
		{"random n=1000 ties", 1000, 3001, true, false},
		{"random n=100003", 100003, 400009, false, false},
		{"random n=40000 sparse (tiles span > MATCH_SPAN vertices: two slots)", 40000, 30000, false, false},
	}
	var out []device.Check
	for _, sh := range shapes {
		for _, threads := range []int{1, 7, 0} {
			if sh.m > 100000 && threads == 1 {
				continue // one work-item over 800k arcs per stride is slow on a device and proves nothing new
			}
			in := cs314Input(sh.n, sh.m, sh.ties, sh.star)
			tname := "default"
			if threads > 0 {
				tname = fmt.Sprint(threads)
			}
			cse := fmt.Sprintf("%s, threads=%s", sh.name, tname)
			arcs := len(in.src)
			out = append(out,
				device.Check{Kernel: "strongestNeighborScan", Case: cse, Size: arcs, Run: func(dev backend.Device) ([]device.Output, error) {
					return in.run(dev, threads, in.scanOutputs)
				}},
				device.Check{Kernel: "collateSegments+checkHandshaking", Case: cse, Size: arcs, Run: func(dev backend.Device) ([]device.Output, error) {
					return in.run(dev, threads, in.handshakeOutputs)
				}},
				device.Check{Kernel: "markFilterEdges+exclusivePrefixSum+packGraph", Case: cse, Size: arcs, Run: func(dev backend.Device) ([]device.Output, error) {
					return in.run(dev, threads, in.filterOutputs)
				}},
				device.Check{Kernel: "matchSources+matchArgmax+matchHandshake+matchMarkTiles+scan+matchPackTiles", Case: cse, Size: arcs, Run: func(dev backend.Device) ([]device.Output, error) {
					return in.fastPasses(dev, threads, false)
				}},
				device.Check{Kernel: "matchSources+matchArgmax+matchHandshake+matchFilter", Case: cse, Size: arcs, Run: func(dev backend.Device) ([]device.Output, error) {
					return in.fastPasses(dev, threads, true)
				}},
			)
		}
	}
	return append(out, cs314DataChecks(dataDir)...)
}

// cs314DataChecks runs the whole CS314 matching loop with the kernels on the
// course's reference inputs (and a pattern mesh that needs 62 passes), and
// fails when the matching differs from the reference file.
func cs314DataChecks(dataDir string) []device.Check {
	if dataDir == "" {
		return nil
	}
	var out []device.Check
	for _, rel := range []string{"matching/cs314/input1.mtx", "matching/cs314/input2.mtx", "matching/cs314/input3.mtx",
		"matching/cs314/input4.mtx", "matching/suitesparse/delaunay_n10.mtx"} {
		path := filepath.Join(dataDir, rel)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		in, err := cs314FromFile(path)
		size := 0
		if err == nil {
			size = len(in.src)
		}
		want := strings.Replace(strings.Replace(path, "input", "match", 1), ".mtx", ".txt", 1)
		if want == strings.Replace(path, ".mtx", ".txt", 1) {
			want = "" // no reference file
		}
		for _, threads := range []int{7, 0} {
			tname := "default"
			if threads > 0 {
				tname = fmt.Sprint(threads)
			}
			out = append(out, device.Check{Kernel: "cs314 matching loop", Case: fmt.Sprintf("%s, threads=%s", rel, tname), Size: size,
				Run: func(dev backend.Device) ([]device.Output, error) {
					if err != nil {
						return nil, err
					}
					res, rerr := in.run(dev, threads, in.matchingLoop)
					if rerr != nil || want == "" {
						return res, rerr
					}
					return res, sameAsFile(res[0].Values, want)
				}})
		}
	}
	return out
}

// cs314FromFile reads a graph and makes its sorted arc list, with real
// weights mapped to order-preserving integer ranks.
func cs314FromFile(path string) (*cs314Case, error) {
	g, err := core.ReadGraph(path, core.ReadOptions{})
	if err != nil {
		return nil, err
	}
	c := &cs314Case{n: g.N}
	var ws []float64
	for u := 0; u < g.N; u++ {
		for a := g.Offsets[u]; a < g.Offsets[u+1]; a++ {
			w := 1.0
			if g.Weights != nil {
				w = g.Weights[a]
			}
			c.src, c.dst = append(c.src, int32(u)), append(c.dst, g.Adj[a])
			ws = append(ws, w)
		}
	}
	distinct := slices.Clone(ws)
	slices.Sort(distinct)
	distinct = slices.Compact(distinct)
	for _, w := range ws {
		r, _ := slices.BinarySearch(distinct, w)
		c.wgt = append(c.wgt, int32(r+1))
	}
	return c, nil
}

func sameAsFile(got []int64, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Fields(string(data))
	if len(lines) != len(got) {
		return fmt.Errorf("%d vertices matched, %s has %d lines", len(got), path, len(lines))
	}
	for i, l := range lines {
		if l != fmt.Sprint(got[i]) {
			return fmt.Errorf("vertex %d matched to %d, %s says %s", i, got[i], path, l)
		}
	}
	return nil
}

// matchingLoop is the CS314 host loop over the kernels: scan, collate,
// handshake, mark, exclusive prefix sum, pack, until no arc is left. It
// returns the matches and the number of passes.
func (in *cs314Case) matchingLoop(r *cs314Run) ([]device.Output, error) {
	m := len(in.src)
	passes := 0
	for m > 0 {
		passes++
		if passes > in.n+1 {
			return nil, fmt.Errorf("no convergence after %d passes", passes)
		}
		if err := in.handshake(r, m); err != nil {
			return nil, err
		}
		if err := r.c.MarkFilterEdges(r.q, r.src, r.dst, r.matches, r.t2, m); err != nil {
			return nil, err
		}
		edgeMap, err := r.c.ExclusivePrefixSum(r.q, r.t2, r.t4, m+1)
		if err != nil {
			return nil, err
		}
		spare := r.t2
		if edgeMap == r.t2 {
			spare = r.t4
		}
		var kept [1]int32
		if err := r.q.Read(edgeMap, 4*m, backend.Bytes(kept[:])); err != nil {
			return nil, err
		}
		if int(kept[0]) >= m {
			return nil, fmt.Errorf("pass %d removed no arc", passes)
		}
		if kept[0] > 0 {
			if err := r.c.PackGraph(r.q, r.t1, r.src, r.t3, r.dst, spare, r.wgt, edgeMap, m); err != nil {
				return nil, err
			}
			r.src, r.t1 = r.t1, r.src
			r.dst, r.t3 = r.t3, r.dst
			r.wgt, spare = spare, r.wgt
			if edgeMap == r.t2 {
				r.t4 = spare
			} else {
				r.t2 = spare
			}
		}
		m = int(kept[0])
	}
	matches, err := readI32(r.q, r.matches, in.n)
	if err != nil {
		return nil, err
	}
	return []device.Output{device.Widen("matches", matches), device.Widen("passes", []int{passes})}, nil
}

// cs314Case is a generated edge list: both arcs of every edge, sorted by
// (src, dst), with integer weights.
type cs314Case struct {
	n             int
	src, dst, wgt []int32
}

func cs314Input(n, m int, ties, star bool) *cs314Case {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(m)))
	type arc struct{ u, v, w int32 }
	seen := map[[2]int32]bool{}
	var arcs []arc
	for len(seen) < m {
		var u, v int32
		if star {
			u, v = 0, int32(len(seen)+1)
		} else {
			u, v = rng.Int32N(int32(n)), rng.Int32N(int32(n))
		}
		if u == v {
			continue
		}
		if u > v {
			u, v = v, u
		}
		if seen[[2]int32{u, v}] {
			continue
		}
		seen[[2]int32{u, v}] = true
		w := int32(1)
		if !ties {
			w = rng.Int32N(1000) + 1
		} else if !star {
			w = rng.Int32N(3) + 1
		}
		arcs = append(arcs, arc{u, v, w}, arc{v, u, w})
	}
	sort.Slice(arcs, func(i, j int) bool {
		if arcs[i].u != arcs[j].u {
			return arcs[i].u < arcs[j].u
		}
		return arcs[i].v < arcs[j].v
	})
	c := &cs314Case{n: n}
	for _, a := range arcs {
		c.src, c.dst, c.wgt = append(c.src, a.u), append(c.dst, a.v), append(c.wgt, a.w)
	}
	return c
}

// cs314Run holds a built CS314, a queue and the case's buffers on one device.
type cs314Run struct {
	c                  *CS314
	q                  backend.Queue
	bufs               []backend.Buffer
	src, dst, wgt      backend.Buffer
	t1, t2, t3, t4, ch backend.Buffer
	strong, matches    backend.Buffer
}

func (in *cs314Case) run(dev backend.Device, threads int, body func(r *cs314Run) ([]device.Output, error)) ([]device.Output, error) {
	c, err := NewCS314(dev)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	c.Threads = threads
	q, err := dev.NewQueue()
	if err != nil {
		return nil, err
	}
	defer q.Release()
	r := &cs314Run{c: c, q: q}
	defer func() {
		for _, b := range r.bufs {
			b.Free()
		}
	}()
	alloc := func(s []int32) backend.Buffer {
		if err != nil {
			return nil
		}
		var b backend.Buffer
		b, err = backend.AllocSlice(dev, q, s)
		if err == nil {
			r.bufs = append(r.bufs, b)
		}
		return b
	}
	m := len(in.src)
	r.src, r.dst, r.wgt = alloc(in.src), alloc(in.dst), alloc(in.wgt)
	scratch := make([]int32, m+1)
	r.t1, r.t2, r.t3, r.t4 = alloc(scratch), alloc(scratch), alloc(scratch), alloc(scratch)
	r.ch = alloc([]int32{0})
	minus := make([]int32, in.n)
	for i := range minus {
		minus[i] = -1
	}
	r.strong, r.matches = alloc(minus), alloc(minus)
	if err != nil {
		return nil, err
	}
	out, err := body(r)
	if err != nil {
		return nil, err
	}
	return out, q.Finish()
}

func readI32(q backend.Queue, b backend.Buffer, n int) ([]int32, error) {
	s := make([]int32, n)
	return s, backend.ReadSlice(q, b, s)
}

// scan runs the strides until no arc changes; it returns the number of
// strides and leaves the strongest (dst, weight) in t1, t3.
func (in *cs314Case) scan(r *cs314Run, m int) (int, error) {
	if err := r.q.Copy(r.t1, 0, r.dst, 0, 4*m); err != nil {
		return 0, err
	}
	if err := r.q.Copy(r.t3, 0, r.wgt, 0, 4*m); err != nil {
		return 0, err
	}
	strides := 0
	for d := 1; m > 0; d *= 2 {
		if err := r.q.Fill(r.ch, 0, 4, 0); err != nil {
			return 0, err
		}
		if err := r.c.StrongestNeighborScan(r.q, r.src, r.t1, r.t2, r.t3, r.t4, r.ch, d, m); err != nil {
			return 0, err
		}
		r.t1, r.t2, r.t3, r.t4 = r.t2, r.t1, r.t4, r.t3
		strides++
		var changed [1]int32
		if err := backend.ReadSlice(r.q, r.ch, changed[:]); err != nil {
			return 0, err
		}
		if changed[0] == 0 {
			break
		}
	}
	return strides, nil
}

func (in *cs314Case) scanOutputs(r *cs314Run) ([]device.Output, error) {
	m := len(in.src)
	// One stride at distance 3 on the raw input, then the whole scan.
	if err := r.q.Fill(r.ch, 0, 4, 0); err != nil {
		return nil, err
	}
	if err := r.c.StrongestNeighborScan(r.q, r.src, r.dst, r.t1, r.wgt, r.t3, r.ch, 3, m); err != nil {
		return nil, err
	}
	d3, err := readI32(r.q, r.t1, m)
	if err != nil {
		return nil, err
	}
	strides, err := in.scan(r, m)
	if err != nil {
		return nil, err
	}
	dst, err := readI32(r.q, r.t1, m)
	if err != nil {
		return nil, err
	}
	wgt, err := readI32(r.q, r.t3, m)
	if err != nil {
		return nil, err
	}
	return []device.Output{device.Widen("dst after stride 3", d3), device.Widen("strongest dst", dst), device.Widen("strongest weight", wgt),
		device.Widen("strides", []int{strides})}, nil
}

// handshake runs the first half of a CS314 pass on the m arcs left:
// every vertex's strongest neighbour (scan, collate), then the handshakes
// that match mutual choices.
func (in *cs314Case) handshake(r *cs314Run, m int) error {
	if _, err := in.scan(r, m); err != nil {
		return err
	}
	if err := r.c.CollateSegments(r.q, r.src, r.t1, r.strong, m); err != nil {
		return err
	}
	return r.c.CheckHandshaking(r.q, r.strong, r.matches, in.n)
}

func (in *cs314Case) handshakeOutputs(r *cs314Run) ([]device.Output, error) {
	if err := in.handshake(r, len(in.src)); err != nil {
		return nil, err
	}
	strong, err := readI32(r.q, r.strong, in.n)
	if err != nil {
		return nil, err
	}
	matches, err := readI32(r.q, r.matches, in.n)
	if err != nil {
		return nil, err
	}
	return []device.Output{device.Widen("strongNeighbor", strong), device.Widen("matches", matches)}, nil
}

func (in *cs314Case) filterOutputs(r *cs314Run) ([]device.Output, error) {
	if _, err := in.handshakeOutputs(r); err != nil {
		return nil, err
	}
	m := len(in.src)
	if err := r.q.Fill(r.t2, 0, 4*(m+1), 0); err != nil {
		return nil, err
	}
	if err := r.c.MarkFilterEdges(r.q, r.src, r.dst, r.matches, r.t2, m); err != nil {
		return nil, err
	}
	keep, err := readI32(r.q, r.t2, m)
	if err != nil {
		return nil, err
	}
	edgeMap, err := r.c.ExclusivePrefixSum(r.q, r.t2, r.t4, m+1)
	if err != nil {
		return nil, err
	}
	sums, err := readI32(r.q, edgeMap, m+1)
	if err != nil {
		return nil, err
	}
	newW := r.t2
	if edgeMap == r.t2 {
		newW = r.t4
	}
	if err := r.c.PackGraph(r.q, r.t1, r.src, r.t3, r.dst, newW, r.wgt, edgeMap, m); err != nil {
		return nil, err
	}
	kept := int(sums[m])
	out := []device.Output{device.Widen("keepEdges", keep), device.Widen("edgeMap", sums)}
	for _, b := range []struct {
		name string
		buf  backend.Buffer
	}{{"packed src", r.t1}, {"packed dst", r.t3}, {"packed weight", newW}} {
		v, err := readI32(r.q, b.buf, kept)
		if err != nil {
			return nil, err
		}
		out = append(out, device.Widen(b.name, v))
	}
	return out, nil
}

// fastPasses runs the fast matching kernels (match_fast.cl) on the case:
// matchArgmax, then two passes of handshake and filter (lookback:
// matchFilter; otherwise matchMarkTiles, the scan and matchPackTiles), with
// the arc counts on the device and the launches sized by a loose upper
// bound, as the engine queues them. The first pass's handshake runs over
// the vertices, and again over the arcs on copies of its outputs; the
// second over the arcs. The look-back run tags best with every bit the
// ranks leave; the other with one tag bit, so the tags wrap and best is
// zeroed before each filter. It returns everything they wrote, named.
func (in *cs314Case) fastPasses(dev backend.Device, threads int, lookback bool) ([]device.Output, error) {
	f, err := NewMatchFast(dev)
	if err != nil {
		return nil, err
	}
	defer f.Release()
	f.Threads = threads
	scan, err := prim.NewScan(dev)
	if err != nil {
		return nil, err
	}
	defer scan.Release()
	q, err := dev.NewQueue()
	if err != nil {
		return nil, err
	}
	defer q.Release()
	m, n := len(in.src), in.n
	keys := make([]uint64, m)
	maxRank := int32(1)
	for i := range keys {
		keys[i] = MatchKey(in.wgt[i], in.dst[i])
		maxRank = max(maxRank, in.wgt[i])
	}
	tagBits := 1
	if lookback {
		tagBits = MatchTagBits(maxRank)
	}
	minus := make([]int32, n)
	for i := range minus {
		minus[i] = -1
	}
	bound := 2*m + 5
	_, _, tiles := f.Tiles(bound)
	bs := backend.NewBuffers(dev, q)
	defer bs.Free()
	// The sources come from the CSR offsets through matchSources, as the
	// engine builds them.
	offsets := make([]int32, n+1)
	for _, u := range in.src {
		offsets[u+1]++
	}
	for v := range n {
		offsets[v+1] += offsets[v]
	}
	src := backend.AllocIn[int32](bs, m)
	offBuf := backend.Upload(bs, offsets)
	if err := bs.Err(); err != nil {
		return nil, err
	}
	if err := f.Sources(q, offBuf, src, n, m); err != nil {
		return nil, err
	}
	gotSrc := make([]int32, m)
	if err := backend.ReadSlice(q, src, gotSrc); err != nil {
		return nil, err
	}
	if i := slices.Compare(gotSrc, in.src); i != 0 {
		return nil, fmt.Errorf("matchSources: sources differ from the input's")
	}
	p := &MatchPass{Src: src, Keys: backend.Upload(bs, keys),
		NewSrc: backend.AllocIn[int32](bs, m), NewKeys: backend.AllocIn[uint64](bs, m),
		Best:  backend.Upload(bs, make([]uint64, n)),
		Match: backend.Upload(bs, minus), Matched: backend.Upload(bs, make([]uint32, MatchedWords(n))),
		Counts: backend.Upload(bs, []int64{int64(m), -1, -1}), MaxArcs: bound, N: n, TagBits: tagBits, Tag: 1}
	arcMode := *p // the first handshake over the arcs, on copies
	arcMode.Match, arcMode.Matched = backend.Upload(bs, minus), backend.Upload(bs, make([]uint32, MatchedWords(n)))
	mask := backend.AllocIn[uint32](bs, tiles*f.maxTileGroup())
	tileCount := backend.AllocIn[int32](bs, tiles)
	var lb *Lookback
	if lookback {
		lb = f.NewLookback(bs, bound)
	}
	if err := bs.Err(); err != nil {
		return nil, err
	}
	if err := f.Argmax(q, p, m); err != nil {
		return nil, err
	}
	bestV := make([]uint64, n)
	if err := backend.ReadSlice(q, p.Best, bestV); err != nil {
		return nil, err
	}
	out := []device.Output{device.Widen("sources", gotSrc), device.Widen("best", p.current(bestV, p.Tag))}
	for pass := 1; pass <= 2; pass++ {
		name := func(s string) string { return fmt.Sprintf("pass %d: %s", pass, s) }
		p.Slot = pass - 1
		vertexAbove := math.MaxInt32
		if pass == 1 {
			vertexAbove = -1
			if err := f.Handshake(q, &arcMode, math.MaxInt32); err != nil {
				return nil, err
			}
		}
		if err := f.Handshake(q, p, vertexAbove); err != nil {
			return nil, err
		}
		if lookback {
			err = f.Filter(q, p, lb)
		} else {
			err = in.scanFilter(q, f, scan, p, mask, tileCount, tiles)
		}
		if err != nil {
			return nil, err
		}
		counts := make([]int64, 3)
		if err := backend.ReadSlice(q, p.Counts, counts); err != nil {
			return nil, err
		}
		kept := int(counts[pass])
		if kept < 0 || kept > m {
			return nil, fmt.Errorf("pass %d: kept count %d of %d arcs", pass, kept, m)
		}
		matchV, err := readI32(q, p.Match, n)
		if err != nil {
			return nil, err
		}
		bits := make([]uint32, MatchedWords(n))
		if err := backend.ReadSlice(q, p.Matched, bits); err != nil {
			return nil, err
		}
		nsrc, err := readI32(q, p.NewSrc, kept)
		if err != nil {
			return nil, err
		}
		nkeys := make([]uint64, kept)
		if err := backend.ReadSlice(q, p.NewKeys, nkeys); err != nil {
			return nil, err
		}
		// The next pass's entries of best (the kept arcs' sources).
		next := make([]uint64, n)
		if err := backend.ReadSlice(q, p.Best, next); err != nil {
			return nil, err
		}
		out = append(out, device.Widen(name("match"), matchV), device.Widen(name("matched bits"), bits), device.Widen(name("kept"), []int64{int64(kept)}),
			device.Widen(name("packed src"), nsrc), device.Widen(name("packed keys"), nkeys), device.Widen(name("next best"), p.current(next, p.NextTag())))
		if pass == 1 {
			am, err := readI32(q, arcMode.Match, n)
			if err != nil {
				return nil, err
			}
			ab := make([]uint32, MatchedWords(n))
			if err := backend.ReadSlice(q, arcMode.Matched, ab); err != nil {
				return nil, err
			}
			out = append(out, device.Widen(name("arc handshake: match"), am), device.Widen(name("arc handshake: matched bits"), ab))
		}
		if !lookback && pass == 1 {
			chunks := (m + MatchChunk - 1) / MatchChunk
			maskV := make([]uint32, chunks)
			if err := backend.ReadSlice(q, mask, maskV); err != nil {
				return nil, err
			}
			// The keep bits only: the ranks above them depend on the tile size.
			for i := range maskV {
				maskV[i] &= 1<<MatchChunk - 1
			}
			out = append(out, device.Widen(name("keep bits"), maskV))
		}
		p.Src, p.NewSrc = p.NewSrc, p.Src
		p.Keys, p.NewKeys = p.NewKeys, p.Keys
		p.Tag = p.NextTag()
	}
	return out, q.Finish()
}

// current returns the entries of best tagged t with the tag taken off, and
// 0 for every other: what a pass with tag t sees, whatever the tag width
// (the look-back and scan runs use different ones).
func (p *MatchPass) current(best []uint64, t int) []uint64 {
	mask := p.tagValue(1<<p.TagBits - 1)
	out := make([]uint64, len(best))
	for v, b := range best {
		if b&mask == p.tagValue(t) {
			out[v] = b &^ mask
		}
	}
	return out
}

// maxTileGroup is the work-group size of the tile kernels.
func (f *MatchFast) maxTileGroup() int {
	group, _, _ := f.Tiles(0)
	return group
}

// scanFilter is the filter without look-back: mark the tiles, scan their
// counts (the total goes to Counts[Slot+1]) and pack.
func (in *cs314Case) scanFilter(q backend.Queue, f *MatchFast, scan *prim.Scan, p *MatchPass, mask, tileCount backend.Buffer, tiles int) error {
	if err := q.Fill(tileCount, 0, 4*tiles, 0); err != nil {
		return err
	}
	if err := f.MarkTiles(q, p, mask, tileCount); err != nil {
		return err
	}
	if err := scan.ExclusiveAsync(q, tileCount, tileCount, tiles); err != nil {
		return err
	}
	if err := q.Copy(p.Counts, 8*(p.Slot+1), scan.TotalBuffer(), 0, 8); err != nil {
		return err
	}
	return f.PackTiles(q, p, mask, tileCount)
}
