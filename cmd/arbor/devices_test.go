package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/arbor-gpu/arbor/backend"
)

// phaseJSON is a step of probing or opening a device in --json (devices
// -v, verify).
type phaseJSON struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// TestDevicesVerbose: -v opens every device, runs a checked kernel on it
// and lists the phases of its start-up; --json carries the probe's time
// and, with -v, each device's phases.
func TestDevicesVerbose(t *testing.T) {
	code, out, stderr := runCLI(t, "devices", "-v")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"probe of cpu: ", "open cpu:0 ", " and a first kernel: ", " ms  open (identify the CPU", "auto selection: "} {
		if !strings.Contains(out, want) {
			t.Errorf("devices -v lacks %q:\n%s", want, out)
		}
	}

	code, out, stderr = runCLI(t, "devices", "-v", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []struct {
		Backend string  `json:"backend"`
		Seconds float64 `json:"seconds"`
		Reason  string  `json:"reason"`
		Devices []struct {
			Name string `json:"name"`
		} `json:"devices"`
		Opened []struct {
			Device  string      `json:"device"`
			Seconds float64     `json:"seconds"`
			Error   string      `json:"error"`
			Phases  []phaseJSON `json:"phases"`
		} `json:"opened"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	cpuSeen := false
	for _, r := range rows {
		if r.Seconds <= 0 {
			t.Errorf("%s: probe took %v s", r.Backend, r.Seconds)
		}
		if len(r.Opened) != len(r.Devices) {
			t.Errorf("%s: %d devices, %d opened", r.Backend, len(r.Devices), len(r.Opened))
		}
		for _, o := range r.Opened {
			if o.Error != "" {
				t.Errorf("%s: %s", o.Device, o.Error)
			}
			var sum float64
			for _, p := range o.Phases {
				if p.Name == "" || p.Seconds < 0 {
					t.Errorf("%s: phase %+v", o.Device, p)
				}
				sum += p.Seconds
			}
			if len(o.Phases) == 0 || sum <= 0 {
				t.Errorf("%s: phases %+v", o.Device, o.Phases)
			}
			cpuSeen = cpuSeen || strings.HasPrefix(o.Device, "cpu:0")
		}
	}
	if !cpuSeen {
		t.Errorf("devices -v --json opened no cpu device:\n%s", out)
	}
}

// TestVerifyShowsStartUp: verify lists each device's start-up phases after
// its table, and --json gives them per row.
func TestVerifyShowsStartUp(t *testing.T) {
	code, out, stderr := runCLI(t, "verify", "--backend", "cpu", "--kernel", "vec_add", "--no-data")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "start-up of cpu:0 ") || !strings.Contains(out, " ms  open (identify the CPU") {
		t.Errorf("verify shows no start-up:\n%s", out)
	}
	code, out, stderr = runCLI(t, "verify", "--backend", "cpu", "--kernel", "vec_add", "--no-data", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var report struct {
		Rows []struct {
			Device     string      `json:"device"`
			OpenPhases []phaseJSON `json:"open_phases"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(report.Rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range report.Rows {
		if len(r.OpenPhases) == 0 || !strings.HasPrefix(r.OpenPhases[0].Name, "open") {
			t.Errorf("%s: open_phases %+v", r.Device, r.OpenPhases)
		}
	}
}

// TestVerifyCompactBuilds: the first program's build phases stay, the
// other programs' are summed into one line, and the rest keep their order.
func TestVerifyCompactBuilds(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	in := []backend.Phase{
		{Name: "cuInit", Took: ms(100)},
		{Name: "build scan: kernel cache (hit)", Took: ms(1)},
		{Name: "build scan: module load (cubin, 10 KiB)", Took: ms(2)},
		{Name: "first allocation (8 B)", Took: ms(3)},
		{Name: "build sort: kernel cache (miss)", Took: ms(4)},
		{Name: "build sort: NVRTC compile", Took: ms(50)},
		{Name: "build scan: module load (cubin, 10 KiB)", Took: ms(5)},
		{Name: "build mcs: module load (cubin, 1.0 MiB)", Took: ms(6)},
		{Name: "first launch (cuLaunchKernel, issue only)", Took: ms(7)},
	}
	got := compactBuilds(in)
	want := []backend.Phase{in[0], in[1], in[2], in[3], in[6], in[8],
		{Name: "builds of 2 more programs (cache, compile, load)", Took: ms(60)}}
	if len(got) != len(want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("phase %d: got %v, want %v", i, got[i], want[i])
		}
	}
}
