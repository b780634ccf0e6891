package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/arbor-gpu/arbor/backend"
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
