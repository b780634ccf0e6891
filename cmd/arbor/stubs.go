package main

// These commands are being built (see the issues); each moves to its own
// file when it lands.

import "github.com/arbor-gpu/arbor/backend"

func runInfo(e *env) error    { return usagef("info: not yet implemented") }
func runMatch(e *env) error   { return usagef("match: not yet implemented") }
func runMCS(e *env) error     { return usagef("mcs: not yet implemented") }
func runVC(e *env) error      { return usagef("vc: not yet implemented") }
func runVerify(e *env) error  { return usagef("verify: not yet implemented") }
func runKernels(e *env) error { return usagef("kernels: not yet implemented") }

// demoSteps lists the algorithm demos, in order.
func demoSteps() []func(e *env, dev backend.Device) error { return nil }
