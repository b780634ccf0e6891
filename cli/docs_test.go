package cli

import (
	"strings"
	"testing"
)

// TestUpdateDocs: a registered algorithm without a hand-written section
// gets a generated one (its -h included), idempotently; one with a
// section keeps it alone; the README gets a row after the last
// registered algorithm's.
func TestUpdateDocs(t *testing.T) {
	doc := []byte("# CLI\n\n## arbor info\n\ntext\n")
	once, err := UpdateDocs(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(once), "## arbor edgecount-test\n\nA test of Pipeline.") || !strings.Contains(string(once), "usage: arbor edgecount-test GRAPH [-k K]") {
		t.Errorf("no generated section:\n%s", once)
	}
	if twice, err := UpdateDocs(once); err != nil || string(twice) != string(once) {
		t.Errorf("not idempotent: %v\n%s", err, twice)
	}
	hand := []byte("# CLI\n\n## arbor edgecount-test\n\nby hand\n")
	if got, _ := UpdateDocs(hand); strings.Count(string(got), "## arbor edgecount-test") != 1 {
		t.Errorf("a hand-written section was generated again:\n%s", got)
	}
	readme := []byte("| a | b |\n|---|---|\n| `arbor info GRAPH` | x |\n| `arbor edgecount-test` | y |\n| `arbor version` | z |\n")
	if got := UpdateReadme(readme); string(got) != string(readme) {
		t.Errorf("a row was added beside the existing one:\n%s", got)
	}
	readme = []byte("| a | b |\n|---|---|\n| `arbor info GRAPH` | x |\n")
	if got := UpdateReadme(readme); string(got) != string(readme) {
		t.Errorf("rows without a registered neighbour changed:\n%s", got)
	}
}
