// Package kernel is the porting guide's one-page example (docs/porting.md,
// part 3): counting the k-cliques of a graph on the device search layer.
// kcount.cl, its Go twin, the wrapper (KCount, a search.Resettable that
// search.Open drives, and CountKCliques) and the check, registered in
// init. algorithms/kcount's gpu engine runs it.
package kernel
