//go:build !unix

package cluster

// processAlive cannot tell here: temporary directories are left alone.
func processAlive(int) bool { return true }
