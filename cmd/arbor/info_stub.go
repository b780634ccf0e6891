package main

// Placeholder until the info command lands: replace this file with info.go.

func runInfo(e *env) error { return usagef("info: not yet implemented") }
