package cli

import (
	"slices"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/device/startup"
	"github.com/arbor-gpu/arbor/internal/batch"
)

// SlotWhy is a row's why as docs/cli.md words it: on a CPU slot it
// begins "a CPU slot of the batch", and the engines' "no device" (auto
// without a device to join) says that the batch has no device slots.
func SlotWhy(slot batch.Slot, why string) string {
	if slot.Device {
		return why
	}
	if why == "no device" {
		return "a CPU slot of the batch (no device slots)"
	}
	return "a CPU slot of the batch: " + why
}

// SlotKit is what a batch instance runs with on its slot: a device slot
// gets the batch's devices (Devs) and their share of the workers; a CPU
// slot gets no device, and an engine that searches on one (one of
// DeviceEngines) gives way there to CPU, the engine that does not.
type SlotKit[E comparable] struct {
	Devs          []backend.Device
	Workers       int
	CPU           E
	DeviceEngines []E
}

// Apply sets an instance's engine, devices and workers (its options'
// fields) for slot; on a CPU slot the workers are left as they are.
func (k SlotKit[E]) Apply(slot batch.Slot, engine *E, devices *[]backend.Device, workers *int) {
	if slot.Device {
		*devices, *workers = k.Devs, k.Workers
		return
	}
	*devices = nil
	if slices.Contains(k.DeviceEngines, *engine) {
		*engine = k.CPU
	}
}

// OneFileBatch is what vc's and clique's batches share: the list of one
// graph per line, -o, the devices (opened once, under the command's rule)
// and the slots, the bound (the edges searched). closeAll closes the
// runner's output and the devices.
type OneFileBatch struct {
	R        *BatchRunner
	Jobs     []*BatchJob
	Skipped  int
	Devs     []backend.Device
	Workers  int
	CloseAll func()
}

func NewOneFileBatch(e *Env, cmd string, sr *SearchFlags, bf *BatchFlags, pos []string, threads int, opens, auto, complement bool,
	rule startup.Rule) (*OneFileBatch, error) {
	sf := &sr.SolverFlags
	if err := bf.Check(cmd, pos, sf); err != nil {
		return nil, err
	}
	r, jobs, skipped, err := NewBatchRunner(e, cmd, sf, bf, bf.List, 1, true)
	if err != nil {
		return nil, err
	}
	r.ReadOptions = core.ReadOptions{Format: *sr.Format}
	devs, dslots, dworkers, closeDevs, err := BatchDevices(e, sr, bf, opens, auto, rule)
	if err != nil {
		r.Out.Close()
		return nil, err
	}
	r.CPU, r.Devs = CPUSlots(threads), dslots
	r.Bound = func(st []GraphStat) int64 { return EdgesBound(st[0], complement) }
	return &OneFileBatch{R: r, Jobs: jobs, Skipped: skipped, Devs: devs, Workers: dworkers,
		CloseAll: func() { r.Out.Close(); closeDevs() }}, nil
}

// EdgesBound is vc's and clique's cheap bound: the edges of the graph
// searched (of the complement with --complement).
func EdgesBound(st GraphStat, complement bool) int64 {
	if complement {
		return int64(st.N)*int64(st.N-1)/2 - int64(st.M)
	}
	return int64(st.M)
}
