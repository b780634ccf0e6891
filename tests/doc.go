// Package tests is Arbor's cross-backend conformance suite: every case runs
// on every device of every backend present (see backendtest.ForEach) and is
// checked against the CPU twin or a plain Go reference.
package tests
