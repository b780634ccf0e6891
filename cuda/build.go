package cuda

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/cache"
	"github.com/arbor-gpu/arbor/cuda/internal/raw"
)

// target is what NVRTC compiles for: cubin for sm_XY, or PTX for
// compute_XY that the driver JIT-compiles when it loads the module.
type target struct {
	arch  int  // 10*major + minor
	cubin bool // false: PTX
}

func (t target) String() string {
	if t.cubin {
		return fmt.Sprintf("sm_%d", t.arch)
	}
	return fmt.Sprintf("compute_%d", t.arch)
}

// chooseTarget picks the newest architecture NVRTC supports that is not
// newer than the device. A cubin runs on devices of the same major version
// and an equal or higher minor, so a cubin is built when that architecture
// shares the device's major version; otherwise (a device newer than NVRTC
// knows) PTX is built and the driver compiles it. forcePTX takes the PTX
// path regardless.
func chooseTarget(device int, supported []int, canCubin, forcePTX bool) (target, error) {
	if len(supported) == 0 {
		// An NVRTC too old to list its architectures: ask for the device's own.
		return target{arch: device, cubin: canCubin && !forcePTX}, nil
	}
	best := -1
	for _, a := range supported {
		if a <= device && a > best {
			best = a
		}
	}
	if best < 0 {
		return target{}, fmt.Errorf("device architecture sm_%d is older than any this NVRTC supports (%s)", device, archList(supported))
	}
	return target{arch: best, cubin: canCubin && !forcePTX && best/10 == device/10}, nil
}

func archList(as []int) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = "sm_" + strconv.Itoa(a)
	}
	return strings.Join(parts, " ")
}

// compileOptions assembles NVRTC's command line: defaults, the
// architecture, the source's own options, then its defines in sorted order.
func compileOptions(t target, src backend.Source) []string {
	opts := []string{"--gpu-architecture=" + t.String(), "-default-device"}
	opts = append(opts, src.Options...)
	keys := make([]string, 0, len(src.Defines))
	for k := range src.Defines {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		opts = append(opts, "-D"+k+"="+src.Defines[k])
	}
	return opts
}

// nvrtcMu serializes compilations: NVRTC is documented thread-safe only in
// recent versions, and compiling is not where Arbor needs parallelism.
var nvrtcMu sync.Mutex

// program is a loaded module.
type program struct {
	d        *Device
	name     string
	mod      raw.Module
	released bool
	mu       sync.Mutex
}

// Build compiles src with NVRTC (or takes the image from the disk cache)
// and loads it. The kernels src lists must all be present.
func (d *Device) Build(src backend.Source) (backend.Program, error) {
	t := d.target
	if os.Getenv(EnvPTX) == "1" {
		var err error
		if t, err = chooseTarget(d.lim.arch, d.st.nvArchs, d.st.nvCubins, true); err != nil {
			return nil, fmt.Errorf("cuda: build %q: %w", src.Name, err)
		}
	}
	opts := compileOptions(t, src)
	image, err := d.compile(src, t, opts)
	if err != nil {
		return nil, err
	}
	var mod raw.Module
	var jitLog string
	start := time.Now()
	err = d.do(func() error {
		var r raw.Result
		mod, jitLog, r = d.api.ModuleLoadData(image)
		return check(d.api, "cuModuleLoadDataEx", r)
	})
	what := "cubin"
	if !t.cubin {
		what = "PTX, JIT-compiled by the driver"
	}
	d.phases.Since(fmt.Sprintf("build %s: module load (%s, %s)", src.Name, what, humanSize(len(image))), start)
	if err != nil {
		if jitLog != "" {
			err = fmt.Errorf("%w\nJIT log:\n%s", err, strings.TrimRight(jitLog, "\n"))
		}
		return nil, fmt.Errorf("cuda: load %q (%s) on %s: %w", src.Name, t, d.info.Name, err)
	}
	p := &program{d: d, name: src.Name, mod: mod}
	var missing []string
	start = time.Now()
	err = d.do(func() error {
		for _, k := range src.Kernels {
			if _, r := d.api.ModuleGetFunction(mod, k); r != raw.Success {
				missing = append(missing, k)
			}
		}
		return nil
	})
	d.phases.Since(fmt.Sprintf("build %s: kernel lookup (%d)", src.Name, len(src.Kernels)), start)
	if err == nil && len(missing) > 0 {
		err = fmt.Errorf("cuda: program %q has no kernel(s) %s (a kernel needs KERNEL, i.e. extern \"C\" __global__)",
			src.Name, strings.Join(missing, ", "))
	}
	if err != nil {
		p.Release()
		return nil, err
	}
	return p, nil
}

