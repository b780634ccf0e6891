package vertexcover

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// upOnSubproblem bounds the live graph of s as the search does (clique
// cover, merges, unit propagation with max-resolution) and checks what
// upBound leaves: still a partition of the live vertices into cliques
// (max-resolution moves vertices between cliques), the bound at or
// below the optimum. It returns the cliques max-resolution emptied and
// the clauses it joined.
func upOnSubproblem(s *state) (resolved, joined int, err error) {
	s.degreeOrder()
	order := s.cc.order
	defer s.clearCliques(order)
	lb := s.cliqueCover(order)
	lb += s.bitMergeSingles(order)
	before := nonEmptyCliques(s, order)
	extra := s.upBound(1 << 20)
	for _, j := range s.cc.joined[:s.cc.k] {
		if j {
			joined++
		}
	}
	members := map[int32][]int32{}
	for _, v := range order {
		members[s.cc.clique[v]] = append(members[s.cc.clique[v]], v)
	}
	for q, m := range members {
		if int(s.cc.size[q]) != len(m) {
			return 0, 0, fmt.Errorf("clique %d: size %d, %d members", q, s.cc.size[q], len(m))
		}
		if !s.isClique(m) {
			return 0, 0, fmt.Errorf("clique %d = %v is not a clique", q, m)
		}
	}
	resolved = before - len(members)
	if resolved < 0 || resolved > extra {
		return 0, 0, fmt.Errorf("%d cliques before, %d after, %d units of bound", before, len(members), extra)
	}
	kg, _ := s.extract(nil)
	if opt := bruteMin(kg); lb+extra > opt {
		return resolved, joined, fmt.Errorf("bound %d + %d above the optimum %d", lb, extra, opt)
	}
	return resolved, joined, nil
}

func nonEmptyCliques(s *state, order []int32) int {
	seen := map[int32]bool{}
	for _, v := range order {
		seen[s.cc.clique[v]] = true
	}
	return len(seen)
}

// maxResSubproblems runs check on random graphs of up to 16 vertices and
// on subproblems of them after random branchings and the reductions.
func maxResSubproblems(t *testing.T, check func(seed uint64, s *state)) {
	for seed := uint64(0); seed < 600; seed++ {
		n := 10 + int(seed%7)
		g := gnp(t, n, 0.2+float64(seed%5)*0.07, seed+52000)
		s := newState(g)
		if s.bits == nil {
			t.Fatal("a 16-vertex state without bitsets: max-resolution is not exercised")
		}
		check(seed, s)
		r := rand.New(rand.NewPCG(seed, 9))
		s.queueAll()
		s.reduce(noBudget)
		for step := 0; step < 4 && s.m > 0; step++ {
			check(seed, s)
			randomBranch(s, r)
			s.reduce(noBudget)
		}
	}
}

// TestMaxResolution: after unit propagation with max-resolution the
// clique cover is still a partition into cliques and the bound never
// exceeds the optimum, on many random subproblems; and max-resolution
// does fire.
func TestMaxResolution(t *testing.T) {
	resolved, joined, checked := 0, 0, 0
	maxResSubproblems(t, func(seed uint64, s *state) {
		k, j, err := upOnSubproblem(s)
		if err != nil {
			t.Fatalf("seed %d, %d vertices live: %v", seed, s.nAlive, err)
		}
		resolved += k
		joined += j
		checked++
	})
	if resolved < 20 || joined < 20 {
		t.Fatalf("max-resolution emptied %d cliques and joined %d clauses on %d subproblems: the test exercises too little", resolved, joined, checked)
	}
	t.Logf("%d subproblems, max-resolution emptied %d cliques and joined %d clauses", checked, resolved, joined)
}

// TestMaxResolutionMutation breaks max-resolution (regroup without its
// clique test; join leaving each clause alone, so that a set is counted
// and stays) and shows that the checks of TestMaxResolution catch each.
func TestMaxResolutionMutation(t *testing.T) {
	for _, m := range []int{mutantNoCliqueTest, mutantNoJoin} {
		caught, above := 0, 0
		maxResSubproblems(t, func(seed uint64, s *state) {
			s.cc.mutant = m
			defer func() { s.cc.mutant = 0 }()
			if _, _, err := upOnSubproblem(s); err != nil {
				caught++
				if strings.HasPrefix(err.Error(), "bound") {
					above++
				}
			}
		})
		if caught == 0 {
			t.Fatalf("mutant %d was never caught", m)
		}
		t.Logf("mutant %d caught on %d subproblems (%d with the bound above the optimum)", m, caught, above)
	}
}

// TestSolveMaxResolution: the search with max-resolution in its bound
// finds covers of the brute-force optimum size, verified, on random
// graphs of up to 16 vertices.
func TestSolveMaxResolution(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		n := 8 + int(seed%9)
		g := gnp(t, n, 0.15+float64(seed%6)*0.07, seed+53000)
		res, err := Solve(t.Context(), g, Options{Threads: 1, LocalSearch: -1})
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(g, res.Cover); err != nil || !res.Proven || len(res.Cover) != bruteMin(g) {
			t.Fatalf("seed %d: cover of %d (optimum %d), proven %v: %v", seed, len(res.Cover), bruteMin(g), res.Proven, err)
		}
	}
}
