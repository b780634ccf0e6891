package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	// Every algorithm: its kernels, twins and checks register themselves.
	_ "github.com/arbor-gpu/arbor/algorithms/all"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/device"
	"github.com/arbor-gpu/arbor/internal/dataset"
)

// verifyRow is one line of the verify table: one kernel on one device.
type verifyRow struct {
	Kernel  string  `json:"kernel"`
	Device  string  `json:"device"`
	Cases   int     `json:"cases"`
	MaxSize int     `json:"max_size"`
	Result  string  `json:"result"`           // ok, MISMATCH or ERROR
	Detail  string  `json:"detail,omitempty"` // the first failing case and why
	Seconds float64 `json:"seconds"`
	// OpenPhases is where the device's start-up went: loading its
	// backend, opening it, its builds and first uses (the same for every
	// row of one device).
	OpenPhases []backend.Phase `json:"open_phases,omitempty"`
}

// refBackend is the backend whose twins are the reference: the CPU
// backend (registered by backend/all as "cpu").
const refBackend = "cpu"

// verifyTarget is a device under test.
type verifyTarget struct {
	label  string
	Devs   *device.BuildCache
	Err    error         // opening failed
	opened time.Duration // how long Open took
}

// phases is the target's start-up: the device's own phases (the wrappers
// pass them through), or, from a backend that records none, the open as
// one phase.
func (t verifyTarget) phases() []backend.Phase {
	if t.Devs == nil {
		return nil
	}
	if ps := backend.PhasesOf(t.Devs); ps != nil {
		return ps
	}
	return []backend.Phase{{Name: "open", Took: t.opened}}
}

func runVerify(e *cli.Env) error {
	fs, df := cli.NewDeviceFlags(e, "verify", "[--backend B] [--device D] [--kernel NAME[,NAME]] [--no-data] [--json]")
	only := fs.String("kernel", "", "check only these kernels (comma-separated; see 'arbor kernels')")
	noData := fs.Bool("no-data", false, "skip the checks on real graphs from the shared data directory")
	asJSON := fs.Bool("json", false, "print the table as JSON")
	if err := cli.ParseNone(fs, e.Args, " (got %q)"); err != nil {
		return err
	}
	sel := backend.SelectionFromEnv(df.Backend, df.Device)
	if sel.Backend != "auto" && !contains(backend.Names(), sel.Backend) {
		return cli.Usagef("unknown backend %q (have auto, %s)", sel.Backend, strings.Join(backend.Names(), ", "))
	}

	dataDir := ""
	if !*noData {
		dataDir = dataset.Dir()
	}
	checks, err := selectChecks(device.Checks(dataDir), *only)
	if err != nil {
		return err
	}

	targets, absent, err := verifyTargets(sel)
	if err != nil {
		return err
	}
	defer func() {
		for _, t := range targets {
			if t.Devs != nil {
				t.Devs.Close()
			}
		}
	}()
	// The reference is the CPU backend with one worker: the twins run in
	// order, so the CPU backend's own row (its default worker pool) checks
	// that the twins do not depend on how groups are scheduled.
	refDev, err := backend.OpenWorkers(refBackend, 0, 1)
	if err != nil {
		return fmt.Errorf("the reference (the %s backend, one worker): %w", refBackend, err)
	}
	ref := device.CacheBuilds(refDev)
	defer ref.Close()

	var table verifyTable
	if err := table.runChecks(e, checks, ref, targets); err != nil {
		return err
	}
	out, failed := table.result(targets)
	if *asJSON {
		if err := writeVerifyJSON(e, out, failed, dataDir, absent); err != nil {
			return err
		}
	} else if err := printVerify(e, out, targets, dataDir, absent); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d kernel/device rows failed", failed, len(out))
	}
	return nil
}

// selectChecks keeps the checks of the kernels named in only (a
// comma-separated list; empty keeps all): a name with no check is a usage
// error, so a typo does not pass as a clean run.
func selectChecks(checks []device.Check, only string) ([]device.Check, error) {
	if only == "" {
		return checks, nil
	}
	want := map[string]bool{}
	for _, k := range strings.Split(only, ",") {
		want[strings.TrimSpace(k)] = true
	}
	var keep []device.Check
	found := map[string]bool{}
	for _, c := range checks {
		if want[c.Kernel] {
			keep = append(keep, c)
			found[c.Kernel] = true
		}
	}
	for k := range found {
		delete(want, k)
	}
	if len(want) > 0 {
		return nil, cli.Usagef("no checks for kernel(s) %s (have %s)", strings.Join(sortedKeys(want), ", "), strings.Join(checkKernels(checks), ", "))
	}
	return keep, nil
}

