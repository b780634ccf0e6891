package kernel

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/search"
)

// PartitionProblem is the constraint problem of the partition search.
type PartitionProblem struct {
	K    int     // cliques
	Part []int32 // clique of each vertex, 0..K-1; every clique non-empty; N = len(Part)
	Off  []int32 // CSR (len N+1) of the edges between vertices of different cliques
	Adj  []int32 // neighbours, ascending per vertex, symmetric
}

// PartitionLanes is the work-group size of vcls_epoch on GPUs: the loops
// a step shares out run over ~140 arcs and ~26 members, so two warps
// keep every lane busy most of the time. CPU devices take one work-item
// per chain (no barriers; PoCL compiles that fastest).
const PartitionLanes = 64

// The chain scalars of vcls_epoch (vcls.cl's CS_*).
const (
	vclsRNGWord = 0 // the splitmix64 state
	vclsStep    = 1 // the step counter, from 1
	vclsTotalW  = 2 // the weights of all edges together
	vclsSolved  = 3 // 1 once the chain has no violated pair
	vclsV       = 4 // violated pairs
	vclsBeta    = 5 // the degree bias, in 1024ths of the mean edge weight (0: none)
	vclsCSW     = 8
)

// PartitionBeta is the degree bias of every other chain (the odd ones), in
// 1024ths of the mean edge weight: a member's key is its score·1024 plus
// bias·(its degree above the least in its clique), bias = PartitionBeta ×
// the mean edge weight. partition.go's partDegBeta (0.02) on the CPU,
// where it takes 1.44× fewer steps to the optimum over frb45/frb50 but
// loses where an answer is not of low degree (frb45-21-3): hence half the
// chains.
const PartitionBeta = 20

// PartitionLS is Chains independent chains of the partition local search
// (algorithms/vertexcover/partition.go, with splitmix64 and a violated-pair
// matrix so that every device takes the same steps) on one device, their
// states kept on it between launches. Not safe for concurrent use.
type PartitionLS struct {
	Chains int

	p              PartitionProblem
	n, kw, arcs, m int
	lanes          int
	local          []int // bytes of each local-memory argument
	stateLocal     bool  // score, age and conf in local memory during a launch (VCLS_LOCAL)
	// stepBound bounds every chain's step counter (1 + the steps of all
	// launches): with the state local, ages are 32-bit, so Run keeps it
	// below vclsLocalSteps.
	stepBound      int64
	forgetAt       int64
	prog           backend.Program
	k, init        backend.Kernel
	bs             *backend.Buffers
	shape, part    backend.Buffer
	members, start backend.Buffer
	off, adj, rev  backend.Buffer
	padj           backend.Buffer // part[adj[i]]: the clique at the end of each arc
	ddeg           backend.Buffer // each vertex's degree above the least in its clique
	w, score, age  backend.Buffer
	conf, chosen   backend.Buffer
	vm, arc        backend.Buffer
	cs, found      backend.Buffer
}

