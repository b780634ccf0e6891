package mcs

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/arbor-gpu/arbor/algorithms/mcs/kernel"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device/search"
)

// deviceFanout is how many subtasks a subtree that overran its budget on
// a device is split into: enough to spread it over a cluster's workers at
// once.
const deviceFanout = 16

// DeviceSubtrees solves subtrees of one prepared instance on one device
// (a cluster worker's device keeps one per job). The kernel, its buffers
// and its queue are made once and reset for every subtree. Not safe for
// concurrent use.
type DeviceSubtrees struct {
	p     *problem[uint8]
	shape kernel.MCSplitShape
	q     backend.Queue
	k     *kernel.MCSplit
	unit  search.Unit
	name  string
}

// OnDevice readies dev for SolveSubtree on pr's instance. workers is the
// device engine's number of workers (0 sizes it from the device). The
// device engine takes undirected graphs without edge labels of at most
// kernels.MCSplitMaxVertices vertices; for anything else OnDevice says why
// it cannot.
func (pr *Prepared) OnDevice(dev backend.Device, workers int) (*DeviceSubtrees, error) {
	p, ok := pr.impl.(*problem[uint8])
	if !ok {
		return nil, errors.New("mcs: the device engine does not support directed graphs or edge labels")
	}
	if why := deviceUnsupported(p.n0, p.n1, p.opts); why != "" {
		return nil, fmt.Errorf("mcs: the device engine does not support %s", why)
	}
	info := dev.Info()
	opts := p.opts
	opts.Workers = workers
	shape := deviceShape(p, info, opts)
	q, err := dev.NewQueue()
	if err != nil {
		return nil, fmt.Errorf("mcs: %s: %w", info, err)
	}
	words := shape.Words()
	k, err := kernel.NewMCSplit(dev, q, shape, bitRows(p.adj0, p.n0, words), bitRows(p.adj1, p.n1, words), p.deviceTwins(words))
	if err != nil {
		q.Release()
		return nil, fmt.Errorf("mcs: %s: %w", info, err)
	}
	d := &DeviceSubtrees{p: p, shape: shape, q: q, k: k, name: info.String()}
	d.unit = search.Unit{Queue: q, Kernel: &search.WithGoal{K: k, Goal: 1}, Workers: shape.Workers}
	return d, nil
}

// Release frees the device's kernel, buffers and queue.
func (d *DeviceSubtrees) Release() {
	d.k.Release()
	d.q.Release()
}

// SolveSubtree searches the subtree at path on the device, as
// Prepared.SolveSubtree does on the CPU. When the node budget runs out,
// the device's open work (its host pool, its ring and its workers'
// stacks) comes back as Rest, each piece a path the CPU or a device can
// continue from. Those paths name the same nodes as the tree's own, but
// take their steps in another order (see devicePath): they do not start
// with path. Improvements are reported once, when the search ends.
func (d *DeviceSubtrees) SolveSubtree(ctx context.Context, path []Step, so SubtreeOptions) (SubtreeResult, error) {
	res, err := d.SolveBatch(ctx, [][]Step{path}, so)
	if err != nil {
		var pe *PathError
		if errors.As(err, &pe) {
			return SubtreeResult{}, pe.Err
		}
		return SubtreeResult{}, err
	}
	return res[0], nil
}

// PathError is a path of a batch that names no node of the tree.
type PathError struct {
	Index int // in the batch
	Err   error
}

func (e *PathError) Error() string { return fmt.Sprintf("subtree %d of the batch: %v", e.Index, e.Err) }
func (e *PathError) Unwrap() error { return e.Err }