// verifyTable gathers the rows of the verify table, one per kernel and
// device, in the order they were first met.
type verifyTable struct {
	rows  map[string]*verifyRow
	order []string
}

// row is kernel's row on device, added (ok so far) when new.
func (v *verifyTable) row(kernel, device string) *verifyRow {
	if v.rows == nil {
		v.rows = map[string]*verifyRow{}
	}
	key := kernel + "\x00" + device
	r, ok := v.rows[key]
	if !ok {
		r = &verifyRow{Kernel: kernel, Device: device, Result: "ok"}
		v.rows[key] = r
		v.order = append(v.order, key)
	}
	return r
}

// failRow marks r failed; the first failure is the one a row reports.
func failRow(r *verifyRow, result, detail string) {
	if r.Result == "ok" {
		r.Result, r.Detail = result, detail
	}
}

// runChecks runs every check on the reference and on each target, and
// records in the table how each target compares; progress goes to a
// terminal's stderr. It stops when e's context is done.
func (v *verifyTable) runChecks(e *cli.Env, checks []device.Check, ref *device.BuildCache, targets []verifyTarget) error {
	live := cli.IsTerminal(e.Stderr)
	for i, c := range checks {
		if err := e.Ctx.Err(); err != nil {
			if live {
				fmt.Fprintln(e.Stderr)
			}
			return fmt.Errorf("interrupted after %d of %d checks: %w", i, len(checks), err)
		}
		if live {
			fmt.Fprintf(e.Stderr, "\r\033[Kverify %d/%d: %s %s", i+1, len(checks), c.Kernel, c.Case)
		}
		want, werr := c.Run(ref)
		for _, t := range targets {
			r := v.row(c.Kernel, t.label)
			r.Cases++
			r.MaxSize = max(r.MaxSize, c.Size)
			switch {
			case t.Err != nil:
				failRow(r, "ERROR", t.Err.Error())
				continue
			case werr != nil:
				failRow(r, "ERROR", fmt.Sprintf("%s: CPU twin: %v", c.Case, werr))
				continue
			}
			start := time.Now()
			got, err := c.Run(t.Devs)
			r.Seconds += time.Since(start).Seconds()
			if err != nil {
				failRow(r, "ERROR", fmt.Sprintf("%s: %v", c.Case, err))
			} else if err := device.Compare(got, want); err != nil {
				failRow(r, "MISMATCH", fmt.Sprintf("%s: %v", c.Case, err))
			}
		}
	}
	if live {
		fmt.Fprint(e.Stderr, "\r\033[K")
	}
	return nil
}

// result is the table's rows in order, each with its device's start-up
// phases, and how many failed.
func (v *verifyTable) result(targets []verifyTarget) ([]verifyRow, int) {
	phases := map[string][]backend.Phase{}
	for _, t := range targets {
		phases[t.label] = t.phases()
	}
	out := make([]verifyRow, 0, len(v.order))
	failed := 0
	for _, k := range v.order {
		v.rows[k].OpenPhases = phases[v.rows[k].Device]
		out = append(out, *v.rows[k])
		if v.rows[k].Result != "ok" {
			failed++
		}
	}
	return out, failed
}

// writeVerifyJSON prints the verify table as --json does.
func writeVerifyJSON(e *cli.Env, out []verifyRow, failed int, dataDir string, absent []string) error {
	enc := json.NewEncoder(e.Stdout)
	enc.SetIndent("", "  ")
	if absent == nil {
		absent = []string{}
	}
	report := struct {
		Rows        []verifyRow `json:"rows"`
		Failed      int         `json:"failed"`
		Data        string      `json:"data,omitempty"`
		NotVerified []string    `json:"not_verified"`
	}{out, failed, dataDir, absent}
	return enc.Encode(report)
}

