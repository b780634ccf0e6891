package core

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
)

// WriteRandomMTX writes a random Matrix Market coordinate file with n rows
// and about m entries (exactly m when the lower triangle has room), for
// benchmarks of the readers at sizes where building the graph first (RMAT
// plus WriteGraph) would cost gigabytes: it streams the file and holds no
// graph. field is "pattern", "integer" or "real"; symmetric selects a
// symmetric file (entries in the strict lower triangle), otherwise a
// general one (each entry given with a random orientation).
//
// Row r gets entries in distinct random columns below it, so no entry
// repeats and the file reads back without error; rows come in order, the
// columns of a row in random order, as many real-world files do. The
// output depends only on the arguments, whatever GOMAXPROCS is: rows are
// written in fixed blocks, each with its own PCG stream, formatted by all
// CPUs and written in order.
func WriteRandomMTX(w io.Writer, n int, m int64, field string, symmetric bool, seed uint64) error {
	switch field {
	case "pattern", "integer", "real":
	default:
		return fmt.Errorf("WriteRandomMTX: field %q; expected pattern, integer or real", field)
	}
	if n < 1 || n > 1<<31-1 || m < 0 {
		return fmt.Errorf("WriteRandomMTX: n=%d m=%d out of range", n, m)
	}
	m = min(m, int64(n)*int64(n-1)/2)
	sym := "symmetric"
	if !symmetric {
		sym = "general"
	}
	header := fmt.Sprintf("%%%%MatrixMarket matrix coordinate %s %s\n%d %d %d\n", field, sym, n, n, m)
	return writeRandomRows(w, header, n, m, seed, func(buf []byte, rng *rand.Rand, r, c int) []byte {
		if !symmetric && rng.IntN(2) == 0 {
			r, c = c, r
		}
		buf = strconv.AppendInt(buf, int64(r+1), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(c+1), 10)
		switch field {
		case "integer":
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, rng.Int64N(2000)-1000, 10)
		case "real":
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, rng.Float64(), 'g', -1, 64)
		}
		return append(buf, '\n')
	})
}

// WriteRandomEdgeList writes a random 0-based edge list ("N M" header, then
// "U V" lines) on n vertices with about m edges, as WriteRandomMTX does.
func WriteRandomEdgeList(w io.Writer, n int, m int64, seed uint64) error {
	if n < 1 || n > 1<<31-1 || m < 0 {
		return fmt.Errorf("WriteRandomEdgeList: n=%d m=%d out of range", n, m)
	}
	m = min(m, int64(n)*int64(n-1)/2)
	return writeRandomRows(w, fmt.Sprintf("%d %d\n", n, m), n, m, seed, func(buf []byte, rng *rand.Rand, r, c int) []byte {
		if rng.IntN(2) == 0 {
			r, c = c, r
		}
		buf = strconv.AppendInt(buf, int64(r), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(c), 10)
		return append(buf, '\n')
	})
}

// writeRandomRows writes header, then m distinct pairs (r, c), c < r, as
// lines formatted by line.
func writeRandomRows(w io.Writer, header string, n int, m int64, seed uint64, line func(buf []byte, rng *rand.Rand, r, c int) []byte) error {
	// Row r (0-based) has r columns below it; give it a share of m in
	// proportion, so late rows, with more room, get more entries. The
	// cumulative share of rows < r is ⌊m·r(r-1)/(n(n-1))⌋, in 128-bit
	// integers: monotone, and row r's share never exceeds its r columns.
	total := uint64(n) * uint64(n-1)
	upto := func(r int) int64 {
		if r >= n || total == 0 {
			return m
		}
		hi, lo := bits.Mul64(uint64(m), uint64(r)*uint64(max(r-1, 0)))
		q, _ := bits.Div64(hi, lo, total)
		return int64(q)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString(header)

	const block = 1 << 12 // rows per block
	blocks := (n + block - 1) / block
	gen := func(b int, buf []byte) []byte {
		rng := rand.New(rand.NewPCG(seed, uint64(b)*0x9e3779b97f4a7c15+1))
		seen := map[int]struct{}{}
		for r := b * block; r < min((b+1)*block, n); r++ {
			k := int(upto(r+1) - upto(r))
			clear(seen)
			for range k {
				c := rng.IntN(r) // distinct columns below r: k ≤ r by construction
				for {
					if _, dup := seen[c]; !dup {
						break
					}
					c = rng.IntN(r)
				}
				seen[c] = struct{}{}
				buf = line(buf, rng, r, c)
			}
		}
		return buf
	}
	// A window of blocks is formatted in parallel, then written in order.
	workers := runtime.GOMAXPROCS(0)
	bufs := make([][]byte, 2*workers)
	for lo := 0; lo < blocks; lo += len(bufs) {
		hi := min(lo+len(bufs), blocks)
		var wg sync.WaitGroup
		sem := make(chan struct{}, workers)
		for b := lo; b < hi; b++ {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				bufs[b-lo] = gen(b, bufs[b-lo][:0])
				<-sem
			}()
		}
		wg.Wait()
		for _, buf := range bufs[:hi-lo] {
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
