// Package prim holds Arbor's device primitives as a library: Scan
// (exclusive/inclusive prefix sums, prefix maxima), Reduce (sum, max),
// Compact (stable stream compaction), Argmax (whole array, per row, and the
// packed words of PackMax), SegReduce (sum/max/argmax per CSR segment) and
// Bitsets (intersect-and-count). Each has its .cl source, its Go twin
// (*_twin.go, registered with backend) and its conformance checks
// (primitives_checks.go, registered with device).
//
// Why a package of its own: the primitives know nothing of search trees or
// graphs' meaning; algorithms (matching's fast kernels) and tests build on
// them, and they can be measured and ported on their own.
//
// Invariants: the primitives work on device-resident buffers and keep their
// programs and temporaries between calls (Release frees them); results are
// bit-identical on every device and in the twin (argmax ties go to the
// smaller index, PackMax's order), which the checks assert.
package prim
