package cluster

import "testing"

// TestLedger: records in any order, duplicated, or from a retry that split
// differently leave the count right.
func TestLedger(t *testing.T) {
	done := func(id string, size int, children ...string) *Record {
		m := make([][2]int, size)
		for i := range m {
			m[i] = [2]int{i, i}
		}
		return &Record{Kind: kindDone, Task: id, Children: children, Size: size, Mapping: m, Nodes: 10}
	}
	l := newLedger(false)
	// A child's record may come before its parent's, and before the plan.
	l.take(done("c1", 3))
	l.take(&Record{Kind: kindPlan, Roots: []Task{{ID: "r1"}, {ID: "r2"}}})
	if l.proven() || len(l.expected) != 2 {
		t.Fatalf("after the plan: proven %v, %d expected", l.proven(), len(l.expected))
	}
	l.take(done("r1", 1, "c1", "c2"))
	l.take(done("r1", 0, "other")) // a duplicate (a retry): ignored
	l.take(done("orphan", 5, "x")) // a retry's first split: not expected
	if l.proven() || l.finished != 2 || len(l.expected) != 4 {
		t.Fatalf("finished %d of %d, proven %v", l.finished, len(l.expected), l.proven())
	}
	if l.size != 5 {
		t.Errorf("best %d: an orphan's solution is still a solution", l.size)
	}
	l.take(done("r2", 2))
	if l.proven() {
		t.Fatal("proven with c2 missing")
	}
	l.take(done("c2", 4))
	if !l.proven() || l.finished != 4 || l.nodes != 40 {
		t.Fatalf("finished %d of %d, %d nodes, proven %v", l.finished, len(l.expected), l.nodes, l.proven())
	}
	// No plan, no proof.
	if newLedger(false).proven() {
		t.Error("an empty ledger is proven")
	}
}
