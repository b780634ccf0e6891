//go:build measure

package tests

import (
	"strconv"
	"strings"
	"testing"

	_ "github.com/arbor-gpu/arbor/algorithms/all"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/device"
)

// TestSearchNodes prints the outputs (the fixed-goal node counts among
// them) of every search kernel's conformance checks on every device, so
// that a change to the search layer can be compared before and after
// (issue #41: the worker-loop template must leave every count as it was).
// scripts/gpu/worker-template.sh runs it on the GPU machine.
func TestSearchNodes(t *testing.T) {
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		for _, c := range device.Checks("") {
			if !strings.HasSuffix(c.Kernel, "_epoch") {
				continue
			}
			out, err := c.Run(dev)
			if err != nil {
				t.Errorf("%s %s: %v", c.Kernel, c.Case, err)
				continue
			}
			var b strings.Builder
			for _, o := range out {
				if len(o.Values) > 4 {
					continue // a local search's chains, not a tree's counts
				}
				b.WriteString(" " + o.Name + "=")
				for i, v := range o.Values {
					if i > 0 {
						b.WriteString(",")
					}
					b.WriteString(strconv.FormatInt(v, 10))
				}
			}
			t.Logf("NODES %s %s | %s |%s", strings.TrimPrefix(t.Name(), "TestSearchNodes/"), c.Kernel, c.Case, b.String())
		}
	})
}
