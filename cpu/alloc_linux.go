package cpu

import (
	"fmt"
	"syscall"
)

// mapThreshold is the size from which a buffer is a private anonymous
// mapping instead of Go memory. Go zeroes reused heap memory on one core
// when it allocates (a quarter of a second for the 5 GB a 10^8-edge
// matching uses); a fresh mapping is zero already, its pages are faulted
// in by whichever worker first touches them, and unmapping returns them to
// the system at once.
const mapThreshold = 1 << 20

// madvHugepage is Linux's MADV_HUGEPAGE: back the mapping with 2 MiB pages
// where the system allows it (transparent huge pages in "madvise" mode), so
// that faulting in a large buffer takes 512 times fewer faults.
const madvHugepage = 14

// allocBytes returns bytes zeroed bytes, aligned for every typed view, and
// the function that releases them (nil for Go memory).
func allocBytes(bytes int) ([]byte, func() error, error) {
	if bytes < mapThreshold {
		return goBytes(bytes), nil, nil
	}
	m, err := syscall.Mmap(-1, 0, bytes, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, nil, fmt.Errorf("cpu: map %d bytes: %w", bytes, err)
	}
	_ = syscall.Madvise(m, madvHugepage) // advice only: an older kernel may refuse it
	return m, func() error { return syscall.Munmap(m) }, nil
}