// check validates p and returns the reverse arc of every arc.
func (p PartitionProblem) check() ([]int32, error) {
	n := len(p.Part)
	if p.K < 1 {
		return nil, fmt.Errorf("vcls: %d cliques", p.K)
	}
	if n < p.K || n > 1<<30 {
		return nil, fmt.Errorf("vcls: %d vertices for %d cliques", n, p.K)
	}
	size := make([]int, p.K)
	for v, q := range p.Part {
		if q < 0 || int(q) >= p.K {
			return nil, fmt.Errorf("vcls: vertex %d in clique %d of %d", v, q, p.K)
		}
		size[q]++
	}
	for q, s := range size {
		if s == 0 {
			return nil, fmt.Errorf("vcls: clique %d is empty", q)
		}
	}
	if len(p.Off) != n+1 || p.Off[0] != 0 || int(p.Off[n]) != len(p.Adj) || len(p.Adj) >= 1<<31-1 {
		return nil, fmt.Errorf("vcls: CSR of %d offsets and %d neighbours for %d vertices", len(p.Off), len(p.Adj), n)
	}
	for v := 0; v < n; v++ {
		lo, hi := p.Off[v], p.Off[v+1]
		if lo > hi {
			return nil, fmt.Errorf("vcls: offsets of vertex %d decrease (%d > %d)", v, lo, hi)
		}
		for i := lo; i < hi; i++ {
			u := p.Adj[i]
			switch {
			case u < 0 || int(u) >= n:
				return nil, fmt.Errorf("vcls: vertex %d has neighbour %d of %d vertices", v, u, n)
			case i > lo && u <= p.Adj[i-1]:
				return nil, fmt.Errorf("vcls: neighbours of vertex %d not strictly ascending", v)
			case p.Part[u] == p.Part[v]:
				return nil, fmt.Errorf("vcls: edge %d-%d inside clique %d (only edges between cliques belong in Adj)", v, u, p.Part[v])
			}
		}
	}
	rev := make([]int32, len(p.Adj))
	for v := 0; v < n; v++ {
		for i := p.Off[v]; i < p.Off[v+1]; i++ {
			u := p.Adj[i]
			j := vclsArc(p.Off, p.Adj, u, int32(v))
			if p.Off[u] == p.Off[u+1] || p.Adj[j] != int32(v) {
				return nil, fmt.Errorf("vcls: edge %d-%d has no arc back (Adj not symmetric)", v, u)
			}
			rev[i] = j
		}
	}
	return rev, nil
}

// NewPartitionLS builds the kernels for p on dev and starts chains chains
// (vcls_init: the greedy start), chain c's generator seeded from seed and c.
func NewPartitionLS(dev backend.Device, q backend.Queue, p PartitionProblem, chains int, seed uint64) (*PartitionLS, error) {
	return newPartitionLS(dev, q, p, chains, seed, partitionLanes(dev))
}

// partitionLanes is NewPartitionLS's lanes per chain on dev.
func partitionLanes(dev backend.Device) int {
	if dev.Info().Type == backend.TypeCPU {
		return 1
	}
	return PartitionLanes
}

// vclsLocalMax is the most local memory per chain that vcls_epoch takes
// to keep score, age and conf there (VCLS_LOCAL): below CUDA's 48 KiB
// default for dynamic shared memory, and small enough that several
// chains still share a multiprocessor. frb59-26-2 (N 1534) takes 23 KiB,
// so an H100 multiprocessor (228 KiB) still holds PartitionChains' 8
// chains; between about 27 and 40 KiB it holds 5 to 7, a trade that has
// not been timed.
const vclsLocalMax = 40 << 10

// vclsLocalSteps bounds a chain's steps while its state is local (ages
// of 32 bits there).
const vclsLocalSteps = 1 << 32

// newPartitionLS is NewPartitionLS with the lanes per chain (a power of
// two): the tests run the GPU's many-lane path on PoCL (4 and 64 lanes).
func newPartitionLS(dev backend.Device, q backend.Queue, p PartitionProblem, chains int, seed uint64, lanes int) (*PartitionLS, error) {
	return newPartitionLSLocal(dev, q, p, chains, seed, lanes, vclsLocalMax)
}

// vclsGroups is the number of groups at the first level of vcls.cl's
// vcls_reduce2 (VCLS_G).
func vclsGroups(lanes int) int {
	switch {
	case lanes >= 16:
		return 8
	case lanes > 1:
		return lanes / 2
	}
	return 1
}

// localSlice is a local-memory argument's bytes as CUDA places them (16-byte slices).
func localSlice(b int) int { return (b + 15) / 16 * 16 }

