package startup

import (
	"errors"
	"sync"
	"time"

	"github.com/arbor-gpu/arbor/backend"
)

// Opening is the devices of a search being opened in the background, so
// that no one waits for them: opening a GPU (driver, context, module) takes
// a few tenths of a second, longer than most easy instances take on the
// CPU. An auto engine starts its CPU search at once and lets the device
// join when Ready is closed; an engine that runs on the device alone waits.
// Release hands the devices back without waiting for their teardown, so a
// process that has its answer exits at once.
type Opening struct {
	ready    chan struct{}
	chosen   chan struct{} // closed once the devices are chosen (infos known)
	infos    []backend.Info
	chooseE  error
	choose   func() ([]backend.Info, error) // WithChoice's, run before open
	devs     []backend.Device
	err      error
	took     time.Duration
	release  func()
	open     func() ([]backend.Device, func(), error) // nil once started (or for Opened)
	report   Report                                   // Open's: what it decided (written before ready closes)
	required bool                                     // Open's: the selection requires a backend (Settle waits)

	mu       sync.Mutex
	over     bool // the opening goroutine has finished with the fields above
	released bool
}

// OpenInBackground runs open on its own goroutine. open returns the devices
// the engine gets, a function that closes everything it opened (which may
// be more than it returns, or nil) and why there is no device, if there is
// none.
func OpenInBackground(open func() ([]backend.Device, func(), error)) *Opening {
	o := OpenWhenAsked(open)
	o.Start()
	return o
}

// OpenWhenAsked is OpenInBackground that starts only when asked (Start, or
// Wait): for an engine that needs the device on some instances only
// (vertex cover's auto: dense kernels), so that the others never pay for
// opening it (even probing the backends costs CPU time: PoCL's platform
// takes about 20 ms of it to start).
func OpenWhenAsked(open func() ([]backend.Device, func(), error)) *Opening {
	return &Opening{ready: make(chan struct{}), chosen: make(chan struct{}), open: open}
}

// WithChoice makes the opening run choose first (which devices, without
// opening them: for a GPU the driver's initialisation, about half of the
// opening) and close Chosen once it returns, so that an engine can decide
// what the device will do before it is open (mcs's auto moves its CPU
// threads to the hybrid's half at once). open then opens the devices
// chosen (it runs even when choose failed, to say what that means). Call
// it before Start; without it Chosen closes with Ready.
func (o *Opening) WithChoice(choose func() ([]backend.Info, error)) *Opening {
	o.mu.Lock()
	o.choose = choose
	o.mu.Unlock()
	return o
}

// Chosen is closed once the devices are chosen (WithChoice), or once the
// opening is over.
func (o *Opening) Chosen() <-chan struct{} { return o.chosen }

// Infos are the chosen devices (what Chosen announced) or why there are
// none; valid once Chosen is closed.
func (o *Opening) Infos() ([]backend.Info, error) {
	<-o.chosen
	return o.infos, o.chooseE
}

// Start starts the opening on its own goroutine, if it has not started;
// an opening released before it started never opens anything (it ends
// with an error).
func (o *Opening) Start() {
	o.mu.Lock()
	open, choose := o.open, o.choose
	o.open = nil
	released := o.released
	if open != nil && released {
		o.over = true
	}
	o.mu.Unlock()
	switch {
	case open == nil:
		return
	case released:
		o.err = errors.New("the devices were released before they were opened")
		o.chooseE = o.err
		close(o.chosen)
		close(o.ready)
		return
	}
	start := time.Now()
	go func() {
		defer close(o.ready)
		if choose != nil {
			// open runs even when choose failed: it says what that
			// means (a fallback, or an error for an engine that needs
			// the device).
			o.infos, o.chooseE = choose()
			close(o.chosen)
			o.devs, o.release, o.err = open()
		} else {
			o.devs, o.release, o.err = open()
			o.chooseE = o.err
			for _, d := range o.devs {
				o.infos = append(o.infos, d.Info())
			}
			close(o.chosen)
		}
		o.took = time.Since(start)
		o.mu.Lock()
		o.over = true
		late := o.released
		o.mu.Unlock()
		if late && o.release != nil {
			// Released while opening: nobody will use the devices.
			o.release()
		}
	}()
}

// Opened is an Opening that is already done: devices the caller opened
// (and will close) itself.
func Opened(devs []backend.Device) *Opening {
	o := &Opening{ready: make(chan struct{}), chosen: make(chan struct{}), devs: devs, over: true}
	for _, d := range devs {
		o.infos = append(o.infos, d.Info())
	}
	close(o.chosen)
	close(o.ready)
	return o
}

// Ready is closed once the opening is over, successfully or not (never,
// for an OpenWhenAsked that is not started).
func (o *Opening) Ready() <-chan struct{} { return o.ready }

// Wait waits for the opening, starting it if it has not started, and
// returns its devices (none, with the reason, when it failed).
func (o *Opening) Wait() ([]backend.Device, error) {
	o.Start()
	<-o.ready
	return o.devs, o.err
}

// Done reports whether the opening is over, without waiting.
func (o *Opening) Done() bool {
	select {
	case <-o.ready:
		return true
	default:
		return false
	}
}

// Took is how long the opening took (zero until it is over, and for
// Opened).
func (o *Opening) Took() time.Duration {
	if !o.Done() {
		return 0
	}
	return o.took
}

// Release closes what the opening opened, on a goroutine of its own and
// only once the opening is over: the caller never waits for a teardown,
// and a process that exits before it is done simply skips it (the driver
// reclaims a dying process's contexts). Safe to call more than once.
func (o *Opening) Release() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.released {
		return
	}
	o.released = true
	if !o.over {
		return // the opening goroutine releases when it ends
	}
	if o.release != nil {
		go o.release()
	}
}

// ReleaseNow is Release that waits for the opening and the teardown: for
// callers that go on using the machine (tests, a long-lived program that
// opens devices again).
func (o *Opening) ReleaseNow() {
	o.mu.Lock()
	unstarted := o.open != nil
	o.mu.Unlock()
	if unstarted {
		o.Release()
		o.Start() // opens nothing now: ends at once
	}
	<-o.ready
	o.mu.Lock()
	first := !o.released
	o.released = true
	o.mu.Unlock()
	if first && o.release != nil {
		o.release()
	}
}
