// Package atomicfile writes files whole or not at all: the results and
// outputs of the CLI (-o), the bench's results and its copied and
// generated data.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes a file through write: into a temporary file in the same
// folder, renamed over path once complete, so that a reader never sees
// half a file and a failed run leaves an earlier file as it was. Where
// path exists and is not a regular file (/dev/null, a pipe) it is written
// directly: renaming over it would replace the device. Errors name path.
func Write(path string, write func(io.Writer) error) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return wrap(path, closed(f, write(f)))
	}
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return wrap(path, err)
	}
	tmp := f.Name()
	werr := write(f)
	if werr == nil {
		werr = f.Sync()
	}
	werr = closed(f, werr)
	if werr == nil {
		// CreateTemp makes the file 0600; the result is as readable as
		// any file the user creates.
		werr = os.Chmod(tmp, 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
	}
	return wrap(path, werr)
}

// closed closes f after a write that returned werr: the write's error,
// else the close's.
func closed(f *os.File, werr error) error {
	if cerr := f.Close(); werr == nil {
		return cerr
	}
	return werr
}

func wrap(path string, err error) error {
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
