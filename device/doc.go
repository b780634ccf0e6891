// Package device is Arbor's device toolkit: what every kernel source needs
// to run on CUDA, OpenCL and the CPU from one text, and nothing specific to
// one algorithm.
//
// What it holds: the preludes that map one vocabulary (KERNEL, GLOBAL,
// BARRIER, atomics, warp helpers; see Prelude) onto OpenCL C and CUDA; the
// source registry (RegisterSources: each package embeds its .cl files and
// registers them in init; Text resolves #include "X.cl" across packages and
// honours $ARBOR_KERNELS_DIR); Source and Build, which assemble the exact
// text a device compiles; BuildCache, which compiles a source once per
// device; and the conformance vocabulary (Check, Output, Compare, Widen,
// RegisterChecks, Checks) that `arbor verify` and the tests run against the
// Go twins. vecadd.cl is the toolkit's own smoke kernel.
//
// Why a registry: the sources live beside the code that launches them
// (device/prim, device/search, algorithms/<alg>/kernel), and the lists that
// `arbor kernels` and `arbor verify` show are what the binary links, never
// a list kept by hand.
//
// Invariants: a source name is registered once (a duplicate panics at
// start-up); Source is deterministic (defines sorted, written into the text)
// so that the dump is what the compiler reads and the build cache key covers
// everything; the package imports backend only, never a driver.
package device
