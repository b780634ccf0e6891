package matching

import (
	"fmt"
	"math"

	"github.com/arbor-gpu/arbor/algorithms/matching/kernel"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/prim"
)

// loopPhases are the fast engine's device-loop phases (their device time,
// summed over the passes, is Result.Loop): the first pass's argmax, then per
// pass the handshake and either the look-back filter or mark, scan and
// pack (which includes the next argmax).
var loopPhases = []string{"strongest", "handshake", "filter", "mark", "scan", "pack+next strongest"}

// runFast is the work-efficient engine. The arcs live on the device as two
// arrays grouped by source: src and a 64-bit key (rank << 32 | ^dst) whose
// max is the strongest neighbour. matchArgmax (a chunked segmented max)
// finds the first pass's strongest neighbours; then per pass over the m
// arcs left: matchHandshake (which also sets the matched vertices' bits in
// a bitset, n/8 bytes that stay in the cache; while arcs outnumber twice
// the vertices it reads best per vertex instead of the arcs) and the
// filter, which keeps the arcs with both ends unmatched, packs them in
// order and writes the next pass's best entries in the same read, over
// this pass's in the one best array (each entry tagged with its pass, so
// none is ever cleared). The default filter (matchFilter) does it in one launch,
// finding each tile's output offset by decoupled look-back, so the arcs come
// from memory once per pass and the kept ones are written once; FilterScan
// uses matchMarkTiles, a scan of the tile counts and matchPackTiles (the arcs
// read twice). The kernels read the arc count on the device, so passes are
// queued in batches and the counts read back once a batch.
func runFast(s *session, in *Input, opt Options, res *Result) error {
	f, err := kernel.NewMatchFast(s.dev)
	if err != nil {
		return err
	}
	defer f.Release()
	f.Threads = opt.Threads
	q, clock, bs := s.q, s.clock, s.bs
	m, n := in.Arcs(), in.N
	p, offsets, err := allocPass(bs, in, batch+1, opt.tagBits)
	if err != nil {
		return err
	}
	s.wall.Mark("setup")
	if err := uploadPass(f, q, p, offsets, in); err != nil {
		return err
	}
	if err := clock.end("upload"); err != nil {
		return err
	}
	if err := q.Finish(); err != nil {
		return err
	}
	s.wall.Mark("upload")
	if m > 0 {
		if err := f.Argmax(q, p, m); err != nil {
			return err
		}
	}
	if err := clock.end("strongest"); err != nil {
		return err
	}
	if !opt.StrongOnly && m > 0 {
		if err := passes(s.dev, f, q, clock, bs, p, m, opt, res); err != nil {
			return err
		}
	}
	if opt.StrongOnly && m > 0 {
		res.Passes = 1
		res.ArcsProcessed = int64(m)
		res.ArcsPerPass = []int{m}
	}
	if err := q.Finish(); err != nil {
		return err
	}
	s.wall.Mark("loop")
	res.Mate = make(Matching, n)
	if opt.StrongOnly {
		b := make([]uint64, n)
		if err := backend.ReadSlice(q, p.Best, b); err != nil {
			return err
		}
		for v, k := range b {
			res.Mate[v] = -1
			if k != 0 {
				res.Mate[v] = kernel.MatchKeyDst(k)
			}
		}
	} else if err := backend.ReadSlice(q, p.Match, res.Mate); err != nil {
		return err
	}
	if err := clock.end("download"); err != nil {
		return err
	}
	s.wall.Mark("download")
	return nil
}

// allocPass allocates the first pass's MatchPass for the input and the
// buffer for its offsets: src and keys, room for the kept arcs, best,
// match, the matched bits and slots int64 counts. best's tags take every
// bit the ranks leave, or tagBits when it is lower and above 0.
func allocPass(bs *backend.Buffers, in *Input, slots, tagBits int) (*kernel.MatchPass, backend.Buffer, error) {
	m, n := in.Arcs(), in.N
	p := &kernel.MatchPass{Src: bs.Alloc(4 * m), Keys: bs.Alloc(8 * m),
		NewSrc: bs.Alloc(4 * m), NewKeys: bs.Alloc(8 * m), Best: bs.Alloc(8 * n),
		Match: bs.Alloc(4 * n), Matched: bs.Alloc(4 * kernel.MatchedWords(n)),
		Counts: bs.Alloc(8 * slots), MaxArcs: m, N: n,
		TagBits: kernel.MatchTagBits(in.MaxRank), Tag: 1}
	offsets := bs.Alloc(4 * (n + 1))
	if tagBits > 0 {
		p.TagBits = min(p.TagBits, tagBits)
	}
	return p, offsets, bs.Err()
}

// uploadPass puts the input on the device as the first pass: the offsets
// and keys are written as they are (8 bytes an arc, no host work per arc),
// matchSources expands the offsets into src, best and the matched bits are
// zeroed, every match set to -1 and the counts to 0.
func uploadPass(f *kernel.MatchFast, q backend.Queue, p *kernel.MatchPass, offsets backend.Buffer, in *Input) error {
	m, n := in.Arcs(), in.N
	if err := backend.WriteSlice(q, offsets, in.Offsets); err != nil {
		return err
	}
	if m > 0 {
		if err := backend.WriteSlice(q, p.Keys, in.Keys); err != nil {
			return err
		}
		if err := f.Sources(q, offsets, p.Src, n, m); err != nil {
			return err
		}
	}
	if n > 0 {
		if err := q.Fill(p.Best, 0, 8*n, 0); err != nil {
			return err
		}
		if err := q.Fill(p.Matched, 0, 4*kernel.MatchedWords(n), 0); err != nil {
			return err
		}
		if err := q.Fill(p.Match, 0, 4*n, math.MaxUint32); err != nil {
			return err
		}
	}
	return q.Fill(p.Counts, 0, p.Counts.Size(), 0)
}

