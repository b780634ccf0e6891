package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/device"
)

func runDevices(e *env) error {
	fs := newFlags(e, "devices", "[--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, e.args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("devices takes no arguments")
	}
	report := backend.Detect()
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, det := range report {
		if det.Err != nil {
			fmt.Fprintf(tw, "%s\tabsent\t%s\n", det.Backend, det.Err)
			continue
		}
		for _, d := range det.Devices {
			fmt.Fprintf(tw, "%s:%d\t%s\t%s\n", det.Backend, d.Index, d.Type, joinNonEmpty(" — ", d.Name, d.Vendor, d.Platform))
			fmt.Fprintf(tw, "\t\tversion %s, driver %s\n", orDash(d.Version), orDash(d.DriverVersion))
			fmt.Fprintf(tw, "\t\t%d compute units, %s global, %s local, work-group ≤ %d, 64-bit atomics %v\n",
				d.ComputeUnits, humanBytes(d.GlobalMemory), humanBytes(d.LocalMemory), d.MaxWorkGroup, yesNo(d.Atomics64))
			if len(d.Features) > 0 {
				fmt.Fprintf(tw, "\t\t%s\n", strings.Join(d.Features, " "))
			}
			fmt.Fprintf(tw, "\t\t%s\n", subgroupLine(d))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	c, err := backend.Choose(backend.SelectionFromEnv("", ""))
	if err != nil {
		fmt.Fprintf(e.stdout, "\nauto selection: none (%v)\n", err)
		return nil
	}
	fmt.Fprintf(e.stdout, "\nauto selection: %s — %s\n", c.Info, c.Info.Name)
	return nil
}

// subgroupLine says what the kernel prelude will do for warp-level work on
// the device: the sub-group widths and extensions it reports, the path it
// takes (ARBOR_SUBGROUPS may force one) and the others it could take
// (`arbor verify` runs each).
func subgroupLine(d backend.Info) string {
	var sizes []string
	for _, s := range d.SubGroupSizes {
		sizes = append(sizes, fmt.Sprint(s))
	}
	var exts []string
	for _, e := range d.Extensions {
		if strings.Contains(e, "subgroup") || e == "cl_nv_device_attribute_query" || e == "cl_amd_device_attribute_query" {
			exts = append(exts, e)
		}
	}
	if len(exts) == 0 && d.Backend == "opencl" {
		exts = []string{"none"}
	}
	path, err := device.PathOf(d)
	where := ""
	if err != nil {
		where = " (" + err.Error() + ")"
	} else if w := device.SubgroupWidth(d, path); w > 0 {
		where = fmt.Sprintf(" (%d lanes)", w)
	}
	var paths []string
	for _, p := range device.Paths(d) {
		paths = append(paths, string(p))
	}
	line := fmt.Sprintf("sub-groups: sizes %s", orDash(strings.Join(sizes, ",")))
	if len(exts) > 0 {
		line += ", extensions " + strings.Join(exts, " ")
	}
	line += fmt.Sprintf(", path %s%s; can take %s", path, where, strings.Join(paths, ", "))
	if d.Backend == "opencl" && d.Type == backend.TypeCPU {
		// The search kernels give a CPU device's workers one lane each
		// (PoCL compiles barriers in loops slowly), so no path changes them.
		line += " (search kernels: 1 lane per worker here)"
	}
	return line
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
