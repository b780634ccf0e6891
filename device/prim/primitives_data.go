package prim

import (
	"fmt"
	"math/bits"
	"os"
	"path/filepath"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device"
)

// primitiveDataGraphs are the real graphs the data checks use: small enough
// to keep `arbor verify` quick, varied in degree distribution.
var primitiveDataGraphs = []string{
	"vc/pace2019/vc-exact_001.gr",
	"vc/yamout2022/lastfm-asia.txt",
	"matching/suitesparse/delaunay_n10.mtx",
	"vc/bhoslib/frb30-15-1.mis",
}

// bitsetDataLimit bounds the vertices of graphs whose adjacency matrix the
// bitset check builds (n²/8 bytes).
const bitsetDataLimit = 8192

// primitiveDataChecks runs the primitives over the CSR arrays of real
// graphs, and checks the results against what the graph itself says (the
// degrees' scan is the offsets, a sorted neighbour list ends in its
// maximum, ...), so a wrong twin fails here too.
func primitiveDataChecks(dataDir string) []device.Check {
	if dataDir == "" {
		return nil
	}
	var out []device.Check
	for _, rel := range primitiveDataGraphs {
		path := filepath.Join(dataDir, rel)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		// Load now for the sizes in the table; a graph that does not load
		// still gets its checks, which then report the error.
		g, gerr := loadDataGraph(path)
		load := func() (*dataGraph, error) { return g, gerr }
		name := filepath.Base(rel)
		size := 0
		if gerr == nil {
			size = len(g.g.Adj)
		}
		withGraph := func(kernel, what string, body func(k *chk, g *dataGraph) ([]device.Output, error)) device.Check {
			return primCheck(kernel, name+" "+what, size, func(k *chk) ([]device.Output, error) {
				g, err := load()
				if err != nil {
					return nil, err
				}
				return body(k, g)
			})
		}
		out = append(out,
			withGraph("scan", "degrees", dataScan),
			withGraph("argmax", "degrees", dataArgmax),
			withGraph("segreduce", "neighbours", dataSegReduce),
			withGraph("compact", "degree >= average", dataCompact),
			withGraph("bitset", "common neighbours", dataBitset),
		)
	}
	return out
}

// dataGraph is a graph's CSR arrays in the primitives' int32 form.
type dataGraph struct {
	g       *core.Graph
	offsets []int32
	degrees []int32
}

func loadDataGraph(path string) (*dataGraph, error) {
	g, err := core.ReadGraph(path, core.ReadOptions{})
	if err != nil {
		return nil, err
	}
	d := &dataGraph{g: g, offsets: make([]int32, g.N+1), degrees: make([]int32, g.N)}
	for v, o := range g.Offsets {
		d.offsets[v] = int32(o)
	}
	for v := range d.degrees {
		d.degrees[v] = int32(g.Degree(v))
	}
	return d, nil
}

func dataScan(k *chk, d *dataGraph) ([]device.Output, error) {
	s, err := NewScan(k.dev)
	if err != nil {
		return nil, err
	}
	defer s.Release()
	n := d.g.N
	in, dst := chkUpload(k, d.degrees), chkAlloc[int32](k, n)
	total, err := s.Exclusive(k.q, in, dst, n)
	if err != nil {
		return nil, err
	}
	got := chkRead[int32](k, dst, n)
	for v := range got {
		if got[v] != d.offsets[v] {
			return nil, fmt.Errorf("%s: scan of degrees [%d] = %d, CSR offset is %d", d.g.Name, v, got[v], d.offsets[v])
		}
	}
	if total != int64(d.offsets[n]) {
		return nil, fmt.Errorf("%s: degree total %d, arcs %d", d.g.Name, total, d.offsets[n])
	}
	return []device.Output{device.Widen("out", got), oneOutput("total", total)}, nil
}