// newPartitionLSLocal is newPartitionLS with the cap on local memory per
// chain under which the chains' score, age and conf live in local memory
// during a launch; 0 keeps them in global memory (the tests' way to run
// that path on small problems).
func newPartitionLSLocal(dev backend.Device, q backend.Queue, p PartitionProblem, chains int, seed uint64, lanes, localMax int) (*PartitionLS, error) {
	rev, err := p.check()
	if err != nil {
		return nil, err
	}
	if chains < 1 || chains > 1<<24 {
		return nil, fmt.Errorf("vcls: %d chains", chains)
	}
	if mwg := dev.Info().MaxWorkGroup; lanes < 1 || lanes&(lanes-1) != 0 || (mwg > 0 && lanes > mwg) {
		return nil, fmt.Errorf("vcls: %d lanes per chain (want a power of two up to the device's %d)", lanes, mwg)
	}
	n, arcs := len(p.Part), len(p.Adj)
	kw := (p.K + 31) / 32
	s := &PartitionLS{Chains: chains, p: p, n: n, kw: kw, arcs: arcs, m: arcs / 2, lanes: lanes, stepBound: 1}
	// The launch's local memory (args) without and with the state.
	s.local = s.localSizes(false)
	local, withState := 0, 0
	for _, b := range s.local {
		local += localSlice(b)
	}
	for _, b := range s.localSizes(true) {
		withState += localSlice(b)
	}
	lm := dev.Info().LocalMemory
	if lm > 0 && uint64(local) > lm {
		return nil, fmt.Errorf("vcls: %d cliques need %d bytes of local memory per chain; the device has %d", p.K, local, lm)
	}
	inLocal := withState <= localMax && (lm == 0 || uint64(withState) <= lm)
	if inLocal {
		s.local, s.stateLocal = s.localSizes(true), true
	}
	// Forget when the mean edge weight reaches N/2 (partition.go's
	// partGamma 0.5, at least 2), capped so scores stay inside 31 bits.
	s.forgetAt = min(int64(s.m)*int64(max(n/2, 2)), 1<<30)
	defs := map[string]string{"LANES": fmt.Sprint(lanes), "VCLS_LOCAL": "0"}
	if inLocal {
		defs["VCLS_LOCAL"] = "1"
	}
	if s.prog, err = device.Build(dev, "vcls", defs, "vcls_init", "vcls_epoch"); err != nil {
		return nil, err
	}
	if s.k, err = s.prog.Kernel("vcls_epoch"); err == nil {
		s.init, err = s.prog.Kernel("vcls_init")
	}
	if err != nil {
		s.Release()
		return nil, fmt.Errorf("vcls: %w", err)
	}
	members, start := make([]int32, n), make([]int32, p.K+1)
	for _, c := range p.Part {
		start[c+1]++
	}
	for c := 0; c < p.K; c++ {
		start[c+1] += start[c]
	}
	fill := append([]int32(nil), start[:p.K]...)
	for v, c := range p.Part {
		members[fill[c]] = int32(v) // ascending within each clique
		fill[c]++
	}
	nonEmpty := func(x []int32) []int32 { // buffers need a size, graphs without edges have none
		if len(x) == 0 {
			return []int32{0}
		}
		return x
	}
	s.bs = backend.NewBuffers(dev, q)
	bs := s.bs
	s.shape = backend.Upload(bs, []int32{int32(n), int32(p.K), int32(s.kw), int32(arcs)})
	s.part = backend.Upload(bs, p.Part)
	s.members = backend.Upload(bs, members)
	s.start = backend.Upload(bs, start)
	s.off = backend.Upload(bs, p.Off)
	s.adj = backend.Upload(bs, nonEmpty(p.Adj))
	s.rev = backend.Upload(bs, nonEmpty(rev))
	padj := make([]int32, arcs)
	for i, u := range p.Adj {
		padj[i] = p.Part[u]
	}
	s.padj = backend.Upload(bs, nonEmpty(padj))
	s.ddeg = backend.Upload(bs, degreeAboveLeast(p, start, members))
	s.w = backend.AllocIn[int32](bs, chains*arcs)
	s.score = backend.AllocIn[int32](bs, chains*n)
	s.age = backend.AllocIn[int64](bs, chains*n)
	s.conf = backend.AllocIn[int32](bs, chains*n)
	s.chosen = backend.AllocIn[int32](bs, chains*p.K)
	s.vm = backend.AllocIn[uint32](bs, chains*p.K*s.kw)
	s.arc = backend.AllocIn[int32](bs, chains*p.K*p.K)
	cs := make([]int64, chains*vclsCSW)
	for c := 0; c < chains; c++ {
		cs[c*vclsCSW+vclsRNGWord] = int64(seed ^ (uint64(c+1) * vclsGolden))
		cs[c*vclsCSW+vclsStep] = 1
		cs[c*vclsCSW+vclsTotalW] = int64(s.m)
		if c%2 == 1 {
			cs[c*vclsCSW+vclsBeta] = PartitionBeta
		}
	}
	s.cs = backend.Upload(bs, cs)
	s.found = backend.Upload(bs, []int32{0})
	if err := bs.Err(); err != nil {
		s.Release()
		return nil, fmt.Errorf("vcls: %w", err)
	}
	if err := q.Launch(s.init, s.grid(), s.args(0, false)...); err != nil {
		s.Release()
		return nil, fmt.Errorf("vcls: start: %w", err)
	}
	return s, nil
}

