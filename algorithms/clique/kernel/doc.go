// Package kernel is maximum clique (BBMC with a plain colouring bound) on a
// device: clique.cl, its Go twin, the host wrapper (Clique, CliqueShape)
// and the fixed-goal conformance checks, registered in init.
// algorithms/clique's gpu and hybrid engines drive it; docs/porting.md
// follows its port step by step.
//
// Invariant: with the incumbent frozen the device explores the tree of the
// sequential CPU engine with PlainColouring, node for node.
package kernel
