package core

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"sync"
)

// parseReal parses a Matrix Market real value: what strconv.ParseFloat
// accepts, with the same result to the last bit. Plain decimals
// ([+-]digits[.digits][(e|E)[+-]digits], at most 19 significant digits)
// take a fast path — a scan of the digits and the Eisel–Lemire conversion
// (D. Lemire, "Number parsing at a gigabyte per second", 2021) — because
// strconv's general scanner was a fifth of the time of reading a large
// real-weighted file; anything else (more digits, hex, inf, nan,
// underscores, exponents out of range, the rare inputs the conversion
// cannot decide) goes to strconv.
func parseReal(b []byte) (float64, error) {
	if f, ok := fastReal(b); ok {
		return f, nil
	}
	return strconv.ParseFloat(string(b), 64)
}

// fastReal is parseReal's fast path; ok is false when it cannot decide.
func fastReal(b []byte) (float64, bool) {
	i, neg := 0, false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	// The integer part, then the fraction: leading zeros carry no digit,
	// and each fraction digit kept or skipped lowers the exponent.
	var man uint64
	digits, exp10 := 0, 0
	start := i
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		if !addDigit(&man, &digits, c) {
			return 0, false
		}
	}
	sawDigit := i > start
	if i < len(b) && b[i] == '.' {
		i++
		frac := i
		for ; i < len(b); i++ {
			c := b[i] - '0'
			if c > 9 {
				break
			}
			exp10--
			if !addDigit(&man, &digits, c) {
				return 0, false
			}
		}
		sawDigit = sawDigit || i > frac
	}
	if !sawDigit {
		return 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		if i == len(b) {
			return 0, false
		}
		e := 0
		for ; i < len(b); i++ {
			c := b[i]
			if c < '0' || c > '9' || e > 10000 {
				return 0, false
			}
			e = e*10 + int(c-'0')
		}
		if eneg {
			e = -e
		}
		exp10 += e
	}
	if i != len(b) {
		return 0, false
	}
	if man == 0 {
		if neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	// Exact when both the mantissa and the power of ten are exact in a
	// float64: one correctly rounded operation.
	if man < 1<<53 && exp10 >= -22 && exp10 <= 22 {
		f := float64(man)
		if exp10 < 0 {
			f /= exactPow10[-exp10]
		} else {
			f *= exactPow10[exp10]
		}
		if neg {
			f = -f
		}
		return f, true
	}
	return eiselLemire(man, exp10, neg)
}

// addDigit appends decimal digit c to the mantissa (leading zeros carry
// no digit); false when a 20th significant digit would not fit.
func addDigit(man *uint64, digits *int, c byte) bool {
	if *man == 0 && c == 0 {
		return true
	}
	if *digits == 19 {
		return false
	}
	*man = *man*10 + uint64(c)
	*digits++
	return true
}

var exactPow10 = [23]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// The powers of ten the conversion covers: 10^minPow10 … 10^maxPow10,
// beyond the float64 range at both ends.
const (
	minPow10 = -348
	maxPow10 = 347
)

// pow10Table holds, for each power of ten 10^q, its 128 most significant
// bits rounded down (hi has its top bit set): 10^q ≈ (hi·2^64 + lo)·2^e
// for some e. Computed exactly with big integers, once, on the first real
// value parsed (a few milliseconds no other command should pay at start).
var pow10Table = sync.OnceValue(func() [][2]uint64 {
	t := make([][2]uint64, maxPow10-minPow10+1)
	ten := big.NewInt(10)
	for q := minPow10; q <= maxPow10; q++ {
		var v *big.Int
		if q >= 0 {
			v = new(big.Int).Exp(ten, big.NewInt(int64(q)), nil)
		} else {
			// 2^k / 10^-q, with k large enough for 128 exact leading bits.
			d := new(big.Int).Exp(ten, big.NewInt(int64(-q)), nil)
			k := uint(d.BitLen() + 128)
			v = new(big.Int).Lsh(big.NewInt(1), k)
			v.Quo(v, d) // rounded down
		}
		if shift := v.BitLen() - 128; shift > 0 {
			v.Rsh(v, uint(shift))
		} else {
			v.Lsh(v, uint(-shift))
		}
		lo := new(big.Int).And(v, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
		hi := new(big.Int).Rsh(v, 64).Uint64()
		t[q-minPow10] = [2]uint64{hi, lo}
	}
	return t
})

// eiselLemire converts man·10^exp10 (man > 0) to the nearest float64, or
// reports that it cannot decide (ok false): then the caller asks strconv.
func eiselLemire(man uint64, exp10 int, neg bool) (float64, bool) {
	if exp10 < minPow10 || exp10 > maxPow10 {
		return 0, false
	}
	p := pow10Table()[exp10-minPow10]
	clz := bits.LeadingZeros64(man)
	man <<= uint(clz)
	// The binary exponent of the result before normalisation: floor of
	// log2(10^exp10) (217706/2^16 approximates log2 10), plus the bias and
	// the 64 bits of the product's high word, less the shift of man.
	exp2 := uint64(217706*exp10>>16+64+1023) - uint64(clz)
	hi, lo := bits.Mul64(man, p[0])
	// When the low 9 bits of hi are all ones, the truncated table value
	// may hide a carry into them: refine with the next 64 bits.
	if hi&0x1FF == 0x1FF && lo+man < man {
		yHi, yLo := bits.Mul64(man, p[1])
		mHi, mLo := hi, lo+yHi
		if mLo < lo {
			mHi++
		}
		if mHi&0x1FF == 0x1FF && mLo+1 == 0 && yLo+man < man {
			return 0, false
		}
		hi, lo = mHi, mLo
	}
	top := hi >> 63
	mant := hi >> (top + 9)
	exp2 -= 1 ^ top
	// Exactly half-way between two floats: the rounding cannot be told.
	if lo == 0 && hi&0x1FF == 0 && mant&3 == 1 {
		return 0, false
	}
	mant += mant & 1
	mant >>= 1
	if mant>>53 > 0 {
		mant >>= 1
		exp2++
	}
	// Zero, subnormal or overflowing exponents are left to strconv.
	if exp2-1 >= 0x7FF-1 {
		return 0, false
	}
	b := exp2<<52 | mant&(1<<52-1)
	if neg {
		b |= 1 << 63
	}
	return math.Float64frombits(b), true
}