func (s *PartitionLS) grid() backend.Range { return backend.R1(s.Chains*s.lanes, s.lanes) }

// localSizes are the bytes of the kernels' local-memory arguments: i64
// ages and score keys of the reductions (two levels) and the group sums,
// chosen, the per-row pair counts and the flags (K each), the pair
// matrix and the moved clique's new row ((K+1)·KW words), the
// reductions' vertices (two levels) with two stop slots; then age, score
// and conf (4, 4 and 1 bytes a vertex) when they live in local memory,
// else a token 16 bytes each (a local argument needs a size).
func (s *PartitionLS) localSizes(state bool) []int {
	L, K, G := s.lanes, s.p.K, vclsGroups(s.lanes)
	st := []int{16, 16, 16}
	if state {
		st = []int{4 * s.n, 4 * s.n, s.n} // age (32-bit there), score, conf
	}
	return append([]int{8 * (4*L + 4*G), 4 * K, 4 * K, 4 * K, 4 * (K + 1) * s.kw, 4 * (2*L + 2 + 2*G)}, st...)
}

// args are the arguments of both kernels (vcls.cl's VCLS_ARGS).
func (s *PartitionLS) args(steps int64, stopEarly bool) []backend.Arg {
	early := int32(0)
	if stopEarly {
		early = 1
	}
	args := []backend.Arg{backend.Buf(s.shape), backend.Buf(s.part), backend.Buf(s.members),
		backend.Buf(s.start), backend.Buf(s.off), backend.Buf(s.adj), backend.Buf(s.rev), backend.Buf(s.w),
		backend.Buf(s.score), backend.Buf(s.age), backend.Buf(s.conf), backend.Buf(s.chosen), backend.Buf(s.vm), backend.Buf(s.arc),
		backend.Buf(s.cs), backend.Buf(s.found), backend.I64(steps), backend.I32(early), backend.I64(s.forgetAt)}
	for _, b := range s.local {
		args = append(args, backend.Local(b))
	}
	// Last, so the twins' argument numbers stay as they were.
	return append(args, backend.Buf(s.padj), backend.Buf(s.ddeg))
}

// degreeAboveLeast is each vertex's degree (between cliques) above the
// least of its clique's members.
func degreeAboveLeast(p PartitionProblem, start, members []int32) []int32 {
	d := make([]int32, len(p.Part))
	for q := 0; q < p.K; q++ {
		ms := members[start[q]:start[q+1]]
		least := int32(1<<31 - 1)
		for _, v := range ms {
			least = min(least, p.Off[v+1]-p.Off[v])
		}
		for _, v := range ms {
			d[v] = p.Off[v+1] - p.Off[v] - least
		}
	}
	return d
}

