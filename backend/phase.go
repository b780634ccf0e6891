package backend

import (
	"encoding/json"
	"sync"
	"time"
)

// Phase is one step of bringing a backend or a device up (loading the
// library, initialising the driver, creating a context, the first build,
// allocation or launch) and how long it took: `arbor devices -v` and
// `arbor verify` show them, so that the time a device costs before it does
// any work can be attributed.
type Phase struct {
	Name string
	Took time.Duration
}

// MarshalJSON writes {"name": ..., "seconds": ...}: --json output gives
// durations in seconds everywhere.
func (p Phase) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name    string  `json:"name"`
		Seconds float64 `json:"seconds"`
	}{p.Name, p.Took.Seconds()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *Phase) UnmarshalJSON(b []byte) error {
	var v struct {
		Name    string  `json:"name"`
		Seconds float64 `json:"seconds"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	p.Name, p.Took = v.Name, time.Duration(v.Seconds*float64(time.Second))
	return nil
}

// Timed is implemented by drivers and devices that record where their
// start-up time went. A driver reports the phases of loading and probing
// (done once per process); a device those of opening it and of its first
// build, allocation and launch, as they happen.
type Timed interface {
	Phases() []Phase
}

// PhasesOf returns v's phases if v records them, else nil.
func PhasesOf(v any) []Phase {
	if t, ok := v.(Timed); ok {
		return t.Phases()
	}
	return nil
}

// PhaseLog records phases; it is safe for concurrent use and its zero
// value is ready. Backends embed one per driver and per device.
type PhaseLog struct {
	mu   sync.Mutex
	list []Phase
	seen map[string]bool
}

// Add records a phase.
func (l *PhaseLog) Add(name string, took time.Duration) {
	l.mu.Lock()
	l.list = append(l.list, Phase{name, took})
	l.mu.Unlock()
}

// Since records a phase that began at start and ends now.
func (l *PhaseLog) Since(name string, start time.Time) { l.Add(name, time.Since(start)) }

// First records a phase that began at start and ends now, unless a phase
// of that name was recorded by First before: the first allocation or
// launch of a device is part of its start-up, the later ones are work.
func (l *PhaseLog) First(name string, start time.Time) {
	took := time.Since(start)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[name] {
		return
	}
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[name] = true
	l.list = append(l.list, Phase{name, took})
}

// Phases returns a copy of the phases recorded so far, in order.
func (l *PhaseLog) Phases() []Phase {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Phase(nil), l.list...)
}

// DriverPhases is a driver's start-up record, which makes it a Timed:
// the phases of loading its libraries (once per process, in Load), then
// those of its first enumeration of devices. Drivers embed one.
type DriverPhases struct {
	Load  PhaseLog
	mu    sync.Mutex
	probe []Phase
}

// FirstProbe keeps phases as the first enumeration's; later enumerations
// (opening enumerates again) cost little and are not kept.
func (d *DriverPhases) FirstProbe(phases []Phase) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.probe == nil {
		d.probe = phases
	}
}

// Phases is loading, then the first enumeration.
func (d *DriverPhases) Phases() []Phase {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append(d.Load.Phases(), d.probe...)
}

// Total is the sum of the phases' durations.
func Total(ps []Phase) time.Duration {
	var t time.Duration
	for _, p := range ps {
		t += p.Took
	}
	return t
}
