// Package cpu is the backend that is always present: it runs the Go twin of
// each kernel with the kernel's launch geometry, spreading work-groups over
// one goroutine per core. The twins double as the reference the device
// backends are checked against.
package cpu

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/internal/par"
	"github.com/klauspost/cpuid/v2"
)

// Name is the backend's registered name.
const Name = "cpu"

// MaxWorkGroup is the largest work-group the CPU backend accepts, the same
// as common GPUs so that launch geometry carries over unchanged.
const MaxWorkGroup = 1024

// localMemory is the local memory per work-group the CPU backend offers.
const localMemory = 64 << 10

func init() { backend.Register(Name, backend.PriorityCPU, driver{}) }

type driver struct{}

func (driver) Probe() ([]backend.Info, error) { return []backend.Info{info()}, nil }

func (d driver) Open(index int) (backend.Device, error) { return d.OpenWorkers(index, 0) }

// OpenWorkers makes the CPU backend a backend.WorkersDriver: callers that
// want the twins' work-groups in order (one worker) open it through the
// registry, without importing this package.
func (driver) OpenWorkers(index, workers int) (backend.Device, error) {
	if index != 0 {
		return nil, fmt.Errorf("cpu: %w: index %d (the CPU backend has one device, 0)", backend.ErrNoDevice, index)
	}
	return New(workers), nil
}

func info() backend.Info {
	name := strings.TrimSpace(cpuid.CPU.BrandName)
	if name == "" {
		name = runtime.GOARCH + " CPU"
	}
	var feats []string
	for _, f := range []struct {
		id   cpuid.FeatureID
		name string
	}{
		{cpuid.SSE2, "sse2"}, {cpuid.SSE4, "sse4.1"}, {cpuid.SSE42, "sse4.2"}, {cpuid.POPCNT, "popcnt"},
		{cpuid.AVX, "avx"}, {cpuid.AVX2, "avx2"}, {cpuid.BMI2, "bmi2"}, {cpuid.AVX512F, "avx512f"},
		{cpuid.AVX512BW, "avx512bw"}, {cpuid.AVX512VL, "avx512vl"}, {cpuid.AVX512VPOPCNTDQ, "avx512vpopcntdq"},
		{cpuid.ASIMD, "neon"}, {cpuid.SVE, "sve"},
	} {
		if cpuid.CPU.Supports(f.id) {
			feats = append(feats, f.name)
		}
	}
	cores := cpuid.CPU.LogicalCores
	if cores <= 0 {
		cores = runtime.NumCPU()
	}
	feats = append(feats, fmt.Sprintf("physical-cores=%d", cpuid.CPU.PhysicalCores), fmt.Sprintf("workers=%d", workers(0)))
	return backend.Info{
		Backend:       Name,
		Index:         0,
		Name:          name,
		Vendor:        cpuid.CPU.VendorString,
		Type:          backend.TypeCPU,
		Version:       "Go twins",
		DriverVersion: runtime.Version(),
		ComputeUnits:  cores,
		GlobalMemory:  totalMemory(),
		LocalMemory:   localMemory,
		MaxWorkGroup:  MaxWorkGroup,
		MaxWorkItems:  [3]int{MaxWorkGroup, MaxWorkGroup, 64},
		Atomics64:     true,
		Features:      feats,
	}
}

func workers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// Device is the CPU device. It is safe for use by one queue at a time per
// buffer, like a device.
type Device struct {
	workers int
	info    backend.Info
	opened  time.Duration // how long New took
}

// New opens the CPU device with the given number of worker goroutines
// (0: GOMAXPROCS).
func New(workerCount int) *Device {
	start := time.Now()
	i := info()
	return &Device{workers: workers(workerCount), info: i, opened: time.Since(start)}
}

// Phases makes the device a backend.Timed. Opening it is only identifying
// the processor and its memory: there is no driver, context or compiler,
// and a build looks up Go functions.
func (d *Device) Phases() []backend.Phase {
	return []backend.Phase{{Name: "open (identify the CPU and its memory)", Took: d.opened}}
}

func (d *Device) Info() backend.Info { return d.info }
func (d *Device) Close() error       { return nil }