// setBeta sets every chain's degree bias (beta(c) for chain c, 1024ths of
// the mean edge weight; 0 none) in place of the default, odd chains
// PartitionBeta: for the tests and measurements.
func (s *PartitionLS) setBeta(q backend.Queue, beta func(c int) int64) error {
	cs, err := s.scalars(q)
	if err != nil {
		return err
	}
	for c := 0; c < s.Chains; c++ {
		cs[c*vclsCSW+vclsBeta] = beta(c)
	}
	if err := backend.WriteSlice(q, s.cs, cs); err != nil {
		return fmt.Errorf("vcls: %w", err)
	}
	return nil
}

// Run runs one launch: every unsolved chain makes up to steps more steps.
// With stopEarly, chains also stop (at a multiple of 256 steps) once any
// chain has solved (a global flag): faster, but then state depends on
// timing. It reports whether any chain has solved.
func (s *PartitionLS) Run(q backend.Queue, steps int64, stopEarly bool) (bool, error) {
	if s.k == nil {
		return false, errors.New("vcls: Run after Release")
	}
	if steps < 0 {
		return false, fmt.Errorf("vcls: %d steps", steps)
	}
	if s.stateLocal && s.stepBound+steps >= vclsLocalSteps {
		// About 8 hours of one chain on an H100: the 32-bit ages of the
		// local state would wrap.
		if steps = vclsLocalSteps - 1 - s.stepBound; steps <= 0 {
			return false, fmt.Errorf("vcls: the chains have made %d steps, the most a run with 32-bit ages takes", s.stepBound)
		}
	}
	s.stepBound += steps
	err := q.Launch(s.k, s.grid(), s.args(steps, stopEarly)...)
	if err != nil {
		return false, fmt.Errorf("vcls: %w", err)
	}
	found := []int32{0}
	if err := backend.ReadSlice(q, s.found, found); err != nil {
		return false, fmt.Errorf("vcls: %w", err)
	}
	return found[0] != 0, nil
}

func (s *PartitionLS) scalars(q backend.Queue) ([]int64, error) {
	cs := make([]int64, s.Chains*vclsCSW)
	if err := backend.ReadSlice(q, s.cs, cs); err != nil {
		return nil, fmt.Errorf("vcls: %w", err)
	}
	return cs, nil
}

// Solution is the chosen vertex of each clique for the lowest-numbered
// solved chain, or nil.
func (s *PartitionLS) Solution(q backend.Queue) ([]int32, error) {
	cs, err := s.scalars(q)
	if err != nil {
		return nil, err
	}
	for c := 0; c < s.Chains; c++ {
		if cs[c*vclsCSW+vclsSolved] == 0 {
			continue
		}
		all := make([]int32, s.Chains*s.p.K)
		if err := backend.ReadSlice(q, s.chosen, all); err != nil {
			return nil, fmt.Errorf("vcls: %w", err)
		}
		return all[c*s.p.K : (c+1)*s.p.K], nil
	}
	return nil, nil
}

// Steps is the number of steps made by all chains together (each chain's
// step counter starts at 1 and counts every loop iteration, as
// partition.go's does).
func (s *PartitionLS) Steps(q backend.Queue) (int64, error) {
	cs, err := s.scalars(q)
	if err != nil {
		return 0, err
	}
	var sum int64
	for c := 0; c < s.Chains; c++ {
		sum += cs[c*vclsCSW+vclsStep] - 1
	}
	return sum, nil
}

// Release frees the kernel, program and buffers.
func (s *PartitionLS) Release() error {
	if s.init != nil {
		s.init.Release()
	}
	err := search.ReleaseSearch(s.k, s.bs, s.prog)
	*s = PartitionLS{}
	return err
}

// chainBytes is the device memory of one chain's state.
func (p PartitionProblem) chainBytes() int64 {
	n, kw := int64(len(p.Part)), int64((p.K+31)/32)
	return 4*int64(len(p.Adj)) + 16*n + 4*int64(p.K) + 4*int64(p.K)*kw + 4*int64(p.K)*int64(p.K) + 8*vclsCSW
}

