package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
)

// schemaDir holds docs/schema/<command>.json.
const schemaDir = "../../docs/schema"

// validate checks v (decoded by encoding/json into any) against the
// subset of JSON Schema draft 2020-12 that docs/schema uses: type (a name
// or a list of names), required, properties, additionalProperties (false
// or a schema), enum, items. Annotations ($schema, $id, title,
// description) are ignored; any other keyword is an error, so a schema
// cannot silently ask for more than is checked. It returns every
// violation, each with its JSON path.
func validate(schema map[string]any, v any, path string) []string {
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, a...)) }
	for k := range schema {
		switch k {
		case "$schema", "$id", "title", "description", "type", "required", "properties", "additionalProperties", "enum", "items":
		default:
			bad("schema keyword %q is not supported by this validator", k)
		}
	}
	if t, ok := schema["type"]; ok {
		var names []string
		switch t := t.(type) {
		case string:
			names = []string{t}
		case []any:
			for _, n := range t {
				names = append(names, n.(string))
			}
		}
		if !slices.ContainsFunc(names, func(n string) bool { return hasType(v, n) }) {
			bad("%s is not of type %v", short(v), names)
			return errs
		}
	}
	if enum, ok := schema["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		bad("%s is not one of %v", short(v), enum)
	}
	switch v := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		for _, r := range asStrings(schema["required"]) {
			if _, ok := v[r]; !ok {
				bad("required property %q is missing", r)
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ps, ok := props[k].(map[string]any); ok {
				errs = append(errs, validate(ps, v[k], path+"."+k)...)
				continue
			}
			switch ap := schema["additionalProperties"].(type) {
			case bool:
				if !ap {
					bad("property %q is not in the schema", k)
				}
			case map[string]any:
				errs = append(errs, validate(ap, v[k], path+"."+k)...)
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, x := range v {
				errs = append(errs, validate(items, x, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	}
	return errs
}

func hasType(v any, name string) bool {
	is, ok := jsonTypes[name]
	return ok && is(v)
}

// jsonTypes says whether a decoded JSON value is of a schema type.
var jsonTypes = map[string]func(v any) bool{
	"object":  func(v any) bool { _, ok := v.(map[string]any); return ok },
	"array":   func(v any) bool { _, ok := v.([]any); return ok },
	"string":  func(v any) bool { _, ok := v.(string); return ok },
	"boolean": func(v any) bool { _, ok := v.(bool); return ok },
	"number":  func(v any) bool { _, ok := v.(float64); return ok },
	"integer": func(v any) bool { f, ok := v.(float64); return ok && f == math.Trunc(f) },
	"null":    func(v any) bool { return v == nil },
}

func asStrings(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			out = append(out, x.(string))
		}
	}
	return out
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}

func loadSchema(t *testing.T, cmd string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(schemaDir, cmd+".json"))
	if err != nil {
		t.Fatalf("schema of %s: %v", cmd, err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("schema of %s: %v", cmd, err)
	}
	if s["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("schema of %s: $schema %v, want draft 2020-12", cmd, s["$schema"])
	}
	return s
}

// TestValidator: the validator finds what it is meant to find (a test of
// the schema test).
func TestValidator(t *testing.T) {
	var s map[string]any
	if err := json.Unmarshal([]byte(`{"type":"object","required":["a"],"additionalProperties":false,
		"properties":{"a":{"type":"integer"},"b":{"type":"array","items":{"type":"string","enum":["x","y"]}},"c":{"type":["array","null"]}}}`), &s); err != nil {
		t.Fatal(err)
	}
	for doc, want := range map[string]int{
		`{"a":1}`:                        0,
		`{"a":1,"b":["x","y"],"c":null}`: 0,
		`{"a":1.5}`:                      1,
		`{}`:                             1,
		`{"a":1,"z":2}`:                  1,
		`{"a":1,"b":["x","q"]}`:          1,
		`{"a":"1","b":[1]}`:              2,
		`{"a":1,"c":{}}`:                 1,
		`[]`:                             1,
	} {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		if errs := validate(s, v, "$"); len(errs) != want {
			t.Errorf("%s: %d violations %v, want %d", doc, len(errs), errs, want)
		}
	}
	if errs := validate(map[string]any{"minimum": 1.0}, 0.0, "$"); len(errs) != 1 {
		t.Errorf("an unsupported keyword passed: %v", errs)
	}
}

// TestJSONSchemas runs every command that has --json on small generated
// or embedded inputs, in the modes that shape its output differently,
// and validates each output against docs/schema/<command>.json.
func TestJSONSchemas(t *testing.T) {
	g, h, _ := demoPair(t)
	mivia := writeGraphs(t, core.FormatMIVIA, "mivia", g, h)
	pace := writeGraphs(t, core.FormatPACE, "gr", g, h)
	gr := writeTemp(t, "c5.gr", vcTestGraph)
	mtx := writeTemp(t, "m.mtx", "%%MatrixMarket matrix coordinate real symmetric\n4 4 3\n2 1 5\n3 2 1\n4 3 5\n")
	labelled := writeTemp(t, "l.clq", "p edge 3 2\nn 1 7\nn 2 8\ne 1 2\ne 2 3\n")
	runs := map[string][][]string{
		"mcs": {
			{mivia[0], mivia[1]},
			{pace[0], pace[1], "--verify", "--zero-based"},
			{mivia[0], mivia[1], "--goal", "1000"},
			{mivia[0], mivia[1], "--engine", "gpu", "--backend", "cpu", "--goal", "21"}, // above the optimum 20
			{mivia[0], mivia[1], "--engine", "hybrid", "--backend", "cpu"},
			{mivia[0], mivia[1], "--timeout", "1ns"},
			{gr, gr, gr},
			{gr, gr, gr, "--approximate", "--keep", "2"},
		},
		"clique": {
			{gr}, {gr, "--complement", "--verify"}, {gr, "--timeout", "1ns"},
			{gr, "--engine", "gpu", "--backend", "cpu", "--goal", "3"},
			{gr, "--engine", "hybrid", "--backend", "cpu"},
		},
		"vc": {
			{gr}, {gr, "--verify"}, {gr, "-k", "2"}, {gr, "-k", "4"},
			{gr, "--engine", "gpu", "--backend", "cpu"},
			{gr, "--engine", "hybrid", "--backend", "cpu", "-k", "3"},
		},
		"match": {
			{mtx, "--backend", "cpu"}, {mtx, "--backend", "cpu", "--strong-only", "--verify"},
			{mtx, "--backend", "cpu", "--engine", "spec", "-o", filepath.Join(t.TempDir(), "m.txt")},
		},
		"info":    {{gr}, {labelled}, {mivia[0]}, {mtx}},
		"devices": {{}, {"-v"}},
		"version": {{}},
		"verify":  {{"--backend", "cpu", "--kernel", "vec_add", "--no-data"}},
	}
	// Every registered algorithm has a schema, and runs: the table's, or
	// its own Examples.
	for _, a := range cli.Algorithms() {
		if a.Schema != a.Name+".json" {
			t.Errorf("arbor %s: its schema is %q, want docs/schema/%s.json", a.Name, a.Schema, a.Name)
		}
		if _, ok := runs[a.Name]; ok {
			continue
		}
		if a.Examples == nil {
			t.Errorf("arbor %s: no runs for the schema test (cli.Algorithm.Examples)", a.Name)
			continue
		}
		ex, err := a.Examples(t.TempDir())
		if err != nil {
			t.Fatalf("arbor %s: examples: %v", a.Name, err)
		}
		runs[a.Name] = ex
	}
	cmds := make([]string, 0, len(runs))
	for c := range runs {
		cmds = append(cmds, c)
	}
	sort.Strings(cmds)
	for _, cmd := range cmds {
		schema := loadSchema(t, cmd)
		for _, args := range runs[cmd] {
			argv := append(append([]string{cmd}, args...), "--json")
			code, out, stderr := runCLI(t, argv...)
			if code != 0 {
				t.Errorf("arbor %s: exit %d: %s", strings.Join(argv, " "), code, stderr)
				continue
			}
			var v any
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Errorf("arbor %s: not JSON: %v", strings.Join(argv, " "), err)
				continue
			}
			for _, e := range validate(schema, v, "$") {
				t.Errorf("arbor %s: %s", strings.Join(argv, " "), e)
			}
		}
	}
}
