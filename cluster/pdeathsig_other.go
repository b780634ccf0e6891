//go:build !linux

package cluster

import "os/exec"

// dieWithParent: only Linux has a parent-death signal; elsewhere the
// workers of a coordinator killed outright keep retrying their vanished
// server until stopped.
func dieWithParent(*exec.Cmd) {}
