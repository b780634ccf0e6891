package vertexcover

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// BenchmarkInstances times Solve per instance. ARBOR_VC_BENCH lists the
// files (paths relative to the shared data directory, comma-separated);
// the default is a small spread. Each reports the cover and whether it was
// proven; ARBOR_VC_TIMEOUT caps each solve (default 60s).
func BenchmarkInstances(b *testing.B) {
	dir := dataset.Dir()
	if dir == "" {
		b.Skip("shared data not found")
	}
	list := os.Getenv("ARBOR_VC_BENCH")
	if list == "" {
		list = "vc/pace2019/vc-exact_005.gr,vc/yamout2022/cop_hat300_1.txt,vc/bhoslib/frb30-15-1.mis,vc/yamout2022/Power-Grid.txt"
	}
	timeout := time.Minute
	if s := os.Getenv("ARBOR_VC_TIMEOUT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			b.Fatal(err)
		}
		timeout = d
	}
	for _, rel := range strings.Split(list, ",") {
		path := filepath.Join(dir, strings.TrimSpace(rel))
		g, err := core.ReadGraph(path, core.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(path), func(b *testing.B) {
			var res Result
			for i := 0; i < b.N; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				res, err = Solve(ctx, g, Options{})
				cancel()
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(res.Cover)), "cover")
			b.ReportMetric(float64(res.Nodes), "nodes")
			if res.Proven {
				b.ReportMetric(1, "proven")
			} else {
				b.ReportMetric(0, "proven")
			}
		})
	}
}
