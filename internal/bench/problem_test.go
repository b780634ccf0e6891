package bench

import (
	"errors"
	"slices"
	"testing"
)

// TestRegisteredProblem: a kind registered by an algorithm (as
// cli.Register does) is one bench knows: list files name it (or an
// alias), its file count, order, engines and device engines apply, and
// its peers' format is accepted.
func TestRegisteredProblem(t *testing.T) {
	Register(&Problem{Kind: "pairs-test", Aliases: []string{"pt"}, Files: 2, Minimise: true,
		Engines: []string{"cpu", "gpu"}, DeviceEngines: []string{"gpu"}, CPUThreads: true,
		Peers: map[string]func([]byte) (Answer, error){"pt-format": func([]byte) (Answer, error) { return Answer{Size: 7}, nil }},
		Check: func(Instance, Answer) error { return errors.New("no") }})
	for _, name := range []string{"pairs-test", "pt"} {
		if k, ok := parseKind(name); !ok || k != "pairs-test" {
			t.Errorf("parseKind(%q) = %q, %v", name, k, ok)
		}
	}
	k := Kind("pairs-test")
	if k.files() != 2 || !k.minimise() || k.defaultEngine() != "cpu" || !k.cpuThreads() {
		t.Errorf("files %d, minimise %v, default %q, threads %v", k.files(), k.minimise(), k.defaultEngine(), k.cpuThreads())
	}
	got := configs(k, Config{Engines: []string{"gpu", "cpu", "fast"}, Backends: []string{"cpu", "opencl"}, Threads: []int{1, 2}})
	want := []runConfig{{"gpu", "cpu", 1}, {"gpu", "cpu", 2}, {"gpu", "opencl", 1}, {"gpu", "opencl", 2}, {"cpu", "cpu", 1}, {"cpu", "cpu", 2}}
	if !slices.Equal(got, want) {
		t.Errorf("configs %v, want %v", got, want)
	}
	if !KnownFormat("pt-format") || KnownFormat("nope") {
		t.Error("the registered peer format is not known, or an unknown one is")
	}
	if a, err := ParseOutput(k, "pt-format", nil, nil); err != nil || a.Size != 7 {
		t.Errorf("peer parser: %v, %v", a, err)
	}
	if _, ok := parseKind("nosuch"); ok {
		t.Error("an unregistered kind parsed")
	}
}
