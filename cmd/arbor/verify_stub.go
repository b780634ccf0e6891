package main

// Placeholder until verify/kernels land: replace this file with verify.go and kernels.go.

func runVerify(e *env) error  { return usagef("verify: not yet implemented") }
func runKernels(e *env) error { return usagef("kernels: not yet implemented") }
