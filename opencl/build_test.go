package opencl

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-gpu/arbor/backend"
	"github.com/arbor-gpu/arbor/backend/backendtest"
	"github.com/arbor-gpu/arbor/backend/cache"
	"github.com/arbor-gpu/arbor/device"
)

// brokenBody has an undeclared identifier on line 4 of broken.cl.
const brokenBody = `__kernel void broken(__global int* out)
{
    size_t i = get_global_id(0);
    out[i] = undeclared_thing + 1;
}
`

// TestBuildError: a kernel that does not compile gives an error with the
// compiler's log and the numbered source around the reported line, in the
// form the architecture promises.
func TestBuildError(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		// The way kernels.Source assembles a program: prelude, then
		// #line 1 "broken.cl" and the body.
		src := backend.Source{Name: "broken", Kernels: []string{"broken"},
			Code: device.Prelude(device.OpenCL) + "#line 1 \"broken.cl\"\n" + brokenBody}
		_, err := d.Build(src)
		if err == nil {
			t.Fatal("a broken kernel built")
		}
		msg := err.Error()
		t.Logf("the error:\n%s", msg)
		var be *BuildError
		if !errors.As(err, &be) {
			t.Fatalf("error is %T, not a *BuildError", err)
		}
		if c, _ := Code(err); c != clBuildProgramFailure {
			t.Errorf("code %s, want CL_BUILD_PROGRAM_FAILURE", CodeName(c))
		}
		first := strings.SplitN(msg, "\n", 2)[0]
		wantFirst := regexp.MustCompile(`^opencl: build "broken" on .+: CL_BUILD_PROGRAM_FAILURE: broken\.cl:4: error: .*undeclared_thing`)
		if !wantFirst.MatchString(first) {
			t.Errorf("first line %q does not match %v", first, wantFirst)
		}
		if !strings.Contains(msg, "\nbuild log:\n") {
			t.Error("the error has no build log")
		}
		for _, l := range strings.Split(be.Log, "\n") {
			if !strings.Contains(msg, strings.TrimSpace(l)) {
				t.Errorf("the error lacks log line %q", l)
			}
		}
		// The numbered source: the reported line marked, its neighbours numbered.
		for _, want := range []string{
			"broken.cl:4:\n",
			"        1 | __kernel void broken(__global int* out)\n",
			"  >     4 |     out[i] = undeclared_thing + 1;\n",
			"        5 | }",
		} {
			if !strings.Contains(msg, want) {
				t.Errorf("the error lacks %q", want)
			}
		}
	})
}

// TestBuildErrorNoLineDirective: without #line the compiler names the
// source itself ("<source>", "<kernel>", a temporary file); the physical
// line is shown.
func TestBuildErrorNoLineDirective(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		code := "// first\n// second\n__kernel void k(__global int* o) { o[0] = nope; }\n"
		_, err := d.Build(backend.Source{Name: "plain", Code: code})
		if err == nil {
			t.Fatal("a broken kernel built")
		}
		t.Logf("the error:\n%s", err)
		if !strings.Contains(err.Error(), "  >     3 | __kernel void k(__global int* o) { o[0] = nope; }") {
			t.Errorf("line 3 not shown and marked:\n%s", err)
		}
	})
}

func TestExcerpts(t *testing.T) {
	src := strings.Join([]string{
		"/* prelude 1 */",       // 1
		"#define X 1",           // 2
		"#line 1 \"scan.cl\"",   // 3
		"kernel void a() {",     // scan.cl:1
		"  int x = 1;",          // 2
		"  y = 2;",              // 3
		"}",                     // 4
		"#line 10 \"other.cl\"", //
		"int z;",                // other.cl:10
	}, "\n")
	log := "<source>:2:9: warning: macro redefined\n" +
		"In file included from x.cl:7:\n" +
		"scan.cl:3:3: error: use of undeclared identifier 'y'\n" +
		"scan.cl:3:3: note: again\n" +
		"error: other.cl:10:5: bad\n" +
		"1 error generated.\n"
	got := excerpts(src, log)
	want := "scan.cl:3:\n" +
		"        1 | kernel void a() {\n" +
		"        2 |   int x = 1;\n" +
		"  >     3 |   y = 2;\n" +
		"        4 | }\n" +
		"other.cl:10:\n" +
		"  >    10 | int z;\n" +
		"<source>:2:\n" +
		"        1 | /* prelude 1 */\n" +
		"  >     2 | #define X 1\n"
	if got != want {
		t.Errorf("excerpts:\n%s\nwant:\n%s", got, want)
	}
	if f := firstError(src, log); f != "scan.cl:3: error: use of undeclared identifier 'y'" {
		t.Errorf("firstError = %q", f)
	}
	// NVIDIA's OpenCL compiler ignores #line: "<kernel>:6" is physical line
	// 6, which is scan.cl:3.
	nvlog := "<kernel>:6:3: error: use of undeclared identifier 'y'\n"
	if f := firstError(src, nvlog); f != "scan.cl:3: error: use of undeclared identifier 'y'" {
		t.Errorf("firstError (NVIDIA form) = %q", f)
	}
	if got := excerpts(src, nvlog); !strings.HasPrefix(got, "scan.cl:3:\n") || !strings.Contains(got, "  >     3 |   y = 2;\n") {
		t.Errorf("excerpts (NVIDIA form):\n%s", got)
	}
	if f := firstError(src, "\n  something odd\n"); f != "something odd" {
		t.Errorf("firstError without a location = %q", f)
	}
}

