package main

import (
	"fmt"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"

	"github.com/arbor-gpu/arbor/device"
)

// runDemo runs each algorithm on embedded sample data with the
// auto-selected backend. Each algorithm adds its step in demoSteps.
func runDemo(e *cli.Env) error {
	fs, df := cli.NewDeviceFlags(e, "demo", "[--backend B] [--device D]")
	if err := cli.ParseNone(fs, e.Args, ""); err != nil {
		return err
	}
	dev, c, err := df.Open(e, true)
	if err != nil {
		return err
	}
	defer dev.Close()
	fmt.Fprintf(e.Stdout, "Arbor demo on %s (%s)\n  chosen: %s\n\n", c.Info, c.Info.Type, c.Why)

	// The smoke step: a vector add checked element by element.
	n := 1 << 16
	a, b := make([]int32, n), make([]int32, n)
	for i := range a {
		a[i], b[i] = int32(i), int32(3*i+1)
	}
	t0 := time.Now()
	got, err := device.VecAdd(dev, a, b, 2, 0)
	if err != nil {
		return fmt.Errorf("demo vector add: %w", err)
	}
	for i := range got {
		if got[i] != a[i]+2*b[i] {
			return fmt.Errorf("demo vector add: element %d is %d, want %d", i, got[i], a[i]+2*b[i])
		}
	}
	fmt.Fprintf(e.Stdout, "vector add: %d elements checked (%v)\n", n, time.Since(t0).Round(time.Microsecond))
	// The first algorithms' steps live in demo_<name>.go, in the order the
	// demo has always shown them; an algorithm registered since brings its
	// own (cli.Algorithm.Demo).
	type step struct {
		name string // its errors begin "demo NAME: "; "": they say it
		run  func(e *cli.Env, dev backend.Device) error
	}
	steps := []step{{"match", demoMATCH}, {"mcs", demoMCS}, {"vertex cover", demoVC}, {"clique", demoClique}}
	for _, a := range cli.Algorithms() {
		if a.Demo != nil {
			steps = append(steps, step{"", a.Demo})
		}
	}
	for _, s := range steps {
		err := s.run(e, dev)
		if err != nil && s.name != "" {
			err = fmt.Errorf("demo %s: %w", s.name, err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
