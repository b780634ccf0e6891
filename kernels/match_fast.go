package kernels

import (
	"fmt"
	"math"

	"github.com/arbor-gpu/arbor/backend"
)

// MatchFastKernelNames are the entry points of match_fast.cl.
var MatchFastKernelNames = []string{"matchArgmax", "matchHandshake", "matchHandshakeVertices", "matchMarkTiles",
	"matchPackTiles", "matchHandshakeNext", "matchFilterOnePass"}

// MatchKey packs an arc's weight rank and neighbour into the key the fast
// matching kernels take the max of: a higher rank wins, then a smaller
// neighbour index.
func MatchKey(rank, dst int32) uint64 { return uint64(uint32(rank))<<32 | uint64(^uint32(dst)) }

// MatchedWords is the length in uint32 words of the matched bitset of n
// vertices (zero it before the first handshake).
func MatchedWords(n int) int { return (n + 31) / 32 }

// MatchKeyDst is the neighbour a key (or a best[] entry) names.
func MatchKeyDst(k uint64) int32 { return keyDst(k) }

// MatchFast is match_fast.cl built for one device; each method launches one
// kernel. Buffers: src and pos int32, keys and best uint64, match int32.
type MatchFast struct {
	prog     backend.Program
	k        map[string]backend.Kernel
	maxGroup int
	// Threads is the total number of work-items per launch (any value gives
	// the same result); 0 picks min(elements, DefaultStrideThreads).
	Threads int
	Local   int // work-group size, 0 for the backend's default
}

// NewMatchFast builds the fast matching kernels for dev, which needs 64-bit
// atomics (every CUDA device, the CPU backend, OpenCL devices with
// cl_khr_int64_extended_atomics).
func NewMatchFast(dev backend.Device) (*MatchFast, error) {
	if !dev.Info().Atomics64 {
		return nil, fmt.Errorf("match_fast: %s has no 64-bit atomics", dev.Info())
	}
	prog, err := Build(dev, "match_fast", map[string]string{"MATCH_CHUNK": fmt.Sprint(MatchChunk)}, MatchFastKernelNames...)
	if err != nil {
		return nil, err
	}
	f := &MatchFast{prog: prog, k: map[string]backend.Kernel{}, maxGroup: dev.Info().MaxWorkGroup}
	for _, name := range MatchFastKernelNames {
		k, err := prog.Kernel(name)
		if err != nil {
			f.Release()
			return nil, fmt.Errorf("match_fast: %w", err)
		}
		f.k[name] = k
	}
	return f, nil
}

// Release frees the kernels and the program.
func (f *MatchFast) Release() {
	for _, k := range f.k {
		k.Release()
	}
	f.prog.Release()
}

