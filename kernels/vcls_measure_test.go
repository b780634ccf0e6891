package kernels

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// TestVCLSMeasure times vcls_epoch on BHOSLIB instances, for choosing the
// chains per compute unit and the lanes per chain (issue #17):
//
//	ARBOR_VCLS_MEASURE=frb59-26-2,frb53-24-1 ARBOR_VCLS_CONFIGS=8x64,16x32 \
//	ARBOR_VCLS_SECS=6 ./kernels.test -test.run VCLSMeasure -test.v
//
// A config is chains-per-compute-unit x lanes. Each runs alone on the
// first device of ARBOR_BACKEND (default auto) until a chain solves or
// the time is up, and prints the steps per second of all chains together
// and the time to the solution.
func TestVCLSMeasure(t *testing.T) {
	files := os.Getenv("ARBOR_VCLS_MEASURE")
	if files == "" {
		t.Skip("ARBOR_VCLS_MEASURE not set")
	}
	dir := dataset.Require(t, "vc/bhoslib")
	secs, _ := strconv.ParseFloat(envOr("ARBOR_VCLS_SECS", "6"), 64)
	configs := strings.Split(envOr("ARBOR_VCLS_CONFIGS", "8x64"), ",")
	dev, c, err := backend.Select(backend.SelectionFromEnv("", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	t.Logf("device %s (%s)", c.Info, c.Why)
	for _, f := range strings.Split(files, ",") {
		p, err := bhoslibProblem(dir, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range configs {
			per, lanes := 0, 0
			if _, err := fmt.Sscanf(cfg, "%dx%d", &per, &lanes); err != nil {
				t.Fatalf("config %q: want chains-per-CU x lanes", cfg)
			}
			chains := per * max(dev.Info().ComputeUnits, 1)
			q, err := dev.NewQueue()
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			s, err := newPartitionLS(dev, q, p, chains, 1, lanes)
			if err != nil {
				t.Fatalf("%s %s: %v", f, cfg, err)
			}
			built := time.Since(t0)
			t0 = time.Now()
			steps, solved := int64(256), false
			for time.Since(t0).Seconds() < secs && !solved {
				l0 := time.Now()
				if solved, err = s.Run(q, steps, true); err != nil {
					t.Fatal(err)
				}
				if time.Since(l0) < 50*time.Millisecond {
					steps *= 2
				}
			}
			el := time.Since(t0)
			total, err := s.Steps(q)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s: %d chains, built in %.2f s, %s after %.2f s, %.1f M steps/s (%.0f k per chain)", f, cfg, chains,
				built.Seconds(), map[bool]string{true: "solved", false: "unsolved"}[solved], el.Seconds(),
				float64(total)/el.Seconds()/1e6, float64(total)/el.Seconds()/1e3/float64(chains))
			s.Release()
			q.Release()
		}
	}
}

// bhoslibProblem reads frbN-K-i (plain or gzip) with its planted cliques
// of K consecutive vertices.
func bhoslibProblem(dir, name string) (PartitionProblem, error) {
	path := filepath.Join(dir, name+".mis")
	if _, err := os.Stat(path); err != nil {
		path += ".gz"
	}
	g, err := core.ReadGraph(path, core.ReadOptions{})
	if err != nil {
		return PartitionProblem{}, err
	}
	var n, k, i int
	if _, err := fmt.Sscanf(strings.ReplaceAll(name, "-", " "), "frb%d %d %d", &n, &k, &i); err != nil || n*k != g.N {
		return PartitionProblem{}, fmt.Errorf("%s: not an frbN-K-i name of %d vertices", name, g.N)
	}
	p := PartitionProblem{K: n, Part: make([]int32, g.N), Off: make([]int32, g.N+1)}
	for v := range p.Part {
		p.Part[v] = int32(v / k)
	}
	for v := 0; v < g.N; v++ {
		for _, u := range g.Neighbors(v) {
			if p.Part[u] != p.Part[v] {
				p.Adj = append(p.Adj, u)
			}
		}
		p.Off[v+1] = int32(len(p.Adj))
	}
	return p, nil
}

func envOr(key, def string) string {
	if s := os.Getenv(key); s != "" {
		return s
	}
	return def
}
