package cuda

import (
	"errors"
	"runtime"
	"sync"
	"time"
)

// errClosed is returned by calls on a device after Close.
var errClosed = errors.New("cuda: device is closed")

// executor runs every driver call of one context on one goroutine locked to
// its OS thread: a CUDA context is current per thread, so calls made from
// whatever thread a goroutine happens to run on would find no context (or
// another one). Callers send closures and wait for their result.
//
// Handing work to a goroutine locked to a thread costs a futex wake of that
// thread, and a goroutine that blocked waiting for an answer costs another
// to wake again; in a virtual machine each is a wake-up of an idle virtual
// CPU (about 100-150 µs on the H100 machine, against 40 µs for a whole
// 16M-element reduction). Both sides therefore poll before they block: during
// a burst of launches or copies the executor finds the next call already
// waiting, and a caller waiting for a kernel finds its result without
// sleeping, which brings a round trip under a microsecond. The window must
// outlast the usual wait (a kernel plus its read-back), not just the
// hand-off: with 50 µs, every call that waited on a kernel of more than
// about 50 µs paid both wake-ups, and the primitives ran 2-3x slower than
// through OpenCL, whose blocking calls wait on the caller's own thread.
type executor struct {
	work    chan *call
	quit    chan struct{}
	done    chan struct{}
	stop    sync.Once
	pool    sync.Pool
	spinFor time.Duration // how long each side polls before it blocks
}

type call struct {
	f      func() error
	result chan error
}

// spinWindow is the polling window: longer than the waits of the usual
// call (the primitives' calls wait 40-300 µs on the device), short enough
// that an idle device stops costing a core within a millisecond.
const spinWindow = time.Millisecond

// pollBatch: the clock is read only every pollBatch polls, because reading
// it can itself cost about a microsecond in a virtual machine; a quick
// answer costs no clock read.
const pollBatch = 256

// spin calls try until it reports true or the window has passed. yield
// lets other goroutines run between batches (the caller's side: on a
// machine with few cores, a waiting caller must not starve the others;
// a goroutine that yields stays runnable, so no wake-up is needed). The
// executor's locked thread never yields: that would hand its processor
// away and cost the very wake-up the polling avoids.
func (e *executor) spin(try func() bool, yield bool) bool {
	var deadline time.Time
	for {
		for i := 0; i < pollBatch; i++ {
			if try() {
				return true
			}
		}
		now := time.Now()
		if deadline.IsZero() {
			deadline = now.Add(e.spinFor)
		}
		if !now.Before(deadline) {
			return false
		}
		if yield {
			runtime.Gosched()
		}
	}
}

// newExecutor starts the executor goroutine, runs setup on it (make the
// context current) and returns once setup is done. teardown runs on the
// same thread when the executor stops.
func newExecutor(setup func() error, teardown func()) (*executor, error) {
	return startExecutor(spinWindow, setup, teardown)
}

// startExecutor is newExecutor with the polling window given (0: both
// sides block at once).
func startExecutor(window time.Duration, setup func() error, teardown func()) (*executor, error) {
	e := &executor{work: make(chan *call, 64), quit: make(chan struct{}), done: make(chan struct{}), spinFor: window}
	e.pool.New = func() any { return &call{result: make(chan error, 1)} }
	ready := make(chan error, 1)
	go e.loop(setup, teardown, ready)
	if err := <-ready; err != nil {
		<-e.done
		return nil, err
	}
	return e, nil
}

func (e *executor) loop(setup func() error, teardown func(), ready chan<- error) {
	runtime.LockOSThread()
	// The thread stays locked to the end: a thread that had a context
	// current is not handed back to the Go scheduler for other goroutines.
	defer close(e.done)
	if err := setup(); err != nil {
		ready <- err
		return
	}
	ready <- nil
	for {
		var c *call
		select {
		case c = <-e.work:
		case <-e.quit:
			e.drain()
			teardown()
			return
		}
		for c != nil {
			if err := c.f(); c.result != nil {
				c.result <- err
			}
			c = e.poll()
		}
	}
}

// poll waits a while for the next call without blocking the thread.
func (e *executor) poll() *call {
	var c *call
	e.spin(func() bool {
		select {
		case c = <-e.work:
			return true
		default:
			return false
		}
	}, false)
	return c
}

// drain answers calls that raced with Close.
func (e *executor) drain() {
	for {
		select {
		case c := <-e.work:
			if c.result != nil {
				c.result <- errClosed
			}
		default:
			return
		}
	}
}

// do runs f on the executor's thread and returns its error.
func (e *executor) do(f func() error) error {
	c := e.pool.Get().(*call)
	c.f = f
	select {
	case e.work <- c:
	case <-e.quit:
		c.f = nil
		e.pool.Put(c)
		return errClosed
	}
	var err error
	if e.spin(func() bool {
		select {
		case err = <-c.result:
			return true
		default:
			return false
		}
	}, true) {
		c.f = nil
		e.pool.Put(c)
		return err
	}
	select {
	case err = <-c.result:
	case <-e.done:
		// The executor stopped; a call it drained has its answer waiting,
		// one that slipped in after the drain never will.
		select {
		case err = <-c.result:
		default:
			return errClosed // c may still sit in the queue: not reused
		}
	}
	c.f = nil
	e.pool.Put(c)
	return err
}

// post queues f to run on the executor's thread without waiting for it:
// f reports its own errors. Calls run in the order they were posted or
// done, so a later do sees the effects of every earlier post.
func (e *executor) post(f func() error) error {
	select {
	case <-e.quit:
		return errClosed
	default:
	}
	select {
	case e.work <- &call{f: f}:
		return nil
	case <-e.quit:
		return errClosed
	}
}

// close stops the executor after the calls already queued; teardown runs
// on the executor's thread.
func (e *executor) close() {
	e.stop.Do(func() { close(e.quit) })
	<-e.done
}

// closed reports whether close has begun.
func (e *executor) closed() bool {
	select {
	case <-e.quit:
		return true
	default:
		return false
	}
}
