package backend

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Driver is a backend implementation. Probe must be cheap enough to call for
// `arbor devices`: it lists devices without keeping them open.
type Driver interface {
	// Probe lists the devices the backend can open, or returns the reason
	// there are none (library not found with every path tried, no platform,
	// driver too old, ...). An empty list with a nil error means "loaded,
	// but zero devices".
	Probe() ([]Info, error)
	// Open opens the device with the given index from Probe's list.
	Open(index int) (Device, error)
}

// Priorities for auto selection: lower is tried first.
const (
	PriorityCUDA   = 10
	PriorityOpenCL = 20
	PriorityCPU    = 90
)

type registered struct {
	name     string
	priority int
	driver   Driver
}

// The backend registry: the one piece of global state Arbor keeps.
var (
	regMu    sync.Mutex
	registry = map[string]registered{}
)

// Register makes a backend available under name. It panics on a duplicate
// name, which is a programming error caught at start-up.
func Register(name string, priority int, d Driver) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("backend: Register called twice for " + name)
	}
	registry[name] = registered{name, priority, d}
}

// Names lists the registered backends in priority order.
func Names() []string {
	var out []string
	for _, r := range sorted() {
		out = append(out, r.name)
	}
	return out
}

func sorted() []registered {
	regMu.Lock()
	defer regMu.Unlock()
	out := make([]registered, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].priority != out[j].priority {
			return out[i].priority < out[j].priority
		}
		return out[i].name < out[j].name
	})
	return out
}

func lookup(name string) (Driver, bool) {
	regMu.Lock()
	defer regMu.Unlock()
	r, ok := registry[name]
	return r.driver, ok
}

// Detection is what probing one backend found.
type Detection struct {
	Backend string `json:"backend"`
	Devices []Info `json:"devices"`
	Err     error  `json:"-"`
	Reason  string `json:"reason,omitempty"` // Err's text, for --json
	// Seconds is how long the probe took; Phases, where the backend
	// records them, where that time went (loading the library and
	// initialising the driver happen once per process, on the first probe).
	Seconds float64 `json:"seconds"`
	Phases  []Phase `json:"phases,omitempty"`
}

// Available reports whether the backend has at least one device.
func (d Detection) Available() bool { return d.Err == nil && len(d.Devices) > 0 }

// Detect probes every registered backend, in priority order.
func Detect() []Detection {
	var out []Detection
	for _, r := range sorted() {
		out = append(out, probe(r.name, r.driver))
	}
	return out
}

func probe(name string, d Driver) Detection {
	start := time.Now()
	infos, err := d.Probe()
	det := Detection{Backend: name, Devices: infos, Err: err, Seconds: time.Since(start).Seconds(), Phases: PhasesOf(d)}
	if err == nil && len(infos) == 0 {
		det.Err = fmt.Errorf("%s: %w: the backend loaded but reports no devices", name, ErrNoDevice)
	}
	if det.Err != nil {
		det.Reason = det.Err.Error()
	}
	return det
}

// Selection is what the user asked for: --backend / ARBOR_BACKEND,
// --device / ARBOR_DEVICE, and ARBOR_REQUIRE.
type Selection struct {
	Backend string // "auto" (or ""), or a registered backend name
	Device  string // "" (first), an index, or a name substring (case-insensitive)
	Require string // "" or a backend name that must be the one used
}

// Environment variables read by SelectionFromEnv.
const (
	EnvBackend = "ARBOR_BACKEND"
	EnvDevice  = "ARBOR_DEVICE"
	EnvRequire = "ARBOR_REQUIRE"
)

// SelectionFromEnv reads ARBOR_BACKEND, ARBOR_DEVICE and ARBOR_REQUIRE.
// Flags, when given, override the first two: pass them as non-empty args.
func SelectionFromEnv(flagBackend, flagDevice string) Selection {
	s := Selection{Backend: os.Getenv(EnvBackend), Device: os.Getenv(EnvDevice), Require: os.Getenv(EnvRequire)}
	if flagBackend != "" {
		s.Backend = flagBackend
	}
	if flagDevice != "" {
		s.Device = flagDevice
	}
	s.Backend = strings.ToLower(strings.TrimSpace(s.Backend))
	s.Require = strings.ToLower(strings.TrimSpace(s.Require))
	if s.Backend == "" {
		s.Backend = "auto"
	}
	return s
}

// Required reports the backend named by ARBOR_REQUIRE, or "".
func Required() string { return strings.ToLower(strings.TrimSpace(os.Getenv(EnvRequire))) }

// Choice is a selected device and how it was chosen.
type Choice struct {
	Info   Info
	Why    string      // one line: why this device
	Report []Detection // what every backend probed said
}

