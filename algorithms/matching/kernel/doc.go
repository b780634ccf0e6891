// Package kernel holds matching's device kernels: the CS314 handshaking
// kernels (cs314.cl) and the fast path (match_fast.cl: argmax, handshake,
// tile marking and packing, the look-back filter) built on device/prim,
// with their Go twins, host wrappers and conformance checks (registered in
// init). algorithms/matching drives them.
package kernel
