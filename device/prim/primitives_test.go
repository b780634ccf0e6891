package prim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/cpu"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// TestChecksDeterministicOnCPU runs every check on the CPU backend with one
// worker and with several: the twins must not depend on how work-groups
// are spread over goroutines (atomics, shared partials), or device-vs-twin
// comparisons would be meaningless.
func TestChecksDeterministicOnCPU(t *testing.T) {
	one, many := device.CacheBuilds(cpu.New(1)), device.CacheBuilds(cpu.New(4))
	defer one.Release()
	defer many.Release()
	checks := device.Checks(dataset.Dir())
	if len(checks) == 0 {
		t.Fatal("no checks")
	}
	seen := map[string]bool{}
	for _, c := range checks {
		seen[c.Kernel] = true
		start := time.Now()
		want, err := c.Run(one)
		if err != nil {
			t.Errorf("%s %s: %v", c.Kernel, c.Case, err)
			continue
		}
		got, err := c.Run(many)
		if err != nil {
			t.Errorf("%s %s (4 workers): %v", c.Kernel, c.Case, err)
			continue
		}
		if err := device.Compare(got, want); err != nil {
			t.Errorf("%s %s: 4 workers vs 1: %v", c.Kernel, c.Case, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Logf("%s %s: %v", c.Kernel, c.Case, d)
		}
	}
	for _, k := range []string{"scan", "reduce", "compact", "argmax", "argmax_rows", "prefix_max", "segreduce", "bitset"} {
		if !seen[k] {
			t.Errorf("no check for %s (have %s)", k, strings.Join(keys(seen), ", "))
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
