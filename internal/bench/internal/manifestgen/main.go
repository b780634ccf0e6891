// Command manifestgen writes internal/bench/data.sha256: the SHA-256 of
// every file of the bench suites' data sets (bench.DataSets) in a data
// folder ($ARBOR_DATA, else ../shared/data beside the checkout), as
// sha256sum prints them, sorted by path. READMEs are documentation, not
// data, and are left out. Run by go generate in internal/bench.
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/arbor-gpu/arbor/internal/bench"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

func main() {
	out := flag.String("o", "data.sha256", "output file")
	data := flag.String("data", "", "the data folder (default: as the tests find it)")
	flag.Parse()
	dir := *data
	if dir == "" {
		dir = dataset.Dir()
	}
	if dir == "" {
		// A fresh clone has no data beside it: the committed manifest stays
		// as it is, so that `go generate ./...` (which a porter runs for the
		// registry's generated files) does not stop here.
		fmt.Fprintln(os.Stderr, "manifestgen: no data folder (give -data DIR or set $"+dataset.EnvDir+"): "+*out+" left as it is")
		return
	}
	var lines []string
	for _, set := range bench.DataSets {
		root := filepath.Join(dir, filepath.FromSlash(set.Dir))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() || strings.EqualFold(d.Name(), "README.md") {
				return nil
			}
			sum, err := bench.FileSHA256(p)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			lines = append(lines, sum+"  "+filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			fmt.Fprintf(os.Stderr, "manifestgen: %v\n", err)
			os.Exit(1)
		}
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i][66:] < lines[j][66:] })
	if err := os.WriteFile(*out, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "manifestgen: %v\n", err)
		os.Exit(1)
	}
}
