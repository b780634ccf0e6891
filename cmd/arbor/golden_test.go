package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"github.com/arbor-gpu/arbor/cli"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden/*.txt from the current code")

// goldenCase is one CLI run whose exit status, stdout and stderr are
// recorded in testdata/golden/NAME.txt. The files were written from the
// code before the algorithm registry moved the commands out of this
// package: that the moved commands reproduce them byte for byte (times
// masked) is the proof that -h, outputs and exit codes did not change.
type goldenCase struct {
	name string
	args []string
	// masked: the output holds times and rates, masked before comparing
	// (help pages are compared unmasked).
	masked bool
}

// goldenIn is the folder of the golden runs' tiny inputs.
const goldenIn = "testdata/golden/in/"

func goldenCases() []goldenCase {
	cases := []goldenCase{
		{name: "usage", args: nil},
		{name: "help", args: []string{"help"}},
		{name: "help-help", args: []string{"help", "help"}},
		{name: "help-unknown", args: []string{"help", "nosuch"}},
		{name: "unknown", args: []string{"nosuch"}},
		{name: "help-flag", args: []string{"--help"}},
	}
	// Every command's and subcommand's help page.
	for _, c := range [][]string{{"bench"}, {"bench", "report"}, {"bench", "fetch"}, {"clique"}, {"demo"}, {"devices"},
		{"generate"}, {"info"}, {"jobs"}, {"kernels"}, {"match"}, {"mcs"}, {"server"}, {"vc"}, {"verify"},
		{"version"}, {"worker"}} {
		cases = append(cases,
			goldenCase{name: "h-" + strings.Join(c, "-"), args: append(append([]string{}, c...), "-h")},
			goldenCase{name: "helpcmd-" + strings.Join(c, "-"), args: append([]string{"help"}, c...)})
	}
	in := func(f string) string { return goldenIn + f }
	cpu := []string{"--backend", "cpu"}
	runs := []struct {
		name string
		args []string
	}{
		// match
		{"match", []string{"match", in("w.mtx")}},
		{"match-json", []string{"match", in("w.mtx"), "--json", "--verify"}},
		{"match-strong", []string{"match", in("w.mtx"), "--strong-only", "--zero-based", "--verify"}},
		{"match-spec-hashed", []string{"match", in("w.mtx"), "--engine", "spec", "--tie", "hashed", "--json"}},
		{"match-scan", []string{"match", in("w.mtx"), "--filter", "scan", "--threads", "64"}},
		{"match-bad-engine", []string{"match", in("w.mtx"), "--engine", "nope"}},
		{"match-bad-tie", []string{"match", in("w.mtx"), "--tie", "nope"}},
		{"match-no-args", []string{"match"}},
		{"match-missing", []string{"match", in("absent.mtx")}},
		{"match-notagraph", []string{"match", in("notagraph.txt")}},
		{"match-neg-threads", []string{"match", in("w.mtx"), "--threads", "-1"}},
		{"match-bad-flag", []string{"match", "--nosuch", in("w.mtx")}},
		// mcs
		{"mcs", []string{"mcs", in("g.clq"), in("h.clq"), "--engine", "cpu", "--threads", "1"}},
		{"mcs-json", []string{"mcs", in("g.clq"), in("h.clq"), "--engine", "cpu", "--threads", "1", "--json", "--verify"}},
		{"mcs-connected", []string{"mcs", in("g.clq"), in("h.clq"), "--engine", "cpu", "--threads", "1", "--connected", "--zero-based", "--json"}},
		{"mcs-gpu", []string{"mcs", in("g.clq"), in("h.clq"), "--engine", "gpu", "--workers", "2", "--json", "--verify"}},
		{"mcs-three", []string{"mcs", in("g.clq"), in("h.clq"), in("g.clq"), "--engine", "cpu", "--threads", "1", "--json"}},
		{"mcs-goal", []string{"mcs", in("g.clq"), in("h.clq"), "--engine", "cpu", "--threads", "1", "--goal", "3", "--require-optimal"}},
		{"mcs-batch", []string{"mcs", "--batch", in("pairs.csv"), "--engine", "cpu", "--threads", "1", "--json"}},
		{"mcs-batch-text", []string{"mcs", "--batch", in("pairs.csv"), "--engine", "cpu", "--threads", "1"}},
		{"mcs-against", []string{"mcs", in("g.clq"), "--against", in("graphs.txt"), "--top", "1", "--engine", "cpu", "--threads", "1", "--json"}},
		{"mcs-one-arg", []string{"mcs", in("g.clq")}},
		{"mcs-bad-engine", []string{"mcs", in("g.clq"), in("h.clq"), "--engine", "nope"}},
		{"mcs-bad-heuristic", []string{"mcs", in("g.clq"), in("h.clq"), "--heuristic", "nope"}},
		// One thread: with two, the race of the parallel workers decides the
		// node count and which optimum is printed (CI saw 250, 251 and 252).
		{"mcs-bad-backend", []string{"mcs", in("g.clq"), in("h.clq"), "--threads", "1", "--backend", "nope"}},
		{"mcs-bad-file", []string{"mcs", in("g.clq"), in("bad.clq")}},
		{"mcs-neg-timeout", []string{"mcs", in("g.clq"), in("h.clq"), "--timeout", "-1"}},
		// clique
		{"clique", []string{"clique", in("g.clq"), "--engine", "cpu", "--threads", "1"}},
		{"clique-json", []string{"clique", in("g.clq"), "--engine", "cpu", "--threads", "1", "--json", "--verify"}},
		{"clique-complement", []string{"clique", in("g.clq"), "--engine", "cpu", "--threads", "1", "--complement", "--json", "--zero-based"}},
		{"clique-gpu", []string{"clique", in("h.clq"), "--engine", "gpu", "--workers", "2", "--json", "--verify"}},
		{"clique-goal", []string{"clique", in("g.clq"), "--engine", "gpu", "--workers", "2", "--goal", "9", "--require-optimal"}},
		{"clique-goal-cpu", []string{"clique", in("g.clq"), "--engine", "cpu", "--goal", "9"}},
		{"clique-batch", []string{"clique", "--batch", in("graphs.txt"), "--engine", "cpu", "--threads", "1", "--json"}},
		{"clique-batch-text", []string{"clique", "--batch", in("graphs.txt"), "--engine", "cpu", "--threads", "1"}},
		{"clique-two-args", []string{"clique", in("g.clq"), in("h.clq")}},
		{"clique-bad-engine", []string{"clique", in("g.clq"), "--engine", "nope"}},
		{"clique-bad-file", []string{"clique", in("bad.clq")}},
		// vc
		{"vc", []string{"vc", in("c5.gr"), "--engine", "cpu", "--threads", "1"}},
		{"vc-json", []string{"vc", in("c5.gr"), "--engine", "cpu", "--threads", "1", "--json", "--verify"}},
		{"vc-g", []string{"vc", in("g.clq"), "--engine", "cpu", "--threads", "1", "--json", "--zero-based"}},
		{"vc-complement", []string{"vc", in("g.clq"), "--engine", "cpu", "--threads", "1", "--complement", "--json"}},
		{"vc-gpu", []string{"vc", in("h.clq"), "--engine", "gpu", "--workers", "2", "--json", "--verify"}},
		{"vc-batch", []string{"vc", "--batch", in("graphs.txt"), "--engine", "cpu", "--threads", "1", "--json"}},
		{"vc-batch-text", []string{"vc", "--batch", in("graphs.txt"), "--engine", "cpu", "--threads", "1"}},
		{"vc-no-args", []string{"vc"}},
		{"vc-bad-engine", []string{"vc", in("c5.gr"), "--engine", "nope"}},
		{"vc-bad-file", []string{"vc", in("notagraph.txt")}},
		// the other commands
		{"version-extra", []string{"version", "extra"}},
		{"info", []string{"info", in("g.clq")}},
		{"info-json", []string{"info", in("w.mtx"), "--json"}},
		{"info-bad", []string{"info", in("bad.clq")}},
		{"bench-no-args", []string{"bench"}},
		{"bench-unknown", []string{"bench", "nosuch-suite"}},
		{"jobs-no-args", []string{"jobs"}},
		{"worker-no-cluster", []string{"worker"}},
	}
	for _, r := range runs {
		args := r.args
		if len(args) > 1 && args[0] != "version" && args[0] != "info" && args[0] != "bench" && args[0] != "jobs" {
			args = append(append([]string{}, args...), cpu...)
		}
		cases = append(cases, goldenCase{name: r.name, args: args, masked: true})
	}
	return cases
}

// goldenCommands are the commands the goldens were recorded with.
var goldenCommands = map[string]bool{"bench": true, "clique": true, "demo": true, "devices": true, "generate": true, "info": true, "jobs": true,
	"kernels": true, "match": true, "mcs": true, "server": true, "vc": true, "verify": true, "version": true, "worker": true}

// withoutNewCommands drops, from arbor's list of commands, the lines of
// algorithms registered since the goldens were recorded: adding one is
// no change to the others.
func withoutNewCommands(s string) string {
	lines := strings.SplitAfter(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		f := strings.Fields(l)
		if strings.HasPrefix(l, "  ") && len(f) > 1 && !goldenCommands[f[0]] {
			if _, ok := cli.Lookup(f[0]); ok {
				continue
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "")
}

var (
	// goldenDuration: a Go duration as the text outputs print it.
	goldenDuration = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s|m|h)(\d+(\.\d+)?(ns|µs|us|ms|s|m|h))*\b`)
	// goldenRate: a rate (1.2k/s, 30 MB/s).
	goldenRate = regexp.MustCompile(`\b\d+(\.\d+)?[kMG]?( MB)?/s\b`)
	// goldenTimeField: a JSON field that holds a time or a rate.
	goldenTimeField = regexp.MustCompile(`("[a-z_]*(seconds|_s|mb_per_s|per_second|elapsed|_ms)": ?)-?[0-9.e+-]+`)
	// goldenFraction: a number with many decimals (an element of an
	// array of times).
	goldenFraction = regexp.MustCompile(`\b\d+\.\d{5,}(e[+-]?\d+)?\b|\b\d(\.\d+)?e-\d+\b`)
	// goldenCPU: the CPU device's model name.
	goldenCPU = regexp.MustCompile(`cpu:0 [^",;()\n]*[^",;()\n ]`)
	// goldenAutoRace: auto's two outcomes on a tiny instance when a device
	// opens (the CPU engine settles first, or the device is chosen first
	// and the CPU engine still answers): which one wins is the machine's
	// load, not the code.
	goldenAutoRace = regexp.MustCompile(`engine cpu \((the CPU engine settled it before the device was chosen|cpu:0 <CPU>)\)`)
	// goldenShared: how many incumbents the device workers shared, which
	// depends on their timing when there are several.
	goldenShared = regexp.MustCompile(`"shared":\d+`)
)

// goldenMask replaces what differs between runs of the same code (times,
// rates, the machine's CPU name, races decided by the load) with
// placeholders.
func goldenMask(s string) string {
	s = goldenTimeField.ReplaceAllString(s, "${1}<T>")
	s = goldenFraction.ReplaceAllString(s, "<T>")
	s = goldenRate.ReplaceAllString(s, "<R>")
	s = goldenDuration.ReplaceAllString(s, "<T>")
	s = goldenCPU.ReplaceAllString(s, "cpu:0 <CPU>")
	s = goldenAutoRace.ReplaceAllString(s, "engine cpu (<auto race>)")
	return goldenShared.ReplaceAllString(s, `"shared":<N>`)
}

// TestGolden runs each golden case and compares it with its file
// (-update-golden rewrites them).
func TestGolden(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := runIO(context.Background(), c.args, strings.NewReader(""), &out, &errb)
			got := fmt.Sprintf("$ arbor %s\nexit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(c.args, " "), code, out.String(), errb.String())
			if c.name == "usage" || c.name == "help" || c.name == "help-flag" || c.name == "unknown" {
				got = withoutNewCommands(got)
			}
			if c.masked {
				stdout := out.String()
				if strings.Contains(c.name, "batch") || strings.Contains(c.name, "against") {
					// Rows come in the order the slots finish them.
					lines := strings.SplitAfter(stdout, "\n")
					sort.Strings(lines)
					stdout = strings.Join(lines, "")
				}
				got = goldenMask(fmt.Sprintf("$ arbor %s\nexit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(c.args, " "), code, stdout, errb.String()))
			}
			file := filepath.Join("testdata", "golden", c.name+".txt")
			if *updateGolden {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (go test ./cmd/arbor -run TestGolden -update-golden writes it)", err)
			}
			if got != string(want) {
				t.Errorf("arbor %s differs from %s:\n--- got\n%s\n--- want\n%s", strings.Join(c.args, " "), file, got, want)
			}
		})
	}
}