// SolveBatch searches the subtrees at paths in one device search, their
// roots the pool it starts from, with one incumbent and one node budget
// (so.NodeBudget) for them all: a device is only busy with far more work
// than one small subtree gives it. The results are per path; the best
// solution found and the nodes are reported in the first. When the budget
// runs out, the first result's Rest holds the whole batch's open work
// (SolveSubtree says how; a piece no longer tells which subtree it came
// from) and the other results have none. Nodes counts every node once
// over the pieces, as one uninterrupted search would (openRest says how).
// A path that names no node is a *PathError naming it.
func (d *DeviceSubtrees) SolveBatch(ctx context.Context, paths [][]Step, so SubtreeOptions) ([]SubtreeResult, error) {
	p := d.p
	if len(paths) == 0 {
		return nil, nil
	}
	w := p.newWorker(newShared(0), 1, true)
	all := make([][]op, len(paths))
	pool := make([][]uint64, len(paths))
	for k, path := range paths {
		ops := make([]op, len(path))
		for i, s := range path {
			if s.W < -1 {
				return nil, &PathError{k, fmt.Errorf("mcs: path step %d: bad candidate %d", i, s.W)}
			}
			ops[i] = op{s.V, s.W}
		}
		doms, err := w.follow(ops)
		if err != nil {
			return nil, &PathError{k, err}
		}
		all[k], pool[k] = ops, nodeTask(w, doms, d.shape)
	}
	incumbent := max(so.Incumbent, 0)
	st, proven, err := d.search(ctx, pool, so)
	if err != nil {
		return nil, err
	}
	res := make([]SubtreeResult, len(paths))
	cancelled := ctx.Err() != nil
	for k := range res {
		res[k].Cancelled = cancelled
	}
	res[0].Nodes = st.Nodes
	found, err := d.k.Best(d.q)
	if err != nil {
		return nil, fmt.Errorf("mcs: %s: reading the result: %w", d.name, err)
	}
	if len(found) > incumbent {
		cur := make([]pair, len(found))
		for i, b := range found {
			cur[i] = pair{int32(b[0]), int32(b[1])}
		}
		res[0].Size, res[0].Mapping = len(cur), p.mapping(cur)
		if so.Improved != nil {
			so.Improved(res[0].Mapping)
		}
	}
	if proven || cancelled {
		return res, nil
	}
	// Over budget: hand back what the device has not explored, pruned by
	// the best size known now.
	best := int32(max(incumbent, res[0].Size, st.Incumbent))
	open, err := d.k.OpenWork(d.q, st.Pool)
	if err == nil {
		var adjust int64
		if res[0].Rest, adjust, err = d.openRest(open, best); err == nil {
			res[0].Nodes += adjust
			return res, nil
		}
	}
	// The conversion failed (a bug): fall back to splitting each subtree
	// breadth first, losing the device's work.
	res[0].Rest = nil
	for k, ops := range all {
		subs, _, err := p.expand(ops, deviceFanout, len(ops)+8)
		if err != nil {
			return nil, err
		}
		for _, s := range subs {
			if s.Bound > int(best) && len(s.Path) > len(ops) {
				res[k].Rest = append(res[k].Rest, s)
			}
		}
	}
	return res, nil
}

// search runs one device search from the tasks of pool under so's
// incumbent, node budget and raises.
func (d *DeviceSubtrees) search(ctx context.Context, pool [][]uint64, so SubtreeOptions) (search.Status, bool, error) {
	incumbent := max(so.Incumbent, 0)
	if err := d.k.Reset(d.q, incumbent); err != nil {
		return search.Status{}, false, fmt.Errorf("mcs: %s: %w", d.name, err)
	}
	opt := search.Options{NodeLimit: so.NodeBudget, Pool: pool}
	if so.Raise != nil {
		best := incumbent
		opt.Between = func(devInc int) (int, bool) {
			for {
				select {
				case k, ok := <-so.Raise:
					if !ok {
						return max(best, devInc), false
					}
					best = max(best, k)
					continue
				default:
				}
				return max(best, devInc), false
			}
		}
	}
	st, proven, err := search.RunMany(ctx, []search.Unit{d.unit}, opt)
	if err != nil {
		return st, false, fmt.Errorf("mcs: %s: %w", d.name, err)
	}
	return st, proven, nil
}

