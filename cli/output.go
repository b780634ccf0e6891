package cli

// The contract every solver command keeps at its output boundary (issue
// #32, docs/cli.md): one result status, a last-line guard against a proof
// that contradicts what the program knows, --require-optimal, one vertex
// numbering rule, "-" for standard input and -o written atomically.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/arbor-gpu/arbor/core"
	"github.com/arbor-gpu/arbor/internal/atomicfile"
)

// ExitUnsettled is the exit status of --require-optimal when the question
// asked was not settled.
const ExitUnsettled = 3

// UnsettledError makes run exit with exitUnsettled after the answer was
// printed.
type UnsettledError struct{ msg string }

func (u UnsettledError) Error() string { return u.msg }

// SolverFlags are the output flags every solver takes.
type SolverFlags struct {
	JSON, Verify, RequireOptimal, ZeroBased, Verbose bool
	Out                                              string
}

// Register adds the flags; outUsage describes -o for this command.
func (s *SolverFlags) Register(fs *flag.FlagSet, what, outUsage string) {
	fs.BoolVar(&s.JSON, "json", false, "print the result as JSON (fields: docs/cli.md, docs/schema/)")
	fs.BoolVar(&s.Verify, "verify", false, "check the "+what+" independently against the input and say so (the check also runs, silently, on every result)")
	fs.BoolVar(&s.RequireOptimal, "require-optimal", false, "exit 3 when the question asked was not settled (not proven optimal; with a goal: neither a solution reaching it nor a proof that none exists)")
	fs.BoolVar(&s.ZeroBased, "zero-based", false, "print vertices numbered from 0 whatever the file's numbering (default: the file's own numbering)")
	fs.BoolVar(&s.Verbose, "v", false, "say on stderr which device runs and why")
	fs.StringVar(&s.Out, "o", "", outUsage)
}

// Base is what to add to a 0-based vertex id of g when printing it.
func (s *SolverFlags) Base(g *core.Graph) int {
	if s.ZeroBased {
		return 0
	}
	return g.Base
}

// Verified is a result's status text as printed: with --verify, ", verified"
// after it.
func (s *SolverFlags) Verified(status string) string {
	if s.Verify {
		return status + ", verified"
	}
	return status
}

// Verdict is what a result answers, the same fields in every command.
type Verdict struct {
	Status  core.Status `json:"status"`
	Proven  bool        `json:"proven"`
	Goal    *int        `json:"goal,omitempty"`     // the K of --goal or -k; absent without one
	GoalMet *bool       `json:"goal_met,omitempty"` // with a goal: a solution reaching it was found
}

// SearchReport is how a search ran, the same fields in the JSON of every
// search command (embedded after its own counts, so they keep their place
// in the object): its nodes, wall time and threads, the engine and why it
// was chosen, and the device it ran on with the device search's epochs.
type SearchReport struct {
	Nodes   int64   `json:"nodes"`
	Seconds float64 `json:"seconds"`
	Threads int     `json:"threads"`
	Engine  string  `json:"engine"`
	Why     string  `json:"why"`
	Backend string  `json:"backend,omitempty"`
	Device  string  `json:"device,omitempty"`
	Epochs  int     `json:"epochs,omitempty"`
}

// NewVerdict makes the verdict of a result of status s; hasGoal says
// whether goal was asked for (vc -k 0 is a goal of 0), met whether the
// solution reaches it.
func NewVerdict(s core.Status, hasGoal bool, goal int, met bool) Verdict {
	v := Verdict{Status: s, Proven: s.Proven()}
	if hasGoal {
		v.Goal, v.GoalMet = &goal, &met
	}
	return v
}

// Settled reports whether the question asked was answered: optimisation,
// a proven optimum; a goal, a solution reaching it or a proof that none
// exists.
func (v Verdict) Settled() bool {
	if v.GoalMet != nil {
		return *v.GoalMet || v.Status == core.StatusInfeasible
	}
	return v.Status == core.StatusOptimal
}

// Require is --require-optimal's check, made after the answer is printed.
func (v Verdict) Require(on bool) error {
	if !on || v.Settled() {
		return nil
	}
	if v.GoalMet != nil {
		return UnsettledError{fmt.Sprintf("--require-optimal: the search stopped before settling the goal %d (status %s)", *v.Goal, v.Status)}
	}
	return UnsettledError{fmt.Sprintf("--require-optimal: the answer is not proven optimal (status %s)", v.Status)}
}

// Size is a result's size as printed: absent (nil) where the status
// proves that no solution reaches the goal and none was found (no
// sentinel 0; vc -k without a cover has no size either). A smaller
// solution a device search held is still shown.
func (v Verdict) Size(n int) *int {
	if v.Status == core.StatusInfeasible && n == 0 {
		return nil
	}
	return &n
}

