package matching

import (
	"fmt"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/kernels"
)

// loopPhases are the fast engine's device-loop phases (their device time,
// summed over the passes, is Result.Loop). The one-pass filter's launch is
// "pack+next strongest".
var loopPhases = []string{"strongest", "handshake", "mark", "scan", "pack+next strongest"}

// runFast is the work-efficient engine. matchArgmax (a chunked segmented
// max of the 64-bit keys) finds the first pass's strongest neighbours; then
// per pass, over the m arcs left: matchHandshake (which also sets the
// matched vertices' bits in a bitset, n/8 bytes that stay in the cache);
// matchMarkTiles (a keep mask per chunk of 8 arcs, tested against the
// bitset, with the chunk's rank within its tile, and a kept count per
// tile); an exclusive scan of the tile counts (kernels.Scan);
// matchPackTiles, which compacts the kept arcs (staged per tile in local
// memory, written out whole) and in the same read computes the next pass's
// strongest neighbours. While arcs outnumber twice the vertices the
// handshake reads best[] instead of src (matchHandshakeVertices). The arcs
// are read two or three times per pass and the kept ones written once. The
// kernels read m on the device (the previous scan's total), so passes are
// queued in batches and the counts read back once a batch (batchedLoop). With Options.OnePass, mark, scan and pack are one
// launch (matchFilterOnePass, a decoupled look-back), so the arcs come from
// memory twice per pass (handshake's src, the filter), and best alternates
// with a second array that the handshake clears; that loop reads each
// pass's count back.
func runFast(dev backend.Device, in *Input, opt Options, res *Result) error {
	f, err := kernels.NewMatchFast(dev)
	if err != nil {
		return err
	}
	defer f.Release()
	f.Threads = opt.Threads
	scan, err := kernels.NewScan(dev)
	if err != nil {
		return err
	}
	defer scan.Release()
	q, err := dev.NewQueue()
	if err != nil {
		return err
	}
	defer q.Release()
	clock, err := newPhaseClock(q)
	if err != nil {
		return err
	}
	defer clock.release()

	m, n := in.Arcs(), in.N
	keys := make([]uint64, m)
	for i := range keys {
		keys[i] = kernels.MatchKey(in.Rank[i], in.Dst[i])
	}
	bs := backend.NewBuffers(dev, q)
	defer bs.Free()
	src := backend.Upload(bs, in.Src)
	keyBuf := bs.Alloc(8 * m)
	src2, keys2 := bs.Alloc(4*m), bs.Alloc(8*m)
	_, _, tiles := f.Tiles(m)
	mask := bs.Alloc(4 * ((m + kernels.MatchChunk - 1) / kernels.MatchChunk))
	tileCount := bs.Alloc(4 * tiles)
	best := bs.Alloc(8 * n)
	match := backend.Upload(bs, minusOnes(n))
	matched := bs.Alloc(4 * kernels.MatchedWords(n)) // one bit per vertex: the filter's test
	if err := bs.Err(); err != nil {
		return err
	}
	if err := backend.WriteSlice(q, keyBuf, keys); err != nil {
		return err
	}
	if n > 0 {
		if err := q.Fill(best, 0, 8*n, 0); err != nil {
			return err
		}
		if err := q.Fill(matched, 0, 4*kernels.MatchedWords(n), 0); err != nil {
			return err
		}
	}
	if err := clock.end("upload"); err != nil {
		return err
	}
	if m > 0 {
		if err := f.Argmax(q, src, keyBuf, best, m); err != nil {
			return err
		}
	}
	if err := clock.end("strongest"); err != nil {
		return err
	}
	clock.lapEnd, clock.lapPhases = "pack+next strongest", map[string]bool{}
	for _, name := range loopPhases {
		clock.lapPhases[name] = true
	}
	switch {
	case opt.StrongOnly || m == 0:
	case opt.OnePass:
		err = onePassLoop(f, q, clock, bs, n, m, opt, res, &fastArrays{src, keyBuf, src2, keys2, best, match, matched})
	default:
		err = batchedLoop(f, scan, q, clock, bs, n, m, opt, res, &fastArrays{src, keyBuf, src2, keys2, best, match, matched},
			mask, tileCount)
	}
	if err != nil {
		return err
	}
	if opt.StrongOnly && m > 0 {
		res.Passes = 1
		res.ArcsProcessed = int64(m)
		res.ArcsPerPass = []int{m}
	}
	res.Mate = make(Matching, n)
	if opt.StrongOnly {
		b := make([]uint64, n)
		if err := backend.ReadSlice(q, best, b); err != nil {
			return err
		}
		for v, k := range b {
			res.Mate[v] = -1
			if k != 0 {
				res.Mate[v] = kernels.MatchKeyDst(k)
			}
		}
	} else if err := backend.ReadSlice(q, match, res.Mate); err != nil {
		return err
	}
	if err := clock.end("download"); err != nil {
		return err
	}
	if err := q.Finish(); err != nil {
		return err
	}
	if err := clock.settle(); err != nil {
		return err
	}
	res.Phases = clock.phases()
	res.Loop = clock.sum(loopPhases...)
	return nil
}

