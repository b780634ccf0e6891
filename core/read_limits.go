package core

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// The readers' limits guard against inputs that ask for far more memory
// than they occupy, or that never end: a compressed file that expands a
// thousandfold, /dev/zero, or a header line announcing a billion vertices.
// The input limit is a fixed size (DefaultMaxInput), the header's follows
// the memory the machine has; both can be raised.
const (
	// EnvMaxInput sets ReadOptions.MaxInput's default: the most bytes any
	// input may hold (a file, a stream, or what gzip decompresses to;
	// "16G", "500MiB", bytes).
	EnvMaxInput = "ARBOR_MAX_INPUT"
	// EnvMaxMemory sets ReadOptions.MaxMemory's default: the memory the
	// per-vertex structures of the vertex count a header announces may
	// take.
	EnvMaxMemory = "ARBOR_MAX_MEMORY"
)

// BytesPerVertex is what a reader allocates for each vertex a header
// announces before it has read a single edge: Offsets (8 bytes), the
// parallel reader's per-vertex offsets (8), and vertex labels or the
// LAD/MIVIA readers' seen list (4 each).
const BytesPerVertex = 24

// DefaultMaxInput is the input limit unless set (ReadOptions.MaxInput,
// $ARBOR_MAX_INPUT): the largest file, stream or decompressed size read.
// It is a fixed size, not a share of the memory: on a large machine half
// the memory let an endless input (/dev/zero, a pipe that never ends) or a
// gzip bomb fill tens of gigabytes, for minutes, before it was refused. A
// gigabyte holds some 50 million edges as text; larger graphs are read
// with the limit raised.
const DefaultMaxInput = 1 << 30

// defaultMaxInput is DefaultMaxInput, or half the available memory where
// that is less (never under minBudget), and where it came from.
func defaultMaxInput() (int64, string) {
	const raise = "; raise it with --max-input SIZE or " + EnvMaxInput
	if avail, ok := availableMemory(); ok {
		if half := max(int64(avail/2), minBudget); half < DefaultMaxInput {
			return half, fmt.Sprintf("%s, half the available memory", humanSize(half)) + raise
		}
	}
	return DefaultMaxInput, humanSize(DefaultMaxInput) + ", the default" + raise
}

// fallbackMemory is the budget where the available memory cannot be read.
const fallbackMemory = 8 << 30

// minBudget keeps a small machine (or a busy one) able to read what any
// machine reads.
const minBudget = 256 << 20

// readLimits are the limits one read runs with, and for each where it
// came from, for the error that refuses an input.
type readLimits struct {
	maxInput    int64
	inputFrom   string
	maxVertices int
	vertexFrom  string
	// memory is the memory budget (without MaxVertices), and where it
	// came from, for CheckMemory.
	memory     int64
	memoryFrom string
}

// limits resolves opts' limits: an option set by the caller, else its
// environment variable, else the default: for the input DefaultMaxInput,
// for a header's vertices half the available memory (the input, and the
// graph built from it, must both fit).
func (opts ReadOptions) limits() (readLimits, error) {
	var l readLimits
	half := func() (int64, string) {
		avail, ok := availableMemory()
		if !ok {
			return fallbackMemory, fmt.Sprintf("the default %s: the available memory is unknown", humanSize(fallbackMemory))
		}
		b := max(int64(avail/2), minBudget)
		return b, fmt.Sprintf("%s, half the available memory", humanSize(b))
	}
	budget := func(opt int64, env, flag string) (int64, string, error) {
		if opt > 0 {
			return opt, fmt.Sprintf("%s, as set (%s SIZE)", humanSize(opt), flag), nil
		}
		if s := os.Getenv(env); s != "" {
			v, err := ParseSize(s)
			if err != nil {
				return 0, "", fmt.Errorf("%s=%s: %w", env, s, err)
			}
			return v, fmt.Sprintf("%s, from %s", humanSize(v), env), nil
		}
		b, why := half()
		return b, why + fmt.Sprintf("; raise it with %s SIZE or %s", flag, env), nil
	}
	var err error
	if opts.MaxInput > 0 || os.Getenv(EnvMaxInput) != "" {
		if l.maxInput, l.inputFrom, err = budget(opts.MaxInput, EnvMaxInput, "--max-input"); err != nil {
			return l, err
		}
	} else {
		l.maxInput, l.inputFrom = defaultMaxInput()
	}
	if opts.MaxVertices > 0 {
		l.maxVertices, l.vertexFrom = opts.MaxVertices, "ReadOptions.MaxVertices"
	} else {
		mem, from, err := budget(opts.MaxMemory, EnvMaxMemory, "--max-memory")
		if err != nil {
			return l, err
		}
		l.memory, l.memoryFrom = mem, from
		l.maxVertices = int(min(mem/BytesPerVertex, math.MaxInt32))
		l.vertexFrom = fmt.Sprintf("%d bytes a vertex in %s", BytesPerVertex, from)
	}
	// Adj holds int32 vertex ids, whatever the memory.
	if l.maxVertices > math.MaxInt32 {
		l.maxVertices = math.MaxInt32
	}
	return l, nil
}

