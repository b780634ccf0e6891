// Package kernel is vertex cover on a device: vc.cl (branch and reduce on
// the search layer) and vcls.cl (the clique-partition local search), their
// Go twins, host wrappers (VC, VCShape, VCLS) and conformance checks,
// registered in init. algorithms/vertexcover's gpu and hybrid engines and
// its device local search drive them; docs/results/vertexcover.md holds the
// measurements.
//
// Invariant: with k fixed (the parameterized mode) the tree is the same on
// every device and in the twin.
package kernel
