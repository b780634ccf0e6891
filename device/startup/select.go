package startup

import (
	"fmt"
	"time"

	"github.com/arbor-gpu/arbor/backend"
)

// Selection is which devices an engine may open: a backend.Selection (the
// command line's --backend and --device, over ARBOR_BACKEND, ARBOR_DEVICE
// and ARBOR_REQUIRE: backend.SelectionFromEnv) and whether the caller
// named the backend on purpose (Named: the command line's --backend), which
// lets mcs's portfolio use a CPU device it otherwise leaves to its CPU
// searches.
type Selection struct {
	backend.Selection
	Named bool
}

// Rule decides which of the devices opened for a selection an engine gets
// (opened and openErr: what opening them gave): the algorithms' Place.
type Rule func(opened []backend.Device, openErr error) (Placement, error)

// Strategy is when an opening starts.
type Strategy int

const (
	// AtOnce starts opening at once: for engines that run on the device
	// (gpu, hybrid, portfolio), which wait for it anyway.
	AtOnce Strategy = iota
	// AfterHeadStart starts opening after HeadStart, or at once when the
	// engine asks for the devices before (Wait): mcs's and clique's auto.
	AfterHeadStart
	// WhenAsked starts opening only when the engine asks (Start or Wait):
	// vertex cover's auto, which uses a device on dense kernels only.
	WhenAsked
)

// HeadStart is how long an auto engine's CPU search runs before the device
// starts opening. An instance settled within it never touches the driver;
// one settled while the driver is initialising pays at exit for the kernel
// to finish that call and tear down what it made (measured on the H200:
// clique cop_hat500-2 --complement, 33 ms on the CPU engine, took 92 ms
// with the device opening from the start; vc cop_hat500-2 53 ms against
// 104 ms). Long searches lose the head start's worth of device time,
// within auto's 5 % margin on the medium MIVIA pairs (0.6–1.2 s).
const HeadStart = 40 * time.Millisecond

// Report is what an opening decided, for the user.
type Report struct {
	// Fallback, when set, says that no device could be opened and what
	// runs instead: worth telling the user whatever the verbosity.
	Fallback string
	// Using are the devices opened (the engine may have been given fewer:
	// Note says why).
	Using []backend.Info
	// Note, when set, says why opened devices were left out.
	Note string
}

// Lines are the report as the command line says it on stderr (after
// "arbor: "): the fallback, and with verbose the devices opened and the
// note.
func (r Report) Lines(verbose bool) []string {
	var lines []string
	if r.Fallback != "" {
		lines = append(lines, r.Fallback)
	}
	if verbose {
		for _, info := range r.Using {
			lines = append(lines, fmt.Sprintf("using %s", info))
		}
		if r.Note != "" {
			lines = append(lines, r.Note)
		}
	}
	return lines
}

// Open prepares the opening of sel's devices under rule, started as s
// says. Two steps: choosing the devices (for a GPU, the driver's
// initialisation) tells an engine what it will get (Chosen, Infos), opening
// them (the contexts) follows. Release it when done: that never waits.
func Open(sel Selection, s Strategy, rule Rule) *Opening {
	var choices []backend.Choice
	var chooseErr error
	choose := func() ([]backend.Info, error) {
		choices, chooseErr = backend.ChooseAll(sel.Selection)
		infos := make([]backend.Info, len(choices))
		for i, c := range choices {
			infos[i] = c.Info
		}
		return infos, chooseErr
	}
	var o *Opening
	o = OpenWhenAsked(func() ([]backend.Device, func(), error) {
		var opened []backend.Device
		closeAll := func() {
			for _, dev := range opened {
				dev.Close()
			}
		}
		err := chooseErr
		for _, c := range choices {
			if err != nil {
				break
			}
			var dev backend.Device
			if dev, err = backend.Open(c); err == nil {
				opened = append(opened, dev)
			}
		}
		if err != nil {
			closeAll()
			opened = nil
		}
		p, err := rule(opened, err)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		// Written before Ready closes: Report reads it after.
		o.report = report(p, opened)
		return p.Devices, closeAll, nil
	})
	o.required = sel.Require != ""
	o.WithChoice(choose)
	switch s {
	case AtOnce:
		o.Start()
	case AfterHeadStart:
		time.AfterFunc(HeadStart, o.Start)
	}
	return o
}

// OpenNow opens sel's devices at once and waits, under rule: for a caller
// that opens them once for many searches (a batch). It returns the devices
// the engine gets, a function that closes every device opened and the
// report.
func OpenNow(sel Selection, rule Rule) ([]backend.Device, func(), Report, error) {
	opened, _, err := backend.SelectAll(sel.Selection)
	if err != nil {
		opened = nil
	}
	closeAll := func() {
		for _, d := range opened {
			d.Close()
		}
	}
	p, err := rule(opened, err)
	if err != nil {
		closeAll()
		return nil, func() {}, Report{}, err
	}
	return p.Devices, closeAll, report(p, opened), nil
}

func report(p Placement, opened []backend.Device) Report {
	r := Report{Fallback: p.Fallback, Note: p.Note}
	for _, d := range opened {
		r.Using = append(r.Using, d.Info())
	}
	return r
}

// Settle waits for the opening when the selection requires a backend
// (ARBOR_REQUIRE): a failure to open it must surface whatever an instance
// the CPU settles first would hide. Otherwise the device stays in the
// background and Settle returns at once.
func (o *Opening) Settle() error {
	if !o.required {
		return nil
	}
	_, err := o.Wait()
	return err
}

// Devices are the devices the engine got, once the opening is over (nil
// before, and for a failed opening).
func (o *Opening) Devices() []backend.Device {
	if !o.Done() {
		return nil
	}
	devs, _ := o.Wait()
	return devs
}

// Report is what the opening decided, once it is over (zero before: a
// device the run never waited for is not worth a word).
func (o *Opening) Report() Report {
	if !o.Done() {
		return Report{}
	}
	return o.report
}
