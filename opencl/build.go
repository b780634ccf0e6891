package opencl

import (
	"fmt"
	"log/slog"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/cache"
)

// Program is a built OpenCL program.
type Program struct {
	api      *api
	dev      *Device
	name     string
	prog     clProgram
	cacheHit bool
	released atomic.Bool
	cleanup  runtime.Cleanup
}

// CacheHit reports whether the program came from the binary cache rather
// than from compiling its source.
func (p *Program) CacheHit() bool { return p.cacheHit }

// Build compiles src for the device, through the program binary cache when
// it is enabled: the key covers the source, the options (defines
// included), the platform and device names and versions and the driver
// version, so a driver update recompiles. A cached binary the driver
// refuses is rebuilt from source and replaced.
func (d *Device) Build(src backend.Source) (backend.Program, error) {
	done, err := d.use()
	if err != nil {
		return nil, err
	}
	defer done()
	opts, err := buildOptions(src)
	if err != nil {
		return nil, fmt.Errorf("opencl: build %q on %s: %w", src.Name, d.dev.info.Name, err)
	}
	useCache := cache.Enabled()
	var key string
	if useCache {
		i := d.dev.info
		key = cache.Key("opencl", src.Code, opts, i.Platform, d.dev.platformVersion, i.Name, i.Version, i.DriverVersion)
		start := time.Now()
		bin, ok := cache.Load(key)
		d.phases.Since(fmt.Sprintf("build %s: kernel cache (%s)", src.Name, map[bool]string{true: "hit", false: "miss"}[ok]), start)
		if ok {
			start := time.Now()
			p, err := d.fromBinary(src.Name, bin, opts)
			d.phases.Since("build "+src.Name+": program from the cached binary (clBuildProgram)", start)
			if err == nil {
				d.cache.hits.Add(1)
				p.cacheHit = true
				return d.finish(p, src)
			}
			d.cache.rejected.Add(1)
			slog.Warn("opencl: cached program binary rejected; rebuilding from source",
				"program", src.Name, "device", d.dev.info.Name, "err", err)
		}
		d.cache.misses.Add(1)
	}
	start := time.Now()
	p, err := d.fromSource(src, opts)
	d.phases.Since("build "+src.Name+": compile from source (clBuildProgram)", start)
	if err != nil {
		return nil, err
	}
	if useCache {
		bin, st := d.api.programBinary(p.prog)
		switch {
		case st != 0:
			slog.Warn("opencl: program binary not cached", "program", src.Name, "err", check("clGetProgramInfo", st))
		case len(bin) > 0:
			cache.Store(key, bin)
			d.cache.stores.Add(1)
		}
	}
	return d.finish(p, src)
}

