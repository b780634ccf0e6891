package device

import (
	"regexp"
	"sort"
)

var kernelDecl = regexp.MustCompile(`(?m)^\s*KERNEL\s+void\s+(?:KERNEL_BOUNDS\s*\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// KernelNames lists the entry points of source file name (without ".cl"),
// in order of appearance. Kernels inside #if blocks (argmax_atomic_i32
// needs ARBOR_ATOMICS64) are listed too.
func KernelNames(name string) ([]string, error) {
	if s, ok := lookupSource(name); ok && s.names != nil {
		return s.names(), nil
	}
	body, err := Text(name)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range kernelDecl.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out, nil
}

// SourceOf returns the source file that defines kernel, or "".
func SourceOf(kernel string) string {
	names := Names()
	sort.Strings(names)
	for _, src := range names {
		ks, _ := KernelNames(src)
		for _, k := range ks {
			if k == kernel {
				return src
			}
		}
	}
	return ""
}
