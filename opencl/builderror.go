package opencl

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// BuildError is a program that failed to compile: the compiler's whole log
// and, for each source line the log points at, the lines around it.
type BuildError struct {
	Program string // Source.Name
	Device  string
	Code    int32 // CL_BUILD_PROGRAM_FAILURE, CL_INVALID_BUILD_OPTIONS, ...
	Options string
	Log     string
	Source  string
}

// Unwrap exposes the failed call, so Code and errors.As see it.
func (e *BuildError) Unwrap() error { return &Error{Code: e.Code, Call: "clBuildProgram"} }

// Error is the first error line of the log on one line, then the log and
// the numbered source:
//
//	opencl: build "scan" on <device>: CL_BUILD_PROGRAM_FAILURE: scan.cl:42: error: …
//	build log:
//	  …
//	source:
//	scan.cl:42:
//	     39 | …
//	  >  42 | …
func (e *BuildError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "opencl: build %q on %s: %s", e.Program, e.Device, CodeName(e.Code))
	if first := firstError(e.Source, e.Log); first != "" {
		sb.WriteString(": " + first)
	}
	if e.Options != "" {
		fmt.Fprintf(&sb, "\noptions: %s", e.Options)
	}
	log := strings.TrimRight(e.Log, "\n\t ")
	if log == "" {
		log = "(empty)"
	}
	sb.WriteString("\nbuild log:\n")
	for _, l := range strings.Split(log, "\n") {
		sb.WriteString("  " + l + "\n")
	}
	if ex := excerpts(e.Source, e.Log); ex != "" {
		sb.WriteString("source:\n")
		sb.WriteString(ex)
	}
	return strings.TrimRight(sb.String(), "\n")
}

// logRef matches a compiler diagnostic's location, in the forms clang-based
// compilers print it: "scan.cl:42:7: error: msg", "<kernel>:12:3: warning:
// msg" (NVIDIA), and "error: scan.cl:42:7: msg" (PoCL).
var logRef = regexp.MustCompile(`(?m)^[ \t]*(?:(fatal error|error|warning|note|remark):[ \t]*)?` +
	`([^\s:][^:\n]*?):(\d+):(?:\d+:)?[ \t]*(?:(fatal error|error|warning|note|remark):)?[ \t]*(.*)$`)

// diag is one located diagnostic of a build log.
type diag struct {
	file, line, severity, msg string
}

// diagnostics lists the log's located diagnostics in order.
func diagnostics(log string) []diag {
	var out []diag
	for _, m := range logRef.FindAllStringSubmatch(log, -1) {
		sev := m[1]
		if sev == "" {
			sev = m[4]
		}
		if sev == "" {
			continue // "In file included from x.cl:3:" and the like
		}
		out = append(out, diag{file: m[2], line: m[3], severity: sev, msg: strings.TrimSpace(m[5])})
	}
	return out
}

// firstError returns the first "file:line: error: message" of a log, its
// location resolved against src's #line directives, else the log's first
// non-empty line.
func firstError(src, log string) string {
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	r := newResolver(lines)
	for _, d := range diagnostics(log) {
		if strings.HasSuffix(d.severity, "error") {
			label, _ := r.resolve(d)
			return fmt.Sprintf("%s: %s: %s", label, d.severity, d.msg)
		}
	}
	for _, l := range strings.Split(log, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// lineDirective matches `#line 12 "scan.cl"` (and `# 12 "x"`).
var lineDirective = regexp.MustCompile(`^\s*#\s*(?:line\s+)?(\d+)(?:\s+"([^"]*)")?\s*$`)

// place is a physical source line's logical position: the file a #line
// directive named ("" before any) and its line number there.
type place struct {
	file string
	line int
}

// places gives every physical line of src its logical place, following
// #line directives.
func places(lines []string) []place {
	out := make([]place, len(lines))
	cur := place{line: 1}
	for i, l := range lines {
		out[i] = cur
		cur.line++
		if m := lineDirective.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			cur.line = n
			if m[2] != "" {
				cur.file = m[2]
			}
		}
	}
	return out
}

// resolver maps a diagnostic's reported location to a logical place.
type resolver struct {
	where []place
	named map[string]bool
}

func newResolver(lines []string) resolver {
	r := resolver{where: places(lines), named: map[string]bool{}}
	for _, p := range r.where {
		if p.file != "" {
			r.named[p.file] = true
		}
	}
	return r
}

// resolve returns the label to show for d and the place it refers to.
// Compilers differ: PoCL honours #line and names the file; NVIDIA's OpenCL
// compiler ignores #line and reports "<kernel>:N" with N the physical line
// of the whole program (prelude included). An unnamed location in a source
// that has #line directives is therefore a physical line, mapped back here.
func (r resolver) resolve(d diag) (string, place) {
	n, _ := strconv.Atoi(d.line)
	if r.named[d.file] {
		return d.file + ":" + d.line, place{file: d.file, line: n}
	}
	if len(r.named) > 0 && n >= 1 && n <= len(r.where) {
		at := r.where[n-1]
		if at.file != "" {
			return fmt.Sprintf("%s:%d", at.file, at.line), at
		}
		return d.file + ":" + d.line, at
	}
	// No #line directives: the text before any is file "", numbered as is.
	return d.file + ":" + d.line, place{line: n}
}

// maxExcerpts bounds how many locations an error shows.
const maxExcerpts = 8

// excerpts returns, for each distinct location in the log (errors first),
// the source lines within ±3 of it, numbered as the compiler numbers them,
// the reported line marked with ">".
func excerpts(src, log string) string {
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	r := newResolver(lines)
	where := r.where
	type ref struct {
		label string
		at    place
		err   bool
	}
	var refs []ref
	seen := map[place]bool{}
	for _, d := range diagnostics(log) {
		label, at := r.resolve(d)
		if seen[at] {
			continue
		}
		seen[at] = true
		refs = append(refs, ref{label: label, at: at, err: strings.HasSuffix(d.severity, "error")})
	}
	// Errors first, otherwise in the log's order.
	var ordered []ref
	for _, want := range []bool{true, false} {
		for _, r := range refs {
			if r.err == want {
				ordered = append(ordered, r)
			}
		}
	}
	var sb strings.Builder
	shown := 0
	for _, r := range ordered {
		if shown == maxExcerpts {
			fmt.Fprintf(&sb, "(%d more locations in the log)\n", len(ordered)-shown)
			break
		}
		idx := -1
		for i, p := range where {
			if p == r.at {
				idx = i
				break
			}
		}
		if idx < 0 {
			continue
		}
		shown++
		fmt.Fprintf(&sb, "%s:\n", r.label)
		for i := max(0, idx-3); i <= min(len(lines)-1, idx+3); i++ {
			if where[i].file != r.at.file || (i != idx && lineDirective.MatchString(lines[i])) {
				continue
			}
			mark := "  "
			if i == idx {
				mark = "> "
			}
			fmt.Fprintf(&sb, "  %s%5d | %s\n", mark, where[i].line, strings.TrimRight(lines[i], "\r"))
		}
	}
	return sb.String()
}
