package mcs

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/core"
)

// subtreeCases runs check on random small pairs under every option set
// the subtree interface takes (all but big-first), half of them with
// planted twins, sparse to dense, with different densities in the two
// graphs on a third; it returns how many pairs check rejected.
func subtreeCases(t *testing.T, perSet int, seed uint64, check func(i int, g, h *core.Graph, opts Options, want int) bool) int {
	rng := rand.New(rand.NewPCG(seed, 45))
	bad := 0
	for _, set := range optionSets {
		if set.opts.BigFirst {
			continue
		}
		for i := 0; i < perSet; i++ {
			g, h := mixedPair(t, rng, i, set.maxN, set.directed, set.vl, set.el, set.loops)
			if !check(i, g, h, set.opts, bruteForce(g, h, set.opts)) {
				bad++
			}
		}
	}
	return bad
}

// treeByExpand is the node count of the tree searched as Expand's
// subtasks, each on one worker with the incumbent frozen at 0 (the tree
// Goal 1 searches: only bounds below 1 cut, as in expand), plus the nodes
// expand split or dropped on the way. With a correct expand it is the
// sequential search's count at goal 1.
func treeByExpand(t *testing.T, pr *Prepared) int64 {
	t.Helper()
	subs, split, err := pr.impl.expand(nil, 12, 3)
	if err != nil {
		t.Fatal(err)
	}
	paths := make([][]op, len(subs))
	for i, s := range subs {
		for _, st := range s.Path {
			paths[i] = append(paths[i], op{st.V, st.W})
		}
	}
	switch p := pr.impl.(type) {
	case *problem[uint8]:
		return split + frozenNodes(p, paths)
	case *problem[uint32]:
		return split + frozenNodes(p, paths)
	}
	t.Fatalf("unknown problem type %T", pr.impl)
	return 0
}

// frozenNodes searches the subtrees at paths one after the other on one
// worker with the incumbent frozen at 0 and returns the nodes counted.
func frozenNodes[C cell](p *problem[C], paths [][]op) int64 {
	sh := newShared(0)
	sh.frozen = true
	w := p.newWorker(sh, 1, false)
	for _, path := range paths {
		w.explore(w.rebuild(path))
	}
	w.flush()
	return w.nodes
}

// TestSubtreePruneBruteForce solves random small pairs the cluster's way
// (Expand, then subtasks under a budget of a few nodes, leftovers queued)
// in each search tree: sizes equal brute force and every mapping passes
// Verify. For none and rr (pairs of up to 7 vertices), the tree made of
// Expand's subtasks has the sequential engine's node count at goal 1
// (treeByExpand): expand's children are the pruned search's (R1's
// floors, R4, R3), not more and not fewer. (rr2's learned order depends on
// what a worker searched before, so its trees are not compared.)
// ARBOR_LONG=1 runs five times more.
func TestSubtreePruneBruteForce(t *testing.T) {
	perSet := 40
	if os.Getenv("ARBOR_LONG") == "1" {
		perSet *= 5
	}
	for _, mode := range []Pruning{PruneNone, PruneRR, PruneRR2} {
		t.Run(mode.String(), func(t *testing.T) {
			counted := 0
			bad := subtreeCases(t, perSet, 1+uint64(mode), func(i int, g, h *core.Graph, opts Options, want int) bool {
				opts.Prune = mode
				ok, n := checkSubtreePair(t, i, g, h, opts, want, 0)
				counted += n
				return ok
			})
			if bad > 0 {
				t.Fatalf("%d pairs wrong", bad)
			}
			t.Logf("%d trees counted", counted)
		})
	}
}

// TestSubtreePruneMutations breaks expand's pruned children in turn: R1's
// floor ignored (extra subtasks: the node counts differ) and R3 at a
// connected search's root (too few: sizes or counts differ). Each must be
// caught on some random pair.
func TestSubtreePruneMutations(t *testing.T) {
	for _, m := range []struct {
		name string
		mut  mutation
	}{{"floor ignored", mutExpandFloor}, {"R3 at the connected root", mutExpandR3Root}} {
		t.Run(m.name, func(t *testing.T) {
			bad := subtreeCases(t, 40, 7, func(i int, g, h *core.Graph, opts Options, want int) bool {
				opts.Prune = PruneRR
				ok, _ := checkSubtreePair(t, i, g, h, opts, want, m.mut)
				return ok
			})
			t.Logf("%s: %d pairs caught", m.name, bad)
			if bad == 0 {
				t.Errorf("mutation %q went unnoticed", m.name)
			}
		})
	}
}

