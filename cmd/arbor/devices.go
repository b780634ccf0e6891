package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/device"
)

func runDevices(e *cli.Env) error {
	fs := cli.NewFlags(e, "devices", "[-v] [--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	verbose := fs.Bool("v", false, "also open every device, run one small kernel on it, and show where each step of probing and opening went")
	if err := cli.ParseNone(fs, e.Args, ""); err != nil {
		return err
	}
	report := backend.Detect()
	rows := make([]devicesRow, len(report))
	for i, det := range report {
		rows[i].Detection = det
		if *verbose {
			for _, info := range det.Devices {
				rows[i].Opened = append(rows[i].Opened, openTimed(info))
			}
		}
	}
	if *asJSON {
		for i := range rows {
			// Lists, never null: a backend that is absent has no devices.
			if rows[i].Devices == nil {
				rows[i].Devices = []backend.Info{}
			}
		}
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	for _, row := range rows {
		det := row.Detection
		if det.Err != nil {
			fmt.Fprintf(tw, "%s\tabsent\t%s (probe %s)\n", det.Backend, det.Err, ms(det.Seconds))
			if *verbose {
				printPhases(tw, "\t\t", det.Phases)
			}
			continue
		}
		for _, d := range det.Devices {
			fmt.Fprintf(tw, "%s:%d\t%s\t%s\n", det.Backend, d.Index, d.Type, cli.JoinNonEmpty(" — ", d.Name, d.Vendor, d.Platform))
			fmt.Fprintf(tw, "\t\tversion %s, driver %s\n", orDash(d.Version), orDash(d.DriverVersion))
			fmt.Fprintf(tw, "\t\t%d compute units, %s global, %s local, work-group ≤ %d, 64-bit atomics %v\n",
				d.ComputeUnits, cli.HumanBytes(d.GlobalMemory), cli.HumanBytes(d.LocalMemory), d.MaxWorkGroup, yesNo(d.Atomics64))
			if len(d.Features) > 0 {
				fmt.Fprintf(tw, "\t\t%s\n", strings.Join(d.Features, " "))
			}
			fmt.Fprintf(tw, "\t\t%s\n", subgroupLine(d))
		}
		fmt.Fprintf(tw, "\t\tprobe of %s: %s\n", det.Backend, ms(det.Seconds))
		if *verbose {
			printPhases(tw, "\t\t  ", det.Phases)
			for _, o := range row.Opened {
				if o.Error != "" {
					fmt.Fprintf(tw, "\t\topen %s: failed after %s: %s\n", o.Device, ms(o.Seconds), o.Error)
				} else {
					fmt.Fprintf(tw, "\t\topen %s and a first kernel: %s\n", o.Device, ms(o.Seconds))
				}
				// A device's phases begin with its backend's loading and
				// enumeration, shown just above: said once.
				ps := o.Phases
				if k := commonPrefix(ps, det.Phases); k > 0 {
					fmt.Fprintf(tw, "\t\t  %9s  (loading and enumeration, as above)\n", "")
					ps = ps[k:]
				}
				printPhases(tw, "\t\t  ", ps)
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	c, err := backend.Choose(backend.SelectionFromEnv("", ""))
	if err != nil {
		fmt.Fprintf(e.Stdout, "\nauto selection: none (%v)\n", err)
		return nil
	}
	fmt.Fprintf(e.Stdout, "\nauto selection: %s — %s\n", c.Info, c.Info.Name)
	return nil
}

// devicesRow is one backend of `arbor devices`: what probing found, and
// with -v what opening each device took.
type devicesRow struct {
	backend.Detection
	Opened []openReport `json:"opened,omitempty"`
}

// openReport is the start-up of one device: opening it, then building,
// allocating, launching and reading back one small kernel (vec_add) — the
// steps a search takes before its first useful launch.
type openReport struct {
	Device  string          `json:"device"`
	Seconds float64         `json:"seconds"`
	Phases  []backend.Phase `json:"phases"`
	Error   string          `json:"error,omitempty"`
}

// openTimed opens a device, runs vec_add on 1024 items, checks the sums
// and closes it, recording the phases the device reports (loading and
// enumeration shared by the backend's devices, then its own) and, for a
// backend that reports none, the open and the kernel as two phases.
func openTimed(info backend.Info) openReport {
	r := openReport{Device: info.String()}
	start := time.Now()
	dev, err := backend.OpenBackend(info.Backend, info.Index)
	opened := time.Since(start)
	if err != nil {
		r.Seconds, r.Error = opened.Seconds(), err.Error()
		r.Phases = []backend.Phase{{Name: "open (failed)", Took: opened}}
		return r
	}
	defer dev.Close()
	const n = 1024
	a, b := make([]int32, n), make([]int32, n)
	for i := range a {
		a[i], b[i] = int32(i), int32(3*i-7)
	}
	got, err := device.VecAdd(dev, a, b, 5, 0)
	r.Seconds = time.Since(start).Seconds()
	if err == nil {
		for i := range got {
			if want := a[i] + 5*b[i]; got[i] != want {
				err = fmt.Errorf("vec_add: item %d is %d, want %d", i, got[i], want)
				break
			}
		}
	}
	if err != nil {
		r.Error = err.Error()
	}
	r.Phases = backend.PhasesOf(dev)
	if r.Phases == nil {
		r.Phases = []backend.Phase{{Name: "open", Took: opened}, {Name: "first kernel (build, allocate, launch, read)", Took: time.Since(start) - opened}}
	}
	return r
}

// commonPrefix is how many phases a and b begin with in common.
func commonPrefix(a, b []backend.Phase) int {
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	return k
}

// printPhases writes one line per phase, its time right-aligned first.
func printPhases(w io.Writer, indent string, ps []backend.Phase) {
	for _, p := range ps {
		fmt.Fprintf(w, "%s%9s  %s\n", indent, ms(p.Took.Seconds()), p.Name)
	}
}

// ms formats seconds as milliseconds for the phase lists.
func ms(seconds float64) string {
	switch {
	case seconds < 0.001:
		return fmt.Sprintf("%.3f ms", seconds*1e3)
	case seconds < 0.1:
		return fmt.Sprintf("%.2f ms", seconds*1e3)
	}
	return fmt.Sprintf("%.0f ms", seconds*1e3)
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