// fastArrays are the device arrays that the passes read and write; src,
// keys and src2, keys2 swap after each pass.
type fastArrays struct {
	src, keys, src2, keys2 backend.Buffer
	best, match, matched   backend.Buffer
}

// batch is the number of passes queued between two reads of the arc
// counts. A pass queued after the arcs ran out only launches kernels that
// find no arc (tens of microseconds); a read back costs the host's wake-up
// (about a millisecond on the H100 machine) with the device idle.
const batch = 16

// batchedLoop runs the passes with the two-launch filter. Handshake, mark
// and pack read the number of arcs from the device (the previous pass's
// scan total), so a batch of passes is queued without a read in between,
// and the device never waits for the host within a batch. The launches are
// sized by the count read after the previous batch, an upper bound. A
// batch's event times are settled once the next batch is queued.
func batchedLoop(f *kernels.MatchFast, scan *kernels.Scan, q backend.Queue, clock *phaseClock, bs *backend.Buffers, n, m int,
	opt Options, res *Result, a *fastArrays, mask, tileCount backend.Buffer) error {
	counts := make([]backend.Buffer, batch+1) // counts[j]: the arcs at the start of a batch's pass j (int64)
	for j := range counts {
		counts[j] = bs.Alloc(8)
	}
	hist := bs.Alloc(8 * (batch + 1)) // the batch's counts, gathered for one read
	if err := bs.Err(); err != nil {
		return err
	}
	if err := backend.WriteSlice(q, counts[0], []int64{int64(m)}); err != nil {
		return err
	}
	// pending is the batch read back last, whose passes are not yet booked.
	var pending []int64
	pendingMarks := 0
	book := func() error {
		lap := len(clock.laps)
		if err := clock.settleFirst(pendingMarks); err != nil {
			return err
		}
		for j := 0; j+1 < len(pending) && pending[j] > 0; j++ {
			res.Passes++
			res.ArcsProcessed += pending[j]
			res.ArcsPerPass = append(res.ArcsPerPass, int(pending[j]))
			res.PassTimes = append(res.PassTimes, clock.laps[lap+j])
			if pending[j+1] >= pending[j] {
				return fmt.Errorf("pass %d removed no arc (%d left): the handshake made no pair", res.Passes, pending[j])
			}
		}
		if res.Passes > n+1 {
			return fmt.Errorf("no convergence after %d passes", res.Passes)
		}
		pending, pendingMarks = nil, 0
		return nil
	}
	for bound := m; bound > 0; {
		if err := opt.interrupted(); err != nil {
			return err
		}
		_, _, tiles := f.Tiles(bound)
		// The handshake reads best (8 bytes a vertex) instead of src (4
		// bytes an arc) while the arcs may outnumber twice the vertices.
		byVertex := bound > 2*n
		for j := 0; j < batch; j++ {
			var err error
			if byVertex {
				err = f.HandshakeVertices(q, a.best, a.match, a.matched, n)
			} else {
				err = f.Handshake(q, a.src, a.best, a.match, a.matched, counts[j], bound)
			}
			if err != nil {
				return err
			}
			if err := clock.end("handshake"); err != nil {
				return err
			}
			// The scan covers the bound's tiles: those past this pass's
			// arcs must count zero.
			if err := q.Fill(tileCount, 0, 4*tiles, 0); err != nil {
				return err
			}
			if err := f.MarkTiles(q, a.src, a.keys, a.matched, a.best, mask, tileCount, counts[j], bound); err != nil {
				return err
			}
			if err := clock.end("mark"); err != nil {
				return err
			}
			if err := scan.ExclusiveAsync(q, tileCount, tileCount, tiles); err != nil {
				return err
			}
			if err := q.Copy(counts[j+1], 0, scan.TotalBuffer(), 0, 8); err != nil {
				return err
			}
			if err := q.Copy(hist, 8*j, counts[j], 0, 8); err != nil {
				return err
			}
			if err := clock.end("scan"); err != nil {
				return err
			}
			if err := f.PackTiles(q, a.src, a.keys, mask, tileCount, a.src2, a.keys2, a.best, counts[j], bound); err != nil {
				return err
			}
			if err := clock.end("pack+next strongest"); err != nil {
				return err
			}
			a.src, a.src2 = a.src2, a.src
			a.keys, a.keys2 = a.keys2, a.keys
		}
		if err := q.Copy(hist, 8*batch, counts[batch], 0, 8); err != nil {
			return err
		}
		// Book the previous batch while this one runs.
		if err := book(); err != nil {
			return err
		}
		got := make([]int64, batch+1)
		if err := backend.ReadSlice(q, hist, got); err != nil {
			return err
		}
		pending, pendingMarks = got, len(clock.marks)
		counts[0], counts[batch] = counts[batch], counts[0]
		bound = int(got[batch])
	}
	return book()
}

