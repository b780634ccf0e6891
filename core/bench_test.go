package core

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/arbor-gpu/arbor/internal/dataset"
)

// BenchmarkReadLargest reads the largest shared files; the MB/s column is
// the read throughput (file bytes per second, parse and CSR build).
func BenchmarkReadLargest(b *testing.B) {
	for _, sub := range []string{"vc/bhoslib/frb100-40.mis", "vc/pace2019/vc-exact_161.gr", "vc/yamout2022/cop_hat500-1.txt", "matching/suitesparse/jagmesh7.mtx"} {
		b.Run(filepath.Base(sub), func(b *testing.B) {
			path := dataset.Require(b, sub)
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := ReadGraph(path, ReadOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadMIVIA reads one 100-vertex MIVIA file (McSplit reads two
// per pair, thousands of pairs in a sweep).
func BenchmarkReadMIVIA(b *testing.B) {
	path := filepath.Join(dataset.Require(b, "mcs/mivia"), "mcs90_r02_s100.A00")
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		if _, err := ReadGraph(path, ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
