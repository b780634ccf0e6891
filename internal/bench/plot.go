package bench

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot sizes: wide enough for a legend of several configurations.
const (
	plotW = 7 * vg.Inch
	plotH = 5 * vg.Inch
	// minTime stands in for a time of 0 on the log axes.
	minTime = 1e-4
)

// WritePlots draws the SVG plots of a results set into dir and returns
// the files written: the cumulative solved-vs-time curve, a per-instance
// scatter of the first configuration against each other one, and for
// matching the throughput against the graph size.
func WritePlots(dir string, rs []Result) ([]string, error) {
	var files []string
	order := seriesOrder(rs)
	p, err := cactus(rs, order)
	if err != nil {
		return nil, err
	}
	if err := save(p, filepath.Join(dir, "solved.svg"), &files); err != nil {
		return files, err
	}
	kindOf := map[string]Kind{}
	for _, r := range rs {
		kindOf[r.Series()] = r.Kind
	}
	for _, b := range order[min(1, len(order)):] {
		if kindOf[b] != kindOf[order[0]] {
			continue
		}
		p, err := scatter(rs, order[0], b)
		if err != nil {
			return files, err
		}
		name := fmt.Sprintf("scatter-%s-vs-%s.svg", fileSafe(order[0]), fileSafe(b))
		if err := save(p, filepath.Join(dir, name), &files); err != nil {
			return files, err
		}
	}
	if p, ok, err := throughput(rs, order); err != nil {
		return files, err
	} else if ok {
		if err := save(p, filepath.Join(dir, "match-throughput.svg"), &files); err != nil {
			return files, err
		}
	}
	return files, nil
}

func save(p *plot.Plot, path string, files *[]string) error {
	if err := p.Save(plotW, plotH, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	*files = append(*files, path)
	return nil
}

// fileSafe turns a series name into part of a file name.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}

// logAxis sets a log scale on a, with a range that holds lo..hi widened
// to whole decades: LogTicks labels only powers of ten, and a range inside
// one decade would show none (log scales cannot show 0 either).
func logAxis(a *plot.Axis, lo, hi float64) {
	a.Scale = plot.LogScale{}
	a.Tick.Marker = plot.LogTicks{Prec: -1}
	lo, hi = math.Max(lo, minTime), math.Max(hi, minTime)
	a.Min = math.Pow(10, math.Floor(math.Log10(lo)))
	a.Max = math.Pow(10, math.Ceil(math.Log10(hi)))
	if a.Max <= a.Min {
		a.Max = a.Min * 10
	}
}

// cactus is the cumulative count of instances solved within each time,
// one step line per configuration.
func cactus(rs []Result, order []string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Instances solved within a time"
	p.X.Label.Text = "wall-clock time per instance (s)"
	p.Y.Label.Text = "instances solved"
	lo, hi := math.Inf(1), math.Inf(-1)
	maxSolved := 0
	for i, s := range order {
		var ts []float64
		for _, r := range rs {
			if r.Series() == s && r.Solved() {
				ts = append(ts, math.Max(r.Seconds, minTime))
			}
		}
		if len(ts) == 0 {
			continue
		}
		sort.Float64s(ts)
		lo, hi = math.Min(lo, ts[0]), math.Max(hi, ts[len(ts)-1])
		maxSolved = max(maxSolved, len(ts))
		pts := make(plotter.XYs, 0, 2*len(ts))
		for k, t := range ts {
			pts = append(pts, plotter.XY{X: t, Y: float64(k)}, plotter.XY{X: t, Y: float64(k + 1)})
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("plotting %s: %w", s, err)
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s, l)
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0.01, 1
	}
	logAxis(&p.X, lo, hi)
	p.Y.Min, p.Y.Max = 0, float64(max(maxSolved, 1))
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	return p, nil
}

// scatter plots each instance's time under configuration a against b;
// an instance one of them did not solve sits at the cap (twice the
// longest run), so points off the diagonal show who failed.
func scatter(rs []Result, a, b string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Per instance: %s against %s", a, b)
	p.X.Label.Text = a + " (s)"
	p.Y.Label.Text = b + " (s)"
	longest := minTime
	for _, r := range rs {
		longest = math.Max(longest, r.Seconds)
	}
	ceiling := 2 * longest
	ta, tb := map[string]float64{}, map[string]float64{}
	var names []string
	for _, r := range rs {
		t := ceiling
		if r.Solved() {
			t = math.Max(r.Seconds, minTime)
		}
		switch r.Series() {
		case a:
			if _, seen := ta[r.Instance]; !seen {
				names = append(names, r.Instance)
			}
			ta[r.Instance] = t
		case b:
			tb[r.Instance] = t
		}
	}
	var pts plotter.XYs
	lo := ceiling
	for _, n := range names {
		y, ok := tb[n]
		if !ok {
			continue
		}
		x := ta[n]
		pts = append(pts, plotter.XY{X: x, Y: y})
		lo = math.Min(lo, math.Min(x, y))
	}
	diag, err := plotter.NewLine(plotter.XYs{{X: lo / 1.5, Y: lo / 1.5}, {X: ceiling * 1.5, Y: ceiling * 1.5}})
	if err != nil {
		return nil, err
	}
	diag.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	p.Add(diag)
	p.Legend.Add("equal time", diag)
	if len(pts) > 0 {
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color = plotutil.Color(0)
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("instance (%d; unsolved at %.3g s)", len(pts), ceiling), sc)
	}
	logAxis(&p.X, lo, ceiling)
	logAxis(&p.Y, lo, ceiling)
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	return p, nil
}

// throughput plots matching runs' edges per second against edges, using
// the solver's own time where it reports one (arbor's excludes reading
// the file and the --verify check). ok is false without matching runs.
func throughput(rs []Result, order []string) (*plot.Plot, bool, error) {
	p := plot.New()
	p.Title.Text = "Matching throughput"
	p.X.Label.Text = "edges"
	p.Y.Label.Text = "edges per second"
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	plotted := false
	for i, s := range order {
		var pts plotter.XYs
		for _, r := range rs {
			if r.Series() != s || r.Kind != KindMatch || !r.Solved() || r.Edges <= 0 {
				continue
			}
			t := r.SolverSeconds
			if t <= 0 {
				t = r.Seconds
			}
			rate := float64(r.Edges) / math.Max(t, 1e-9)
			pts = append(pts, plotter.XY{X: float64(r.Edges), Y: rate})
		}
		if len(pts) == 0 {
			continue
		}
		sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
		for _, q := range pts {
			xlo, xhi = math.Min(xlo, q.X), math.Max(xhi, q.X)
			ylo, yhi = math.Min(ylo, q.Y), math.Max(yhi, q.Y)
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, false, fmt.Errorf("plotting %s: %w", s, err)
		}
		l.Color, sc.Color = plotutil.Color(i), plotutil.Color(i)
		sc.Shape = plotutil.Shape(i)
		p.Add(l, sc)
		p.Legend.Add(s, l, sc)
		plotted = true
	}
	if !plotted {
		return nil, false, nil
	}
	logAxis(&p.X, xlo, xhi)
	logAxis(&p.Y, ylo, yhi)
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	return p, true, nil
}
