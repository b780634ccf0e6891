package main

import (
	"bufio"
	"cmp"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-gpu/arbor/cli"
	"github.com/arbor-gpu/arbor/core"
)

const generateSynopsis = "rmat|gnp [--scale S --edge-factor F] [--n N --degree D] [--weights int:LO:HI|real:LO:HI] [--seed S] [--format F] -o FILE"

// runGenerate writes a generated graph: the large inputs that benchmarks
// and the reading-speed checks need, made on the machine that reads them
// instead of shipped.
func runGenerate(e *cli.Env) error {
	fs := cli.NewFlags(e, "generate", generateSynopsis)
	scale := fs.Int("scale", 20, "rmat: 2^scale vertices")
	edgeFactor := fs.Int("edge-factor", 16, "rmat: edges generated per vertex (repeats and self-loops are dropped)")
	n := fs.Int("n", 1000, "gnp: vertices")
	degree := fs.Float64("degree", 16, "gnp: expected degree")
	weights := fs.String("weights", "", "edge weights: int:LO:HI (integers, |LO|, |HI| ≤ 2^53 = "+strconv.Itoa(core.MaxExactIntWeight)+
		", exact in the float64 weights) or real:LO:HI (finite reals, |LO|, |HI| ≤ "+strconv.FormatFloat(math.MaxFloat64, 'g', 4, 64)+
		"), what the readers accept (default none: pattern)")
	seed := fs.Uint64("seed", 1, "random seed")
	format := fs.String("format", "", "output format: "+strings.Join(core.Formats(), ", ")+" (default: the one -o's extension names, .mtx .clq .gr .lad .txt .A00 …, else mtx)")
	out := fs.String("o", "", "output file (required)")
	pos, err := cli.Parse(fs, e.Args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("generate takes one model, rmat or gnp (usage: arbor generate %s)", generateSynopsis)
	}
	if *out == "" {
		return cli.Usagef("generate needs -o FILE")
	}
	// Checked before anything is made or the file created.
	if err := core.CheckFormat(cmp.Or(*format, core.FormatMTX)); err != nil {
		return err
	}
	// The name's extension says what a reader will take the file for: it
	// picks the format, and a --format that contradicts it is refused
	// (x.gr written as Matrix Market would not read back as the graph).
	named := core.DetectFormat(*out, nil)
	switch {
	case *format == "":
		*format = cmp.Or(named, core.FormatMTX)
	case named != "" && !sameFormat(named, *format):
		return cli.Usagef("-o %s names the %s format, --format %s another: name the file for its format or leave out --format", *out, named, *format)
	}
	if *weights != "" {
		if _, err := parseWeights(*weights); err != nil {
			return err
		}
	}
	var g *core.Graph
	switch pos[0] {
	case "rmat":
		if *scale < 1 || *scale > 30 || *edgeFactor < 1 {
			return cli.Usagef("rmat needs 1 ≤ --scale ≤ 30 and --edge-factor ≥ 1, got %d and %d", *scale, *edgeFactor)
		}
		g = core.RMAT(*scale, *edgeFactor, 0.57, 0.19, 0.19, *seed)
	case "gnp":
		if *n < 2 || *degree < 0 || *degree > float64(*n-1) {
			return cli.Usagef("gnp needs --n ≥ 2 and 0 ≤ --degree ≤ n-1, got %d and %g", *n, *degree)
		}
		g = core.GNP(*n, *degree/float64(*n-1), *seed)
	default:
		return cli.Usagef("unknown model %q: rmat or gnp", pos[0])
	}
	if *weights != "" {
		if err := setGeneratedWeights(g, *weights, *seed); err != nil {
			return err
		}
	}
	t0 := time.Now()
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := core.WriteGraph(bw, g, *format); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", *out, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", *out, err)
	}
	st, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Stderr, "generate: %s: %d vertices, %d edges, %.1f MB in %v\n", *out, g.N, g.Edges(),
		float64(st.Size())/1e6, time.Since(t0).Round(time.Millisecond))
	return nil
}

// weightRange is a parsed --weights.
type weightRange struct {
	integer  bool
	ilo, ihi int64
	rlo, rhi float64
}

// parseWeights parses int:LO:HI or real:LO:HI, allowing only what the
// readers read back unchanged: integers within ±2^53 (weights are
// float64), finite reals.
func parseWeights(spec string) (weightRange, error) {
	parts := strings.Split(spec, ":")
	bad := cli.Usagef("--weights must be int:LO:HI (|LO|, |HI| ≤ %d) or real:LO:HI (finite, |LO|, |HI| ≤ %g) with LO ≤ HI, got %q",
		core.MaxExactIntWeight, math.MaxFloat64, spec)
	if len(parts) != 3 {
		return weightRange{}, bad
	}
	switch parts[0] {
	case "int":
		lo, err1 := strconv.ParseInt(parts[1], 10, 64)
		hi, err2 := strconv.ParseInt(parts[2], 10, 64)
		const m = core.MaxExactIntWeight
		if err1 != nil || err2 != nil || lo > hi || lo < -m || hi > m {
			return weightRange{}, bad
		}
		return weightRange{integer: true, ilo: lo, ihi: hi}, nil
	case "real":
		lo, err1 := strconv.ParseFloat(parts[1], 64)
		hi, err2 := strconv.ParseFloat(parts[2], 64)
		if err1 != nil || err2 != nil || !(lo <= hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return weightRange{}, bad
		}
		return weightRange{rlo: lo, rhi: hi}, nil
	}
	return weightRange{}, bad
}

// setGeneratedWeights parses --weights and sets g's weights.
func setGeneratedWeights(g *core.Graph, spec string, seed uint64) error {
	w, err := parseWeights(spec)
	if err != nil {
		return err
	}
	if w.integer {
		core.RandomIntWeights(g, w.ilo, w.ihi, seed)
	} else {
		core.RandomRealWeights(g, w.rlo, w.rhi, seed)
	}
	return nil
}

// sameFormat reports whether the format an extension names (named, a
// canonical name) admits format: the edge-list and LAD variants share
// their extensions.
func sameFormat(named, format string) bool {
	f, _ := core.CanonicalFormat(format)
	family := map[string]string{core.FormatEdgeList0: core.FormatEdgeList, core.FormatEdgeList1: core.FormatEdgeList,
		core.FormatVertexLabelledLAD: core.FormatLAD, core.FormatLabelledLAD: core.FormatLAD}
	if fam, ok := family[f]; ok {
		f = fam
	}
	return f == named
}
