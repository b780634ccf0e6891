package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/device"
)

func runKernels(e *cli.Env) error {
	fs, df := cli.NewDeviceFlags(e, "kernels", "[--dump SOURCE|KERNEL [--backend B] [--device D]]")
	dump := fs.String("dump", "", "print the exact source the backend compiles for this source file or kernel")
	if err := cli.ParseNone(fs, e.Args, " (got %q); use --dump NAME"); err != nil {
		return err
	}
	if *dump == "" {
		if df.Backend != "" || df.Device != "" {
			return cli.Usagef("--backend and --device go with --dump")
		}
		return listKernels(e)
	}
	name := *dump
	if _, err := device.Text(name); err != nil {
		src := device.SourceOf(name)
		if src == "" {
			return cli.Usagef("no kernel source or kernel named %q (sources: %s)", name, strings.Join(device.Names(), ", "))
		}
		name = src
	}
	info, note, err := dumpTarget(*df)
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(e.Stderr, "arbor kernels: "+note)
	}
	ks, err := device.KernelNames(name)
	if err != nil {
		return err
	}
	src, err := device.Source(info, name, nil, ks...)
	if err != nil {
		return err
	}
	fmt.Fprint(e.Stdout, src.Code)
	if !strings.HasSuffix(src.Code, "\n") {
		fmt.Fprintln(e.Stdout)
	}
	return nil
}

func listKernels(e *cli.Env) error {
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tKERNELS")
	for _, src := range device.Names() {
		ks, err := device.KernelNames(src)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s.cl\t%s\n", src, strings.Join(ks, " "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.Stdout, "\n'arbor kernels --dump NAME --backend cuda|opencl' prints what that backend compiles.")
	return nil
}

// dumpTarget finds the device whose dialect and feature macros the dump
// uses. A backend with no device here (CUDA on a machine without NVIDIA)
// still gets its dialect, for a synthetic device: the note says so.
func dumpTarget(df cli.DeviceFlags) (backend.Info, string, error) {
	sel := backend.SelectionFromEnv(df.Backend, df.Device)
	if sel.Backend == "auto" {
		c, err := backend.Choose(sel)
		if err != nil {
			return backend.Info{}, "", err
		}
		return c.Info, "showing the source for " + c.Info.String() + " (auto selection; --backend picks another)", nil
	}
	switch sel.Backend {
	case "cuda", "opencl", "cpu":
	default:
		if !contains(backend.Names(), sel.Backend) {
			return backend.Info{}, "", cli.Usagef("unknown backend %q (have cuda, opencl, cpu)", sel.Backend)
		}
	}
	c, err := backend.Choose(sel)
	if err == nil {
		note := ""
		if c.Info.Backend == "cpu" {
			note = "the CPU backend does not compile this text: it runs the kernels' Go twins"
		}
		return c.Info, note, nil
	}
	info := backend.Info{
		Backend:      sel.Backend,
		Name:         "synthetic " + sel.Backend + " device",
		Type:         backend.TypeGPU,
		MaxWorkGroup: 1024,
		LocalMemory:  48 << 10,
		Atomics64:    true,
	}
	return info, fmt.Sprintf("no %s device here (%v); showing the %s dialect for a synthetic device "+
		"(work-group 1024, 48 KiB local memory, 64-bit atomics): a real device's feature macros may differ",
		sel.Backend, err, device.DialectOf(info)), nil
}
