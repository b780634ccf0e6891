package bench

import (
	"fmt"
	"io"
	"math"
	"sort"
)

// Summary is the report over a results set.
type Summary struct {
	Series   []Stats   `json:"series"`
	Speedups []Speedup `json:"speedups"`
}

// Stats summarises one configuration's runs; times are over its solved
// runs, in wall-clock seconds.
type Stats struct {
	Series  string  `json:"series"`
	Runs    int     `json:"runs"`
	Solved  int     `json:"solved"`
	Wrong   int     `json:"wrong"`
	Timeout int     `json:"timeout"`
	Failed  int     `json:"failed"` // memout, crash, error
	Mean    float64 `json:"mean_seconds"`
	Median  float64 `json:"median_seconds"`
	GeoMean float64 `json:"geomean_seconds"`
}

// Speedup compares two configurations on the instances both solved.
type Speedup struct {
	A, B    string
	Common  int     // instances both solved
	AFaster int     // of those, where A took less time
	GeoMean float64 // geometric mean of B's time over A's: > 1 when A is faster
}

// seriesOrder lists the series in order of first appearance.
func seriesOrder(rs []Result) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rs {
		if s := r.Series(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Summarise computes the per-configuration statistics and the pairwise
// speedups.
func Summarise(rs []Result) Summary {
	var sum Summary
	order := seriesOrder(rs)
	// times[series][instance] for solved runs
	times := map[string]map[string]float64{}
	for _, s := range order {
		times[s] = map[string]float64{}
	}
	for _, s := range order {
		st := Stats{Series: s}
		var ts []float64
		for _, r := range rs {
			if r.Series() != s {
				continue
			}
			st.Runs++
			switch {
			case r.Status == StatusWrong:
				st.Wrong++
			case r.Solved():
				st.Solved++
				ts = append(ts, r.Seconds)
				times[s][r.Instance] = r.Seconds
			case r.Status == StatusTimeout || r.Status == StatusOK:
				st.Timeout++
			default:
				st.Failed++
			}
		}
		st.Mean, st.Median, st.GeoMean = mean(ts), median(ts), geoMean(ts)
		sum.Series = append(sum.Series, st)
	}
	kindOf := map[string]Kind{}
	for _, r := range rs {
		kindOf[r.Series()] = r.Kind
	}
	for i, a := range order {
		for _, b := range order[i+1:] {
			if kindOf[a] != kindOf[b] {
				continue // no instance in common
			}
			sp := Speedup{A: a, B: b}
			var ratios []float64
			for in, ta := range times[a] {
				tb, ok := times[b][in]
				if !ok {
					continue
				}
				sp.Common++
				if ta < tb {
					sp.AFaster++
				}
				ratios = append(ratios, floor(tb)/floor(ta))
			}
			sp.GeoMean = geoMean(ratios)
			sum.Speedups = append(sum.Speedups, sp)
		}
	}
	return sum
}

// floor keeps ratios of times finite: a clock reads 0 on the fastest runs.
func floor(t float64) float64 { return math.Max(t, 1e-6) }

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func geoMean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += math.Log(floor(x))
	}
	return math.Exp(s / float64(len(xs)))
}

func fmtSec(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.3g", x)
}

// WriteMarkdown prints the summary as Markdown tables.
func WriteMarkdown(w io.Writer, sum Summary) error {
	ew := &errWriter{w: w}
	ew.printf("| engine | runs | solved | wrong | timeout | failed | mean s | median s | geo-mean s |\n")
	ew.printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, s := range sum.Series {
		ew.printf("| %s | %d | %d | %d | %d | %d | %s | %s | %s |\n", s.Series, s.Runs, s.Solved, s.Wrong, s.Timeout, s.Failed,
			fmtSec(s.Mean), fmtSec(s.Median), fmtSec(s.GeoMean))
	}
	if len(sum.Speedups) > 0 {
		ew.printf("\n| A | B | both solved | A faster on | geo-mean speedup of A over B |\n")
		ew.printf("|---|---|--:|--:|--:|\n")
		for _, sp := range sum.Speedups {
			g := "-"
			if sp.Common > 0 {
				g = fmt.Sprintf("%.2f×", sp.GeoMean)
			}
			ew.printf("| %s | %s | %d | %d | %s |\n", sp.A, sp.B, sp.Common, sp.AFaster, g)
		}
	}
	return ew.err
}

// errWriter keeps the first write error so a table is printed without a
// check on every line.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
