package main

// Placeholder until the vc command lands: replace this file with vc.go.

func runVC(e *env) error { return usagef("vc: not yet implemented") }