type buffer struct {
	data    []byte
	freed   bool
	release func() error // returns mapped memory (nil: Go memory)
	cleanup runtime.Cleanup
}

func (b *buffer) Size() int { return len(b.data) }

// HostBytes is the buffer's memory, which the twins read and write
// (backend.HostBuffer).
func (b *buffer) HostBytes() []byte { return b.data }
func (b *buffer) Free() error {
	if b.freed {
		return fmt.Errorf("cpu: buffer freed twice")
	}
	b.freed = true
	b.data = nil
	if b.release != nil {
		b.cleanup.Stop()
		if err := b.release(); err != nil {
			return fmt.Errorf("cpu: free: %w", err)
		}
	}
	return nil
}

// goBytes is bytes zeroed bytes of Go memory, backed by uint64s so that
// every typed view is aligned.
func goBytes(bytes int) []byte {
	words := make([]uint64, (bytes+7)/8)
	return backend.View[byte](backend.Bytes(words))[:bytes]
}

func (d *Device) Alloc(bytes int) (backend.Buffer, error) {
	if bytes <= 0 {
		return nil, fmt.Errorf("cpu: alloc of %d bytes", bytes)
	}
	data, release, err := allocBytes(bytes)
	if err != nil {
		return nil, err
	}
	b := &buffer{data: data, release: release}
	if release != nil {
		// A buffer dropped without Free still returns its mapping.
		b.cleanup = runtime.AddCleanup(b, func(release func() error) { _ = release() }, release)
	}
	return b, nil
}

type program struct {
	name  string
	twins map[string]backend.Twin
}

// Build finds the twin of every kernel the source lists. The source text is
// not compiled: the twins are the CPU's compiled form of it.
func (d *Device) Build(src backend.Source) (backend.Program, error) {
	p := &program{name: src.Name, twins: map[string]backend.Twin{}}
	var missing []string
	for _, k := range src.Kernels {
		t, ok := backend.LookupTwin(k)
		if !ok {
			missing = append(missing, k)
			continue
		}
		p.twins[k] = t
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("cpu: build %q: no Go twin registered for kernel(s) %s", src.Name, strings.Join(missing, ", "))
	}
	return p, nil
}

type kernel struct {
	name string
	twin backend.Twin
}

func (k *kernel) Name() string   { return k.name }
func (k *kernel) Release() error { return nil }

func (p *program) Kernel(name string) (backend.Kernel, error) {
	t, ok := p.twins[name]
	if !ok {
		// A twin registered for a kernel the source did not list is still
		// usable: the list is a check, not a restriction.
		if t, ok = backend.LookupTwin(name); !ok {
			return nil, fmt.Errorf("cpu: program %q has no kernel %q", p.name, name)
		}
	}
	return &kernel{name: name, twin: t}, nil
}

func (p *program) Release() error { return nil }

// Queue runs commands as they are issued; an in-order queue on the CPU is
// simply synchronous.
type Queue struct{ d *Device }

func (d *Device) NewQueue() (backend.Queue, error) { return &Queue{d: d}, nil }

func buf(b backend.Buffer) (*buffer, error) {
	cb, ok := b.(*buffer)
	if !ok || cb == nil {
		return nil, fmt.Errorf("cpu: buffer %T is not from the CPU backend", b)
	}
	if cb.freed {
		return nil, fmt.Errorf("cpu: use of freed buffer")
	}
	return cb, nil
}

func span(b *buffer, off, n int, what string) error {
	return backend.CheckSpan("cpu", what, off, n, len(b.data))
}

// bytesAt is [off, off+n) of a CPU buffer, checked (what: "read" or
// "write").
func bytesAt(b backend.Buffer, off, n int, what string) ([]byte, error) {
	cb, err := buf(b)
	if err != nil {
		return nil, err
	}
	if err := span(cb, off, n, what); err != nil {
		return nil, err
	}
	return cb.data[off : off+n], nil
}

func (q *Queue) Write(dst backend.Buffer, off int, src []byte) error {
	d, err := bytesAt(dst, off, len(src), "write")
	if err == nil {
		par.Copy(d, src)
	}
	return err
}

