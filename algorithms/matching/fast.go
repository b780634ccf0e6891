package matching

import (
	"fmt"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/kernels"
)

// runFast is the work-efficient engine. matchArgmax (a chunked segmented
// max of the 64-bit keys) finds the first pass's strongest neighbours; then
// per pass, over the m arcs left: matchHandshake; matchMarkTiles (a keep
// mask per chunk of 8 arcs, a kept count per tile); an exclusive scan of the
// tile counts (kernels.Scan); matchPackTiles, which compacts the kept arcs
// and in the same read computes the next pass's strongest neighbours. The
// arcs are read three times per pass (handshake reads only src) and the
// kept ones written once; the scan's total is the one value read back.
// With Options.OnePass, mark, scan and pack are one launch
// (matchFilterOnePass, a decoupled look-back), so the arcs come from memory
// twice per pass (handshake's src, the filter), and best alternates with a
// second array that the handshake clears.
// loopPhases are the fast engine's device-loop phases (their device time,
// summed over the passes, is Result.Loop). The one-pass filter's launch is
// "pack+next strongest".
var loopPhases = []string{"strongest", "handshake", "mark", "scan", "pack+next strongest"}

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
	bs := &buffers{dev: dev, q: q}
	defer bs.free()
	src := bs.upload(in.Src)
	keyBuf := bs.alloc(8 * m)
	src2, keys2 := bs.alloc(4*m), bs.alloc(8*m)
	_, _, tiles := f.Tiles(m)
	mask := bs.alloc(4 * ((m + kernels.MatchChunk - 1) / kernels.MatchChunk))
	tileCount := bs.alloc(4 * tiles)
	best := bs.alloc(8 * n)
	match := bs.upload(minusOnes(n))
	matched := bs.alloc(4 * kernels.MatchedWords(n)) // one bit per vertex: the filter's test
	if bs.err != nil {
		return bs.err
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
	// filter runs one pass's handshake and filter over m arcs, leaves the
	// kept arcs in src, keyBuf and the next pass's strongest neighbours in
	// best, and returns the number kept.
	filter := func(m int) (int, error) {
		if err := f.Handshake(q, src, best, match, matched, m); err != nil {
			return 0, err
		}
		if err := clock.end("handshake"); err != nil {
			return 0, err
		}
		if err := f.MarkTiles(q, src, keyBuf, matched, best, mask, tileCount, m); err != nil {
			return 0, err
		}
		if err := clock.end("mark"); err != nil {
			return 0, err
		}
		// The scan leaves its total on the device; pack is queued before the
		// total is read back, so the device does not idle while the host
		// reads it. Packing when nothing is kept writes nothing.
		_, _, t := f.Tiles(m)
		if err := scan.ExclusiveAsync(q, tileCount, tileCount, t); err != nil {
			return 0, err
		}
		if err := clock.end("scan"); err != nil {
			return 0, err
		}
		if err := f.PackTiles(q, src, keyBuf, mask, tileCount, src2, keys2, best, m); err != nil {
			return 0, err
		}
		var total [1]int64
		if err := backend.ReadSlice(q, scan.TotalBuffer(), total[:]); err != nil {
			return 0, err
		}
		src, src2 = src2, src
		keyBuf, keys2 = keys2, keyBuf
		return int(total[0]), nil
	}
	if opt.OnePass {
		// The single-pass filter: best and bestNext alternate.
		bestNext, status, counter, totalBuf := bs.alloc(8*n), bs.alloc(8*tiles), bs.alloc(4), bs.alloc(8)
		if bs.err != nil {
			return bs.err
		}
		if n > 0 {
			if err := q.Fill(bestNext, 0, 8*n, 0); err != nil {
				return err
			}
		}
		filter = func(m int) (int, error) {
			if err := f.HandshakeNext(q, src, best, bestNext, match, matched, m); err != nil {
				return 0, err
			}
			if err := clock.end("handshake"); err != nil {
				return 0, err
			}
			if err := f.FilterOnePass(q, src, keyBuf, matched, status, counter, src2, keys2, bestNext, totalBuf, m); err != nil {
				return 0, err
			}
			var kept [1]int64
			if err := backend.ReadSlice(q, totalBuf, kept[:]); err != nil {
				return 0, err
			}
			src, src2 = src2, src
			keyBuf, keys2 = keys2, keyBuf
			best, bestNext = bestNext, best
			return int(kept[0]), nil
		}
	}
	var before time.Duration // device loop time before this pass
	for m > 0 && !opt.StrongOnly {
		res.Passes++
		res.ArcsProcessed += int64(m)
		res.ArcsPerPass = append(res.ArcsPerPass, m)
		if err := opt.interrupted(); err != nil {
			return err
		}
		if res.Passes > n+1 {
			return fmt.Errorf("no convergence after %d passes", res.Passes)
		}
		kept, err := filter(m)
		if err != nil {
			return err
		}
		if kept >= m {
			return fmt.Errorf("pass %d removed no arc (%d left): the handshake made no pair", res.Passes, m)
		}
		m = kept
		if err := clock.end("pack+next strongest"); err != nil {
			return err
		}
		if err := clock.settle(); err != nil {
			return err
		}
		loop := clock.sum(loopPhases...)
		res.PassTimes = append(res.PassTimes, loop-before)
		before = loop
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
