package kernel

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/cpu"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/checktest"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// vclsScalar is chain c's scalar word i from a state's outputs.
func vclsScalar(out []device.Output, c, i int) int64 { return out[0].Values[c*vclsCSW+i] }

// TestVCLSChecks runs the conformance cases on the twin, checks that they
// exercise what they are meant to (some chains solved and some not; the
// dense case unsolved), then requires every device to leave the twin's
// state bit for bit: with its own lanes (1 on PoCL, 64 on a GPU) and, on
// OpenCL, with 4 and 64 lanes, the path a GPU takes (barriers, shared
// loops, reductions; fewer lanes than cliques and more); each with the
// chains' score, age and conf in local memory and in global memory.
func TestVCLSChecks(t *testing.T) {
	checks := vclsChecks()
	if hasTransversal(vclsProblem(2)) {
		t.Fatal("the dense case has an answer: it would not run long enough to forget")
	}
	want := checktest.Twin(t, checks)
	for i, out := range want {
		c := checks[i]
		solved := 0
		for ch := 0; ch < vclsCases[i].chains; ch++ {
			if vclsScalar(out, ch, vclsSolved) != 0 {
				solved++
			}
		}
		t.Logf("%s: steps %v", c.Case, stepsOf(out, vclsCases[i].chains))
		if i < 2 && (solved == 0 || solved == vclsCases[i].chains) {
			t.Fatalf("%s: %d of %d chains solved: the planted cases should have both", c.Case, solved, vclsCases[i].chains)
		}
	}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		checktest.Match(t, dev, checks, want)
		// The same with the state in global memory (VCLS_LOCAL 0: a cap
		// of 0 bytes), the path of problems too large for local memory.
		for i, c := range vclsCases {
			got, err := vclsStateAfter(dev, vclsProblem(i), c.chains, c.seed, 0, 0, c.launches, c.steps)
			if err != nil {
				t.Fatalf("%s, state in global memory: %v", c.name, err)
			}
			if err := device.Compare(got, want[i]); err != nil {
				t.Errorf("%s, state in global memory: %v", c.name, err)
			}
		}
	})
	backendtest.ForBackend(t, "opencl", func(t *testing.T, dev backend.Device) {
		// The cases' state fits in local memory (VCLS_LOCAL 1); a cap of
		// 0 bytes keeps it in global memory, the path of large problems.
		for _, run := range []struct {
			lanes, localMax int
		}{{4, vclsLocalMax}, {64, vclsLocalMax}, {4, 0}, {64, 0}} {
			for i, c := range vclsCases {
				got, err := vclsStateAfter(dev, vclsProblem(i), c.chains, c.seed, run.lanes, run.localMax, c.launches, c.steps)
				if err != nil {
					t.Fatalf("%s, %d lanes, local cap %d: %v", c.name, run.lanes, run.localMax, err)
				}
				if err := device.Compare(got, want[i]); err != nil {
					t.Errorf("%s, %d lanes, local cap %d: %v", c.name, run.lanes, run.localMax, err)
				}
			}
		}
	})
}

// TestVCLSStatePlace: the wrapper keeps the state in local memory when it
// fits under the cap (every conformance case does), and in global memory
// under a cap of 0 or when it does not fit (frb59-26-2's size takes local
// memory, a problem of 4000 vertices does not).
func TestVCLSStatePlace(t *testing.T) {
	dev := cpu.New(0)
	q, _ := dev.NewQueue()
	for i, c := range vclsCases {
		for _, localMax := range []int{vclsLocalMax, 0} {
			s, err := newPartitionLSLocal(dev, q, vclsProblem(i), 1, c.seed, 64, localMax)
			if err != nil {
				t.Fatal(err)
			}
			if s.stateLocal != (localMax > 0) {
				t.Errorf("%s, cap %d: state in local memory %v", c.name, localMax, s.stateLocal)
			}
			s.Release()
		}
	}
	for _, tc := range []struct {
		k, d  int
		local bool
	}{{59, 26, true}, {100, 40, false}} {
		p := PartitionProblem{K: tc.k, Part: make([]int32, tc.k*tc.d), Off: make([]int32, tc.k*tc.d+1)}
		for v := range p.Part {
			p.Part[v] = int32(v / tc.d)
		}
		s, err := newPartitionLS(dev, q, p, 1, 1, PartitionLanes)
		if err != nil {
			t.Fatal(err)
		}
		local := 0
		for _, b := range s.local {
			local += localSlice(b)
		}
		t.Logf("K %d, N %d: %d bytes of local memory, state in local memory %v", tc.k, tc.k*tc.d, local, s.stateLocal)
		if s.stateLocal != tc.local {
			t.Errorf("K %d, N %d: state in local memory %v", tc.k, tc.k*tc.d, s.stateLocal)
		}
		s.Release()
	}
}

