package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/vertexcover"
	"github.com/arbor-gpu/arbor/core"
)

// runVC is 'arbor vc': a minimum vertex cover, or with -k a cover of at
// most K vertices or a proof that none exists.
func runVC(e *env) error {
	fs := newFlags(e, "vc", "GRAPH [-k K] [--threads N] [--timeout D] [--complement] [--engine auto|cpu|branch|clique|gpu|hybrid] [--ls-device auto|on|off] [--workers N] [--backend B] [--device D] [--format F] [--verify] [--json] [-o FILE] [--cluster URL|embedded [--workers N] [--cluster-token T] [--task-nodes B] [--tasks N] [--ack-wait D] [--fresh]]")
	k := fs.Int("k", -1, "parameterized mode: find a cover of at most `K` vertices or prove none exists (-1: a minimum cover)")
	threads := fs.Int("threads", 0, "worker threads (default: all cores)")
	timeout := fs.Duration("timeout", 0, "stop after `D` (e.g. 30s) and report the best cover found, unproven")
	complement := fs.Bool("complement", false, "solve the complement graph (DIMACS clique files: n − cover = maximum clique)")
	format := fs.String("format", "", "input format (default: detected); one of "+fmt.Sprint(core.Formats()))
	verify := fs.Bool("verify", false, "check the cover independently against the input graph")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	out := fs.String("o", "", "write the cover to `FILE` in PACE solution format (s vc n k, then 1-based vertices)")
	ls := fs.Duration("ls", 0, "local search budget for the initial cover (default 300ms; negative: none)")
	engine := fs.String("engine", vertexcover.EngineAuto, "where and how the kernel is solved: auto (the CPU engine until the device engine is measured to win: clique route on the complement from density "+fmt.Sprint(vertexcover.DenseThreshold)+", else branch and reduce), cpu (the same), branch, clique, gpu (the device search on --backend/--device; the CPU backend runs its Go twin) or hybrid (the device and the CPU engine side by side, one incumbent)")
	lsDevice := fs.String("ls-device", "auto", "where BHOSLIB-like kernels (a clique partition's bound is the target) also run the partition local search: auto (a GPU of --backend/--device, if there is one), on (the device of --backend/--device, whatever it is) or off")
	mirrors := fs.Bool("mirrors", false, "also take v's mirrors in the branch that takes v (rarely pays: see the package doc)")
	workers := fs.Int("workers", 0, "device engine workers (work-groups; 0 sizes it from the device). With --cluster embedded: local worker processes (0: one per core)")
	var cf clusterFlags
	cf.register(fs)
	var df deviceFlags
	df.registerMany(fs)
	pos, err := parse(fs, e.args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("vc needs exactly one graph file (got %d arguments)", len(pos))
	}
	if *threads < 0 {
		return usagef("--threads must be ≥ 0")
	}
	if err := vertexcover.ParseEngine(*engine); err != nil {
		return usagef("--engine must be auto, cpu, branch, clique, gpu or hybrid (got %q)", *engine)
	}
	onDevice := *engine == vertexcover.EngineGPU || *engine == vertexcover.EngineHybrid
	if *lsDevice != "auto" && *lsDevice != "on" && *lsDevice != "off" {
		return usagef("--ls-device must be auto, on or off (got %q)", *lsDevice)
	}
	if *k < -1 {
		return usagef("-k must be ≥ 0 (got %d)", *k)
	}
	g, err := e.readGraph(pos[0], core.ReadOptions{Format: *format})
	if err != nil {
		return err
	}
	if g.Directed {
		return fmt.Errorf("%s: vertex cover needs an undirected graph", pos[0])
	}
	if *complement {
		g = vertexcover.Complement(g)
	}
	if cf.url != "" {
		if *k >= 0 {
			return usagef("-k is not distributed; run it without --cluster")
		}
		if onDevice {
			if err := cf.onDevices(*engine, df); err != nil {
				return err
			}
		}
		return runVCCluster(e, cf, *workers, *threads, pos[0], g, *timeout, *asJSON, *verify, *out)
	}
	ctx := e.ctx
	if *timeout > 0 {
		var cancel func()
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	prog := newProgress(e)
	opts := vertexcover.Options{Parameterized: *k >= 0, K: *k, Threads: *threads, LocalSearch: *ls, Mirrors: *mirrors, Engine: *engine}
	// Only the device engines open a device: auto stays on the CPU engine
	// until the device engine is measured to win (vertexcover.autoDevice),
	// and creating a CUDA context costs about a second.
	if onDevice {
		devs, err := df.openMany(e, *asJSON)
		if err != nil {
			return fmt.Errorf("--engine %s: %w", *engine, err)
		}
		for _, d := range devs {
			defer d.Close()
		}
		opts.Device, opts.Devices, opts.Workers = devs[0], devs[1:], *workers
	}
	opts.LSDevice = df.lsDevice(e, *lsDevice, *asJSON)
	opts.Progress = func(p vertexcover.Progress) {
		best := "-"
		if p.Best >= 0 {
			best = fmt.Sprint(p.Best)
		}
		prog.Update(fmt.Sprintf("best %s  lower bound %d  nodes %d  %s", best, p.LowerBound, p.Nodes, rate(p.Nodes, p.Elapsed)))
	}
	res, err := vertexcover.Solve(ctx, g, opts)
	prog.Done()
	if err != nil {
		return err
	}
	verified := ""
	if *verify && res.Cover != nil {
		if err := vertexcover.Verify(g, res.Cover); err != nil {
			return fmt.Errorf("%s: verification failed: %w", pos[0], err)
		}
		verified = "cover verified"
	}
	if *out != "" && res.Cover != nil {
		if err := writeCover(*out, g.N, res.Cover); err != nil {
			return err
		}
	}
	if *asJSON {
		type jsonResult struct {
			Graph      string  `json:"graph"`
			N          int     `json:"n"`
			M          int     `json:"m"`
			K          *int    `json:"k,omitempty"`
			Size       int     `json:"size"`
			Proven     bool    `json:"proven"`
			Found      bool    `json:"found"`
			LowerBound int     `json:"lower_bound"`
			Kernel     int     `json:"kernel"`
			Nodes      int64   `json:"nodes"`
			Engine     string  `json:"engine"`
			Why        string  `json:"why"`
			Threshold  float64 `json:"dense_threshold"`
			Device     string  `json:"device,omitempty"`
			Workers    int     `json:"workers,omitempty"`
			Epochs     int     `json:"epochs,omitempty"`
			Moved      int64   `json:"moved_between_devices,omitempty"`
			LSDevice   string  `json:"ls_device,omitempty"`
			Seconds    float64 `json:"seconds"`
			Verified   bool    `json:"verified"`
			Cover      []int   `json:"cover"`
		}
		jr := jsonResult{Graph: pos[0], N: g.N, M: g.Edges(), Size: res.Size(), Proven: res.Proven, Found: res.Cover != nil,
			LowerBound: res.LowerBound, Kernel: res.Kernel, Nodes: res.Nodes, Engine: res.Engine, Why: res.Why, Threshold: res.DenseThreshold, Device: res.Device, Workers: res.Workers, Epochs: res.Epochs, Moved: res.Moved, LSDevice: res.LSDevice, Seconds: res.Elapsed.Seconds(), Verified: verified != "", Cover: oneBased(res.Cover)}
		if *k >= 0 {
			jr.K = k
		}
		enc := json.NewEncoder(e.stdout)
		return enc.Encode(jr)
	}
	status := "unproven (stopped early)"
	switch {
	case res.Proven && *k >= 0 && res.Cover == nil:
		status = fmt.Sprintf("proven: no cover of size ≤ %d", *k)
	case res.Proven && *k >= 0:
		status = fmt.Sprintf("proven: size ≤ %d", *k)
	case res.Proven:
		status = "proven minimum"
	}
	size := "none"
	if res.Cover != nil {
		size = fmt.Sprint(len(res.Cover))
	}
	fmt.Fprintf(e.stdout, "%s: n=%d m=%d  cover %s  %s  lower bound %d  kernel %d  nodes %d  %v  engine %s (%s)",
		pos[0], g.N, g.Edges(), size, status, res.LowerBound, res.Kernel, res.Nodes, res.Elapsed.Round(time.Millisecond), res.Engine, res.Why)
	if res.Device != "" {
		fmt.Fprintf(e.stdout, "  device %s, %d workers, %d epochs", res.Device, res.Workers, res.Epochs)
	}
	if res.LSDevice != "" {
		fmt.Fprintf(e.stdout, "  local search device %s", res.LSDevice)
	}
	if verified != "" {
		fmt.Fprintf(e.stdout, "  %s", verified)
	}
	fmt.Fprintln(e.stdout)
	if *k >= 0 && res.Proven && res.Cover == nil {
		return nil
	}
	if res.Cover == nil && !res.Proven {
		return errors.New("no cover found before the search stopped")
	}
	return nil
}

func oneBased(c []int) []int {
	out := make([]int, len(c))
	for i, v := range c {
		out[i] = v + 1
	}
	return out
}

// writeCover writes a cover to path in the PACE solution format.
func writeCover(path string, n int, cover []int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	werr := vertexcover.WriteSolution(f, n, cover)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	return nil
}