func (f *MatchFast) launch(q backend.Queue, name string, n int, args ...backend.Arg) error {
	r, nt, err := strideRange(f.Threads, f.Local, n)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if n == 0 {
		return nil
	}
	args = append(args, backend.I32(nt))
	if err := q.Launch(f.k[name], r, args...); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Argmax sets best[v] to the max key of each source's segment (best must be
// 0 for those vertices beforehand).
func (f *MatchFast) Argmax(q backend.Queue, src, keys, best backend.Buffer, numArcs int) error {
	chunks := (numArcs + MatchChunk - 1) / MatchChunk
	return f.launch(q, "matchArgmax", chunks, backend.Buf(src), backend.Buf(keys), backend.Buf(best), backend.I32(int32(numArcs)))
}

// Handshake matches every source whose strongest neighbour is mutual and
// sets its bit in matched (one bit per vertex, MatchedWords words). The
// arcs are counted on the device: count holds their number (an int64, at
// most maxArcs, which sizes the launch).
func (f *MatchFast) Handshake(q backend.Queue, src, best, match, matched, count backend.Buffer, maxArcs int) error {
	return f.launch(q, "matchHandshake", maxArcs, backend.Buf(src), backend.Buf(best), backend.Buf(match), backend.Buf(matched),
		backend.Buf(count))
}

// HandshakeVertices is Handshake over the n vertices' best entries (non-zero
// exactly for the vertices with arcs, as the engine keeps them) instead of
// the arcs: the same pairs and bits, reading 8n bytes instead of 4 per arc.
func (f *MatchFast) HandshakeVertices(q backend.Queue, best, match, matched backend.Buffer, n int) error {
	return f.launch(q, "matchHandshakeVertices", n, backend.Buf(best), backend.Buf(match), backend.Buf(matched),
		backend.I32(int32(n)))
}

// MatchTileGroup is the largest work-group of the tile kernels.
const MatchTileGroup = 256

// Tiles returns the launch of the tile kernels for numArcs arcs: the
// work-group size, the number of groups and the number of tiles (the
// length of the tile-count array). The group size is min(Threads,
// MatchTileGroup, the device's limit); Threads (0: the default) is rounded
// up to whole groups. The results do not depend on it.
func (f *MatchFast) Tiles(numArcs int) (group, groups, tiles int) {
	group = MatchTileGroup
	if mg := f.maxGroup; mg > 0 && group > mg {
		group = mg
	}
	if f.Threads > 0 && f.Threads < group {
		group = f.Threads
	}
	chunks := (numArcs + MatchChunk - 1) / MatchChunk
	tiles = (chunks + group - 1) / group
	threads := f.Threads
	if threads <= 0 {
		threads = DefaultStrideThreads
	}
	groups = max(1, min(tiles, (threads+group-1)/group))
	return group, groups, tiles
}

// launchTiles launches a tile kernel over the arcs that count (an int64 on
// the device, at most maxArcs) holds.
func (f *MatchFast) launchTiles(q backend.Queue, name string, count backend.Buffer, maxArcs, localInts int, args ...backend.Arg) error {
	if maxArcs == 0 {
		return nil
	}
	if maxArcs > math.MaxInt32-1 {
		return fmt.Errorf("%s: %d arcs exceed the kernels' 32-bit sizes", name, maxArcs)
	}
	group, groups, _ := f.Tiles(maxArcs)
	args = append(args, backend.Buf(count))
	if localInts > 0 {
		args = append(args, backend.Local(localInts*4*group))
	}
	if err := q.Launch(f.k[name], backend.R1(group*groups, group), args...); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// MarkTiles writes each chunk's keep word (the low MatchChunk bits: the
// arcs with both ends' bits clear in matched; above them, the arcs kept by
// the tile's earlier chunks) and each tile's kept count, and clears best for every source.
// count holds the number of arcs (an int64, at most maxArcs); the counts of
// the tiles past it are not written: zero the tiles that the scan reads
// (Tiles(maxArcs)) first.
func (f *MatchFast) MarkTiles(q backend.Queue, src, keys, matched, best, mask, tileCount, count backend.Buffer, maxArcs int) error {
	return f.launchTiles(q, "matchMarkTiles", count, maxArcs, 2, backend.Buf(src), backend.Buf(keys), backend.Buf(matched),
		backend.Buf(best), backend.Buf(mask), backend.Buf(tileCount))
}

// PackTiles moves the kept arcs to newSrc, newKeys (tileOffset: the
// exclusive scan of the tile counts, mask: MarkTiles' keep words) and
// computes best over them; count and maxArcs as for MarkTiles. Each
// work-group stages its tile's kept arcs in 12*MatchChunk bytes of local
// memory per work-item (24 KiB for 256).
func (f *MatchFast) PackTiles(q backend.Queue, src, keys, mask, tileOffset, newSrc, newKeys, best, count backend.Buffer, maxArcs int) error {
	return f.launchTiles(q, "matchPackTiles", count, maxArcs, 3*MatchChunk, backend.Buf(src), backend.Buf(keys), backend.Buf(mask),
		backend.Buf(tileOffset), backend.Buf(newSrc), backend.Buf(newKeys), backend.Buf(best))
}

// HandshakeNext is Handshake that also clears bestNext for every source
// (the single-pass filter's alternating best arrays).
func (f *MatchFast) HandshakeNext(q backend.Queue, src, best, bestNext, match, matched backend.Buffer, numArcs int) error {
	return f.launch(q, "matchHandshakeNext", numArcs, backend.Buf(src), backend.Buf(best), backend.Buf(bestNext),
		backend.Buf(match), backend.Buf(matched), backend.I32(int32(numArcs)))
}

// FilterOnePass compacts the kept arcs into newSrc, newKeys and computes
// bestNext over them in one launch (decoupled look-back); total (an int64)
// receives the kept count. status needs 8 bytes per tile (Tiles) and
// counter 4; FilterOnePass clears both first.
func (f *MatchFast) FilterOnePass(q backend.Queue, src, keys, matched, status, counter, newSrc, newKeys, bestNext, total backend.Buffer, numArcs int) error {
	if numArcs == 0 {
		return q.Fill(total, 0, 8, 0)
	}
	_, _, tiles := f.Tiles(numArcs)
	if err := q.Fill(status, 0, 8*tiles, 0); err != nil {
		return err
	}
	if err := q.Fill(counter, 0, 4, 0); err != nil {
		return err
	}
	group, groups, _ := f.Tiles(numArcs)
	args := []backend.Arg{backend.Buf(src), backend.Buf(keys), backend.Buf(matched), backend.Buf(status), backend.Buf(counter),
		backend.Buf(newSrc), backend.Buf(newKeys), backend.Buf(bestNext), backend.Buf(total), backend.I32(int32(numArcs)),
		backend.Local(4 * (2*group + 2))}
	if err := q.Launch(f.k["matchFilterOnePass"], backend.R1(group*groups, group), args...); err != nil {
		return fmt.Errorf("matchFilterOnePass: %w", err)
	}
	return nil
}
