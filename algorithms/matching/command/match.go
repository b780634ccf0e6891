package matchcmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-gpu/arbor/algorithms/matching"
	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
)

const matchSynopsis = "GRAPH [-o OUT] [--strong-only] [--threads N] [--engine spec|fast] [--filter lookback|scan] [--tie index|hashed] [--format F] [--verify] [--json] [--zero-based] [-v] [--backend B --device D]"

func runMatch(e *cli.Env) error {
	fs, df := cli.NewDeviceFlags(e, "match", matchSynopsis)
	outPath := fs.String("o", "", "write the result (one line per vertex, the file's first vertex first: its partner, or -1) to `FILE` (atomically) instead of stdout")
	strongOnly := fs.Bool("strong-only", false, "print each vertex's strongest neighbour (the first pass only), not a matching")
	threads := fs.Int("threads", 0, "total work-items per launch; every kernel is a grid-stride loop, so any value gives the same result (the fast engine's tile kernels round it up to whole work-groups of up to 256); 0: the default")
	engine := fs.String("engine", string(matching.EngineFast), "spec (the CS314 kernels, stride by stride) or fast")
	tie := fs.String("tie", "index", "tie-break on equal weights: index (smallest neighbour; reproduces the CS314 reference outputs) or hashed (a hash of the endpoint pair: fewer passes on uniform weights, a different matching)")
	filter := fs.String("filter", string(matching.FilterLookback), "fast engine's filter: lookback (one launch per pass, a decoupled look-back scan fused with the compaction; needs work-groups that keep running while others wait on them, as CUDA, AMD and Intel GPUs, PoCL and the CPU backend do) or scan (mark, scan, pack: three launches, the arcs read twice, no such need)")
	format := fs.String("format", "", "input format (default: detected)")
	verify := fs.Bool("verify", false, "check the result with the independent checker (and, for a matching, against sequential greedy)")
	asJSON := fs.Bool("json", false, "print the summary as JSON on stdout (the vertex list goes to -o, or is included when -o is absent)")
	zeroBased := fs.Bool("zero-based", false, "number partners from 0 whatever the file's numbering (the CS314 reference outputs are 0-based; default: the file's own numbering)")
	verbose := fs.Bool("v", false, "say on stderr which device runs and why")
	pos, err := cli.Parse(fs, e.Args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("match takes one GRAPH argument (usage: arbor match %s)", matchSynopsis)
	}
	if *threads < 0 {
		return cli.Usagef("--threads must be ≥ 0, got %d", *threads)
	}
	if err := cli.CheckOutNotInput(*outPath, pos[0]); err != nil {
		return err
	}
	opt := matching.Options{Engine: matching.Engine(*engine), Threads: *threads, StrongOnly: *strongOnly, Filter: matching.Filter(*filter), Ctx: e.Ctx}
	if err := checkMatchOptions(&opt, *tie); err != nil {
		return err
	}

	clock := matching.NewClock()
	// The device opens while the file is read; "open" is what is left of
	// its wait afterwards.
	opening := df.OpenAsync(e, true)
	g, err := e.ReadGraph(pos[0], core.ReadOptions{Format: *format})
	if err == nil {
		err = checkMatchTotal(pos[0], g)
	}
	if err != nil {
		opening.Abandon()
		return err
	}
	clock.Mark("read")
	var fileBytes int64
	if st, err := os.Stat(pos[0]); err == nil && pos[0] != "-" {
		fileBytes = st.Size()
	}
	dev, choice, err := opening.Wait()
	if err != nil {
		return err
	}
	defer dev.Close()
	if *verbose {
		fmt.Fprintf(e.Stderr, "arbor: using %s\n", choice.Info)
	}
	clock.Mark("open")
	in, err := matching.Prepare(g, opt.Tie)
	if err != nil {
		return err
	}
	clock.Mark("prepare")
	res, err := matching.Run(dev, in, opt)
	if err != nil {
		return err
	}
	clock.Add(res.Wall)
	verified := ""
	if *verify {
		if err := verifyMatch(g, in, res, opt); err != nil {
			return err
		}
		verified = "ok"
		clock.Mark("verify")
	}

	base := g.Base
	if *zeroBased {
		base = 0
	}
	mates := shiftMates(res.Mate, base)
	if *outPath != "" {
		if err := cli.WriteAtomic(*outPath, func(w io.Writer) error { return writeMates(w, mates) }); err != nil {
			return err
		}
		clock.Mark("write")
	} else if !*asJSON {
		if err := writeMates(e.Stdout, mates); err != nil {
			return fmt.Errorf("write result: %w", err)
		}
		clock.Mark("write")
	}
	if *asJSON {
		return writeMatchJSON(e, pos, g, res, clock, choice, fileBytes, base, verified, mates, *outPath == "")
	}
	fmt.Fprintln(e.Stderr, matchSummary(g, res, clock, fileBytes, verified))
	return nil
}

