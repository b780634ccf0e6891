package mcs

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/core"
)

// openCase is random pair i of the open-work tests: 16 to 22 vertices,
// both heuristics, some with vertex labels, some with self-loops (which
// are part of a vertex's key).
func openCase(t *testing.T, rng *rand.Rand, i int) (g, h *core.Graph, opts Options) {
	opts = Options{VertexLabels: i%3 == 2, Heuristic: []Heuristic{MinMax, MinProduct}[i%2]}
	vl, loops := 0, 0.0
	if opts.VertexLabels {
		vl = 2
	}
	if i%4 == 3 {
		loops = 0.2
	}
	g = randomGraph(t, rng, 16+i%7, 0.3, false, vl, 0, loops)
	h = randomGraph(t, rng, 17+i%6, 0.35, false, vl, 0, loops)
	return g, h, opts
}

// domSets is a node's bidomains as sorted strings of their sets, for
// comparing nodes whatever the order of their bidomains; parts with an
// empty side are left out.
func domSets(sets [][2][]int32) []string {
	var out []string
	for _, s := range sets {
		if len(s[0]) == 0 || len(s[1]) == 0 {
			continue
		}
		l, r := slices.Sorted(slices.Values(s[0])), slices.Sorted(slices.Values(s[1]))
		out = append(out, fmt.Sprint(l, r))
	}
	slices.Sort(out)
	return out
}

func cpuSets(w *worker[uint8], doms []bidomain) [][2][]int32 {
	var out [][2][]int32
	for _, d := range doms {
		out = append(out, [2][]int32{slices.Clone(w.left[d.l : d.l+d.ll]), slices.Clone(w.right[d.r : d.r+d.rl])})
	}
	return out
}

func deviceSets(doms []uint64, words int) [][2][]int32 {
	var out [][2][]int32
	for i := 0; i+2*words <= len(doms); i += 2 * words {
		out = append(out, [2][]int32{bitList(doms[i : i+words]), bitList(doms[i+words : i+2*words])})
	}
	return out
}

func bitList(s []uint64) []int32 {
	var out []int32
	for x := 0; x < 64*len(s); x++ {
		if s[x/64]>>(x%64)&1 != 0 {
			out = append(out, int32(x))
		}
	}
	return out
}

// TestDeviceOpenPaths stops device searches at random points and checks
// that the path rebuilt for every piece of open work leads the CPU to
// exactly the device's node: the same bidomains (for an expanded node, the
// "v unmatched" child's, which the device holds), and that every
// candidate child can be followed.
func TestDeviceOpenPaths(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		rng := rand.New(rand.NewPCG(41, 5))
		var fresh, expanded int
		for i := 0; i < 8; i++ {
			g, h, opts := openCase(t, rng, i)
			pr, err := Prepare(g, h, opts)
			if err != nil {
				t.Fatal(err)
			}
			ds, err := pr.OnDevice(dev, 2+i%3)
			if err != nil {
				t.Fatal(err)
			}
			p := ds.p
			w := p.newWorker(newShared(0), 1, true)
			words := ds.shape.Words()
			// Some searches start from the root, some from more subtrees
			// than workers, so that unentered nodes wait in the ring.
			roots := []Subtask{{}}
			if i%2 == 1 {
				if roots, err = pr.Expand(24+8*i, 6); err != nil {
					t.Fatal(err)
				}
			}
			var pool [][]uint64
			for _, r := range roots {
				ops := make([]op, len(r.Path))
				for k, s := range r.Path {
					ops[k] = op{s.V, s.W}
				}
				doms, err := w.follow(ops)
				if err != nil {
					t.Fatal(err)
				}
				pool = append(pool, nodeTask(w, doms, ds.shape))
			}
			st, proven, err := ds.search(context.Background(), pool, SubtreeOptions{NodeBudget: 1})
			if err != nil {
				t.Fatal(err)
			}
			if proven {
				ds.Release()
				continue
			}
			open, err := ds.k.OpenWork(ds.q, st.Pool)
			ds.Release()
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range open {
				path := p.devicePath(o, words)
				if o.V < 0 {
					fresh++
				} else {
					expanded++
					path = appendOp(path, op{o.V, -1})
				}
				got, err := w.follow(path)
				if err != nil {
					t.Fatalf("pair %d: %+v rebuilt as %v: %v", i, o, path, err)
				}
				if a, b := domSets(cpuSets(w, got)), domSets(deviceSets(o.Doms, words)); !slices.Equal(a, b) {
					t.Fatalf("pair %d: path %v: CPU node %v, device node %v", i, path, a, b)
				}
				if !slices.EqualFunc(w.cur, o.Pairs, func(a pair, b [2]int32) bool { return a.v == b[0] && a.w == b[1] }) {
					t.Fatalf("pair %d: path %v matches %v, device %v", i, path, w.cur, o.Pairs)
				}
				for _, x := range o.Cands {
					if _, err := w.follow(appendOp(path[:len(path)-1], op{o.V, x})); err != nil {
						t.Fatalf("pair %d: candidate %d of %+v: %v", i, x, o, err)
					}
				}
			}
		}
		if fresh == 0 || expanded == 0 {
			t.Errorf("open work seen: %d unentered nodes, %d expanded ones; want both", fresh, expanded)
		}
		t.Logf("%d unentered nodes and %d expanded ones rebuilt", fresh, expanded)
	})
}

