package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/cli"
)

// helpFlags lists the flags 'arbor CMD -h' prints.
func helpFlags(t *testing.T, cmd string) []string {
	t.Helper()
	code, out, stderr := runCLI(t, cmd, "-h")
	if code != 0 {
		t.Fatalf("arbor %s -h: exit %d: %s", cmd, code, stderr)
	}
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`).FindAllStringSubmatch(out, -1) {
		flags = append(flags, m[1])
	}
	return flags
}

// mentions reports whether text names the flag as -f (one letter) or
// --flag, not as part of a longer flag.
func mentions(text, flag string) bool {
	dash := "--"
	if len(flag) == 1 {
		dash = "--?" // -o, or --n as the flag package also takes
	}
	return regexp.MustCompile(`(^|[^-\w])` + dash + regexp.QuoteMeta(flag) + `($|[^-\w])`).MatchString(text)
}

// TestDocsCoverHelp: docs/cli.md has a section for every command naming
// every flag its -h lists; the README's command table has a row for every
// command, and every flag a row names exists in that command's -h.
func TestDocsCoverHelp(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// The registered algorithms' generated sections and rows are current.
	if want, err := cli.UpdateDocs(doc); err != nil || string(want) != string(doc) {
		t.Errorf("docs/cli.md's generated sections are stale (%v): run go generate ./cmd/arbor", err)
	}
	if string(cli.UpdateReadme(readme)) != string(readme) {
		t.Errorf("README's command table misses a registered algorithm: run go generate ./cmd/arbor")
	}
	for name, text := range cli.SchemaFiles() {
		if got, err := os.ReadFile(filepath.Join(schemaDir, name)); err != nil || string(got) != string(text) {
			t.Errorf("docs/schema/%s differs from the schema its algorithm registers (%v): run go generate ./cmd/arbor", name, err)
		}
	}
	sections := map[string]string{}
	parts := regexp.MustCompile(`(?m)^## arbor (\w+)\n`).FindAllStringSubmatchIndex(string(doc), -1)
	for i, p := range parts {
		end := len(doc)
		if i+1 < len(parts) {
			end = parts[i+1][0]
		}
		sections[string(doc[p[2]:p[3]])] = string(doc[p[1]:end])
	}
	rows := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `arbor (\\w+)([^|]|\\\\\\|)*\\|.*$").FindAllStringSubmatch(string(readme), -1) {
		rows[m[1]] = m[0]
	}
	names := make([]string, 0)
	for n := range commands() {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, cmd := range names {
		sec, ok := sections[cmd]
		if !ok {
			t.Errorf("docs/cli.md has no section '## arbor %s'", cmd)
		}
		flags := helpFlags(t, cmd)
		for _, f := range flags {
			if ok && !mentions(sec, f) {
				t.Errorf("docs/cli.md, arbor %s: flag -%s of its -h is not named", cmd, f)
			}
		}
		row, ok := rows[cmd]
		if !ok {
			t.Errorf("README's command table has no row for arbor %s", cmd)
			continue
		}
		synopsis := strings.SplitN(row, "|", 3)[1]
		for _, m := range regexp.MustCompile(`(?:^|[\s\[(])--?([a-z][a-z0-9-]*)`).FindAllStringSubmatch(synopsis, -1) {
			found := false
			for _, f := range flags {
				found = found || f == m[1]
			}
			if !found {
				t.Errorf("README, arbor %s: names -%s, which its -h does not list", cmd, m[1])
			}
		}
	}
}
