// Package mcs finds a maximum common induced subgraph of two graphs with
// McSplit (McCreesh, Prosser and Trimble, IJCAI 2017).
//
// Two engines share one search routine. The sequential engine (Threads 1)
// explores exactly the search tree of the original McSplit program: the
// same vertex order (stable sort by degree, descending), the same initial
// bidomains (one per vertex label, self-loops counting as part of the
// label), the same bound, branching choice, candidate order and pruning,
// so its node count equals the original's (checked against the MIVIA
// reference counts). It keeps the original's compact representation,
// bidomains as ranges of two vertex arrays partitioned in place, and adds
// only shortcuts that leave the tree alone: the split of the left sets by
// v is made once per node instead of once per w, each bidomain caches its
// smallest left vertex, and the "v unmatched" tail call is a loop. A child
// that its bound will cut is counted as the node it is without being made
// whole: its split stops once the lost bound shows the cut, and with
// graphs of at most 64 vertices each bidomain also holds its sets as bit
// words, so the child's bound is counted with popcounts before any array
// is touched and a node's left split waits for its first child that is
// not cut (childOrCut, ensureLeft). Counting, polling, offering and
// giving work away see such a child as before.
//
// The parallel engine runs the same routine on every core with a shared
// atomic incumbent. A worker that runs out of work says so; busy workers
// then give away the first not-yet-started child of the shallowest node on
// their path, named by the path of decisions from the root, which the
// receiving worker replays. Sizes equal the sequential engine's; node
// counts differ because the incumbent improves at different moments.
//
// SolveMany extends the search to k ≥ 2 graphs (many.go; for k = 2 it is
// the sequential engine's tree, node for node) and, with
// Options.Approximate, intersects them one at a time instead (approx.go).
// Options.BlockOrder, DeadEnd and Restarts are optional exact heuristics,
// and EnginePortfolio runs several configurations side by side
// (portfolio.go). Design below; the dated measurements are
// docs/results/mcs.md.
//
// # Design and invariants
//
// The sequential tree is the reference. Every shortcut (the adjacency
// splits, the cached minima, the heuristics' bookkeeping) must leave it
// alone: the MIVIA tests compare node counts with the original's, and
// Options.Goal fixes the incumbent so that the gpu engine, every device
// and every worker count explore that same tree (node counts compare).
//
// The parallel engine does not start from the root alone: run splits the
// top of the tree into about 64 subtrees a thread (seed, breadth first)
// and queues them in the order the sequential search enters them
// (searchOrder). Started from the root, the first worker gave the root's
// far children away first and the others searched them under a weak
// incumbent (485 M nodes against the sequential 38 M on one pair);
// queuing by largest bound first broke the pairs whose early solutions
// come from the degree order. Goal and McSplit↓ searches still start
// from the root, so their node counts stay the sequential ones.
//
// k graphs (SolveMany): one class family spans all k graphs; a node picks
// v, then a vertex of its class in graph 2, 3, … (nested loops), then "v
// unmatched". The bound is |M| + Σ over classes of the smallest of the k
// set sizes; between the nested levels a class contributes at most the
// smallest split part so far, and prefixes pruned that way are not
// counted. For k = 2 the tree is the pair engine's node for node. The
// graphs are searched smallest first, then largest, second smallest, …
// (stable, so a pair keeps its order): starting from the smallest graph
// is what matters (2–600× fewer nodes than from the largest).
//
// Approximate: MCS(G1, G2) keeping up to Keep maximum solutions, then each
// kept one against G3, the best Keep handed on: k−1 steps of at most Keep
// pair searches. Never proven (k = 2 is the exact pair search, but is
// still reported approximate).
//
// The heuristics are exact by construction. BlockOrder (h1) only changes
// the vertex order, and the search is complete for every order. DeadEnd
// (h2) replaces a stalled search by target searches that prune every node
// whose bound is below a target T: a complete one either ends with best ≥
// T, having searched every node that could beat its final best (so best
// is optimal), or proves that nothing of size T exists; T rises after a
// stall and bisects (best, upper bound] after a failure, so it ends with
// best = upper bound (raiseTarget holds the proof). Restarts (h3) search
// the root's children in a random order under doubling node budgets and
// record the finished ones, so every child is eventually finished.
//
// The portfolio runs each configuration on its own prepared problem:
// vertex orders differ, so only incumbent sizes are traded (a bridge
// every millisecond, a device after each epoch). The first search to end
// unstopped has proven that nothing beats its final incumbent size, a
// size some search holds a solution of; every search returns its own
// best, so the largest returned is the answer.
//
// Where an engine runs is this package's decision, not its callers':
// Place takes the devices a caller opened and returns those the engine
// gets (a CPU device runs the kernel's Go twin on the very cores the
// portfolio's CPU searches use, so the portfolio leaves it out unless its
// backend was named), and chooseEngine says what auto runs on them and
// why (the device engine beats the CPU only with warp-level operations:
// CUDA, or OpenCL with a sub-group path).
package mcs
