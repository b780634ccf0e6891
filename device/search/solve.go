package search

import (
	"context"
	"fmt"
	"strings"

	"github.com/arbor-gpu/arbor/backend"
)

// Resettable is a search kernel as a device solve drives it: a GoalKernel
// whose incumbent word and workers Reset sets, which Release frees. The
// wrappers of every port (McSplit, clique, vertex cover) are one.
type Resettable interface {
	GoalKernel
	Reset(q backend.Queue, incumbent int) error
	Release() error
}

// Devices is one search spread over several devices: a kernel per device
// (built by the algorithm, with the same task layout on each), one queue
// each, driven by RunMany with one pool and one incumbent. It is the
// device-solve routine the engines share: they Open their kernels, Run,
// read their certificates (Collect) and Close. What stays with each
// algorithm is what differs: the shape, the host's heuristics, the root
// task, the CPU side of a hybrid (Options.Between) and the certificate's
// meaning.
type Devices[K Resettable] struct {
	Kernels []K
	Units   []Unit
	Names   []string // each device's Info().String()
	queues  []backend.Queue
}

// Open builds a kernel on each device: build gets the device and a fresh
// queue and returns the kernel and its worker count. Errors name the
// device; on an error nothing is left open.
func Open[K Resettable](devs []backend.Device, build func(dev backend.Device, q backend.Queue) (K, int, error)) (*Devices[K], error) {
	s := &Devices[K]{}
	for _, dev := range devs {
		info := dev.Info()
		q, err := dev.NewQueue()
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("%s: %w", info, err)
		}
		k, workers, err := build(dev, q)
		if err != nil {
			q.Release()
			s.Close()
			return nil, fmt.Errorf("%s: %w", info, err)
		}
		s.queues = append(s.queues, q)
		s.Kernels = append(s.Kernels, k)
		s.Units = append(s.Units, Unit{Queue: q, Kernel: &WithGoal{K: k}, Workers: workers})
		s.Names = append(s.Names, info.String())
	}
	return s, nil
}

// Run resets every kernel to the incumbent word, binds the goal (frozen:
// the fixed-incumbent mode) and runs the search (RunMany). Errors name the
// device.
func (s *Devices[K]) Run(ctx context.Context, incumbent int, goal int32, frozen bool, opt Options) (Status, bool, error) {
	for i, u := range s.Units {
		if err := s.Kernels[i].Reset(u.Queue, incumbent); err != nil {
			return Status{}, false, fmt.Errorf("%s: %w", s.Names[i], err)
		}
		w := u.Kernel.(*WithGoal)
		w.Goal, w.Frozen = goal, frozen
	}
	st, proven, err := RunMany(ctx, s.Units, opt)
	if err != nil {
		return st, proven, fmt.Errorf("%s: %w", s.Device(), err)
	}
	return st, proven, nil
}

// Collect reads every device's certificate (what names it in errors).
func Collect[K Resettable, T any](s *Devices[K], what string, read func(k K, q backend.Queue) (T, error)) ([]T, error) {
	out := make([]T, len(s.Kernels))
	for i, k := range s.Kernels {
		v, err := read(k, s.Units[i].Queue)
		if err != nil {
			return nil, fmt.Errorf("%s: reading %s: %w", s.Names[i], what, err)
		}
		out[i] = v
	}
	return out, nil
}

// Device names the devices, comma-separated.
func (s *Devices[K]) Device() string { return strings.Join(s.Names, ", ") }

// Workers is the workers of every device together.
func (s *Devices[K]) Workers() int {
	n := 0
	for _, u := range s.Units {
		n += u.Workers
	}
	return n
}

// Close releases every kernel and queue, the last opened first.
func (s *Devices[K]) Close() {
	for i := len(s.Kernels) - 1; i >= 0; i-- {
		s.Kernels[i].Release()
		s.queues[i].Release()
	}
	s.Kernels, s.Units, s.Names, s.queues = nil, nil, nil, nil
}