// compile returns the cubin or PTX for src, from the cache when it has it.
func (d *Device) compile(src backend.Source, t target, opts []string) ([]byte, error) {
	useCache := cache.Enabled()
	var key string
	if useCache {
		start := time.Now()
		key = cache.Key("cuda", "nvrtc "+d.st.nvrtcVersion(), t.String(), strings.Join(opts, "\x00"), src.Name, src.Code)
		img, ok := cache.Load(key)
		hit := ok && len(img) > 0
		d.phases.Since(fmt.Sprintf("build %s: kernel cache (%s)", src.Name, map[bool]string{true: "hit", false: "miss"}[hit]), start)
		if hit {
			d.stats.cacheHits.Add(1)
			return img, nil
		}
	}
	start := time.Now()
	nvrtcMu.Lock()
	out, step, r := d.st.nv.Compile(src.Code, src.Name+".cu", opts, t.cubin)
	nvrtcMu.Unlock()
	d.phases.Since("build "+src.Name+": NVRTC compile", start)
	d.stats.compiles.Add(1)
	if r != raw.NVRTCSuccess {
		return nil, &CompileError{
			Program: src.Name,
			Device:  fmt.Sprintf("%s (%s, NVRTC %s)", d.info.Name, t, d.st.nvrtcVersion()),
			Result:  step + ": " + d.st.nv.ErrorString(r),
			Options: strings.Join(opts, " "),
			Log:     strings.TrimRight(out.Log, "\n"),
			Excerpt: excerpts(src.Code, src.Name+".cu", out.Log),
		}
	}
	if useCache {
		cache.Store(key, out.Image)
		d.stats.cacheStores.Add(1)
	}
	return out.Image, nil
}

func (p *program) Kernel(name string) (backend.Kernel, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.released {
		return nil, fmt.Errorf("cuda: program %q is released", p.name)
	}
	d := p.d
	k := &kernel{p: p, name: name}
	err := d.do(func() error {
		var r raw.Result
		k.fn, r = d.api.ModuleGetFunction(p.mod, name)
		if err := check(d.api, "cuModuleGetFunction", r); err != nil {
			return err
		}
		var err error
		get := func(a int) int {
			v, r := d.api.FuncGetAttribute(k.fn, a)
			if e := check(d.api, "cuFuncGetAttribute", r); e != nil && err == nil {
				err = e
			}
			return v
		}
		k.maxThreads = get(raw.FuncMaxThreadsPerBlock)
		k.staticShared = get(raw.FuncSharedSizeBytes)
		k.maxDynamic = get(raw.FuncMaxDynamicSharedSizeBytes)
		k.regs = get(raw.FuncNumRegs)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cuda: program %q: kernel %q: %w", p.name, name, err)
	}
	return k, nil
}

// Release unloads the module; its kernels become invalid.
func (p *program) Release() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.released {
		return nil
	}
	p.released = true
	err := p.d.do(func() error { return check(p.d.api, "cuModuleUnload", p.d.api.ModuleUnload(p.mod)) })
	if err != nil {
		return fmt.Errorf("cuda: release program %q: %w", p.name, err)
	}
	return nil
}

// kernel is one entry point with the limits its compilation left it.
type kernel struct {
	p            *program
	name         string
	fn           raw.Function
	maxThreads   int // threads per block this kernel can run (registers permitting)
	staticShared int
	maxDynamic   int // dynamic shared memory allowed now (raised on demand)
	regs         int
}

func (k *kernel) Name() string   { return k.name }
func (k *kernel) Release() error { return nil } // the module owns its functions

// logRef matches an NVRTC diagnostic: `scan.cl(42): error: …`,
// `scan.cu(3): warning #177-D: …`, `x.cl(7): catastrophic error: …`.
var logRef = regexp.MustCompile(`(?m)^(.+?)\((\d+)\): (catastrophic error|error|warning|remark)\b`)

// lineDirective matches `#line 12 "scan.cl"`.
var lineDirective = regexp.MustCompile(`^\s*#\s*line\s+(\d+)(?:\s+"([^"]*)")?`)

// where is a physical line's logical file and line after #line directives.
type where struct {
	file string
	line int
}

// excerpts returns, for each location the log reports (errors first, at
// most 8), the numbered source lines ±3 around it, the reported line marked.
// Lines are numbered as NVRTC numbers them: by #line directives, and before
// any directive by their position in the assembled text (named progName).
func excerpts(code, progName, log string) string {
	lines := strings.Split(code, "\n")
	at := make([]where, len(lines))
	cur := where{file: progName, line: 1}
	for i, l := range lines {
		at[i] = cur
		cur.line++
		if m := lineDirective.FindStringSubmatch(l); m != nil {
			cur.line, _ = strconv.Atoi(m[1])
			if m[2] != "" {
				cur.file = m[2]
			}
		}
	}
	type ref struct {
		w   where
		err bool
	}
	var refs []ref
	seen := map[where]bool{}
	for _, m := range logRef.FindAllStringSubmatch(log, -1) {
		n, _ := strconv.Atoi(m[2])
		w := where{file: m[1], line: n}
		if seen[w] {
			continue
		}
		seen[w] = true
		refs = append(refs, ref{w: w, err: strings.HasSuffix(m[3], "error")})
	}
	slices.SortStableFunc(refs, func(a, b ref) int {
		if a.err == b.err {
			return 0
		}
		if a.err {
			return -1
		}
		return 1
	})
	const maxShown = 8
	var sb strings.Builder
	shown := 0
	for _, r := range refs {
		idx := slices.Index(at, r.w)
		if idx < 0 {
			continue
		}
		if shown == maxShown {
			fmt.Fprintf(&sb, "(more locations in the log)\n")
			break
		}
		shown++
		fmt.Fprintf(&sb, "%s:%d:\n", r.w.file, r.w.line)
		for i := max(0, idx-3); i <= min(len(lines)-1, idx+3); i++ {
			if at[i].file != r.w.file {
				continue
			}
			mark := "  "
			if i == idx {
				mark = "> "
			}
			fmt.Fprintf(&sb, "  %s%5d | %s\n", mark, at[i].line, strings.TrimRight(lines[i], "\r"))
		}
	}
	return strings.TrimRight(sb.String(), "\n")
}