// Choose picks a device without opening it. auto tries CUDA, then OpenCL
// GPUs and accelerators, then the CPU backend; OpenCL CPU devices (PoCL) only
// when OpenCL is asked for by name or by ARBOR_REQUIRE. ARBOR_REQUIRE
// constrains auto only: auto must then pick the required backend or fail
// with its reason, never fall back. A backend named explicitly (--backend,
// ARBOR_BACKEND) is not a fallback and is used as asked.
func Choose(sel Selection) (Choice, error) {
	if sel.Backend == "" {
		sel.Backend = "auto"
	}
	if sel.Require != "" {
		if _, ok := lookup(sel.Require); !ok {
			return Choice{}, selectionErrorf("ARBOR_REQUIRE=%s names no backend (have %s)", sel.Require, strings.Join(Names(), ", "))
		}
	}
	if sel.Backend != "auto" {
		return chooseNamed(sel)
	}

	// Backends are probed one at a time, in priority order, and only until
	// one offers an eligible device: probing OpenCL loads every installed
	// ICD (NVIDIA's and PoCL's, which initialises LLVM), tens to hundreds
	// of milliseconds that a run on CUDA never needs. `arbor devices`
	// (Detect) still probes them all.
	var report []Detection
	// skipped holds the full reasons, for the error when nothing is left;
	// passed the short form, for the one-line Why of a successful choice
	// (`arbor devices` shows the details).
	var skipped, passed []string
	// noMatch: a backend had devices, none of them the one asked for. When
	// no backend has it, the cause is the name or index, not a missing
	// driver: the error says so first and lists what exists.
	noMatch := false
	for _, r := range sorted() {
		det := probe(r.name, r.driver)
		report = append(report, det)
		if det.Err != nil {
			skipped = append(skipped, det.Backend+": "+det.Err.Error())
			passed = append(passed, det.Backend+" unavailable")
			if sel.Require == det.Backend {
				return Choice{Report: report}, fmt.Errorf("ARBOR_REQUIRE=%s, but it is unavailable: %w", sel.Require, det.Err)
			}
			continue
		}
		accept := func(i Info) bool { return true }
		short := det.Backend + " has no eligible device"
		if det.Backend == "opencl" && sel.Require != "opencl" {
			accept = func(i Info) bool { return i.Type == TypeGPU || i.Type == TypeAccelerator }
			short = "opencl has no GPU (its CPU devices serve --backend opencl)"
		}
		if sel.Require != "" && sel.Require != det.Backend {
			// A backend of higher priority than the required one is passed
			// over: the user asked for the required one.
			skipped = append(skipped, det.Backend+": passed over for ARBOR_REQUIRE="+sel.Require)
			passed = append(passed, det.Backend+" passed over for ARBOR_REQUIRE="+sel.Require)
			continue
		}
		info, err := pickDevice(det.Devices, sel.Device, accept)
		if err != nil {
			noMatch = noMatch || errors.Is(err, ErrSelection)
			skipped = append(skipped, det.Backend+": "+err.Error())
			passed = append(passed, short)
			if sel.Require == det.Backend {
				if errors.Is(err, ErrSelection) {
					return Choice{Report: report}, selectionErrorf("%v (ARBOR_REQUIRE=%s has %s)", err, sel.Require, listDevices(det.Devices, nil))
				}
				return Choice{Report: report}, fmt.Errorf("ARBOR_REQUIRE=%s: %w", sel.Require, err)
			}
			continue
		}
		why := "auto: first available backend in the order cuda, opencl (gpu), cpu"
		if len(passed) > 0 {
			why += "; " + strings.Join(passed, ", ") + " (see arbor devices)"
		}
		return Choice{Info: info, Why: why, Report: report}, nil
	}
	if noMatch {
		return Choice{Report: report}, noMatchError(sel, report)
	}
	return Choice{Report: report}, fmt.Errorf("no device available: %s", strings.Join(skipped, "; "))
}

// chooseNamed is Choose for a backend asked for by name (--backend,
// ARBOR_BACKEND): used as asked, not a fallback.
func chooseNamed(sel Selection) (Choice, error) {
	d, ok := lookup(sel.Backend)
	if !ok {
		return Choice{}, selectionErrorf("unknown backend %q (have auto, %s)", sel.Backend, strings.Join(Names(), ", "))
	}
	det := probe(sel.Backend, d)
	if det.Err != nil {
		return Choice{Report: []Detection{det}}, fmt.Errorf("backend %s: %w", sel.Backend, det.Err)
	}
	info, err := pickDevice(det.Devices, sel.Device, nil)
	if err != nil {
		if errors.Is(err, ErrSelection) {
			err = selectionErrorf("%v; %s has %s", err, sel.Backend, listDevices(det.Devices, nil))
		}
		return Choice{Report: []Detection{det}}, fmt.Errorf("backend %s: %w", sel.Backend, err)
	}
	return Choice{Info: info, Why: "asked for by name", Report: []Detection{det}}, nil
}