// SizeText is a size in text output: "none" where it is absent.
func SizeText(n *int) string {
	if n == nil {
		return "none"
	}
	return strconv.Itoa(*n)
}

// StatusText says a verdict in words for text output; best is "maximum"
// or "minimum", what describes a solution reaching the goal ("common
// subgraph of ≥ 18 vertices").
func StatusText(v Verdict, best, what string) string {
	switch {
	case v.Status == core.StatusInfeasible:
		return fmt.Sprintf("no %s (proven)", what)
	case v.Status == core.StatusOptimal:
		return "proven " + best
	case v.GoalMet != nil && *v.GoalMet:
		return fmt.Sprintf("a %s, not proven %s", what, best)
	case v.GoalMet != nil:
		return fmt.Sprintf("unproven (stopped early; no %s found yet)", what)
	}
	return "unproven (stopped early)"
}

// Internalf is the guard's error: a result that contradicts what the
// program knows is never printed as an answer.
func Internalf(format string, a ...any) error {
	return fmt.Errorf("internal error, no answer printed: "+format, a...)
}

// GuardMax checks a maximisation result's status against its size, its
// goal (0: none) and a lower bound known without search.
func GuardMax(s core.Status, proven bool, size, goal, lower int, what string) error {
	switch {
	case s != core.MaxStatus(proven, size, goal):
		return Internalf("status %s for a %s of %d (proven %v, goal %d)", s, what, size, proven, goal)
	case s == core.StatusOptimal && size < lower:
		return Internalf("proven maximum %s of %d, but one of %d is known", what, size, lower)
	case s == core.StatusInfeasible && goal <= lower:
		return Internalf("proven that no %s reaches %d, but one of %d is known", what, goal, lower)
	}
	return nil
}

// StdinName is the name "-" reads under, in messages.
const StdinName = "<stdin>"

// WriteAtomic writes a file through write: into a temporary file in the
// same folder, renamed over path once complete, so that a reader never
// sees half a result and a failed run leaves an earlier file as it was.
// Where path exists and is not a regular file (/dev/null, a pipe) it is
// written directly: renaming over it would replace the device.
func WriteAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.Write(path, write)
}

// Plural is "1 run", "2 runs", "0 passes", "3 vertices": a count with
// its noun in the number it takes.
func Plural(n int, word string) string {
	if n == 1 || n == -1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	switch {
	case word == "vertex":
		word = "vertices"
	case strings.HasSuffix(word, "s"), strings.HasSuffix(word, "x"), strings.HasSuffix(word, "sh"), strings.HasSuffix(word, "ch"):
		word += "es"
	default:
		word += "s"
	}
	return fmt.Sprintf("%d %s", n, word)
}

// Shifted returns ids with base added, for printing.
func Shifted(ids []int, base int) []int {
	out := make([]int, len(ids))
	for i, v := range ids {
		out[i] = v + base
	}
	return out
}

// ShiftedPairs returns a mapping with each side's base added.
func ShiftedPairs(m [][2]int, b0, b1 int) [][2]int {
	out := make([][2]int, len(m))
	for i, p := range m {
		out[i] = [2]int{p[0] + b0, p[1] + b1}
	}
	return out
}

// IsUnsettled reports whether err is --require-optimal's.
func IsUnsettled(err error) bool {
	var u UnsettledError
	return errors.As(err, &u)
}

// DeviceSuffix is " on DEVICE" for a result a device found ("" for the
// CPU engine).
func DeviceSuffix(d string) string {
	if d == "" {
		return ""
	}
	return " on " + d
}

// CheckOutNotInput refuses an -o that names one of the command's inputs
// (a graph file, a --batch or --against list): writing the result would
// destroy what was read, and a resumed batch would read its own rows as
// the list. Paths are compared cleaned and absolute, and through
// os.SameFile for links and other names of one file. "-" (standard input)
// is no file; an -o that exists and is not a regular file (/dev/null, a
// pipe) is written in place, never replaced, so it may also be read.
func CheckOutNotInput(out string, inputs ...string) error {
	if out == "" || out == "-" {
		return nil
	}
	outSt, statErr := os.Stat(out)
	if statErr == nil && !outSt.Mode().IsRegular() {
		return nil
	}
	outAbs, err := filepath.Abs(out)
	if err != nil {
		return nil
	}
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		same := false
		if inAbs, err := filepath.Abs(in); err == nil && inAbs == outAbs {
			same = true
		} else if statErr == nil {
			if inSt, err := os.Stat(in); err == nil && os.SameFile(outSt, inSt) {
				same = true
			}
		}
		if same {
			return Usagef("-o %s names an input (%s): it would overwrite what is read; write the result elsewhere", out, in)
		}
	}
	return nil
}
