package core

// Status is what a solver's result says about the question it was asked.
// It lives in core, not in a package of its own, because every algorithm
// package already imports core (for Graph) and nothing else they share:
// one small type is not worth a package, and core knows nothing of
// devices or engines, so the type stays free of them.
type Status string

const (
	// StatusOptimal: the result is proven best (maximum or minimum). In a
	// goal run it also reaches the goal.
	StatusOptimal Status = "optimal"
	// StatusFeasible: the result is valid (checked) but not proven best:
	// the search stopped early, or, in a goal run (vc -k), a solution
	// reaching the goal was found without proving it best.
	StatusFeasible Status = "feasible"
	// StatusInfeasible: proven that no solution reaches the goal (no
	// common subgraph or clique of ≥ K vertices, no cover of ≤ K).
	StatusInfeasible Status = "infeasible"
)

// Proven reports whether the status is a proof (optimal or infeasible).
func (s Status) Proven() bool { return s == StatusOptimal || s == StatusInfeasible }

// MaxStatus is the status of a maximisation run (MCS, clique) that found
// a solution of size and finished its search when complete is set.
// goal ≤ 0 means no goal. A goal run freezes the incumbent at goal−1, so
// every solution of goal or more vertices stays reachable and the largest
// found is recorded: a complete goal run that reached goal has found the
// maximum (optimal), one that did not has proven none reaches it
// (infeasible). A search stopped early proves nothing (feasible), even
// when its solution meets the goal.
func MaxStatus(complete bool, size, goal int) Status {
	switch {
	case !complete:
		return StatusFeasible
	case goal > 0 && size < goal:
		return StatusInfeasible
	}
	return StatusOptimal
}
