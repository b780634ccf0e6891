package mcs

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/core"
)

// benchPairs are medium MIVIA pairs (3–7 s for the original program).
var benchPairs = []string{
	"mcs10_b03_s40.A01",
	"mcs50_m4D_s35.A01",
	"mcs90_b06_s70.A00",
	"mcs90_r01_s40.A00",
}

// BenchmarkMIVIA measures search speed, in nodes per second, on the first
// 5 M nodes of medium MIVIA pairs, sequential and on every core
// (-bench MIVIA -benchtime 3x). Set -mcs.full to solve them completely.
func BenchmarkMIVIA(b *testing.B) {
	dir, pairs := readExpected(b)
	for _, name := range benchPairs {
		g, h := readPair(b, dir, pairNamed(b, pairs, name))
		for _, threads := range []int{1, 0} {
			label := "seq"
			if threads == 0 {
				label = "par"
			}
			b.Run(name+"/"+label, func(b *testing.B) {
				benchSolve(b, g, h, Options{Threads: threads, NodeLimit: 5_000_000})
			})

		}
	}
}

// BenchmarkMIVIADirected is BenchmarkMIVIA's first pair read as directed
// graphs (the multiway split), first 2 M nodes.
func BenchmarkMIVIADirected(b *testing.B) {
	dir, pairs := readExpected(b)
	g, h := readPairAs(b, dir, pairNamed(b, pairs, "mcs10_r01_s30.A02"), core.ReadOptions{Directed: true})
	benchSolve(b, g, h, Options{Threads: 1, Directed: true, NodeLimit: 2_000_000})
}

// benchSolve solves g and h b.N times and reports nodes per second, of
// wall time and of CPU time: on a shared machine wall time includes
// waiting for a core, and per CPU-second is the engine's own speed.
func benchSolve(b *testing.B, g, h *core.Graph, opts Options) {
	var nodes int64
	var took time.Duration
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		res, err := Solve(context.Background(), g, h, opts)
		if err != nil {
			b.Fatal(err)
		}
		nodes += res.Nodes
		took += res.Elapsed
	}
	b.ReportMetric(float64(nodes)/took.Seconds(), "nodes/s")
	b.ReportMetric(float64(nodes)/(cpuTime()-cpu0).Seconds(), "nodes/cpu-s")
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
