package search_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	_ "github.com/arbor-gpu/arbor/algorithms/all" // every search kernel, with its Params
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/device/search"
)

var paramsMacro = regexp.MustCompile(`(?m)^#define (DS_[A-Z]+_PARAMS) (.*)$`)

// signature is the parameter list of kernel in the source text (includes
// resolved), with devsearch.cl's DS_*_PARAMS macros expanded, as the Go
// side describes parameters: name, element type, scalar or buffer.
func signature(text, kernel string) ([]search.FullParam, error) {
	at := strings.Index(text, "KERNEL void "+kernel+"(")
	if at < 0 {
		return nil, fmt.Errorf("no KERNEL void %s(", kernel)
	}
	rest := text[at+len("KERNEL void "+kernel+"("):]
	end := strings.Index(rest, ")")
	if end < 0 {
		return nil, fmt.Errorf("%s: no end to the parameter list", kernel)
	}
	list := rest[:end]
	for _, m := range paramsMacro.FindAllStringSubmatch(text, -1) {
		list = regexp.MustCompile(`\b`+m[1]+`\b`).ReplaceAllString(list, m[2])
	}
	var out []search.FullParam
	for _, p := range strings.Split(list, ",") {
		f := strings.Fields(strings.ReplaceAll(p, "*", " * "))
		if len(f) < 2 {
			return nil, fmt.Errorf("%s: parameter %q", kernel, p)
		}
		fp := search.FullParam{Param: search.Param{Name: f[len(f)-1]}, Scalar: !slices.Contains(f, "*")}
		elem := -1
		for _, tok := range f {
			for e := search.I32; e <= search.U64; e++ {
				if tok == e.String() {
					elem = int(e)
				}
			}
		}
		if elem < 0 {
			return nil, fmt.Errorf("%s: parameter %q has none of the types i32, u32, i64, u64", kernel, p)
		}
		fp.Elem = search.Elem(elem)
		out = append(out, fp)
	}
	return out, nil
}

// compare says where a kernel's signature and its Params part ways.
func compare(got []search.FullParam, p search.Params) error {
	want := p.Full()
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			return fmt.Errorf("%s: parameter %d (%s) is missing from the kernel", p.Kernel(), i, want[i].Name)
		case i >= len(want):
			return fmt.Errorf("%s: parameter %d (%s) is not in its Params", p.Kernel(), i, got[i].Name)
		case got[i] != want[i]:
			return fmt.Errorf("%s: parameter %d is %+v in the kernel, %+v in its Params", p.Kernel(), i, got[i], want[i])
		}
	}
	return nil
}

// TestParamsMatchKernels checks the argument order contract: every search
// kernel (a source NAME.cl with an entry point NAME_epoch that includes
// devsearch.cl) has Params registered with
// its twin, and its signature declares exactly those parameters, in that
// order, with those types. The wrapper launches and the twin reads
// through the same Params.
func TestParamsMatchKernels(t *testing.T) {
	registered := map[string]search.Params{}
	for _, p := range search.Registered() {
		registered[p.Source] = p
	}
	seen := 0
	for _, src := range device.Names() {
		text, err := device.Text(src)
		if err != nil {
			t.Fatal(err)
		}
		if ks, _ := device.KernelNames(src); !slices.Contains(ks, src+"_epoch") || !strings.Contains(text, "devsearch.cl") {
			continue // not a search kernel
		}
		seen++
		p, ok := registered[src]
		if !ok {
			t.Errorf("%s.cl is a search kernel but registers no search.Params (search.RegisterTwin)", src)
			continue
		}
		got, err := signature(text, p.Kernel())
		if err != nil {
			t.Error(err)
			continue
		}
		if err := compare(got, p); err != nil {
			t.Error(err)
		}
	}
	if seen < 4 || seen != len(registered) {
		t.Errorf("%d search kernels, %d Params registered; want the four search kernels and one Params each", seen, len(registered))
	}
}

// TestParamsCatchSwaps makes sure the check fails where it should: the
// kernel's two state buffers swapped, a type changed, a parameter missing.
func TestParamsCatchSwaps(t *testing.T) {
	var p search.Params
	for _, q := range search.Registered() {
		if q.Source == "kcount" {
			p = q
		}
	}
	text, err := device.Text("kcount")
	if err != nil {
		t.Fatal(err)
	}
	good := "GLOBAL u64* frames, GLOBAL i64* counts, DS_LAUNCH_PARAMS)"
	if !strings.Contains(text, good) {
		t.Fatalf("kcount.cl's signature changed: update this test's mutations")
	}
	for _, bad := range []string{
		"GLOBAL i64* counts, GLOBAL u64* frames, DS_LAUNCH_PARAMS)",
		"GLOBAL u32* frames, GLOBAL i64* counts, DS_LAUNCH_PARAMS)",
		"GLOBAL u64* frames, DS_LAUNCH_PARAMS)",
		"GLOBAL u64* frames, GLOBAL i64* counts, DS_GOAL_PARAMS)",
	} {
		got, err := signature(strings.Replace(text, good, bad, 1), p.Kernel())
		if err == nil {
			err = compare(got, p)
		}
		if err == nil {
			t.Errorf("%q passed the check", bad)
		}
	}
	got, err := signature(text, p.Kernel())
	if err != nil || compare(got, p) != nil {
		t.Fatalf("the real signature: %v, %v", err, compare(got, p))
	}
}
