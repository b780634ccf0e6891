package cluster

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill cmd when the process that started
// it dies, SIGKILL included: an embedded coordinator killed outright
// leaves no worker processes behind (no cgo needed: it is a field of
// SysProcAttr). The signal follows the starting OS thread, which the Go
// runtime keeps for the life of the process unless a locked goroutine
// exits on it; StartWorkers starts from an ordinary goroutine.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
