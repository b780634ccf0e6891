package core

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// checkReal compares parseReal with strconv.ParseFloat to the bit, and
// returns whether the fast path decided.
func checkReal(t *testing.T, s string) bool {
	t.Helper()
	want, werr := strconv.ParseFloat(s, 64)
	got, gerr := parseReal([]byte(s))
	if (werr == nil) != (gerr == nil) || (werr == nil && math.Float64bits(got) != math.Float64bits(want)) {
		t.Fatalf("%q: parseReal %v (%v), strconv %v (%v)", s, got, gerr, want, werr)
	}
	f, ok := fastReal([]byte(s))
	if ok && (werr != nil || math.Float64bits(f) != math.Float64bits(want)) {
		t.Fatalf("%q: fast path %v, strconv %v (%v)", s, f, want, werr)
	}
	return ok
}

// TestParseReal: the fast path equals strconv to the last bit on shortest
// and fixed-precision renderings of random floats, random digit strings
// with random exponents, and the hard cases (halfway points, the range's
// ends, subnormals, long mantissas); and it decides most plain decimals.
func TestParseReal(t *testing.T) {
	for _, s := range []string{"0", "-0", "+0.0", "1", "-1", "0.5", "1e308", "1.7976931348623157e308", "1.8e308", "1e-308",
		"2.2250738585072014e-308", "2.2250738585072011e-308", "4.9e-324", "5e-324", "2e-324", "1e-400", "1e400",
		"9007199254740992", "9007199254740993", "9007199254740994", "9007199254740995", "18014398509481985",
		"123456789012345678", "1234567890123456789", "12345678901234567890", "0.1", "0.3", "1.5e-7", ".5", "5.", "1e",
		"e5", "-", "", "1.2.3", "0x1p-2", "inf", "NaN", "1_000", "00012.5000", "7e22", "7e23", "9.999999999999999e22",
		"0.000000000000000000000000001", "1E+10", "1e-0", "+.5e+1"} {
		checkReal(t, s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	decided, total := 0, 0
	for range 200000 {
		var s string
		kind := r.IntN(5)
		switch kind {
		case 0: // shortest rendering of a random float64 bit pattern
			f := math.Float64frombits(r.Uint64())
			if math.IsNaN(f) || math.IsInf(f, 0) {
				continue
			}
			s = strconv.FormatFloat(f, 'g', -1, 64)
		case 1: // a uniform [0,1) value, as generated weights are written
			s = strconv.FormatFloat(r.Float64(), 'g', -1, 64)
			total++
		case 2:
			s = strconv.FormatFloat(r.NormFloat64()*math.Pow(10, float64(r.IntN(40)-20)), 'e', r.IntN(18), 64)
		case 3: // random digits and exponent
			d := make([]byte, 1+r.IntN(19))
			for i := range d {
				d[i] = byte('0' + r.IntN(10))
			}
			s = string(d) + "e" + strconv.Itoa(r.IntN(700)-350)
		case 4: // halfway points between neighbouring floats, in decimal
			f := math.Float64frombits(r.Uint64() >> 2)
			next := math.Nextafter(f, math.Inf(1))
			s = strconv.FormatFloat((f+next)/2, 'g', -1, 64)
		}
		if checkReal(t, s) && kind == 1 {
			decided++
		}
	}
	if decided < total*9/10 {
		t.Errorf("the fast path decided %d of %d uniform [0,1) values", decided, total)
	}
}

// FuzzParseReal: any input, the same answer as strconv.
func FuzzParseReal(f *testing.F) {
	for _, s := range []string{"0.5", "1e308", "9007199254740993", "-2.5e-7", "4.9e-324", "12345678901234567890"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkReal(t, s) })
}