// PartitionChains is a good number of chains for dev and the problem:
// one wave of work-groups that fills the device (on a CPU device, its
// compute units), capped so the chains' state (mostly the per-chain
// weights) uses at most a quarter of the device's global memory. On a GPU
// a chain is latency-bound (one step is ~6 µs of barriers and memory
// waits), so the more chains a multiprocessor holds at once the better,
// and what limits them is the local memory of the chains' state: frb59-26-2
// (17.5 KiB a chain) on the H100, M steps/s: 8 a multiprocessor 159, 12 211,
// 16 152 (more than fit: a second, partial wave). So as many as
// vclsSharedPerCU holds, 4 to 12; 8 when the state stays global.
func PartitionChains(dev backend.Device, p PartitionProblem) int {
	info := dev.Info()
	cu := max(info.ComputeUnits, 1)
	chains := cu
	if info.Type != backend.TypeCPU {
		per := 8
		est := &PartitionLS{p: p, n: len(p.Part), kw: (p.K + 31) / 32, lanes: PartitionLanes}
		local := 0
		for _, b := range est.localSizes(true) {
			local += localSlice(b)
		}
		if local <= vclsLocalMax {
			per = min(max(vclsSharedPerCU/local, 4), 12)
		}
		chains = per * cu
	}
	if info.GlobalMemory > 0 {
		limit := int64(info.GlobalMemory/4) / max(p.chainBytes(), 1)
		chains = int(min(int64(chains), limit))
	}
	return max(chains, 1)
}

// vclsSharedPerCU is the local memory a GPU multiprocessor is taken to
// give the chains: an H100 has 228 KiB, of which CUDA keeps 1 KiB a block;
// 12 chains of frb59-26-2 take 12 × (17.5 + 1) = 222 KiB.
const vclsSharedPerCU = 216 << 10

// partitionState is every chain's whole state, read back for the tests
// and checks (chain c's slice of each array is c's).
type partitionState struct {
	W, Score, Conf, Chosen []int32
	Age, Scalars           []int64
	VM                     []uint32
}

func (s *PartitionLS) state(q backend.Queue) (*partitionState, error) {
	c := s.Chains
	st := &partitionState{W: make([]int32, c*s.arcs), Score: make([]int32, c*s.n), Conf: make([]int32, c*s.n),
		Chosen: make([]int32, c*s.p.K), Age: make([]int64, c*s.n), VM: make([]uint32, c*s.p.K*s.kw)}
	var err error
	if st.Scalars, err = s.scalars(q); err != nil {
		return nil, err
	}
	for _, e := range []error{backend.ReadSlice(q, s.w, st.W), backend.ReadSlice(q, s.score, st.Score),
		backend.ReadSlice(q, s.conf, st.Conf), backend.ReadSlice(q, s.chosen, st.Chosen),
		backend.ReadSlice(q, s.age, st.Age), backend.ReadSlice(q, s.vm, st.VM)} {
		if e != nil {
			return nil, fmt.Errorf("vcls: %w", e)
		}
	}
	return st, nil
}

// outputs is the state as check outputs, in a fixed order.
func (st *partitionState) outputs() []device.Output {
	return []device.Output{device.Widen("scalars", st.Scalars), device.Widen("chosen", st.Chosen), device.Widen("score", st.Score),
		device.Widen("age", st.Age), device.Widen("conf", st.Conf), device.Widen("w", st.W), device.Widen("vm", st.VM)}
}

// plantedPartition is a random partition problem with an answer: k cliques
// of d vertices (clique q is vertices q·d .. q·d+d−1), each pair of
// vertices of different cliques joined with probability p, except the
// planted vertices (one per clique, its index drawn at random), which stay
// pairwise non-adjacent. It returns the problem and the planted choice.
func plantedPartition(rng *rand.Rand, k, d int, p float64) (PartitionProblem, []int32) {
	n := k * d
	plant := make([]int32, k)
	part := make([]int32, n)
	for q := range plant {
		plant[q] = int32(q*d + rng.IntN(d))
	}
	for v := range part {
		part[v] = int32(v / d)
	}
	lists := make([][]int32, n)
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if part[u] == part[v] || (plant[part[u]] == int32(u) && plant[part[v]] == int32(v)) {
				continue
			}
			if rng.Float64() < p {
				lists[u] = append(lists[u], int32(v))
				lists[v] = append(lists[v], int32(u))
			}
		}
	}
	off := make([]int32, n+1)
	var adj []int32
	for v, l := range lists {
		slices.Sort(l)
		adj = append(adj, l...)
		off[v+1] = int32(len(adj))
	}
	return PartitionProblem{K: k, Part: part, Off: off, Adj: adj}, plant
}

