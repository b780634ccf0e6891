// Package vertexcover finds minimum vertex covers, and covers within a size
// bound (the parameterized mode, Options.K), with one result type and one
// independent checker (Verify) for every engine (Engine, ParseEngine):
// branch and reduce on the CPU (branch; the reference every other engine is
// checked against), the clique route on dense kernels (clique: n − ω of the
// complement, through algorithms/clique), auto (the two raced, by density; the device joins where it wins)
// and the device engines gpu and hybrid (device.go on kernel/, the search
// layer device/search).
//
// Where things are: vc.go (Options, Result, Solve), reduce.go, lp.go and
// packing.go (the reductions and packing constraints), bounds.go and
// merge.go (lower bounds), search.go and state.go (the branch and reduce
// tree, shared by all threads), greedy.go, local.go, ils.go, partition.go,
// lns.go (incumbents: greedy, NuMVC-style, iterated and partition local
// searches, the large neighbourhood search), dense.go and complement.go (the clique route),
// device.go and devls.go (the device engines and the device local search),
// auto.go (where auto lets the device join).
// Design reasoning: docs/design/vertexcover.md; measurements:
// docs/results/vertexcover.md.
//
// Invariants: every returned cover passes Verify, and a proven claim is
// never made without the search or a bound having settled it; in the
// parameterized mode the device's tree does not depend on who explores it
// (node counts equal on every device and in the twin).
//
// Every node reduces the graph to a fixed point (degree 0, degree 1,
// degree 2 with triangle or folding, domination, high degree against the
// remaining budget); the root adds a Nemhauser–Trotter LP reduction (from a
// Hopcroft–Karp matching of the bipartite double cover) and the unconfined
// rule. The lower bound is a greedy clique cover raised by unit
// propagation over its cliques (MaxSAT-style reasoning: each disjoint set
// of cliques no independent set can hit all of adds one), else a matching.
// Branching is on v, a member of largest degree of a packing constraint
// with two or three members left when there is one, else a
// maximum-degree vertex with the fewest edges among its neighbours
// (smallest index on ties): "v in the cover", then "N(v) in the cover";
// each branch adds Akiba and Iwata's packing constraints, which prune and
// force vertices below (packing.go). Mirror branching is available (Options.Mirrors) but off: at maximum-degree vertices of the
// benchmark graphs it almost never finds a mirror. Components are solved
// separately once the graph splits. The first incumbent comes from a
// minimum-degree greedy interleaved with the reductions; an NuMVC-style
// local search improves it and runs on beside the search (when the gap is
// within 1 %, on three quarters of the cores, with a local search over
// one-vertex-per-clique assignments where a clique partition's bound is
// the target on a dense kernel: see partition.go), and on large sparse
// kernels an iterated local search of (1,2)-swaps with perturbations aimed
// at the clique partition's uncovered cliques (ils.go) runs beside it or
// in its place, and a large neighbourhood search re-solves balls of the
// kernel exactly around the best cover (local search alone plateaus a
// few above the optimum there). All workers share one tree (idle workers
// are handed subtrees as op lists to replay) and one incumbent.
//
// Kernels (and components split off in the tree) of density at least
// DenseThreshold are solved as n − ω of their complement by the clique
// engine (algorithms/clique), given the greedy's independent set as its
// first clique and the root lower bound as its bound; on the top-level
// kernels it races branch and reduce, whose local search closes kernels
// with a tight lower bound at once. Options.Engine forces either route;
// Result.Engine and Result.Why say which settled the answer (dense.go,
// docs/design/vertexcover.md).
//
// The gpu and hybrid engines (device.go) run the root reductions here and
// search the kernel on a device with algorithms/vertexcover/kernel/vc.cl
// (a dense kernel: the clique engine's device search on its complement),
// alone or beside this engine with one incumbent; see
// docs/results/vertexcover.md for what the device does. Auto with a device
// (auto.go; Options.Opening, the device opened in the background) runs
// this engine at once, exactly as the cpu engine, and lets the device join
// only where it is measured to win: a root kernel that goes to the clique
// route and is still open when the device is, on a GPU with warp-level
// operations, gets the clique engine's device search beside the CPU
// engine; everything else (sparse kernels: branch and reduce) stays on
// the CPU, and nothing waits for the device.
package vertexcover
