//go:build unix

package cluster

import (
	"errors"
	"syscall"
)

// processAlive says whether a process of that id exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
