package mcs

import "flag"

// The flags of the longer MIVIA tests (go test ./algorithms/mcs -run X
// -mcs.pairs …); the measurements behind the measure build tag add theirs
// in measure_test.go.
var (
	flagPairs    = flag.String("mcs.pairs", "", "the MIVIA pairs (g file names, comma-separated) of TestMIVIANamed and the measurements")
	flagThreads  = flag.Int("mcs.threads", 0, "threads of TestMIVIANamed's parallel run (> 1) and of the measurements (0: their default)")
	flagMaxSec   = flag.Float64("mcs.maxsec", 0.5, "TestMIVIAPruned (with ARBOR_LONG=1) takes every proven pair under this many seconds")
	flagMIVIAAll = flag.Bool("mivia.all", false, "TestDeviceMIVIA takes every proven pair under 5 s without the other long tests (CI's second run)")
)

// threadsOr is -mcs.threads, or def when it is not set.
func threadsOr(def int) int {
	if *flagThreads > 0 {
		return *flagThreads
	}
	return def
}