func TestBuildOptions(t *testing.T) {
	got, err := buildOptions(backend.Source{Options: []string{"-cl-mad-enable"}, Defines: map[string]string{"B": "2", "A": "x1"}})
	if err != nil || got != "-cl-mad-enable -D A=x1 -D B=2" {
		t.Errorf("buildOptions = %q, %v", got, err)
	}
	if _, err := buildOptions(backend.Source{Defines: map[string]string{"A": "two words"}}); err == nil {
		t.Error("a define with a space was accepted")
	}
	if _, err := buildOptions(backend.Source{Defines: map[string]string{"1A": "1"}}); err == nil {
		t.Error("a define that is not a name was accepted")
	}
}

// TestDefinesAndKernels: defines reach the compiler; a missing kernel is
// reported by Build (from Source.Kernels) and by Kernel.
func TestDefinesAndKernels(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		q := queue(t, d)
		code := "__kernel void def(__global int* o) { o[0] = VALUE * 2 + OTHER; }\n"
		p := backendtest.Build(t, d, backend.Source{Name: "def", Code: code, Kernels: []string{"def"},
			Defines: map[string]string{"VALUE": "21", "OTHER": "-3"}})
		k := backendtest.Kernel(t, p, "def")
		out := alloc(t, d, 4)
		if err := q.Launch(k, backend.R1(1, 1), backend.Buf(out)); err != nil {
			t.Fatal(err)
		}
		got := make([]int32, 1)
		if err := backend.ReadSlice(q, out, got); err != nil || got[0] != 39 {
			t.Fatalf("VALUE*2+OTHER = %d, %v; want 39", got[0], err)
		}
		if _, err := p.Kernel("nope"); err == nil || !strings.Contains(err.Error(), `no kernel "nope"`) {
			t.Errorf("Kernel(nope): %v", err)
		}
		_, err := d.Build(backend.Source{Name: "def", Code: code, Kernels: []string{"def", "missing_one"},
			Defines: map[string]string{"VALUE": "1", "OTHER": "1"}})
		if err == nil || !strings.Contains(err.Error(), "missing_one") {
			t.Errorf("Build with a missing kernel: %v", err)
		}
		// A bad option is a build error that names it.
		_, err = d.Build(backend.Source{Name: "def", Code: twiceCode, Options: []string{"-arbor-bogus-option"}})
		var be *BuildError
		if !errors.As(err, &be) || !strings.Contains(err.Error(), "options: -arbor-bogus-option") {
			t.Errorf("Build with a bad option: %v", err)
		}
	})
}

// cacheEntries lists the cache's entry files.
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.bin"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// runTwice launches the program's "twice" kernel and checks its result, so
// a program from the cache is shown to work, not just to load.
func runTwice(t *testing.T, d *Device, p backend.Program) {
	t.Helper()
	k, err := p.Kernel("twice")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	q := queue(t, d)
	in := []int32{1, -2, 3, 40000}
	b, err := backend.AllocSlice(d, q, in)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	if err := q.Launch(k, backend.R1(len(in), 0), backend.Buf(b), backend.I32(int32(len(in)))); err != nil {
		t.Fatal(err)
	}
	got := make([]int32, len(in))
	if err := backend.ReadSlice(q, b, got); err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if got[i] != 2*in[i] {
			t.Fatalf("twice: got %v from %v", got, in)
		}
	}
}

const twiceCode = "__kernel void twice(__global int* a, int n) { size_t i = get_global_id(0); if (i < (size_t)n) a[i] *= 2; }\n"