// noMatchError is auto's error when backends had devices but none the one
// asked for (--device): the cause is the name or index, not a missing
// driver, so it lists what exists.
func noMatchError(sel Selection, report []Detection) error {
	var all []Info
	var absent []string
	for _, det := range report {
		if det.Err != nil {
			absent = append(absent, det.Backend)
		}
		all = append(all, det.Devices...)
	}
	// Auto passes over OpenCL's CPU devices (PoCL): say so, or a
	// listed name that does not match would puzzle.
	only := func(i Info) string {
		if i.Backend == "opencl" && sel.Require != "opencl" && i.Type != TypeGPU && i.Type != TypeAccelerator {
			return " (only with --backend opencl)"
		}
		return ""
	}
	note := ""
	if len(absent) > 0 {
		note = " (" + strings.Join(absent, ", ") + " unavailable: arbor devices says why)"
	}
	return selectionErrorf("device %q matches no device; there are %s%s", strings.TrimSpace(sel.Device), listDevices(all, only), note)
}

// listDevices names devices as --device takes them, for an error; note,
// if not nil, adds to a device's entry.
func listDevices(devs []Info, note func(Info) string) string {
	if len(devs) == 0 {
		return "no devices"
	}
	names := make([]string, len(devs))
	for i, d := range devs {
		names[i] = d.String()
		if note != nil {
			names[i] += note(d)
		}
	}
	return strings.Join(names, ", ")
}

// selectionError is a selection naming what does not exist; it matches
// ErrSelection under errors.Is without repeating its text.
type selectionError struct{ msg string }

func (e *selectionError) Error() string        { return e.msg }
func (e *selectionError) Is(target error) bool { return target == ErrSelection }

func selectionErrorf(format string, a ...any) error {
	return &selectionError{fmt.Sprintf(format, a...)}
}

// pickDevice picks the device want names (an index, a name substring;
// "": the default) among those accept takes. Candidates are tried GPUs
// first, then accelerators, then the rest, CPU devices last, each kind in
// the backend's order: a platform that lists its CPU device first (PoCL
// beside NVIDIA's OpenCL) must not make a CPU the default.
func pickDevice(devs []Info, want string, accept func(Info) bool) (Info, error) {
	var cands []Info
	for _, d := range devs {
		if accept == nil || accept(d) {
			cands = append(cands, d)
		}
	}
	slices.SortStableFunc(cands, func(a, b Info) int { return typeRank(a.Type) - typeRank(b.Type) })
	if len(cands) == 0 {
		return Info{}, fmt.Errorf("%w: none of %d device(s) is eligible", ErrNoDevice, len(devs))
	}
	want = strings.TrimSpace(want)
	if want == "" {
		return cands[0], nil
	}
	if i, err := strconv.Atoi(want); err == nil {
		for _, d := range cands {
			if d.Index == i {
				return d, nil
			}
		}
		return Info{}, selectionErrorf("no device with index %d", i)
	}
	lw := strings.ToLower(want)
	for _, d := range cands {
		if strings.Contains(strings.ToLower(d.Name), lw) || strings.Contains(strings.ToLower(d.Vendor), lw) ||
			strings.Contains(strings.ToLower(d.Platform), lw) {
			return d, nil
		}
	}
	return Info{}, selectionErrorf("no device name matches %q", want)
}

// typeRank orders device types for a default pick: GPU, accelerator,
// other, CPU.
func typeRank(t DeviceType) int {
	switch t {
	case TypeGPU:
		return 0
	case TypeAccelerator:
		return 1
	case TypeCPU:
		return 3
	}
	return 2
}

// Open opens a device chosen by Choose.
func Open(c Choice) (Device, error) {
	d, ok := lookup(c.Info.Backend)
	if !ok {
		return nil, fmt.Errorf("backend %q is not registered", c.Info.Backend)
	}
	dev, err := d.Open(c.Info.Index)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", c.Info, err)
	}
	return dev, nil
}

// Select chooses and opens a device in one step.
func Select(sel Selection) (Device, Choice, error) {
	c, err := Choose(sel)
	if err != nil {
		return nil, c, err
	}
	dev, err := Open(c)
	return dev, c, err
}

// OpenBackend opens device index of the named backend.
func OpenBackend(name string, index int) (Device, error) {
	d, ok := lookup(name)
	if !ok {
		return nil, fmt.Errorf("backend %q is not registered", name)
	}
	return d.Open(index)
}

