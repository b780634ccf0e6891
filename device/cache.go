package device

import (
	"sort"
	"strings"
	"sync"

	"github.com/arbor-gpu/arbor/backend"
)

// BuildCache is a device whose Build returns the program already built from
// the same source, so that many short-lived wrappers (the checks, a test
// suite) compile each source once per device. Programs it returns ignore
// Release; the cache's own Release frees them. Everything else passes
// through to the wrapped device.
type BuildCache struct {
	backend.Device
	mu    sync.Mutex
	progs map[string]backend.Program
}

// CacheBuilds wraps dev.
func CacheBuilds(dev backend.Device) *BuildCache {
	return &BuildCache{Device: dev, progs: map[string]backend.Program{}}
}

// Phases passes the wrapped device's start-up phases through
// (backend.Timed): an embedded interface does not promote methods beyond
// its own.
func (c *BuildCache) Phases() []backend.Phase { return backend.PhasesOf(c.Device) }

type cachedProgram struct{ backend.Program }

func (cachedProgram) Release() error { return nil }

// Build returns the cached program for src, building it on first use.
func (c *BuildCache) Build(src backend.Source) (backend.Program, error) {
	key := strings.Join([]string{src.Name, src.Code, strings.Join(src.Options, " "), strings.Join(src.Kernels, ",")}, "\x00")
	defs := make([]string, 0, len(src.Defines))
	for k, v := range src.Defines {
		defs = append(defs, k+"="+v)
	}
	sort.Strings(defs)
	key += "\x00" + strings.Join(defs, "\x00")
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.progs[key]; ok {
		return cachedProgram{p}, nil
	}
	p, err := c.Device.Build(src)
	if err != nil {
		return nil, err
	}
	c.progs[key] = p
	return cachedProgram{p}, nil
}

// Release frees the cached programs; the device stays open.
func (c *BuildCache) Release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for k, p := range c.progs {
		if err := p.Release(); err != nil && first == nil {
			first = err
		}
		delete(c.progs, k)
	}
	return first
}

// Close releases the cached programs and closes the device.
func (c *BuildCache) Close() error {
	err := c.Release()
	if cerr := c.Device.Close(); err == nil {
		err = cerr
	}
	return err
}