// finish checks that the program has the kernels the source promises.
func (d *Device) finish(p *Program, src backend.Source) (backend.Program, error) {
	if len(src.Kernels) == 0 {
		return p, nil
	}
	names, st := d.api.programInfo(p.prog, clProgramKernelNames)
	if st != 0 {
		return p, nil // an OpenCL 1.1 platform cannot say; Kernel will
	}
	have := map[string]bool{}
	for _, n := range strings.Split(infoString(names, 0), ";") {
		have[strings.TrimSpace(n)] = true
	}
	var missing []string
	for _, k := range src.Kernels {
		if !have[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		p.Release()
		return nil, fmt.Errorf("opencl: build %q on %s: no kernel(s) %s in the program (it has %s)",
			src.Name, d.dev.info.Name, strings.Join(missing, ", "), infoString(names, 0))
	}
	return p, nil
}

func (d *Device) newProgram(name string, prog clProgram) *Program {
	p := &Program{api: d.api, dev: d, name: name, prog: prog}
	a := d.api
	p.cleanup = runtime.AddCleanup(p, func(h clProgram) { a.releaseProgram(h) }, prog)
	return p
}

func (d *Device) fromSource(src backend.Source, opts string) (*Program, error) {
	prog, st := d.api.programFromSource(d.ctx, src.Code)
	if st != 0 {
		return nil, fmt.Errorf("opencl: build %q on %s: %w", src.Name, d.dev.info.Name, allocFail("clCreateProgramWithSource", st))
	}
	if st := d.api.build(prog, d.dev.id, opts); st != 0 {
		log := infoString(d.api.programBuildInfo(prog, d.dev.id, clProgramBuildLog))
		d.api.releaseProgram(prog)
		return nil, &BuildError{Program: src.Name, Device: d.dev.info.Name, Code: st, Options: opts, Log: log, Source: src.Code}
	}
	return d.newProgram(src.Name, prog), nil
}

func (d *Device) fromBinary(name string, bin []byte, opts string) (*Program, error) {
	prog, status, st := d.api.programFromBinary(d.ctx, d.dev.id, bin)
	if st == 0 && status != 0 {
		st = status
	}
	if st != 0 {
		if prog != 0 {
			d.api.releaseProgram(prog)
		}
		return nil, check("clCreateProgramWithBinary", st)
	}
	if st := d.api.build(prog, d.dev.id, opts); st != 0 {
		d.api.releaseProgram(prog)
		return nil, check("clBuildProgram", st)
	}
	return d.newProgram(name, prog), nil
}

var defineName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// buildOptions joins Source.Options and -D NAME=VALUE for each define,
// sorted by name so that the same source always gets the same cache key.
func buildOptions(src backend.Source) (string, error) {
	parts := append([]string(nil), src.Options...)
	names := make([]string, 0, len(src.Defines))
	for n := range src.Defines {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := src.Defines[n]
		if !defineName.MatchString(n) {
			return "", fmt.Errorf("define %q is not a macro name", n)
		}
		if strings.ContainsAny(v, " \t\n\"'\\") {
			// Option quoting differs between OpenCL compilers.
			return "", fmt.Errorf("define %s=%q: values with spaces or quotes cannot be passed as options; put them in the source", n, v)
		}
		parts = append(parts, "-D "+n+"="+v)
	}
	return strings.Join(parts, " "), nil
}

// Release frees the program. Kernels made from it stay valid.
func (p *Program) Release() error {
	if !p.released.CompareAndSwap(false, true) {
		return fmt.Errorf("opencl: program %q released twice", p.name)
	}
	p.cleanup.Stop()
	return check("clReleaseProgram", p.api.releaseProgram(p.prog))
}

// Kernel is one entry point of a program. Setting its arguments and
// launching it is one step under its own lock, so it may be launched from
// several goroutines (on their own queues).
type Kernel struct {
	api      *api
	dev      *Device
	name     string
	k        clKernel
	maxGroup int // the largest work-group this kernel can run on its device
	mu       sync.Mutex
	released atomic.Bool
	cleanup  runtime.Cleanup
}

// Kernel creates the named entry point.
func (p *Program) Kernel(name string) (backend.Kernel, error) {
	if p.released.Load() {
		return nil, fmt.Errorf("opencl: program %q is released", p.name)
	}
	defer runtime.KeepAlive(p) // its cleanup must not release prog during the calls
	k, st := p.api.newKernel(p.prog, name)
	if st == clInvalidKernelName {
		return nil, fmt.Errorf("opencl: program %q has no kernel %q", p.name, name)
	}
	if st != 0 {
		return nil, fmt.Errorf("opencl: kernel %q of %q: %w", name, p.name, check("clCreateKernel", st))
	}
	maxGroup := p.dev.dev.info.MaxWorkGroup
	if n := int(infoUint(p.api.kernelWorkGroupInfo(k, p.dev.dev.id, clKernelWorkGroupSize))); n > 0 && (maxGroup == 0 || n < maxGroup) {
		maxGroup = n
	}
	out := &Kernel{api: p.api, dev: p.dev, name: name, k: k, maxGroup: maxGroup}
	a := p.api
	out.cleanup = runtime.AddCleanup(out, func(h clKernel) { a.releaseKernel(h) }, k)
	return out, nil
}

// Name is the entry point's name.
func (k *Kernel) Name() string { return k.name }

// SubGroups is the number of sub-groups a work-group of local work-items
// forms for this kernel on its device, as clGetKernelSubGroupInfo says;
// ok is false where the loader (before OpenCL 2.1) or the device (without
// sub-groups) cannot say.
func (k *Kernel) SubGroups(local int) (count int, ok bool) {
	defer runtime.KeepAlive(k)
	return k.api.kernelSubGroupCount(k.k, k.dev.dev.id, local)
}

// MaxGroup is the largest work-group the kernel may be launched with.
func (k *Kernel) MaxGroup() int { return k.maxGroup }

// Release frees the kernel.
func (k *Kernel) Release() error {
	if !k.released.CompareAndSwap(false, true) {
		return fmt.Errorf("opencl: kernel %q released twice", k.name)
	}
	k.cleanup.Stop()
	return check("clReleaseKernel", k.api.releaseKernel(k.k))
}
