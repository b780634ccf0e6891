package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/internal/bench"
	"github.com/arbor-gpu/arbor/internal/dataset"
	"github.com/arbor-gpu/arbor/internal/ticker"
)

const benchSynopsis = "SUITE|LIST [--engines E,…] [--backends B,…] [--device D] [--threads N,…] [--timeout T] [--mem-limit M] [--out DIR] [--compare NAME='command {gr}' …] [--compare-regex NAME='size=(\\d+)' …] [--data DIR] [--limit N] [--json]\n       arbor bench report DIR"

// runBench is 'arbor bench': every instance of a suite solved by each
// engine configuration (and each --compare peer) in its own process,
// every answer checked, results and plots written to --out.
func runBench(e *cli.Env) error {
	if len(e.Args) > 0 && e.Args[0] == "report" {
		return runBenchReport(e, e.Args[1:])
	}
	if len(e.Args) > 0 && e.Args[0] == "fetch" {
		return runBenchFetch(e, e.Args[1:])
	}
	fs := cli.NewFlags(e, "bench", benchSynopsis)
	engines := fs.String("engines", "", "comma-separated engines; each kind runs those it has ("+strings.Join(bench.EngineNames(), ", ")+"; default: each command's default)")
	backends := fs.String("backends", "", "comma-separated backends for the device engines (mcs, clique, vc, match): auto, cuda, opencl, cpu (default auto)")
	device := fs.String("device", "", "device index or name substring for every run on a device (default: each backend's first GPU, else its first device); the results' device says which ran")
	threads := fs.String("threads", "", "comma-separated thread counts for mcs, vc and clique (0: all cores; default 0). mcs with 1 on the CPU engine is checked against the original McSplit's node counts")
	timeout := fs.Duration("timeout", time.Minute, "time limit per run (the child is killed a grace period later)")
	memLimit := fs.String("mem-limit", "", "memory cap per run, e.g. 4G (default: none)")
	out := fs.String("out", "bench-out", "folder for results.csv, results.json and the SVG plots")
	data := fs.String("data", "", "the data folder (default $"+dataset.EnvDir+", else ../shared/data beside the checkout, else where 'arbor bench fetch' puts it: "+bench.CacheDir()+")")
	limit := fs.Int("limit", -1, "at most N instances, spread over a suite (0: all; default: the suite's own, 20 for mcs-easy, 4 for match-large); of a list, the first N")
	asJSON := fs.Bool("json", false, "print the results and summary as JSON on stdout instead of the Markdown table")
	rerun := fs.Bool("rerun", false, "run everything again; by default the runs already in --out's results.csv are kept and skipped")
	var compares, regexes, formats multiFlag
	fs.Var(&compares, "compare", "`NAME='command template'`: also run another solver; {g} {h} (mcs pair), {gr} (the instance file; <{gr} for standard input) and {timeout} (seconds) are substituted (repeatable)")
	fs.Var(&regexes, "compare-regex", "`NAME='regexp'`: read peer NAME's answer size from the regexp's first group (repeatable)")
	fs.Var(&formats, "compare-format", "`NAME=FORMAT`: peer NAME's output is pace, mcsplit or json (default: detected) (repeatable)")
	pos, err := cli.Parse(fs, e.Args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("bench needs one suite or list file (got %s); suites:\n  %s", cli.Plural(len(pos), "argument"), strings.Join(bench.SuiteNames(), "\n  "))
	}
	cfg := bench.Config{Timeout: *timeout, Warn: e.Stderr}
	if *timeout < 0 {
		return cli.Usagef("--timeout must be ≥ 0")
	}
	if cfg.Engines, err = engineList(*engines); err != nil {
		return err
	}
	cfg.Backends = splitList(*backends)
	cfg.Device = *device
	if cfg.Threads, err = intList(*threads); err != nil {
		return err
	}
	if *memLimit != "" {
		if cfg.MemLimit, err = parseBytes(*memLimit); err != nil {
			return cli.Usagef("--mem-limit: %v", err)
		}
	}
	if cfg.Peers, err = peers(compares, regexes, formats); err != nil {
		return err
	}
	ins, err := instances(pos[0], bench.SuiteOptions{Data: benchDataDir(*data), Limit: *limit, GenDir: filepath.Join(*out, "instances")})
	if err != nil {
		return err
	}
	if !*rerun {
		if err := resumeBench(e, &cfg, *out); err != nil {
			return err
		}
	}
	results, runErr := runBenchWithProgress(e, cfg, ins)
	return reportBench(e, *out, *asJSON, results, len(ins), runErr)
}

// benchDataDir is the data folder: --data, else the usual data directory,
// else the cache 'arbor bench fetch' fills, when it exists.
func benchDataDir(data string) string {
	dataDir := data
	if dataDir == "" {
		dataDir = dataset.Dir()
	}
	if dataDir == "" {
		if c := bench.CacheDir(); c != "" {
			if st, err := os.Stat(c); err == nil && st.IsDir() {
				dataDir = c
			}
		}
	}
	return dataDir
}

