//go:build !linux

package cpu

// allocBytes returns bytes zeroed bytes, aligned for every typed view, from
// Go memory.
func allocBytes(bytes int) ([]byte, func() error, error) { return goBytes(bytes), nil, nil }