// checkSubtreePair solves g, h subtree by subtree (with the mutation mut
// in expand: then failures are reported by the result, not the test) and
// checks the size, the mapping and, for none and rr on pairs of up to 7
// vertices, the node count of Expand's tree. It returns whether all held
// and whether a count was compared.
func checkSubtreePair(t *testing.T, i int, g, h *core.Graph, opts Options, want int, mut mutation) (bool, int) {
	t.Helper()
	pr, err := Prepare(g, h, opts)
	if err != nil {
		t.Fatal(err)
	}
	switch p := pr.impl.(type) {
	case *problem[uint8]:
		p.mutate = mut
	case *problem[uint32]:
		p.mutate = mut
	}
	fail := t.Errorf
	if mut != 0 {
		fail = func(string, ...any) {}
	}
	size, mapping, _ := solveBySubtrees(t, pr, 3, 1+i%2)
	if size != want {
		fail("%v: subtrees found %d, brute force %d\ng=%v\nh=%v", opts, size, want, g, h)
		return false, 0
	}
	if err := Verify(g, h, mapping, opts); err != nil {
		fail("%v: %v", opts, err)
		return false, 0
	}
	if opts.Prune == PruneRR2 || g.N > 7 || h.N > 7 {
		return true, 0
	}
	o := opts
	o.Goal, o.Threads = 1, 1
	seq := solveChecked(t, g, h, o)
	if got := treeByExpand(t, pr); got != seq.Nodes {
		fail("%v: Expand's subtasks count %d nodes, the sequential search %d\ng=%v\nh=%v", opts, got, seq.Nodes, g, h)
		return false, 1
	}
	return true, 1
}

// TestDeviceSubtreesPruned solves pairs with planted twins subtree by
// subtree on every device, in both trees, with budgets of one node, so
// that nearly every search hands its open work back as paths (devicePath:
// in the pruned tree a twin class left out is named by its first member,
// follow's R2 removes the rest), and the pieces go to the device, device
// batches and the CPU: the sizes equal the CPU engine's and the mappings
// are verified. Every piece of open work of a search stopped after one
// node must lead follow to the device's node (SolveBatch would otherwise
// fall back to expand, hiding a wrong path).
func TestDeviceSubtreesPruned(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		rng := rand.New(rand.NewPCG(61, 8))
		cases := pruneCases(t, rng, 10, 18)
		for i, c := range cases {
			for _, mode := range []Pruning{PruneRR, PruneNone} {
				opts := Options{VertexLabels: c[0].VertexLabels != nil, Prune: mode}
				want, pr, ds := prepareOnDevice(t, dev, c[0], c[1], opts, 2+i%2)
				checkOpenPaths(t, ds)
				size, mapping, _ := solveOnDevice(t, pr, ds, i, 1, 4, 1)
				ds.Release()
				checkSubtreesAnswer(t, i, c[0], c[1], opts, want.Size, size, mapping)
			}
		}
	})
}

// checkOpenPaths stops a search of ds from the root after one node and
// checks that every piece of its open work is followed by the CPU to the
// device's bidomains (for an expanded node, its "v unmatched" child's,
// compared when v has no twins: the device's frame holds them until R2
// takes them out on that branch).
func checkOpenPaths(t *testing.T, ds *DeviceSubtrees) {
	t.Helper()
	p := ds.p
	w := p.newWorker(newShared(0), 1, true)
	doms, err := w.follow(nil)
	if err != nil {
		t.Fatal(err)
	}
	st, proven, err := ds.search(context.Background(), [][]uint64{nodeTask(w, doms, ds.shape)}, SubtreeOptions{NodeBudget: 1})
	if err != nil || proven {
		return
	}
	open, err := ds.k.OpenWork(ds.q, st.Pool)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range open {
		path := p.devicePath(o, ds.shape.Words())
		if o.V >= 0 {
			path = appendOp(path, op{o.V, -1})
		}
		got, err := w.follow(path)
		if err != nil {
			t.Fatalf("%+v rebuilt as %v: %v", o, path, err)
		}
		if o.V >= 0 && p.prune && p.twins.cls0[o.V] >= 0 {
			continue // the device applies R2 when it takes that branch
		}
		if a, b := domSets(cpuSets(w, got)), domSets(deviceSets(o.Doms, ds.shape.Words())); !slices.Equal(a, b) {
			t.Fatalf("path %v: CPU node %v, device node %v", path, a, b)
		}
	}
}
