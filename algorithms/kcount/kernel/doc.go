// Package kernel is the porting guide's one-page example (docs/porting.md,
// part 3): counting the k-cliques of a graph on the device search layer.
// kcount.cl, its Go twin, the wrapper (KCount, CountKCliques) and the
// check, registered in init. No engine and no command use it; it is there
// to be read, and `arbor verify` and the conformance tests run its check.
package kernel
