package main

// Placeholder until the mcs command lands: replace this file with mcs.go.

func runMCS(e *env) error { return usagef("mcs: not yet implemented") }
