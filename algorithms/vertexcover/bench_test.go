package vertexcover

import (
	"context"
	"flag"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

var (
	benchFiles   = flag.String("vc.bench", "", "BenchmarkInstances: the files (relative to the data), comma-separated, or pace450")
	benchEngine  = flag.String("vc.engine", "", "BenchmarkInstances: the engine (default auto)")
	benchTimeout = flag.Duration("vc.timeout", time.Minute, "BenchmarkInstances: the time cap of a solve")
)

// BenchmarkInstances times Solve per instance. -vc.bench lists the
// files (paths relative to the shared data directory, comma-separated);
// the default is a small spread, and "pace450" names the 28 PACE 2019
// instances of at most 450 vertices (issue #17's 1 s set). Each reports
// the cover, whether it was proven and whether the clique route settled
// it (the engine's reason is logged with -v); -vc.timeout caps each
// solve (default 60s), -vc.engine picks the engine (default auto).
//
//	go test -run XXX -bench Instances -benchtime 1x ./algorithms/vertexcover/ -vc.bench pace450
func BenchmarkInstances(b *testing.B) {
	dir := dataset.Require(b, "")
	list := *benchFiles
	switch list {
	case "":
		list = "vc/pace2019/vc-exact_005.gr,vc/yamout2022/cop_hat300_1.txt,vc/bhoslib/frb30-15-1.mis,vc/yamout2022/Power-Grid.txt"
	case "pace450":
		list = pace450(b, dir)
	}
	engine, timeout := *benchEngine, *benchTimeout
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
				res, err = Solve(ctx, g, Options{Engine: Engine(engine)})
				cancel()
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(res.Cover)), "cover")
			b.ReportMetric(float64(res.Nodes), "nodes")
			b.ReportMetric(boolMetric(res.Proven), "proven")
			b.ReportMetric(boolMetric(strings.Contains(res.Engine, string(EngineClique))), "clique")
			b.Logf("%s: engine %s: %s", filepath.Base(path), res.Engine, res.Why)
		})
	}
}

func boolMetric(x bool) float64 {
	if x {
		return 1
	}
	return 0
}

// pace450 lists the PACE 2019 instances with at most 450 vertices.
func pace450(b *testing.B, dir string) string {
	rows, err := dataset.ReadOptima(filepath.Join(dir, "vc/pace2019"), "optima.csv", "instance", "min_vc", ".gr", func(r dataset.Row) bool {
		n, err := strconv.Atoi(r.Fields["n"])
		return err == nil && n <= 450
	})
	if err != nil {
		b.Fatal(err)
	}
	var names []string
	for _, r := range rows {
		names = append(names, "vc/pace2019/"+filepath.Base(r.Path))
	}
	return strings.Join(names, ",")
}
