package main

// Placeholder until the match command lands: replace this file with match.go.

func runMatch(e *env) error { return usagef("match: not yet implemented") }