// onePassLoop runs the passes with the single-pass filter (one launch per
// pass, a decoupled look-back), reading each pass's count back: best and
// bestNext alternate.
func onePassLoop(f *kernels.MatchFast, q backend.Queue, clock *phaseClock, bs *backend.Buffers, n, m int,
	opt Options, res *Result, a *fastArrays) error {
	_, _, tiles := f.Tiles(m)
	bestNext, status, counter, totalBuf := bs.Alloc(8*n), bs.Alloc(8*tiles), bs.Alloc(4), bs.Alloc(8)
	if err := bs.Err(); err != nil {
		return err
	}
	if n > 0 {
		if err := q.Fill(bestNext, 0, 8*n, 0); err != nil {
			return err
		}
	}
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
		if err := f.HandshakeNext(q, a.src, a.best, bestNext, a.match, a.matched, m); err != nil {
			return err
		}
		if err := clock.end("handshake"); err != nil {
			return err
		}
		if err := f.FilterOnePass(q, a.src, a.keys, a.matched, status, counter, a.src2, a.keys2, bestNext, totalBuf, m); err != nil {
			return err
		}
		if err := clock.end("pack+next strongest"); err != nil {
			return err
		}
		var kept [1]int64
		if err := backend.ReadSlice(q, totalBuf, kept[:]); err != nil {
			return err
		}
		a.src, a.src2 = a.src2, a.src
		a.keys, a.keys2 = a.keys2, a.keys
		a.best, bestNext = bestNext, a.best
		if int(kept[0]) >= m {
			return fmt.Errorf("pass %d removed no arc (%d left): the handshake made no pair", res.Passes, m)
		}
		m = int(kept[0])
		lap := len(clock.laps)
		if err := clock.settle(); err != nil {
			return err
		}
		res.PassTimes = append(res.PassTimes, clock.laps[lap])
	}
	return nil
}
