// Package clique finds a maximum clique of a graph exactly, by bitset
// branch and bound in the style of Tomita's MCS and San Segundo's BBMC, on
// the CPU and (see Design below) on devices.
//
// The graph is held as a dense bit matrix, one row of uint64 words per
// vertex, after renumbering the vertices by a degeneracy (minimum-width)
// order: the vertex removed last from the min-degree peeling comes first.
// Every search node colours its candidate set greedily, one colour class
// at a time with word-parallel operations (BBMC), and branches on the
// candidates in reverse colour order, stopping as soon as |C| + colour(v)
// cannot beat the incumbent. Vertices whose colour is too small to ever be
// branched on are not even listed, as in BBMC.
//
// The bound is tightened, at nodes with at most 32 branching vertices, by
// MaxSAT-style inferences over the colour classes below the pruning
// threshold (the function tighten): MCS's Re-NUMBER (a vertex that would
// be branched on moves into a lower class where it conflicts with one
// vertex x only, x moving to a later lower class where it conflicts with
// none), BBMCX's infra-chromatic triples (a vertex with exactly one
// neighbour in each of two classes, those two neighbours non-adjacent,
// adds nothing to the bound of those classes) and, generalising the
// triples, failed-literal detection by unit propagation over the classes
// (as in Li and Quan's MaxSAT bounds). Every vertex so removed is one
// branch fewer; a node whose branching set empties is pruned.
// Options.PlainColouring switches it off. Measured on one core, p_hat500-3
// takes 21.8 M nodes in 36–41 s with plain colouring and 4.5 M in 34 s
// tightened; with two threads frb30-15-1 takes 114 M nodes in 179 s
// tightened, 226 M in 212 s with Re-NUMBER and triples only
// (docs/results/clique.md, the dated measurements).
//
// The first incumbent comes from the peeling order (its longest prefix
// that is a clique) and a greedy (most candidate neighbours first) run
// from the vertices of the densest core, or the caller's Options.Initial
// when larger; if it reaches the root bound (the smaller of max core + 1
// and a greedy colouring's colour count) the search is skipped.
//
// The parallel engine runs the same search on every core with a shared
// atomic incumbent. A worker that runs out of work says so; busy workers
// then give away the next untried child of the shallowest node on their
// path that still has one, named by the path of vertices chosen from the
// root (the child's clique) together with its candidate set, so that the
// receiver starts there without replaying anything. Sizes equal the
// sequential engine's; node counts differ because the incumbent improves
// at different moments.
//
// # Design and invariants
//
// The device engines (gpu, hybrid: device.go on algorithms/clique/kernel
// and the device search-tree layer) explore the plain-colouring tree: BBMC's
// bound without the tightening (the kernel colours greedily only). With the incumbent frozen (Options.Goal) the
// device's node count equals the sequential CPU engine's with
// PlainColouring started from a maximum clique, on every device and for
// every number of workers and devices; the fixed-goal tests hold it.
//
// For vertex cover's clique route (n − ω of the complement) the engine
// takes a known clique (Options.Initial: only larger ones are searched
// for) and the caller's bound (Options.UpperBound: the search stops when
// the incumbent reaches it), and returns a proven Result.UpperBound when
// stopped: the smaller of the degeneracy bound and a greedy colouring of
// the whole graph, which on complements of sparse graphs is far tighter.
//
// Where an engine runs is decided here: Place takes the devices a caller
// opened (gpu and hybrid need one, auto falls back to the CPU engine), and
// auto runs the hybrid only on a GPU with warp-level operations, and only
// on what the CPU engine alone has not settled within a short head start:
// the device wins wherever the CPU engine takes more than a few tens of
// milliseconds and loses on the easy instances it settles before the
// device has started. Nobody waits for the device (auto.go): with
// Options.Opening the CPU engine starts at once while the device opens in
// the background, an instance it settles first is answered without the
// device, and the hybrid takes over, from the CPU engine's best clique,
// once the device is open and the head start has passed.
package clique