func printVerify(e *cli.Env, rows []verifyRow, targets []verifyTarget, dataDir string, absent []string) error {
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KERNEL\tDEVICE\tCASES\tMAX SIZE\tRESULT\tTIME")
	var notes []string
	for _, r := range rows {
		res := r.Result
		if r.Detail != "" {
			notes = append(notes, fmt.Sprintf("[%d] %s on %s: %s", len(notes)+1, r.Kernel, r.Device, r.Detail))
			res += fmt.Sprintf(" [%d]", len(notes))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%.2fs\n", r.Kernel, r.Device, r.Cases, r.MaxSize, res, r.Seconds)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(notes) > 0 {
		fmt.Fprintln(e.Stdout)
		for _, n := range notes {
			fmt.Fprintln(e.Stdout, n)
		}
	}
	// Where each device's start-up went (its backend's loading comes
	// first, once per process: a second device of a backend shows what
	// the first paid).
	fmt.Fprintln(e.Stdout)
	pw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	for _, t := range targets {
		ps := t.phases()
		if len(ps) == 0 {
			continue
		}
		fmt.Fprintf(pw, "start-up of %s: %s in all\n", t.label, ms(backend.Total(ps).Seconds()))
		printPhases(pw, "  ", compactBuilds(ps))
	}
	if err := pw.Flush(); err != nil {
		return err
	}
	data := "generated inputs only (no shared data found)"
	if dataDir != "" {
		data = "generated inputs and graphs from " + dataDir
	}
	fmt.Fprintf(e.Stdout, "\nreference: the CPU twins run with one worker; %s\n", data)
	for _, a := range absent {
		fmt.Fprintf(e.Stdout, "not verified: %s\n", shorten(a, 160))
	}
	return nil
}

// verifyTargets opens every device the selection names: all devices of all
// backends for auto, else those of one backend; --device filters by index
// or name. A device that fails to open becomes an ERROR row, not an abort.
// It also returns why absent backends were skipped; ARBOR_REQUIRE makes the
// required backend's absence an error.
func verifyTargets(sel backend.Selection) ([]verifyTarget, []string, error) {
	var targets []verifyTarget
	var absent []string
	for _, det := range backend.Detect() {
		if sel.Backend != "auto" && det.Backend != sel.Backend {
			continue
		}
		if det.Err != nil {
			if sel.Require == det.Backend {
				return nil, nil, fmt.Errorf("ARBOR_REQUIRE=%s, but it is unavailable: %w", sel.Require, det.Err)
			}
			absent = append(absent, det.Backend+": "+det.Err.Error())
			continue
		}
		for _, info := range det.Devices {
			if !deviceMatches(info, sel.Device) {
				continue
			}
			// Every sub-group path the device can take (issue #36), or the
			// one ARBOR_SUBGROUPS forces: each its own row and its own
			// opened device.
			paths := device.PathsToCheck(info)
			for _, p := range paths {
				label := fmt.Sprintf("%s:%d %s", info.Backend, info.Index, shorten(info.Name, 36))
				if len(paths) > 1 {
					label += " [" + string(p) + "]"
				}
				start := time.Now()
				dev, err := backend.OpenBackend(info.Backend, info.Index)
				if err != nil {
					targets = append(targets, verifyTarget{label: label, Err: fmt.Errorf("open: %w", err)})
					continue
				}
				targets = append(targets, verifyTarget{label: label, Devs: device.CacheBuilds(device.OnPath(dev, p)),
					opened: time.Since(start)})
			}
		}
	}
	if len(targets) == 0 {
		why := strings.Join(absent, "; ")
		if why == "" {
			why = "no device matches"
		}
		return nil, nil, fmt.Errorf("no device to verify (backend %s, device %q): %s", sel.Backend, sel.Device, why)
	}
	return targets, absent, nil
}

func deviceMatches(info backend.Info, want string) bool {
	want = strings.TrimSpace(want)
	if want == "" {
		return true
	}
	if i, err := strconv.Atoi(want); err == nil {
		return info.Index == i
	}
	lw := strings.ToLower(want)
	return strings.Contains(strings.ToLower(info.Name), lw) || strings.Contains(strings.ToLower(info.Vendor), lw) ||
		strings.Contains(strings.ToLower(info.Platform), lw)
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func checkKernels(checks []device.Check) []string {
	seen := map[string]bool{}
	for _, c := range checks {
		seen[c.Kernel] = true
	}
	return sortedKeys(seen)
}

// compactBuilds keeps the phases of the first program's build and sums
// those of the others into one line: verify builds every kernel's
// program, and the start-up that matters is the first.
func compactBuilds(ps []backend.Phase) []backend.Phase {
	var out []backend.Phase
	first := ""
	var rest backend.Phase
	programs := map[string]bool{}
	for _, p := range ps {
		name, ok := strings.CutPrefix(p.Name, "build ")
		prog, _, _ := strings.Cut(name, ":")
		switch {
		case !ok:
			out = append(out, p)
		case first == "" || first == prog:
			first = prog
			out = append(out, p)
		default:
			programs[prog] = true
			rest.Took += p.Took
		}
	}
	if len(programs) > 0 {
		rest.Name = fmt.Sprintf("builds of %d more programs (cache, compile, load)", len(programs))
		out = append(out, rest)
	}
	return out
}
