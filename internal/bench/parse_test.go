package bench

import (
	"reflect"
	"testing"
)

// parseCase is arbor's --json for a kind and the answer it reads as
// (want nil: an output to refuse).
type parseCase struct {
	kind Kind
	out  string
	want *Answer
}

// TestParseArborJSON reads the --json of match, mcs and vc (a vc -k run
// without a cover has no size) into answers, and refuses output with no
// size or that is not JSON.
func TestParseArborJSON(t *testing.T) {
	for _, c := range []parseCase{
		{KindMatch, `{"size":2,"edges":5,"weight":3.5,"threads":4,"engine":"fast","device":"cpu:0","seconds":0.25,"verified":true,"mate":[1,0,3,2]}`,
			&Answer{Size: 2, Proven: true, Seconds: 0.25, Device: "cpu:0", Engine: "fast", Threads: 4, Edges: 5, Weight: 3.5, Verified: true, Mate: []int32{1, 0, 3, 2}}},
		{KindMCS, `{"size":3,"status":"optimal","proven":true,"nodes":17,"seconds":0.5,"threads":2,"engine":"cpu","why":"x","device":"","verified":true,"mapping":[[0,1],[1,0],[2,2]],"prune":{"mode":"rr"}}`,
			&Answer{Size: 3, Proven: true, Nodes: 17, Seconds: 0.5, Threads: 2, Engine: "cpu", Verified: true, Mapping: [][2]int{{0, 1}, {1, 0}, {2, 2}}, Prune: "rr"}},
		{KindVC, `{"status":"infeasible","proven":true,"edges":9,"nodes":4,"seconds":0.1,"threads":1,"engine":"cpu","verified":false}`,
			&Answer{Size: -1, Proven: true, Nodes: 4, Seconds: 0.1, Threads: 1, Engine: "cpu", Edges: 9}},
		{KindMatch, `{"edges":5}`, nil},
		{KindMCS, `{"nodes":3}`, nil},
		{KindVC, `not json`, nil},
	} {
		got, err := ParseArborJSON(c.kind, []byte(c.out))
		switch {
		case c.want == nil && err == nil:
			t.Errorf("%s %s: %+v, want an error", c.kind, c.out, got)
		case c.want != nil && (err != nil || !reflect.DeepEqual(got, *c.want)):
			t.Errorf("%s: %+v, %v; want %+v", c.kind, got, err, *c.want)
		}
	}
}
