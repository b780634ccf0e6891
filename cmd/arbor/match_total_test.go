package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMatchHugeWeights: weights whose matching total would pass the
// largest float64 are refused before the search, naming the file and
// where (before, --json failed with "json: unsupported value: +Inf" and
// the text said "weight +Inf"); one such edge alone is a finite total and
// runs.
func TestMatchHugeWeights(t *testing.T) {
	two := writeTemp(t, "two.mtx", "%%MatrixMarket matrix coordinate real symmetric\n4 4 2\n2 1 1.7e308\n4 3 1.7e308\n")
	for _, args := range [][]string{{"match", two}, {"match", "--json", two}} {
		code, out, stderr := runCLI(t, args...)
		if code != 1 || out != "" || !strings.Contains(stderr, two+": the weights are too large to add up") ||
			!strings.Contains(stderr, "vertex 3's edge to 4") || strings.Contains(stderr, "Inf") {
			t.Errorf("arbor %v: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
	}
	one := writeTemp(t, "one.mtx", "%%MatrixMarket matrix coordinate real symmetric\n4 4 2\n2 1 1.7e308\n4 3 -1\n")
	code, out, stderr := runCLI(t, "match", "--json", one)
	var r struct {
		Weight float64 `json:"weight"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Weight != 1.7e308 {
		t.Errorf("one huge edge: exit %d, weight %v, stderr %q", code, r.Weight, stderr)
	}
}