func (q *Queue) Read(src backend.Buffer, off int, dst []byte) error {
	s, err := bytesAt(src, off, len(dst), "read")
	if err == nil {
		par.Copy(dst, s)
	}
	return err
}

func (q *Queue) Copy(dst backend.Buffer, doff int, src backend.Buffer, soff, n int) error {
	d, err := buf(dst)
	if err != nil {
		return err
	}
	s, err := buf(src)
	if err != nil {
		return err
	}
	if err := backend.CheckCopy("cpu", soff, len(s.data), doff, len(d.data), n); err != nil {
		return err
	}
	par.Copy(d.data[doff:doff+n], s.data[soff:soff+n])
	return nil
}

func (q *Queue) Fill(dst backend.Buffer, off, n int, value uint32) error {
	b, err := buf(dst)
	if err != nil {
		return err
	}
	if err := backend.CheckFill("cpu", off, n, len(b.data)); err != nil {
		return err
	}
	par.Fill(backend.View[uint32](b.data[off:off+n]), value)
	return nil
}

// Launch runs the twin over every work-group. Groups are handed out to the
// workers through an atomic counter, so uneven groups balance themselves.
func (q *Queue) Launch(k backend.Kernel, r backend.Range, args ...backend.Arg) error {
	kk, ok := k.(*kernel)
	if !ok || kk == nil {
		return fmt.Errorf("cpu: kernel %T is not from the CPU backend", k)
	}
	r, groups, err := r.Normalize(MaxWorkGroup)
	if err != nil {
		return fmt.Errorf("cpu: launch %s: %w", kk.name, err)
	}
	if r.Empty() {
		return nil
	}
	localSizes := make([]int, len(args))
	totalLocal := 0
	for i, a := range args {
		switch a.Kind {
		case backend.ArgBuffer:
			if _, err := buf(a.Buf); err != nil {
				return fmt.Errorf("cpu: launch %s: argument %d: %w", kk.name, i, err)
			}
		case backend.ArgLocal:
			if a.Size <= 0 {
				return fmt.Errorf("cpu: launch %s: argument %d: local memory of %d bytes", kk.name, i, a.Size)
			}
			localSizes[i] = a.Size
			totalLocal += a.Size
		}
	}
	if totalLocal > localMemory {
		return fmt.Errorf("cpu: launch %s: %d bytes of local memory, device has %d", kk.name, totalLocal, localMemory)
	}
	total := groups[0] * groups[1] * groups[2]
	nw := min(q.d.workers, total)
	var next atomic.Int64
	var wg sync.WaitGroup
	var panicked atomic.Value
	for w := 0; w < nw; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					panicked.CompareAndSwap(nil, fmt.Sprint(p))
				}
			}()
			g := &backend.Group{Groups: groups, Size: r.Local, Global: r.Global, Args: args, Local: make([][]byte, len(args))}
			for i, s := range localSizes {
				if s > 0 {
					words := make([]uint64, (s+7)/8)
					g.Local[i] = backend.Bytes(words)[:s]
				}
			}
			for {
				id := int(next.Add(1) - 1)
				if id >= total {
					return
				}
				g.ID = [3]int{id % groups[0], (id / groups[0]) % groups[1], id / (groups[0] * groups[1])}
				for i := range g.Local {
					clear(g.Local[i]) // local memory starts undefined on a device; zero it so twins are reproducible
				}
				kk.twin(g)
			}
		}()
	}
	wg.Wait()
	if p := panicked.Load(); p != nil {
		// A twin that indexes out of range is the CPU's illegal address.
		return fmt.Errorf("cpu: launch %s %v: kernel fault: %v", kk.name, r.Global, p)
	}
	return nil
}

type event struct{ at time.Time }

func (e *event) Wait() error    { return nil }
func (e *event) Release() error { return nil }
func (e *event) Elapsed(start backend.Event) (time.Duration, error) {
	s, ok := start.(*event)
	if !ok {
		return 0, fmt.Errorf("cpu: event %T is not from the CPU backend", start)
	}
	return e.at.Sub(s.at), nil
}

func (q *Queue) Record() (backend.Event, error) { return &event{at: time.Now()}, nil }
func (q *Queue) Finish() error                  { return nil }
func (q *Queue) Release() error                 { return nil }
