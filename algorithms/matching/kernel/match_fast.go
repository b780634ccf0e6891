package kernel

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
)

// MatchFastKernelNames are the entry points of match_fast.cl.
var MatchFastKernelNames = []string{"matchArgmax", "matchSources", "matchHandshake", "matchMarkTiles", "matchPackTiles", "matchFilter"}

// MatchKey packs an arc's weight rank and neighbour into the key the fast
// matching kernels take the max of: a higher rank wins, then a smaller
// neighbour index.
func MatchKey(rank, dst int32) uint64 { return uint64(uint32(rank))<<32 | uint64(^uint32(dst)) }

// MatchTagBits is the number of tag bits best[] entries carry above the
// ranks of keys whose ranks are at most maxRank (≥ 1): the top bits of a
// key's high word that no rank uses.
func MatchTagBits(maxRank int32) int { return 32 - bits.Len32(uint32(max(maxRank, 1))) }

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
	prog, ks, err := device.BuildKernels(dev, "match_fast", map[string]string{"MATCH_CHUNK": fmt.Sprint(MatchChunk), "MATCH_SPAN": fmt.Sprint(MatchSpan)},
		MatchFastKernelNames...)
	if err != nil {
		return nil, err
	}
	return &MatchFast{prog: prog, k: ks, maxGroup: dev.Info().MaxWorkGroup}, nil
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

// Sources writes into src (numArcs int32) each arc's source vertex from the
// n+1 CSR offsets (offsets[0] = 0, offsets[n] = numArcs, non-decreasing).
func (f *MatchFast) Sources(q backend.Queue, offsets, src backend.Buffer, n, numArcs int) error {
	if n == 0 || numArcs == 0 {
		return nil
	}
	if n > math.MaxInt32-1 {
		return fmt.Errorf("matchSources: %d vertices exceed the kernels' 32-bit sizes", n)
	}
	return f.launch(q, "matchSources", numArcs, backend.Buf(offsets), backend.Buf(src), backend.I32(int32(n)),
		backend.I32(int32(numArcs)))
}

// Argmax sets p.Best[v] to the max key of each source's segment of the
// numArcs arcs of p.Src, p.Keys, tagged with p.Tag (Best must hold only
// smaller tags beforehand: all 0 for the first pass).
func (f *MatchFast) Argmax(q backend.Queue, p *MatchPass, numArcs int) error {
	return f.launchTiles(q, "matchArgmax", numArcs, 0, 8*MatchSpan, backend.Buf(p.Src), backend.Buf(p.Keys), backend.Buf(p.Best),
		backend.I32(int32(numArcs)), backend.U64(p.tagValue(p.Tag)))
}

// MatchPass names the buffers of one pass of the fast kernels. The arc
// count lives on the device, so passes can be queued without reading it
// back: Counts holds an int64 per pass of a batch; Counts[Slot] is the
// number of arcs at the pass's start and the filter writes the number kept
// to Counts[Slot+1]. MaxArcs, an upper bound on Counts[Slot], sizes the
// launches (any bound gives the same result).
type MatchPass struct {
	Src, Keys       backend.Buffer // the arcs at the pass's start
	NewSrc, NewKeys backend.Buffer // receive the kept arcs, in order
	// Best holds the sources' strongest neighbour keys, each tagged with
	// its pass's Tag in the TagBits bits above the ranks (MatchTagBits):
	// the filter writes the next pass's entries over this pass's, so no
	// entry is cleared and a vertex left without arcs keeps an older tag.
	// It starts all 0; matchArgmax fills it for the first pass.
	Best           backend.Buffer
	Match, Matched backend.Buffer // int32 per vertex; MatchedWords bits
	Counts         backend.Buffer
	Slot           int
	MaxArcs        int
	N              int // vertices
	// TagBits ≥ 1; Tag, this pass's, from 1 to 2^TagBits - 1 (NextTag).
	TagBits, Tag int
}