// checkMatchOptions checks --engine and --filter, and sets opt's
// tie-break from --tie.
func checkMatchOptions(opt *matching.Options, tie string) error {
	if opt.Engine != matching.EngineFast && opt.Engine != matching.EngineSpec {
		return cli.Usagef("--engine must be spec or fast, got %q", string(opt.Engine))
	}
	if opt.Filter != matching.FilterLookback && opt.Filter != matching.FilterScan {
		return cli.Usagef("--filter must be lookback or scan, got %q", string(opt.Filter))
	}
	switch tie {
	case "index":
	case "hashed":
		opt.Tie = matching.TieHashed
	default:
		return cli.Usagef("--tie must be index or hashed, got %q", tie)
	}
	return nil
}

// writeMatchJSON prints the --json summary (docs/schema/match.json); the
// vertex list is in it when withMates (no -o).
func writeMatchJSON(e *cli.Env, pos []string, g *core.Graph, res *matching.Result, clock *matching.Clock, choice backend.Choice, fileBytes int64, base int, verified string, mates []int32, withMates bool) error {
	out := matchJSON{Files: pos, Format: g.Format, Bytes: fileBytes, Base: base, N: res.Vertices, Edges: res.Edges,
		Size: res.Pairs, Weight: res.Weight, Passes: res.Passes, StrongOnly: res.StrongOnly,
		Engine: string(res.Engine), Filter: string(res.Filter), Tie: res.Tie, Threads: res.Threads,
		Backend: res.Device.Backend, Device: res.Device.String(), Why: choice.Why,
		Seconds: (clock.Get("prepare") + res.WallTotal).Seconds(), Time: phaseSeconds(clock.Phases),
		ReadMBs: mbPerS(fileBytes, clock.Get("read")), Wall: phaseSeconds(res.Wall), DevicePhases: phaseSeconds(res.Phases),
		LoopSeconds: res.Loop.Seconds(), ArcsProcessed: res.ArcsProcessed, ArcsPerPass: res.ArcsPerPass,
		PassSeconds: durSeconds(res.PassTimes), Verified: verified != ""}
	if out.ArcsPerPass == nil {
		out.ArcsPerPass = []int{}
	}
	if withMates {
		out.Mate = mates
	}
	enc := json.NewEncoder(e.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// matchJSON is what 'arbor match --json' prints (docs/schema/match.json).
type matchJSON struct {
	Files         []string    `json:"files"`
	Format        string      `json:"format"`
	Bytes         int64       `json:"bytes"`
	Base          int         `json:"base"`
	N             int         `json:"vertices"`
	Edges         int         `json:"edges"`
	Size          int         `json:"size"` // matched pairs
	Weight        float64     `json:"weight"`
	Passes        int         `json:"passes"`
	StrongOnly    bool        `json:"strong_only"`
	Engine        string      `json:"engine"`
	Filter        string      `json:"filter,omitempty"`
	Tie           string      `json:"tie"`
	Threads       int         `json:"threads"`
	Backend       string      `json:"backend"`
	Device        string      `json:"device"`
	Why           string      `json:"why"`
	Seconds       float64     `json:"seconds"` // prepare and Run: from graph in memory to result
	Time          []phaseJSON `json:"time"`    // every phase, file to output
	ReadMBs       float64     `json:"read_mb_per_s"`
	Wall          []phaseJSON `json:"wall"`          // Run's wall clock split
	DevicePhases  []phaseJSON `json:"device_phases"` // device time per kernel
	LoopSeconds   float64     `json:"loop_seconds"`
	ArcsProcessed int64       `json:"arcs_processed"`
	ArcsPerPass   []int       `json:"arcs_per_pass"`
	PassSeconds   []float64   `json:"pass_seconds"`
	Verified      bool        `json:"verified"`
	Mate          []int32     `json:"mate,omitempty"`
}

// phaseJSON is a named span of time in seconds.
type phaseJSON struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

func phaseSeconds(ps []matching.Phase) []phaseJSON {
	out := make([]phaseJSON, len(ps))
	for i, p := range ps {
		out[i] = phaseJSON{p.Name, p.Time.Seconds()}
	}
	return out
}

func durSeconds(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Seconds()
	}
	return out
}

// shiftMates numbers partners from base; -1 (unmatched) stays.
func shiftMates(m matching.Matching, base int) []int32 {
	out := make([]int32, len(m))
	for i, p := range m {
		if p >= 0 {
			p += int32(base)
		}
		out[i] = p
	}
	return out
}

// verifyMatch checks a result independently: --strong-only entries against
// the graph's heaviest neighbours, a matching by the checker, for
// maximality and against sequential greedy.
func verifyMatch(g *core.Graph, in *matching.Input, res *matching.Result, opt matching.Options) error {
	if opt.StrongOnly {
		if err := verifyStrong(g, in, res.Mate); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		return nil
	}
	if err := res.Mate.Verify(g); err != nil {
		return fmt.Errorf("verify: not a matching: %w", err)
	}
	if u, v, ok := res.Mate.Maximal(g); !ok {
		return fmt.Errorf("verify: not maximal: edge {%d,%d} has both ends free", u, v)
	}
	want := matching.Greedy(g, opt.Tie)
	for v := range want {
		if want[v] != res.Mate[v] {
			return fmt.Errorf("verify: vertex %d matched to %d, sequential greedy says %d", v, res.Mate[v], want[v])
		}
	}
	return nil
}

// writeMates writes one partner per line.
func writeMates(w io.Writer, mate []int32) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	buf := make([]byte, 0, 16)
	for _, p := range mate {
		buf = strconv.AppendInt(buf[:0], int64(p), 10)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// mbPerS is bytes per second in MB/s (0 when unknown).
func mbPerS(bytes int64, d time.Duration) float64 {
	if bytes <= 0 || d <= 0 {
		return 0
	}
	return float64(bytes) / 1e6 / d.Seconds()
}

// matchSummary is the human summary on stderr.
func matchSummary(g *core.Graph, res *matching.Result, clock *matching.Clock, fileBytes int64, verified string) string {
	var sb strings.Builder
	what := fmt.Sprintf("%s, weight %.6g", cli.Plural(res.Pairs, "pair"), res.Weight)
	if res.StrongOnly {
		what = "strongest neighbours"
	}
	engine := string(res.Engine)
	if res.Filter != "" {
		engine += ", filter " + string(res.Filter)
	}
	fmt.Fprintf(&sb, "match: %s: %s, %s; %s in %s (engine %s, tie %s) on %s",
		g.Name, cli.Plural(res.Vertices, "vertex"), cli.Plural(res.Edges, "edge"), what, cli.Plural(res.Passes, "pass"), engine, res.Tie, res.Device)
	if verified != "" {
		sb.WriteString("; verified")
	}
	sb.WriteString("\n  time:")
	for i, p := range clock.Phases {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, " %s %v", p.Name, p.Time.Round(time.Microsecond))
		if p.Name == "read" && fileBytes > 0 {
			fmt.Fprintf(&sb, " (%.0f MB/s)", mbPerS(fileBytes, p.Time))
		}
	}
	fmt.Fprintf(&sb, "; all %v", clock.Sum().Round(time.Microsecond))
	fmt.Fprintf(&sb, "\n  device:")
	for _, p := range res.Phases {
		fmt.Fprintf(&sb, " %s %v,", p.Name, p.Time.Round(time.Microsecond))
	}
	fmt.Fprintf(&sb, " loop %v (%s arcs)", res.Loop.Round(time.Microsecond), cli.Rate(res.ArcsProcessed, res.Loop))
	return sb.String()
}

// verifyStrong checks --strong-only output directly against the graph:
// each vertex's entry is its heaviest neighbour under the tie rule.
func verifyStrong(g *core.Graph, in *matching.Input, strong matching.Matching) error {
	if len(strong) != g.N {
		return fmt.Errorf("%d entries for %d vertices", len(strong), g.N)
	}
	want := make([]int32, g.N)
	rank := make([]int32, g.N)
	for v := range want {
		want[v] = -1
	}
	for u := range g.N {
		for a := int(in.Offsets[u]); a < int(in.Offsets[u+1]); a++ {
			d, r := in.Dst(a), in.Rank(a)
			if want[u] == -1 || r > rank[u] || (r == rank[u] && d < want[u]) {
				want[u], rank[u] = d, r
			}
		}
	}
	for v := range want {
		if strong[v] != want[v] {
			return fmt.Errorf("vertex %d: strongest neighbour %d, want %d", v, strong[v], want[v])
		}
	}
	return nil
}
