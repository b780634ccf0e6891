// Command testsummary turns `go test -json` on its standard input into the
// output `go test` gives without -json (a line per package, the output of
// failing tests), then counts the tests that passed, failed and were
// skipped, and lists the skipped ones with their reasons: a run that
// skipped what it should have run looks green otherwise. It exits 1 if
// anything failed. CI runs the README's test command through it:
//
//	go test -json ./... | go run ./.ci/testsummary
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action     string
	Package    string
	ImportPath string // build-output, build-fail
	Test       string
	Output     string
}

// maxListed bounds the tests named for one skip reason; the counts are
// always whole.
const maxListed = 6

// skip is a skipped test and why.
type skip struct{ test, reason string }

func main() {
	os.Exit(summarise(os.Stdin, os.Stdout))
}

func summarise(in io.Reader, out io.Writer) int {
	type key struct{ pkg, test string }
	buffered := map[key][]string{}
	var skipped []skip
	passed, failed := 0, 0
	failure := false
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Fprintln(out, sc.Text()) // not an event: go test's own words
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			fmt.Fprint(out, e.Output)
		case "build-fail":
			failure = true
		case "output":
			if e.Test == "" {
				// Package lines: ok, FAIL, "no test files", and whatever
				// a package printed outside its tests.
				if o := e.Output; o != "PASS\n" && !strings.HasPrefix(o, "=== ") && !strings.HasPrefix(o, "--- PASS") {
					fmt.Fprint(out, o)
				}
				continue
			}
			if !strings.HasPrefix(e.Output, "=== ") {
				buffered[k] = append(buffered[k], e.Output)
			}
		case "pass":
			if e.Test != "" {
				passed++
			}
			delete(buffered, k)
		case "skip":
			if e.Test != "" {
				skipped = append(skipped, skip{strings.TrimPrefix(e.Package, modulePrefix) + " " + e.Test, skipReason(buffered[k])})
			}
			delete(buffered, k)
		case "fail":
			failure = true
			if e.Test != "" {
				failed++
				fmt.Fprint(out, strings.Join(buffered[k], ""))
			}
			delete(buffered, k)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(out, "testsummary: reading go test -json: %v\n", err)
		failure = true
	}
	fmt.Fprintf(out, "tests: %d passed, %d failed, %d skipped\n", passed, failed, len(skipped))
	// The skipped tests by reason, most common first: "cuda unavailable"
	// on a machine without CUDA is one line, not fifty.
	byReason := map[string][]string{}
	for _, s := range skipped {
		byReason[s.reason] = append(byReason[s.reason], s.test)
	}
	reasons := make([]string, 0, len(byReason))
	for r := range byReason {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		a, b := byReason[reasons[i]], byReason[reasons[j]]
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		return reasons[i] < reasons[j]
	})
	for _, r := range reasons {
		tests := byReason[r]
		sort.Strings(tests)
		shown := tests
		if len(shown) > maxListed {
			shown = shown[:maxListed]
		}
		more := ""
		if len(tests) > len(shown) {
			more = fmt.Sprintf(", … %d more", len(tests)-len(shown))
		}
		fmt.Fprintf(out, "  skipped %d: %s\n    %s%s\n", len(tests), r, strings.Join(shown, ", "), more)
	}
	if failure {
		return 1
	}
	return 0
}

// modulePrefix is left out of package names, to keep lines short.
const modulePrefix = "github.com/arbor-gpu/arbor/"

// skipReason is the last line a skipped test logged (its t.Skip message),
// without the file:line prefix, cut short: enough to group and read.
func skipReason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		// "file.go:12: reason" (or a helper's file): the reason is what
		// matters.
		for {
			head, after, ok := strings.Cut(l, ": ")
			if !ok || !strings.Contains(head, ".go:") || strings.Contains(head, " ") {
				break
			}
			l = after
		}
		if r := []rune(l); len(r) > 110 {
			l = string(r[:110]) + "…"
		}
		return l
	}
	return "(no reason given)"
}