// TestCache: the second build of a source is a cache hit and works; a
// corrupt entry is detected, removed and rebuilt; a binary the driver
// refuses is rebuilt and overwritten; ARBOR_CACHE=off disables the cache;
// an unwritable cache directory is a warning only.
func TestCache(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		dir := t.TempDir()
		t.Setenv(cache.EnvDir, dir)
		t.Setenv(cache.EnvSwitch, "")
		src := testSource("twice", twiceCode+"/* TestCache */\n", "twice")
		buildOnce := func(wantHit bool) {
			t.Helper()
			p, err := d.Build(src)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Release()
			if hit := p.(*Program).CacheHit(); hit != wantHit {
				t.Fatalf("cache hit %v, want %v (stats %+v)", hit, wantHit, d.CacheStats())
			}
			runTwice(t, d, p)
		}
		before := d.CacheStats()
		buildOnce(false)
		if n := len(cacheEntries(t, dir)); n != 1 {
			t.Fatalf("%d cache entries after the first build, want 1", n)
		}
		buildOnce(true)
		s := d.CacheStats()
		if s.Hits-before.Hits != 1 || s.Misses-before.Misses != 1 || s.Stores-before.Stores != 1 {
			t.Errorf("stats %+v after a miss and a hit (before %+v)", s, before)
		}

		t.Run("corrupt", func(t *testing.T) {
			warn := backendtest.CaptureWarnings(t)
			entry := cacheEntries(t, dir)[0]
			raw, err := os.ReadFile(entry)
			if err != nil {
				t.Fatal(err)
			}
			raw[len(raw)/2] ^= 0x55
			if err := os.WriteFile(entry, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			buildOnce(false)
			if !strings.Contains(warn.String(), "corrupt") {
				t.Errorf("no warning for a corrupt entry: %q", warn)
			}
			buildOnce(true) // rebuilt and stored again
		})

		t.Run("rejected", func(t *testing.T) {
			warn := backendtest.CaptureWarnings(t)
			entry := cacheEntries(t, dir)[0]
			key := strings.TrimSuffix(filepath.Base(entry), ".bin")
			// A well-formed entry whose payload is not a binary the driver takes.
			cache.Store(key, []byte("this is not a program binary"))
			rejected := d.CacheStats().Rejected
			buildOnce(false)
			if d.CacheStats().Rejected != rejected+1 {
				t.Errorf("rejected count %d, want %d", d.CacheStats().Rejected, rejected+1)
			}
			if !strings.Contains(warn.String(), "rejected") {
				t.Errorf("no warning for a rejected binary: %q", warn)
			}
			buildOnce(true) // overwritten with a good binary
		})

		t.Run("defines change the key", func(t *testing.T) {
			other := src
			other.Defines = map[string]string{"UNUSED": "1"}
			p, err := d.Build(other)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Release()
			if p.(*Program).CacheHit() {
				t.Error("a build with other defines hit the cache")
			}
		})

		t.Run("off", func(t *testing.T) {
			t.Setenv(cache.EnvSwitch, "off")
			offDir := t.TempDir()
			t.Setenv(cache.EnvDir, offDir)
			buildOnce(false)
			buildOnce(false)
			if n := len(cacheEntries(t, offDir)); n != 0 {
				t.Errorf("%d entries written with ARBOR_CACHE=off", n)
			}
		})

		t.Run("unwritable", func(t *testing.T) {
			warn := backendtest.CaptureWarnings(t)
			file := filepath.Join(t.TempDir(), "a-file")
			if err := os.WriteFile(file, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv(cache.EnvDir, filepath.Join(file, "cache")) // below a regular file: uncreatable, even for root
			buildOnce(false)
			buildOnce(false)
			if !strings.Contains(warn.String(), "not stored") {
				t.Errorf("no warning for an unwritable cache: %q", warn)
			}
		})
	})
}

// TestKernelSubGroups asks each device how many sub-groups a work-group
// forms (clGetKernelSubGroupInfo, the check the khr path's kernels pass
// through): where the driver answers, a group of one work-item is one
// sub-group and a group of 64 at least one; where it cannot (a loader
// before OpenCL 2.1, a device without sub-groups) ok is false, not a crash.
func TestKernelSubGroups(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		src := backend.Source{Name: "sg_probe", Kernels: []string{"sg_probe"},
			Code: "__kernel void sg_probe(__global int* out) { out[get_global_id(0)] = 1; }\n"}
		k := backendtest.Kernel(t, backendtest.Build(t, d, src), "sg_probe").(*Kernel)
		one, ok1 := k.SubGroups(1)
		many, ok64 := k.SubGroups(64)
		t.Logf("%s: clGetKernelSubGroupInfo loaded %v; 1 item: %d sub-groups (%v); 64 items: %d (%v); cl_khr_subgroups %v",
			d.Info(), k.api.getKernelSubGroupInfo != nil, one, ok1, many, ok64, slices.Contains(d.Info().Extensions, "cl_khr_subgroups"))
		if ok1 && one != 1 {
			t.Errorf("a work-group of one work-item forms %d sub-groups", one)
		}
		if ok64 && (many < 1 || many > 64) {
			t.Errorf("a work-group of 64 work-items forms %d sub-groups", many)
		}
	})
}