// openRest turns the device's open work into subtasks whose bound beats
// best. It also returns what to add to the device's node count so that,
// over all the pieces, every node is counted once, as one uninterrupted
// search counts it: a child the device counted when its parent generated
// it is counted again as the root of its subtask, so a kept one is taken
// off; an uncounted one pruned here would have been counted on entering
// it, so it is added.
func (d *DeviceSubtrees) openRest(open []kernel.MCSplitOpen, best int32) ([]Subtask, int64, error) {
	p := d.p
	w := p.newWorker(newShared(0), 1, true)
	var rest []Subtask
	var adjust int64
	add := func(path []op, counted bool) error {
		doms, err := w.follow(path)
		if err != nil {
			return fmt.Errorf("mcs: device work rebuilt as %v: %w", path, err)
		}
		switch bound, _ := w.choose(doms); {
		case bound > best:
			rest = append(rest, Subtask{Path: toSteps(path), Bound: int(bound)})
			if counted {
				adjust--
			}
		case !counted:
			adjust++
		}
		return nil
	}
	for _, o := range open {
		path := p.devicePath(o, d.shape.Words())
		if o.V < 0 {
			if err := add(path, o.Counted); err != nil {
				return nil, 0, err
			}
			continue
		}
		for _, x := range o.Cands {
			if err := add(appendOp(path, op{o.V, x}), true); err != nil {
				return nil, 0, err
			}
		}
		if o.Skip {
			if err := add(appendOp(path, op{o.V, -1}), false); err != nil {
				return nil, 0, err
			}
		}
	}
	return rest, adjust, nil
}

// devicePath is a path to the device node o (for an expanded one, to the
// node with o.V still free). A node's bidomains depend only on its matched
// pairs and on which left vertices are gone: the free vertices of each
// root bidomain (one per vertex key: label and self-loop) split by their
// adjacency to the matched ones, whatever the order of the steps, and the
// parts with an empty side are dropped. follow takes the steps in any
// order, so the path first leaves unmatched every root left vertex that
// is neither matched nor in one of o's left sets (some left by "v
// unmatched", some dropped with a part whose right side ran empty: their
// part at o has no right vertex either, so leaving them out early changes
// no part that o keeps), then matches o's pairs in their order: when a
// pair is matched, its vertices share the part they shared on the device,
// which split by the same matched vertices. TestDeviceOpenPaths checks
// that the CPU reaches exactly the device's bidomains.
func (p *problem[C]) devicePath(o kernel.MCSplitOpen, words int) []op {
	free := make([]uint64, words)
	for i := 0; i+words <= len(o.Doms); i += 2 * words {
		for k := range free {
			free[k] |= o.Doms[i+k]
		}
	}
	in := func(x int32) bool { return free[x/64]>>(x%64)&1 != 0 }
	if o.V >= 0 {
		free[o.V/64] |= 1 << (o.V % 64)
	}
	for _, pr := range o.Pairs {
		free[pr[0]/64] |= 1 << (pr[0] % 64)
	}
	var gone []int32
	for _, d := range p.doms {
		for _, x := range p.left[d.l : d.l+d.ll] {
			if !in(x) {
				gone = append(gone, x)
			}
		}
	}
	slices.Sort(gone)
	if p.prune {
		// In the pruned tree a twin class's members not matched are all
		// free or all gone (R2 leaves them out together, a part is
		// dropped whole), and the matched ones come before them: leaving
		// the first gone member out leaves out the rest (follow's R2).
		gone = firstOfClass(gone, p.twins.cls0)
	}
	path := make([]op, 0, len(gone)+len(o.Pairs)+1)
	for _, x := range gone {
		path = append(path, op{x, -1})
	}
	for _, pr := range o.Pairs {
		path = append(path, op{pr[0], pr[1]})
	}
	return path
}

// nodeTask is the node w has followed a path to, as a fresh device task:
// its matched pairs and its bidomains, not yet counted (the task's
// searcher counts it, as the CPU engine counts a task root).
func nodeTask(w *worker[uint8], doms []bidomain, s kernel.MCSplitShape) []uint64 {
	words := s.Words()
	t := make([]uint64, s.TaskWords())
	pairs := t[4+words : 4+words+s.NMin()]
	for i, pr := range w.cur {
		pairs[i] = uint64(uint32(pr.v)) | uint64(uint32(pr.w))<<32
	}
	sets := t[4+words+s.NMin():]
	for i, d := range doms {
		l, r := sets[2*words*i:2*words*i+words], sets[2*words*i+words:2*words*(i+1)]
		for _, x := range w.left[d.l : d.l+d.ll] {
			l[x/64] |= 1 << (x % 64)
		}
		for _, x := range w.right[d.r : d.r+d.rl] {
			r[x/64] |= 1 << (x % 64)
		}
	}
	t[0] = uint64(len(w.cur)) | uint64(len(doms))<<32
	return t
}