func dataArgmax(k *chk, d *dataGraph) ([]device.Output, error) {
	a, err := NewArgmax(k.dev)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	idx, v, err := a.Run(k.q, chkUpload(k, d.degrees), d.g.N)
	if err != nil {
		return nil, err
	}
	want := -1
	for u, deg := range d.degrees {
		if want < 0 || deg > d.degrees[want] {
			want = u
		}
	}
	if idx != want {
		return nil, fmt.Errorf("%s: argmax of degree is vertex %d (degree %d), want %d", d.g.Name, idx, v, want)
	}
	return []device.Output{oneOutput("index", int64(idx)), oneOutput("value", int64(v))}, nil
}

func dataSegReduce(k *chk, d *dataGraph) ([]device.Output, error) {
	s, err := NewSegReduce(k.dev)
	if err != nil {
		return nil, err
	}
	defer s.Release()
	n, arcs := d.g.N, len(d.g.Adj)
	sums, maxes, arg := chkAlloc[int64](k, n), chkAlloc[int32](k, n), chkAlloc[int32](k, n)
	if err := s.Run(k.q, chkUpload(k, d.offsets), chkUpload(k, d.g.Adj), n, arcs, SegOutputs{sums, maxes, arg}); err != nil {
		return nil, err
	}
	gm, ga := chkRead[int32](k, maxes, n), chkRead[int32](k, arg, n)
	for v := 0; v < n; v++ {
		if d.g.Degree(v) > 0 && (ga[v] != d.offsets[v+1]-1 || gm[v] != d.g.Adj[ga[v]]) {
			return nil, fmt.Errorf("%s: vertex %d: max neighbour %d at arc %d, the sorted list ends with %d at %d",
				d.g.Name, v, gm[v], ga[v], d.g.Adj[d.offsets[v+1]-1], d.offsets[v+1]-1)
		}
	}
	return []device.Output{device.Widen("sums", chkRead[int64](k, sums, n)), device.Widen("max", gm), device.Widen("argmax", ga)}, nil
}

func dataCompact(k *chk, d *dataGraph) ([]device.Output, error) {
	c, err := NewCompact(k.dev)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	n := d.g.N
	flags := make([]int32, n)
	want := 0
	for v, deg := range d.degrees {
		if int64(deg)*int64(n) >= int64(len(d.g.Adj)) {
			flags[v] = 1
			want++
		}
	}
	dst := chkAlloc[int32](k, n)
	kept, err := c.Indices(k.q, chkUpload(k, flags), n, dst)
	if err != nil {
		return nil, err
	}
	if kept != want {
		return nil, fmt.Errorf("%s: kept %d vertices, %d have at least average degree", d.g.Name, kept, want)
	}
	return []device.Output{oneOutput("kept", int64(kept)), device.Widen("indices", chkRead[int32](k, dst, kept))}, nil
}

func dataBitset(k *chk, d *dataGraph) ([]device.Output, error) {
	n := min(d.g.N, bitsetDataLimit) // the first vertices' rows on larger graphs
	words := (d.g.N + 63) / 64
	rows := make([]uint64, max(n*words, 1))
	for v := 0; v < n; v++ {
		for _, u := range d.g.Neighbors(v) {
			rows[v*words+int(u)/64] |= 1 << (uint(u) % 64)
		}
	}
	hub := 0
	for v := 0; v < n; v++ {
		if d.degrees[v] > d.degrees[hub] {
			hub = v
		}
	}
	mask := rows[hub*words : hub*words+words]
	b, err := NewBitsets(k.dev)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	counts := chkAlloc[int32](k, n)
	if err := b.AndCount(k.q, chkUpload(k, rows), n, words, words, chkUpload(k, mask), 0, counts); err != nil {
		return nil, err
	}
	got := chkRead[int32](k, counts, n)
	for v := 0; v < n; v++ {
		c := 0
		for w := 0; w < words; w++ {
			c += bits.OnesCount64(rows[v*words+w] & mask[w])
		}
		if int(got[v]) != c {
			return nil, fmt.Errorf("%s: vertex %d shares %d neighbours with hub %d, counted %d", d.g.Name, v, c, hub, got[v])
		}
	}
	return []device.Output{device.Widen("counts", got)}, nil
}