// NextTag is the tag of the pass after this one: Tag + 1, or 1 when the
// tags wrap (the filter then zeroes Best first).
func (p *MatchPass) NextTag() int {
	if p.Tag+1 < 1<<p.TagBits {
		return p.Tag + 1
	}
	return 1
}

// tagValue is tag t in position: the top TagBits bits of a best[] entry.
func (p *MatchPass) tagValue(t int) uint64 { return uint64(t) << (64 - p.TagBits) }

// nextTag returns the next pass's tag in position for a filter about to
// write it, first zeroing Best when the tags wrap (every older entry must
// be smaller than the new ones).
func (p *MatchPass) nextTag(q backend.Queue) (backend.Arg, error) {
	t := p.NextTag()
	if t == 1 && p.N > 0 {
		if err := q.Fill(p.Best, 0, 8*p.N, 0); err != nil {
			return backend.Arg{}, err
		}
	}
	return backend.U64(p.tagValue(t)), nil
}

// Handshake matches every source whose strongest neighbour is mutual and
// sets its bit in Matched. While the arcs outnumber
// vertexAbove it reads Best per vertex instead of the arcs (the engine
// passes 2n: 8 bytes a vertex against 4 an arc); the pairs are the same.
func (f *MatchFast) Handshake(q backend.Queue, p *MatchPass, vertexAbove int) error {
	return f.launch(q, "matchHandshake", max(p.MaxArcs, p.N), backend.Buf(p.Src), backend.Buf(p.Best), backend.Buf(p.Match),
		backend.Buf(p.Matched), backend.Buf(p.Counts), backend.I32(int32(p.Slot)), backend.I32(int32(p.N)),
		backend.I32(int32(min(vertexAbove, math.MaxInt32))), backend.U64(p.tagValue(p.Tag)),
		backend.U64(p.tagValue(1<<p.TagBits-1)))
}

// MatchSpan is match_fast.cl's MATCH_SPAN: the tile kernels combine the
// per-source maxima of a tile whose sources span at most this many vertices
// in one local slot per vertex (8 bytes each).
const MatchSpan = 512

// MatchTileGroup is the largest work-group of the tile kernels.
const MatchTileGroup = 256