// TestDeviceOpenCovers solves random pairs piece by piece on the device
// with a tiny node budget, so that nearly every search stops and hands
// back its open work, and compares with the CPU engine.
func TestDeviceOpenCovers(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		rng := rand.New(rand.NewPCG(17, 23))
		total := 0
		for i := 0; i < 6; i++ {
			g, h, opts := openCase(t, rng, i)
			want, pr, ds := prepareOnDevice(t, dev, g, h, opts, 2+i%2)
			size, mapping, splits := solveOnDevice(t, pr, ds, i, 1, 4, 1)
			ds.Release()
			checkSubtreesAnswer(t, i, g, h, opts, want.Size, size, mapping)
			total += splits
		}
		if total == 0 {
			t.Error("no search ran out of its node budget: open work went untested")
		}
	})
}

// TestDeviceOpenCounts fixes the incumbent at the optimum, so the tree is
// the same whoever explores it, and solves it piece by piece with a tiny
// budget, the pieces going to the CPU engine, the device and device
// batches in turn.
// No node may be lost or explored twice: the nodes over all pieces equal
// one uninterrupted search's. (A child the device counted at its parent
// and handed back is counted again as its piece's root; SolveBatch takes
// it off its own count, so the sum is exact.)
func TestDeviceOpenCounts(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		rng := rand.New(rand.NewPCG(29, 31))
		for i := 0; i < 4; i++ {
			g, h, opts := openCase(t, rng, i)
			want := solveChecked(t, g, h, Options{Threads: 1, VertexLabels: opts.VertexLabels, Heuristic: opts.Heuristic})
			pr, err := Prepare(g, h, opts)
			if err != nil {
				t.Fatal(err)
			}
			ds, err := pr.OnDevice(dev, 3)
			if err != nil {
				t.Fatal(err)
			}
			fixed := SubtreeOptions{Incumbent: want.Size, Threads: 1}
			whole, err := pr.SolveSubtree(context.Background(), nil, fixed)
			if err != nil {
				t.Fatal(err)
			}
			onDev, err := ds.SolveSubtree(context.Background(), nil, fixed)
			if err != nil {
				t.Fatal(err)
			}
			if onDev.Nodes != whole.Nodes {
				t.Fatalf("pair %d: uninterrupted, the device counts %d nodes, the CPU %d", i, onDev.Nodes, whole.Nodes)
			}
			queue := [][]Step{nil}
			var nodes int64
			pieces := 0
			for len(queue) > 0 {
				// A turn of three: one piece on the device, a batch of
				// up to four on the device, one piece on the CPU.
				var results []SubtreeResult
				var err error
				switch pieces % 3 {
				case 2:
					var res SubtreeResult
					res, err = pr.SolveSubtree(context.Background(), queue[0], fixed)
					results, queue = []SubtreeResult{res}, queue[1:]
				case 0:
					so := fixed
					so.NodeBudget = 1
					var res SubtreeResult
					res, err = ds.SolveSubtree(context.Background(), queue[0], so)
					results, queue = []SubtreeResult{res}, queue[1:]
				default:
					so := fixed
					so.NodeBudget = 1
					n := min(4, len(queue))
					results, err = ds.SolveBatch(context.Background(), queue[:n], so)
					queue = queue[n:]
				}
				if err != nil {
					t.Fatal(err)
				}
				pieces++
				for _, res := range results {
					if res.Size != 0 {
						t.Fatalf("pair %d: found size %d beyond the optimum %d", i, res.Size, want.Size)
					}
					nodes += res.Nodes
					for _, r := range res.Rest {
						queue = append(queue, r.Path)
					}
				}
			}
			ds.Release()
			if pieces < 3 {
				t.Fatalf("pair %d: solved in %d pieces; the device should have stopped more often", i, pieces)
			}
			if nodes != whole.Nodes {
				t.Fatalf("pair %d: %d pieces count %d nodes, one search %d", i, pieces, nodes, whole.Nodes)
			}
			t.Logf("pair %d: %d nodes in %d pieces", i, nodes, pieces)
		}
	})
}