func stepsOf(out []device.Output, chains int) []int64 {
	s := make([]int64, chains)
	for c := range s {
		s[c] = vclsScalar(out, c, vclsStep)
	}
	return s
}

// hasTransversal says by brute force whether a small problem has an answer.
func hasTransversal(p PartitionProblem) bool {
	var rec func(q int, chosen []int32) bool
	rec = func(q int, chosen []int32) bool {
		if q == p.K {
			return true
		}
	next:
		for v := range p.Part {
			if p.Part[v] != int32(q) {
				continue
			}
			for _, u := range p.Adj[p.Off[v]:p.Off[v+1]] {
				if slices.Contains(chosen, u) {
					continue next
				}
			}
			if rec(q+1, append(chosen, int32(v))) {
				return true
			}
		}
		return false
	}
	return rec(0, nil)
}

// TestVCLSForgets: on the dense case the total weight falls between
// launches (only forgetting lowers it), and stays at or below forgetAt.
func TestVCLSForgets(t *testing.T) {
	dev := cpu.New(0)
	q, _ := dev.NewQueue()
	c := vclsCases[2]
	s, err := NewPartitionLS(dev, q, vclsProblem(2), c.chains, c.seed)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	prev := make([]int64, c.chains)
	forgot := 0
	for i := 0; i < 60; i++ {
		if _, err := s.Run(q, 25, false); err != nil {
			t.Fatal(err)
		}
		cs, err := s.scalars(q)
		if err != nil {
			t.Fatal(err)
		}
		for ch := range prev {
			tw := cs[ch*vclsCSW+vclsTotalW]
			if tw > s.forgetAt {
				t.Fatalf("chain %d: total weight %d above forgetAt %d", ch, tw, s.forgetAt)
			}
			if tw < prev[ch] {
				forgot++
			}
			prev[ch] = tw
		}
	}
	if forgot < c.chains {
		t.Fatalf("the weights were forgotten %d times in %d chains", forgot, c.chains)
	}
}

// checkPartition says whether sol picks one vertex of each clique, no two adjacent.
func checkPartition(t *testing.T, p PartitionProblem, sol []int32) {
	t.Helper()
	if len(sol) != p.K {
		t.Fatalf("solution of %d vertices for %d cliques", len(sol), p.K)
	}
	in := make(map[int32]bool)
	for q, v := range sol {
		if v < 0 || int(v) >= len(p.Part) || p.Part[v] != int32(q) {
			t.Fatalf("clique %d chose vertex %d", q, v)
		}
		in[v] = true
	}
	for _, v := range sol {
		for _, u := range p.Adj[p.Off[v]:p.Off[v+1]] {
			if in[u] {
				t.Fatalf("chosen vertices %d and %d are adjacent", v, u)
			}
		}
	}
}

// solvePartition runs chains until one solves (stopEarly) or maxSteps
// steps per chain, and returns the solution (nil if none) and the steps.
// lanes 0 takes NewPartitionLS's choice.
func solvePartition(t *testing.T, dev backend.Device, p PartitionProblem, chains int, seed uint64, maxSteps int64, lanes int) ([]int32, int64) {
	t.Helper()
	q, err := dev.NewQueue()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	s, err := NewPartitionLS(dev, q, p, chains, seed)
	if lanes != 0 {
		s, err = newPartitionLS(dev, q, p, chains, seed, lanes)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	const launch = 4096
	for done := int64(0); done < maxSteps; done += launch {
		found, err := s.Run(q, launch, true)
		if err != nil {
			t.Fatal(err)
		}
		if found {
			break
		}
	}
	sol, err := s.Solution(q)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := s.Steps(q)
	if err != nil {
		t.Fatal(err)
	}
	return sol, steps
}

// TestVCLSSolves: on a planted instance the chains find an answer on every
// device, and Solution returns a valid one.
func TestVCLSSolves(t *testing.T) {
	p, _ := plantedPartition(rand.New(rand.NewPCG(3, 4)), 25, 8, 0.3)
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		sol, steps := solvePartition(t, dev, p, 4, 11, 200000, 0)
		if sol == nil {
			t.Fatalf("no chain solved in %d steps", steps)
		}
		checkPartition(t, p, sol)
		t.Logf("solved after %d steps (all chains)", steps)
	})
	backendtest.ForBackend(t, "opencl", func(t *testing.T, dev backend.Device) {
		sol, steps := solvePartition(t, dev, p, 4, 11, 200000, 64)
		if sol == nil {
			t.Fatalf("64 lanes: no chain solved in %d steps", steps)
		}
		checkPartition(t, p, sol)
	})
}

