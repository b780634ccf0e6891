// Package kcount counts the k-cliques of a graph exactly: the number of
// vertex sets of size k that are pairwise adjacent (k = 1: the vertices,
// k = 2: the edges).
//
// The CPU engine orients every edge along a degeneracy order (the
// min-degree peeling order: a vertex's later neighbours number at most the
// degeneracy d), so each k-clique is counted once, from its earliest
// vertex v, as a (k−1)-clique among v's later neighbours. That set has at
// most d vertices: the engine builds its induced subgraph as a small dense
// bit matrix (again oriented, row j holding only later vertices) and
// counts by depth-first search over candidate bitsets, a child's
// candidates being the word-wise AND of its parent's with a row; one level
// above the leaves it sums popcounts instead of descending, and a node
// whose candidates cannot complete a k-clique is never entered. Start
// vertices are shared by the threads, largest neighbourhood first. This is
// the shape of Chiba and Nishizeki's arboricity algorithm and of Danisch,
// Balalau and Sozio's kClist, with bitsets in place of sorted lists.
//
// The gpu engine runs algorithms/kcount/kernel (kcount.cl on the device
// search-tree layer; its Go twin on the CPU backend) over the same order:
// the graph renumbered by the degeneracy order as one dense bit matrix,
// one task per start vertex in the host pool. Its count equals the CPU
// engine's; its node count is its own tree's (no popcount shortcut one
// level up) and is the same on every device and worker count.
//
// Stopped early (Options.Timeout, a cancelled context) a count is partial
// and returned, with Proven false: every clique it counted is a real one,
// counted once, so it is a lower bound on the true count, never an
// estimate. Counts that would pass 2^64 − 1 are an error.
//
// Recount is an independent, deliberately plain counter (vertex-id order,
// sorted-list intersections, no bitsets) that Verify compares with.
package kcount
