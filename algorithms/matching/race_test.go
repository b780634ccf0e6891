package matching

import (
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
)

// TestRepeatable: on a truly parallel device, repeated runs with atomics
// and many work-groups in flight must give the same matching every time
// (a race in the segmented max or the compaction would show here).
func TestRepeatable(t *testing.T) {
	g := randomGraph(3000, 12000, 50, true, 11)
	want := Greedy(g, TieIndex)
	backendtest.ForEach(t, func(t *testing.T, dev backend.Device) {
		for it := 0; it < 8; it++ {
			threads := []int{0, 33, 256, 5000}[it%4]
			res, err := Handshake(dev, g, Options{Engine: EngineFast, Threads: threads, Filter: []Filter{FilterLookback, FilterScan}[it%2]})
			if err != nil {
				t.Fatal(err)
			}
			sameMates(t, "repeat run", res.Mate, want)
		}
	})
}