// TestVCLSStopEarly: with stopEarly, once a chain has solved the others
// stop at their next multiple of 256 steps (or at the end of their budget,
// when they ran before the flag was set), on the twin and on PoCL with 1
// and 64 lanes (the lanes must agree on the flag, or the group would split
// at a barrier).
func TestVCLSStopEarly(t *testing.T) {
	p := vclsProblem(0)
	const budget = 100000
	check := func(t *testing.T, dev backend.Device, lanes int) {
		q, err := dev.NewQueue()
		if err != nil {
			t.Fatal(err)
		}
		defer q.Release()
		s, err := NewPartitionLS(dev, q, p, 8, 5)
		if lanes != 0 {
			s, err = newPartitionLS(dev, q, p, 8, 5, lanes)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer s.Release()
		found, err := s.Run(q, budget, true)
		if err != nil || !found {
			t.Fatalf("found %v, %v", found, err)
		}
		cs, err := s.scalars(q)
		if err != nil {
			t.Fatal(err)
		}
		steps := make([]int64, s.Chains)
		for c := 0; c < s.Chains; c++ {
			step := cs[c*vclsCSW+vclsStep]
			steps[c] = step
			if cs[c*vclsCSW+vclsSolved] == 0 && step%256 != 0 && step != budget+1 {
				t.Errorf("chain %d stopped unsolved at step %d", c, step)
			}
		}
		t.Logf("steps %v (budget %d)", steps, budget)
		sol, err := s.Solution(q)
		if err != nil {
			t.Fatal(err)
		}
		checkPartition(t, p, sol)
	}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) { check(t, dev, 0) })
	backendtest.ForBackend(t, "opencl", func(t *testing.T, dev backend.Device) { check(t, dev, 64) })
}

// TestVCLSBHOSLIB: frb30-15-1 (cliques of 15 consecutive vertices) is
// solved within a bounded number of steps on every device (the twin and
// PoCL here).
func TestVCLSBHOSLIB(t *testing.T) {
	dir := dataset.Require(t, "vc/bhoslib")
	p, err := bhoslibProblem(dir, "frb30-15-1")
	if err != nil {
		t.Fatal(err)
	}
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		start := time.Now()
		sol, steps := solvePartition(t, dev, p, 4, 1, 2000000, 0)
		if sol == nil {
			t.Fatalf("frb30-15-1: no chain solved in %d steps", steps)
		}
		checkPartition(t, p, sol)
		t.Logf("frb30-15-1 solved: %d steps over 4 chains in %v", steps, time.Since(start))
	})
}

