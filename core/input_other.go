//go:build !unix

package core

import (
	"context"
	"os"
)

// openInput opens path for reading (where FIFOs are not Unix FIFOs,
// as usual).
func openInput(_ context.Context, path string) (*os.File, error) { return os.Open(path) }
