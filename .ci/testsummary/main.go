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

// maxListed bounds the list of skipped tests; the count is always whole.
const maxListed = 80

func main() {
	os.Exit(summarise(os.Stdin, os.Stdout))
}

func summarise(in io.Reader, out io.Writer) int {
	type key struct{ pkg, test string }
	buffered := map[key][]string{}
	var skipped []string
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
				skipped = append(skipped, e.Package+" "+e.Test+": "+skipReason(buffered[k]))
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
	sort.Strings(skipped)
	for i, s := range skipped {
		if i == maxListed {
			fmt.Fprintf(out, "  … and %d more\n", len(skipped)-maxListed)
			break
		}
		fmt.Fprintf(out, "  skipped %s\n", s)
	}
	if failure {
		return 1
	}
	return 0
}

// skipReason is the last line a skipped test logged (its t.Skip message).
func skipReason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "--- SKIP") {
			// "file_test.go:12: reason": the reason is what matters.
			if _, after, ok := strings.Cut(l, ": "); ok && strings.Contains(l[:len(l)-len(after)], "_test.go:") {
				l = after
			}
			if len(l) > 160 {
				l = l[:160] + "…"
			}
			return l
		}
	}
	return "(no reason given)"
}