// TestVCLSBadInput: malformed problems are errors, not panics.
func TestVCLSBadInput(t *testing.T) {
	dev := cpu.New(0)
	q, _ := dev.NewQueue()
	good := func() PartitionProblem { // cliques {0,1} {2,3}, edges 0-2 and 1-3
		return PartitionProblem{K: 2, Part: []int32{0, 0, 1, 1}, Off: []int32{0, 1, 2, 3, 4}, Adj: []int32{2, 3, 0, 1}}
	}
	s, err := NewPartitionLS(dev, q, good(), 2, 1)
	if err != nil {
		t.Fatalf("good problem: %v", err)
	}
	if sol, steps := solvePartition(t, dev, good(), 2, 1, 10000, 0); sol == nil {
		t.Fatalf("good problem unsolved after %d steps", steps)
	}
	s.Release()
	for name, mod := range map[string]func(p *PartitionProblem){
		"no cliques":          func(p *PartitionProblem) { p.K = 0 },
		"clique out of range": func(p *PartitionProblem) { p.Part[1] = 2 },
		"negative clique":     func(p *PartitionProblem) { p.Part[1] = -1 },
		"empty clique":        func(p *PartitionProblem) { p.K = 3 },
		"short offsets":       func(p *PartitionProblem) { p.Off = p.Off[:4] },
		"offsets vs adj":      func(p *PartitionProblem) { p.Adj = p.Adj[:3] },
		"offsets decrease":    func(p *PartitionProblem) { p.Off[1], p.Off[2] = 2, 1 },
		"neighbour range":     func(p *PartitionProblem) { p.Adj[0] = 7 },
		"edge in a clique":    func(p *PartitionProblem) { p.Adj[0], p.Adj[2] = 1, 3 },
		"asymmetric":          func(p *PartitionProblem) { p.Adj[0] = 3 },
		"nil":                 func(p *PartitionProblem) { *p = PartitionProblem{K: 1} },
	} {
		p := good()
		mod(&p)
		if s, err := NewPartitionLS(dev, q, p, 2, 1); err == nil {
			s.Release()
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if _, err := NewPartitionLS(dev, q, good(), 0, 1); err == nil {
		t.Error("0 chains: no error")
	}
	// Too many cliques for the local memory: an error before any launch.
	big := PartitionProblem{K: 1 << 12, Part: make([]int32, 1<<12), Off: make([]int32, 1<<12+1)}
	for v := range big.Part {
		big.Part[v] = int32(v)
	}
	if _, err := NewPartitionLS(dev, q, big, 1, 1); err == nil {
		t.Error("4096 cliques: no error about local memory")
	} else {
		t.Log(err)
	}
}

// TestPartitionChains: a device gets at least one chain, and the cap on
// memory holds.
func TestPartitionChains(t *testing.T) {
	p, _ := plantedPartition(rand.New(rand.NewPCG(1, 2)), 10, 4, 0.3)
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		c := PartitionChains(dev, p)
		info := dev.Info()
		if c < 1 || (info.GlobalMemory > 0 && int64(c)*p.chainBytes() > int64(info.GlobalMemory/4) && c > 1) {
			t.Fatalf("%d chains for %d compute units, %d bytes", c, info.ComputeUnits, info.GlobalMemory)
		}
		t.Logf("%s: %d chains", info.Name, c)
	})
}

// TestVCLSStepLimit: with the state in local memory (32-bit ages), Run
// stops the chains short of 2^32 steps and then refuses to go on.
func TestVCLSStepLimit(t *testing.T) {
	dev := cpu.New(0)
	q, err := dev.NewQueue()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	p, _ := plantedPartition(rand.New(rand.NewPCG(5, 6)), 10, 4, 0.3)
	s, err := NewPartitionLS(dev, q, p, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	if !s.stateLocal {
		t.Skip("the state is not local on the CPU backend")
	}
	s.stepBound = vclsLocalSteps - 10
	if _, err := s.Run(q, 100, false); err != nil {
		t.Fatalf("the last steps: %v", err)
	}
	if s.stepBound != vclsLocalSteps-1 {
		t.Fatalf("step bound %d after the capped launch, want %d", s.stepBound, vclsLocalSteps-1)
	}
	if _, err := s.Run(q, 1, false); err == nil {
		t.Fatal("a launch past 2^32 steps accepted")
	}
}

// bhoslibProblem reads frbN-K-i (plain or gzip) with its planted cliques
// of K consecutive vertices.
func bhoslibProblem(dir, name string) (PartitionProblem, error) {
	path := filepath.Join(dir, name+".mis")
	if _, err := os.Stat(path); err != nil {
		path += ".gz"
	}
	g, err := core.ReadGraph(path, core.ReadOptions{})
	if err != nil {
		return PartitionProblem{}, err
	}
	var n, k, i int
	if _, err := fmt.Sscanf(strings.ReplaceAll(name, "-", " "), "frb%d %d %d", &n, &k, &i); err != nil || n*k != g.N {
		return PartitionProblem{}, fmt.Errorf("%s: not an frbN-K-i name of %d vertices", name, g.N)
	}
	p := PartitionProblem{K: n, Part: make([]int32, g.N), Off: make([]int32, g.N+1)}
	for v := range p.Part {
		p.Part[v] = int32(v / k)
	}
	for v := 0; v < g.N; v++ {
		for _, u := range g.Neighbors(v) {
			if p.Part[u] != p.Part[v] {
				p.Adj = append(p.Adj, u)
			}
		}
		p.Off[v+1] = int32(len(p.Adj))
	}
	return p, nil
}
