// Command gendocs writes the registered algorithms' parts of docs/cli.md
// (a section for each algorithm without one written by hand), of the
// README's command table (a row for each without one) and of docs/schema
// (the schemas algorithms carry in their folders): run by
// go generate ./cmd/arbor, from that folder.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	_ "github.com/arbor-gpu/arbor/algorithms/all"
	"github.com/arbor-gpu/arbor/cli"
)

func main() {
	if err := update("../../docs/cli.md", cli.UpdateDocs); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
	if err := update("../../README.md", func(b []byte) ([]byte, error) { return cli.UpdateReadme(b), nil }); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
	for name, text := range cli.SchemaFiles() {
		if err := os.WriteFile(filepath.Join("../../docs/schema", name), text, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gendocs:", err)
			os.Exit(1)
		}
	}
}

// update rewrites a file through f, when that changes it.
func update(path string, f func([]byte) ([]byte, error)) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	b, err := f(old)
	if err != nil || string(b) == string(old) {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