// batch is the number of passes queued between two reads of the arc
// counts. A pass queued after the arcs ran out only launches kernels that
// find no arc (microseconds); a read back costs the host's wake-up (about a
// millisecond on the H100 machine) with the device idle.
const batch = 16

// passes runs the handshake passes in batches. The kernels read the arc
// count from p.Counts (slot j: the count at the start of the batch's pass
// j, written by pass j-1's filter), so a batch is queued without a read in
// between and the device never waits for the host within it. The launches
// are sized by the count read after the previous batch, an upper bound.
func passes(dev backend.Device, f *kernel.MatchFast, q backend.Queue, clock *phaseClock, bs *backend.Buffers,
	p *kernel.MatchPass, m int, opt Options, res *Result) error {
	n := p.N
	var lb *kernel.Lookback
	var scan *prim.Scan
	var mask, tileCount backend.Buffer
	_, _, tiles := f.Tiles(m)
	lastPhase := "filter"
	if opt.Filter == FilterScan {
		var err error
		if scan, err = prim.NewScan(dev); err != nil {
			return err
		}
		defer scan.Release()
		mask = bs.Alloc(4 * ((m + kernel.MatchChunk - 1) / kernel.MatchChunk))
		tileCount = bs.Alloc(4 * tiles)
		lastPhase = "pack+next strongest"
	} else {
		lb = f.NewLookback(bs, m)
	}
	if err := bs.Err(); err != nil {
		return err
	}
	if err := backend.WriteSlice(q, p.Counts, []int64{int64(m)}); err != nil {
		return err
	}
	clock.lapEnd, clock.lapPhases = lastPhase, map[string]bool{}
	for _, name := range loopPhases {
		clock.lapPhases[name] = true
	}
	for bound := m; bound > 0; {
		if err := opt.interrupted(); err != nil {
			return err
		}
		p.MaxArcs = bound
		_, _, tiles := f.Tiles(bound)
		lap := len(clock.laps)
		for j := 0; j < batch; j++ {
			p.Slot = j
			// Read best per vertex while the arcs may outnumber twice the
			// vertices (8 bytes a vertex against 4 an arc).
			if err := f.Handshake(q, p, 2*n); err != nil {
				return err
			}
			if err := clock.end("handshake"); err != nil {
				return err
			}
			if lb != nil {
				if err := f.Filter(q, p, lb); err != nil {
					return err
				}
			} else if err := scanFilter(f, scan, q, clock, p, mask, tileCount, tiles); err != nil {
				return err
			}
			if err := clock.end(lastPhase); err != nil {
				return err
			}
			p.Src, p.NewSrc = p.NewSrc, p.Src
			p.Keys, p.NewKeys = p.NewKeys, p.Keys
			p.Tag = p.NextTag()
		}
		counts := make([]int64, batch+1)
		if err := backend.ReadSlice(q, p.Counts, counts); err != nil {
			return err
		}
		if err := clock.settle(); err != nil {
			return err
		}
		for j := 0; j < batch && counts[j] > 0; j++ {
			res.Passes++
			res.ArcsProcessed += counts[j]
			res.ArcsPerPass = append(res.ArcsPerPass, int(counts[j]))
			res.PassTimes = append(res.PassTimes, clock.laps[lap+j])
			if counts[j+1] >= counts[j] {
				return fmt.Errorf("pass %d removed no arc (%d left): the handshake made no pair", res.Passes, counts[j])
			}
		}
		if res.Passes > n+1 {
			return fmt.Errorf("no convergence after %d passes", res.Passes)
		}
		if err := q.Copy(p.Counts, 0, p.Counts, 8*batch, 8); err != nil {
			return err
		}
		bound = int(counts[batch])
	}
	return nil
}

// scanFilter is FilterScan's pass: the tile counts (zeroed first: the scan
// covers the bound's tiles, and those past this pass's arcs must count
// zero), their scan, whose total becomes the next pass's count, and the
// pack.
func scanFilter(f *kernel.MatchFast, scan *prim.Scan, q backend.Queue, clock *phaseClock, p *kernel.MatchPass,
	mask, tileCount backend.Buffer, tiles int) error {
	if err := q.Fill(tileCount, 0, 4*tiles, 0); err != nil {
		return err
	}
	if err := f.MarkTiles(q, p, mask, tileCount); err != nil {
		return err
	}
	if err := clock.end("mark"); err != nil {
		return err
	}
	if err := scan.ExclusiveAsync(q, tileCount, tileCount, tiles); err != nil {
		return err
	}
	if err := q.Copy(p.Counts, 8*(p.Slot+1), scan.TotalBuffer(), 0, 8); err != nil {
		return err
	}
	if err := clock.end("scan"); err != nil {
		return err
	}
	return f.PackTiles(q, p, mask, tileCount)
}
