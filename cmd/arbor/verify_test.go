package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestVerifyCPU(t *testing.T) {
	code, out, stderr := runCLI(t, "verify", "--backend", "cpu", "--kernel", "scan,argmax", "--no-data")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"KERNEL", "scan", "argmax", "cpu:0", " ok "} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestVerifyJSON(t *testing.T) {
	code, out, stderr := runCLI(t, "verify", "--backend", "cpu", "--kernel", "bitset", "--no-data", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var report struct {
		Rows        []verifyRow `json:"rows"`
		Failed      *int        `json:"failed"`
		NotVerified []string    `json:"not_verified"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	rows := report.Rows
	if report.Failed == nil || *report.Failed != 0 || report.NotVerified == nil {
		t.Fatalf("an object with failed 0 and a list not_verified: %s", out)
	}
	if len(rows) != 1 || rows[0].Kernel != "bitset" || rows[0].Result != "ok" || rows[0].Cases < 5 {
		t.Fatalf("rows %+v", rows)
	}
}

func TestVerifyUsage(t *testing.T) {
	wantExit(t, 2, [][]string{
		{"verify", "--kernel", "no-such-kernel"},
		{"verify", "--backend", "no-such-backend"},
		{"verify", "extra"},
		{"kernels", "--dump", "no-such-source"},
		{"kernels", "extra"},
	})
}

func TestKernelsList(t *testing.T) {
	code, out, stderr := runCLI(t, "kernels")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"scan.cl", "scan_down_sum_i32", "argmax_rows_i32", "bitset_and_count", "compact_mark", "segreduce_i32"} {
		if !strings.Contains(out, want) {
			t.Errorf("listing lacks %q:\n%s", want, out)
		}
	}
}

// TestKernelsDump checks that both dialects are printed, the CUDA one even
// with no CUDA device present, and that a kernel name finds its source.
func TestKernelsDump(t *testing.T) {
	for _, tc := range []struct{ Backend, want string }{
		{"cuda", "#define ARBOR_CUDA 1"},
		{"opencl", "#define ARBOR_OPENCL 1"},
	} {
		code, out, stderr := runCLI(t, "kernels", "--dump", "scan_down_sum_i32", "--backend", tc.Backend)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.Backend, code, stderr)
		}
		for _, want := range []string{tc.want, "#define ARBOR_ATOMICS64", `#line 1 "scan.cl"`, "SCAN_KERNELS(sum_i32"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s dump lacks %q", tc.Backend, want)
			}
		}
	}
}