// WorkersDriver is a Driver whose devices run work-groups on a pool of
// host workers whose size the caller may choose (the CPU backend).
type WorkersDriver interface {
	Driver
	// OpenWorkers is Open with the pool's size (0: the driver's default).
	OpenWorkers(index, workers int) (Device, error)
}

// OpenWorkers opens device index of the named backend with a pool of
// that many workers: one runs the Go twins' work-groups in order, the
// reference `arbor verify` checks every device against. It fails for a
// backend that has no such pool.
func OpenWorkers(name string, index, workers int) (Device, error) {
	d, ok := lookup(name)
	if !ok {
		return nil, fmt.Errorf("backend %q is not registered", name)
	}
	wd, ok := d.(WorkersDriver)
	if !ok {
		return nil, fmt.Errorf("backend %q has no worker pool to size", name)
	}
	return wd.OpenWorkers(index, workers)
}

// ProbeBackend probes one backend by name.
func ProbeBackend(name string) Detection {
	d, ok := lookup(name)
	if !ok {
		return Detection{Backend: name, Err: fmt.Errorf("backend %q is not registered: %w", name, ErrUnavailable), Reason: "not registered"}
	}
	return probe(name, d)
}

// IsOutOfMemory reports whether err is a device out-of-memory error.
func IsOutOfMemory(err error) bool { return errors.Is(err, ErrOutOfMemory) }

// ChooseAll picks several devices for one search without opening them:
// with Device "all", every device of the backend Choose picks that is of
// the same type as its pick (every GPU, say, not the GPUs and a CPU device
// beside them); with a comma-separated list ("0,1" or names), each entry as
// Choose would pick it alone. Anything else is Choose's one device.
func ChooseAll(sel Selection) ([]Choice, error) {
	want := strings.TrimSpace(sel.Device)
	switch {
	case strings.EqualFold(want, "all"):
		one := sel
		one.Device = ""
		c, err := Choose(one)
		if err != nil {
			return nil, err
		}
		var out []Choice
		for _, det := range c.Report {
			if det.Backend != c.Info.Backend {
				continue
			}
			for _, info := range det.Devices {
				if info.Type == c.Info.Type {
					out = append(out, Choice{Info: info, Why: c.Why + "; every " + info.Type.String() + " device of " + info.Backend, Report: c.Report})
				}
			}
		}
		if len(out) == 0 {
			out = append(out, c)
		}
		return out, nil
	case strings.Contains(want, ","):
		var out []Choice
		for _, part := range strings.Split(want, ",") {
			one := sel
			one.Device = strings.TrimSpace(part)
			c, err := Choose(one)
			if err != nil {
				return nil, fmt.Errorf("device %q: %w", one.Device, err)
			}
			for _, prev := range out {
				if prev.Info.Backend == c.Info.Backend && prev.Info.Index == c.Info.Index {
					return nil, selectionErrorf("device %q: %s is listed twice", one.Device, c.Info)
				}
			}
			out = append(out, c)
		}
		return out, nil
	}
	c, err := Choose(sel)
	if err != nil {
		return nil, err
	}
	return []Choice{c}, nil
}

// Check reports a selection that names what does not exist (an unknown
// backend in Backend or Require, or a Device no backend has) with an error
// matching ErrSelection; it opens nothing. A command that may never open a
// device calls it so that a mistyped name fails at once instead of being
// ignored. Whether a named backend is usable (its driver present) is left
// to Choose: that is a failure, not a usage error. Without a Device it only
// looks up names; with one it probes, as Choose does.
func (s Selection) Check() error {
	for _, b := range []string{s.Require, s.Backend} {
		if b == "" || b == "auto" {
			continue
		}
		if _, ok := lookup(b); !ok {
			what := "unknown backend %q (have auto, %s)"
			if b == s.Require {
				what = "ARBOR_REQUIRE=%s names no backend (have %s)"
			}
			return selectionErrorf(what, b, strings.Join(Names(), ", "))
		}
	}
	if strings.TrimSpace(s.Device) == "" {
		return nil
	}
	if _, err := ChooseAll(s); errors.Is(err, ErrSelection) {
		return err
	}
	return nil
}

// SelectAll chooses devices as ChooseAll does and opens them. On error
// every device already opened is closed.
func SelectAll(sel Selection) ([]Device, []Choice, error) {
	choices, err := ChooseAll(sel)
	if err != nil {
		return nil, nil, err
	}
	devs := make([]Device, 0, len(choices))
	for _, c := range choices {
		d, err := Open(c)
		if err != nil {
			for _, o := range devs {
				o.Close()
			}
			return nil, nil, err
		}
		devs = append(devs, d)
	}
	return devs, choices, nil
}