// Tiles returns the launch of the tile kernels for numArcs arcs: the
// work-group size, the number of groups and the number of tiles (the
// length of the tile-count array). The group size is min(Threads, Local
// when set, MatchTileGroup, the device's limit); Threads (0: the default) is rounded
// up to whole groups. The results do not depend on it.
func (f *MatchFast) Tiles(numArcs int) (group, groups, tiles int) {
	group = MatchTileGroup
	if f.Local > 0 && f.Local < group {
		group = f.Local
	}
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

// launchTiles launches a tile kernel sized for maxArcs arcs with
// localBytesPerItem bytes of local memory per work-item (plus localBytes)
// as its last argument.
func (f *MatchFast) launchTiles(q backend.Queue, name string, maxArcs, localBytesPerItem, localBytes int, args ...backend.Arg) error {
	if maxArcs == 0 {
		return nil
	}
	if maxArcs > math.MaxInt32-1 {
		return fmt.Errorf("%s: %d arcs exceed the kernels' 32-bit sizes", name, maxArcs)
	}
	group, groups, _ := f.Tiles(maxArcs)
	args = append(args, backend.Local(localBytesPerItem*group+localBytes))
	if err := q.Launch(f.k[name], backend.R1(group*groups, group), args...); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// MarkTiles writes each chunk's keep word (the low MatchChunk bits: the
// arcs with both ends' bits clear in Matched; above them, the arcs kept by
// the tile's earlier chunks) and each tile's kept count. The counts of the
// tiles past the pass's arcs are not written: zero the tiles that the scan
// reads (Tiles(MaxArcs)) first.
func (f *MatchFast) MarkTiles(q backend.Queue, p *MatchPass, mask, tileCount backend.Buffer) error {
	return f.launchTiles(q, "matchMarkTiles", p.MaxArcs, 8, 0, backend.Buf(p.Src), backend.Buf(p.Keys), backend.Buf(p.Matched),
		backend.Buf(mask), backend.Buf(tileCount), backend.Buf(p.Counts), backend.I32(int32(p.Slot)))
}

// PackTiles moves the kept arcs to NewSrc, NewKeys (tileOffset: the
// exclusive scan of the tile counts, mask: MarkTiles' keep words) and
// writes the next pass's Best entries over them (tag NextTag). Each
// work-group stages its tile's kept arcs in 12*MatchChunk bytes of local
// memory per work-item (24 KiB for 256).
func (f *MatchFast) PackTiles(q backend.Queue, p *MatchPass, mask, tileOffset backend.Buffer) error {
	tag, err := p.nextTag(q)
	if err != nil {
		return fmt.Errorf("matchPackTiles: %w", err)
	}
	return f.launchTiles(q, "matchPackTiles", p.MaxArcs, 12*MatchChunk, 8*MatchSpan, backend.Buf(p.Src), backend.Buf(p.Keys), backend.Buf(mask),
		backend.Buf(tileOffset), backend.Buf(p.NewSrc), backend.Buf(p.NewKeys), backend.Buf(p.Best),
		backend.Buf(p.Counts), backend.I32(int32(p.Slot)), tag)
}

// Lookback is the state matchFilter keeps between passes: a status word per
// tile, two tile counters and the pass's epoch.
type Lookback struct {
	status, counter backend.Buffer
	tiles           int
	epoch           int32
}

// NewLookback allocates the look-back state in bs for passes of at most
// maxArcs arcs.
func (f *MatchFast) NewLookback(bs *backend.Buffers, maxArcs int) *Lookback {
	_, _, tiles := f.Tiles(maxArcs)
	return &Lookback{status: backend.Upload(bs, make([]uint64, max(tiles, 1))), counter: backend.Upload(bs, make([]int32, 2)), tiles: tiles}
}

// Filter is mark, scan and pack in one launch (decoupled look-back): the
// kept arcs go to NewSrc, NewKeys, the next pass's Best entries (tag
// NextTag) are computed over them, and Counts[Slot+1] receives their number. It relies on work-groups that, once
// started, keep running while others wait on them: true of CUDA, AMD and
// Intel GPUs, PoCL and the CPU backend, not promised by OpenCL in general
// (MarkTiles, a scan and PackTiles do without).
func (f *MatchFast) Filter(q backend.Queue, p *MatchPass, lb *Lookback) error {
	if p.MaxArcs > math.MaxInt32-1 {
		return fmt.Errorf("matchFilter: %d arcs exceed the kernels' 32-bit sizes", p.MaxArcs)
	}
	group, groups, tiles := f.Tiles(p.MaxArcs)
	if tiles > lb.tiles {
		return fmt.Errorf("matchFilter: %d tiles, the look-back state holds %d", tiles, lb.tiles)
	}
	if lb.epoch == math.MaxInt32 {
		return fmt.Errorf("matchFilter: epochs exhausted")
	}
	tag, err := p.nextTag(q)
	if err != nil {
		return fmt.Errorf("matchFilter: %w", err)
	}
	lb.epoch++
	args := []backend.Arg{backend.Buf(p.Src), backend.Buf(p.Keys), backend.Buf(p.Matched), backend.Buf(lb.status),
		backend.Buf(lb.counter), backend.Buf(p.NewSrc), backend.Buf(p.NewKeys), backend.Buf(p.Best), backend.Buf(p.Counts),
		backend.I32(int32(p.Slot)), backend.I32(lb.epoch), tag, backend.Local(12*MatchChunk*group + 8*MatchSpan + 4*(2*group+2))}
	if err := q.Launch(f.k["matchFilter"], backend.R1(group*groups, group), args...); err != nil {
		return fmt.Errorf("matchFilter: %w", err)
	}
	return nil
}