// resumeBench keeps the rows of an earlier run into the same folder:
// they stand, and those runs are skipped.
func resumeBench(e *cli.Env, cfg *bench.Config, out string) error {
	prev := filepath.Join(out, bench.CSVName)
	if _, err := os.Stat(prev); err == nil {
		if cfg.Done, err = bench.ReadCSV(prev); err != nil {
			return fmt.Errorf("resuming from %s (or give --rerun): %w", prev, err)
		}
		fmt.Fprintf(e.Stderr, "arbor bench: resuming: %d finished runs in %s are kept (--rerun runs them again)\n", len(cfg.Done), prev)
	}
	return nil
}

// runBenchWithProgress runs the bench with a progress line: the bench
// reports at each run; a ticker redraws the line so the elapsed time moves
// during a long run.
func runBenchWithProgress(e *cli.Env, cfg bench.Config, ins []bench.Instance) ([]bench.Result, error) {
	prog := cli.NewProgress(e)
	var mu sync.Mutex
	var cur bench.Progress
	cfg.Progress = func(p bench.Progress) { mu.Lock(); cur = p; mu.Unlock() }
	stop := ticker.Every(0, func() {
		mu.Lock()
		p := cur
		mu.Unlock()
		line := fmt.Sprintf("instance %d of %d  solved %d  wrong %d", min(p.Done+1, p.Total), p.Total, p.Solved, p.Wrong)
		if p.Instance != "" {
			line += "  " + p.Instance + " (" + p.What + ")"
		}
		prog.Update(line)
	})
	results, runErr := bench.Run(e.Ctx, cfg, ins)
	stop()
	prog.Done()
	return results, runErr
}

// reportBench saves whatever ran (interrupted or not) into out, draws the
// plots, prints the summary, and fails when the run stopped early or an
// answer was wrong.
func reportBench(e *cli.Env, out string, asJSON bool, results []bench.Result, nInstances int, runErr error) error {
	if err := bench.Save(out, results); err != nil {
		return err
	}
	plots, err := bench.WritePlots(out, results)
	if err != nil {
		return err
	}
	sum := bench.Summarise(results)
	if asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		if results == nil {
			results = []bench.Result{}
		}
		if err := enc.Encode(struct {
			Results []bench.Result `json:"results"`
			Summary bench.Summary  `json:"summary"`
		}{results, sum}); err != nil {
			return err
		}
	} else if err := bench.WriteMarkdown(e.Stdout, sum); err != nil {
		return err
	}
	fmt.Fprintf(e.Stderr, "arbor bench: %s on %s; wrote %s, %s and %s\n", cli.Plural(len(results), "run"), cli.Plural(nInstances, "instance"),
		filepath.Join(out, bench.CSVName), filepath.Join(out, bench.JSONName), cli.Plural(len(plots), "plot"))
	if runErr != nil {
		return fmt.Errorf("stopped after %s: %w", cli.Plural(len(results), "run"), runErr)
	}
	wrong := 0
	for _, r := range results {
		if r.Status == bench.StatusWrong {
			wrong++
		}
	}
	if wrong > 0 {
		return fmt.Errorf("%d wrong answer(s): see the status=wrong rows of %s", wrong, filepath.Join(out, bench.CSVName))
	}
	return nil
}

// runBenchReport is 'arbor bench report DIR': the plots redrawn and the
// summary printed from DIR/results.csv.
func runBenchReport(e *cli.Env, args []string) error {
	fs := cli.NewFlags(e, "bench report", "DIR")
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("bench report needs the folder of a bench run (got %s)", cli.Plural(len(pos), "argument"))
	}
	results, err := bench.ReadCSV(filepath.Join(pos[0], bench.CSVName))
	if err != nil {
		return err
	}
	if _, err := bench.WritePlots(pos[0], results); err != nil {
		return err
	}
	return bench.WriteMarkdown(e.Stdout, bench.Summarise(results))
}