// CheckMemory refuses to build a structure of need bytes that the graph's
// size does not bound (a complement, an adjacency or bit matrix: n² from a
// header's n) when it passes opts' memory limit (MaxMemory, else
// $ARBOR_MAX_MEMORY, else half the available memory): a 30-byte file
// announcing 100 000 vertices must not make 40 GB. what names the
// structure and its graph, for the error, a *MemoryError. need is a
// float64 so that n² estimates cannot overflow.
func (opts ReadOptions) CheckMemory(what string, need float64) error {
	if need <= minBudget && opts.MaxMemory <= 0 && os.Getenv(EnvMaxMemory) == "" {
		// The default budget is never below minBudget: no need to read
		// the available memory (the algorithms check every call).
		return nil
	}
	opts.MaxVertices = 0 // the memory budget, not a vertex cap
	lim, err := opts.limits()
	if err != nil {
		return err
	}
	if need > float64(lim.memory) {
		return &MemoryError{What: what, Need: need, Limit: lim.memory, From: lim.memoryFrom}
	}
	return nil
}

// MemoryError is a structure refused by the memory limit (CheckMemory):
// the algorithms return it, wrapped, before they allocate, and the
// commands print it.
type MemoryError struct {
	// What names the structure and its graph.
	What string
	// Need is the bytes it would take, Limit the memory limit and From
	// where the limit came from (the option, the environment, the
	// available memory) with how to raise it.
	Need  float64
	Limit int64
	From  string
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("%s would take %s, more than the memory limit, %s", e.What, humanSize(int64(min(e.Need, math.MaxInt64/2))), e.From)
}

// availableMemory is the memory this process can still use: Linux's
// MemAvailable, or less where a cgroup (a container, a batch job) sets a
// lower limit.
func availableMemory() (uint64, bool) {
	avail, ok := memInfoAvailable()
	if limit, ok2 := cgroupRoom(); ok2 && (!ok || limit < avail) {
		return limit, true
	}
	return avail, ok
}

func memInfoAvailable() (uint64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// cgroupRoom is a cgroup v2 memory limit less what the cgroup uses.
func cgroupRoom() (uint64, bool) {
	read := func(name string) (uint64, bool) {
		b, err := os.ReadFile("/sys/fs/cgroup/" + name)
		if err != nil {
			return 0, false
		}
		v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		return v, err == nil // "max" (no limit) does not parse
	}
	limit, ok := read("memory.max")
	if !ok {
		return 0, false
	}
	used, _ := read("memory.current")
	if used > limit {
		return 0, true
	}
	return limit - used, true
}

// ParseSize reads a size in bytes: a number with an optional unit, K, M, G,
// T (powers of 1024; KiB, KB and the like mean the same), as
// "16G", "512MiB", "1.5g" or "1000000".
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := 1.0
	if n := len(t); n > 0 {
		if i := strings.IndexByte("KMGTP", t[n-1]); i >= 0 {
			mult = math.Pow(1024, float64(i+1))
			t = strings.TrimSpace(t[:n-1])
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || v <= 0 || v*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is not a size: give a positive number of bytes, or with a unit (512M, 16G)", s)
	}
	return int64(v * mult), nil
}

// humanSize prints a byte count in binary units.
func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