// vclsStateAfter runs chains chains of p on dev for launches launches of
// steps steps (stopEarly off, so the result is the same on every device)
// and returns their whole state. lanes 0 takes NewPartitionLS's choice;
// localMax is newPartitionLSLocal's (vclsLocalMax, or 0 for global state).
func vclsStateAfter(dev backend.Device, p PartitionProblem, chains int, seed uint64, lanes, localMax, launches int, steps int64) ([]device.Output, error) {
	q, err := dev.NewQueue()
	if err != nil {
		return nil, err
	}
	defer q.Release()
	if lanes == 0 {
		lanes = partitionLanes(dev)
	}
	s, err := newPartitionLSLocal(dev, q, p, chains, seed, lanes, localMax)
	if err != nil {
		return nil, err
	}
	defer s.Release()
	for i := 0; i < launches; i++ {
		if _, err := s.Run(q, steps, false); err != nil {
			return nil, err
		}
	}
	st, err := s.state(q)
	if err != nil {
		return nil, err
	}
	return st.outputs(), nil
}

// vclsCases are the conformance instances: planted ones where some chains
// solve within the budget and some do not, and a small unsolvable one
// whose weights are forgotten several times.
var vclsCases = []struct {
	name             string
	k, d             int
	p                float64
	seed             uint64
	chains, launches int
	steps            int64
}{
	// Near the threshold where planted answers get hard (about one
	// answer expected by chance), so that within 1500 steps some chains
	// solve and some do not; k 60 takes two words per matrix row.
	{"planted k30 d6 p0.12", 30, 6, 0.12, 0, 8, 3, 500},
	{"planted k60 d8 p0.13", 60, 8, 0.13, 1, 8, 3, 500},
	{"dense k6 d3 p0.8 (forgets)", 6, 3, 0.8, 3, 4, 3, 500},
}

// vclsProblem builds case i's instance.
func vclsProblem(i int) PartitionProblem {
	c := vclsCases[i]
	p, _ := plantedPartition(device.NewCheckRand(uint64(i)+71), c.k, c.d, c.p)
	if c.name[:5] == "dense" { // no planted answer: all pairs between cliques with probability p
		rng := device.NewCheckRand(uint64(i) + 171)
		n := c.k * c.d
		lists := make([][]int32, n)
		for u := 0; u < n; u++ {
			for v := u + 1; v < n; v++ {
				if u/c.d != v/c.d && rng.Float64() < c.p {
					lists[u] = append(lists[u], int32(v))
					lists[v] = append(lists[v], int32(u))
				}
			}
		}
		p.Off, p.Adj = make([]int32, n+1), nil
		for v, l := range lists {
			p.Adj = append(p.Adj, l...)
			p.Off[v+1] = int32(len(p.Adj))
		}
	}
	return p
}

// vclsChecks: every chain's whole state after a few launches equals the
// twin's on every device.
func vclsChecks() []device.Check {
	var out []device.Check
	for i, c := range vclsCases {
		out = append(out, device.Check{Kernel: "vcls_epoch", Case: fmt.Sprintf("%s, %d chains, %d×%d steps", c.name, c.chains, c.launches, c.steps),
			Size: c.k * c.d, Run: func(dev backend.Device) ([]device.Output, error) {
				return vclsStateAfter(dev, vclsProblem(i), c.chains, c.seed, 0, vclsLocalMax, c.launches, c.steps)
			}})
	}
	return out
}