// runBenchFetch is 'arbor bench fetch SUITE': the suite's data files
// copied from --from (default: the development data folder, where there is
// one) into --data (default: the cache), each checked against its SHA-256;
// what cannot be found is named with where to download it.
func runBenchFetch(e *cli.Env, args []string) error {
	fs := cli.NewFlags(e, "bench fetch", "SUITE [--from DIR] [--data DIR]")
	from := fs.String("from", "", "a folder holding the suite's files (a download of its source, in any layout: files are found by name and checked; default: $"+dataset.EnvDir+" or ../shared/data beside the checkout, where present)")
	data := fs.String("data", "", "where to put them (default "+bench.CacheDir()+", which 'arbor bench SUITE' reads when no other data folder is found)")
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("bench fetch needs one suite (got %s); suites:\n  %s", cli.Plural(len(pos), "argument"), strings.Join(bench.SuiteNames(), "\n  "))
	}
	sets, err := bench.SuiteSets(pos[0])
	if err != nil {
		return cli.Usagef("%v", err)
	}
	dest := *data
	if dest == "" {
		if dest = bench.CacheDir(); dest == "" {
			return fmt.Errorf("no cache folder ($XDG_CACHE_HOME and $HOME unset): give --data DIR")
		}
	}
	src := *from
	if src == "" {
		src = dataset.Dir()
	}
	if src != "" {
		if st, err := os.Stat(src); err != nil || !st.IsDir() {
			return fmt.Errorf("--from %s: not a folder", src)
		}
		if a, b := filepath.Clean(src), filepath.Clean(dest); a == b {
			src = "" // the data folder itself: check it in place
		}
	}
	if len(sets) == 0 {
		_, err := fmt.Fprintf(e.Stdout, "suite %s generates its instances: nothing to fetch\n", pos[0])
		return err
	}
	res, err := bench.Fetch(bench.DefaultManifest(), sets, src, dest)
	if err != nil {
		return err
	}
	if len(res.Missing) > 0 {
		return fmt.Errorf("%s", bench.MissingMessage(pos[0], sets, res.Missing, dest))
	}
	_, err = fmt.Fprintf(e.Stdout, "suite %s: %d files in %s (%d copied, %d already there), every checksum right\n", pos[0], res.Present+res.Placed, dest, res.Placed, res.Present)
	return err
}

// instances builds a named suite, or reads arg as a CSV list.
func instances(arg string, o bench.SuiteOptions) ([]bench.Instance, error) {
	if bench.IsSuite(arg) {
		return bench.Suite(arg, o)
	}
	if _, err := os.Stat(arg); err != nil {
		return nil, cli.Usagef("%q is neither a suite nor a list file (%v); suites:\n  %s", arg, err, strings.Join(bench.SuiteNames(), "\n  "))
	}
	ins, err := bench.ReadList(arg)
	if err != nil {
		return nil, err
	}
	if o.Limit > 0 && o.Limit < len(ins) {
		ins = ins[:o.Limit]
	}
	return ins, nil
}

// multiFlag collects a repeatable flag's values.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// nameValue splits NAME=VALUE.
func nameValue(flagName, s string) (string, string, error) {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || value == "" {
		return "", "", cli.Usagef("--%s %q: want NAME=VALUE", flagName, s)
	}
	return name, value, nil
}

func peers(compares, regexes, formats []string) ([]bench.Peer, error) {
	var out []bench.Peer
	index := map[string]int{}
	for _, c := range compares {
		name, tmpl, err := nameValue("compare", c)
		if err != nil {
			return nil, err
		}
		if _, dup := index[name]; dup {
			return nil, cli.Usagef("--compare: %s given twice", name)
		}
		if strings.HasPrefix(name, "arbor:") {
			return nil, cli.Usagef("--compare: the name %s is kept for arbor's own engines", name)
		}
		index[name] = len(out)
		out = append(out, bench.Peer{Name: name, Template: tmpl})
	}
	// peer is the --compare that NAME=VALUE of flagName refines.
	peer := func(flagName, s string) (i int, name, value string, err error) {
		if name, value, err = nameValue(flagName, s); err != nil {
			return 0, "", "", err
		}
		i, ok := index[name]
		if !ok {
			return 0, "", "", cli.Usagef("--%s: no --compare named %s", flagName, name)
		}
		return i, name, value, nil
	}
	for _, r := range regexes {
		i, name, expr, err := peer("compare-regex", r)
		if err != nil {
			return nil, err
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, cli.Usagef("--compare-regex %s: %v", name, err)
		}
		if re.NumSubexp() < 1 {
			return nil, cli.Usagef("--compare-regex %s: %q has no group to read the size from, e.g. 'size=(\\d+)'", name, expr)
		}
		out[i].Regex, out[i].Format = re, bench.FormatRegex
	}
	for _, f := range formats {
		i, name, format, err := peer("compare-format", f)
		if err != nil {
			return nil, err
		}
		switch {
		case bench.KnownFormat(bench.Format(format)):
			out[i].Format = bench.Format(format)
		default:
			return nil, cli.Usagef("--compare-format %s: %q: want pace, mcsplit or json", name, format)
		}
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func engineList(s string) ([]string, error) {
	list := splitList(s)
	known := bench.EngineNames()
	for _, e := range list {
		ok := false
		for _, k := range known {
			ok = ok || k == e
		}
		if !ok {
			return nil, cli.Usagef("--engines: unknown engine %q (want some of %s)", e, strings.Join(known, ", "))
		}
	}
	return list, nil
}

func intList(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 {
			return nil, cli.Usagef("--threads: %q is not a count ≥ 0", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseBytes reads a size such as 512M, 4G, 1.5GiB or a plain byte count
// (binary units: K is 1024).
func parseBytes(s string) (int64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B"), "I")
	mult := int64(1)
	if n := len(t); n > 0 {
		if i := strings.IndexByte("KMGT", t[n-1]); i >= 0 {
			mult = int64(1) << (10 * (i + 1))
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || v <= 0 {
		return 0, errors.New("want a positive size such as 512M or 4G, got " + strconv.Quote(s))
	}
	return int64(v * float64(mult)), nil
}
