// Package kernel is McSplit on a device: mcsplit.cl (the node expansion on
// the search layer, device/search), its Go twin (mcsplit_twin.go, the
// reference every device is compared with), the host wrapper (MCSplit,
// MCSplitShape, OpenWork) and the fixed-goal conformance checks, which it
// registers in init. algorithms/mcs's device, hybrid and portfolio engines
// drive it; docs/results/mcs.md holds its measurements.
//
// Invariant: the device explores exactly the tree of the sequential CPU
// engine with the same heuristic; with the goal frozen the node counts are
// equal on every device and in the twin.
package kernel
