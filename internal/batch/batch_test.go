package batch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestOrder(t *testing.T) {
	jobs := []Job{{0, 5}, {1, 1}, {2, 5}, {3, 0}, {4, 9}}
	got := Order(jobs)
	want := []Job{{3, 0}, {1, 1}, {0, 5}, {2, 5}, {4, 9}}
	if !slices.Equal(got, want) {
		t.Errorf("Order = %v, want %v", got, want)
	}
	if jobs[0] != (Job{0, 5}) {
		t.Error("Order changed its input")
	}
}

// TestRunEnds: with one slot of each kind, the CPU slot takes the
// smallest bounds in order and the device slot the largest, each job runs
// exactly once, and the two meet without overlap.
func TestRunEnds(t *testing.T) {
	var jobs []Job
	for i := range 40 {
		jobs = append(jobs, Job{Index: i, Bound: int64((i * 7) % 40)}) // a permutation of 0..39
	}
	var mu sync.Mutex
	var cpu, dev []int64
	ran := map[int]int{}
	n := Run(context.Background(), jobs, 1, 1, func(_ context.Context, j Job, s Slot) {
		mu.Lock()
		defer mu.Unlock()
		ran[j.Index]++
		if s.Device {
			dev = append(dev, j.Bound)
		} else {
			cpu = append(cpu, j.Bound)
		}
	})
	if n != 40 || len(ran) != 40 {
		t.Fatalf("started %d, ran %d distinct jobs, want 40", n, len(ran))
	}
	for i, c := range ran {
		if c != 1 {
			t.Errorf("job %d ran %d times", i, c)
		}
	}
	if !slices.IsSorted(cpu) {
		t.Errorf("CPU slot took %v, not smallest first", cpu)
	}
	if !slices.IsSortedFunc(dev, func(a, b int64) int { return int(b - a) }) {
		t.Errorf("device slot took %v, not largest first", dev)
	}
	if len(cpu) > 0 && len(dev) > 0 && cpu[len(cpu)-1] >= dev[len(dev)-1] {
		t.Errorf("the ends crossed: CPU reached %d, device %d", cpu[len(cpu)-1], dev[len(dev)-1])
	}
	if len(dev) == 0 || dev[0] != 39 {
		t.Errorf("the device slot did not start with the largest bound: %v", dev)
	}
}

// TestRunSlots: no more jobs run at once than there are slots of each
// kind, and slot IDs stay within their counts.
func TestRunSlots(t *testing.T) {
	jobs := make([]Job, 200)
	for i := range jobs {
		jobs[i] = Job{Index: i, Bound: int64(i)}
	}
	var mu sync.Mutex
	running := map[bool]int{}
	peak := map[bool]int{}
	Run(context.Background(), jobs, 3, 2, func(_ context.Context, j Job, s Slot) {
		mu.Lock()
		running[s.Device]++
		peak[s.Device] = max(peak[s.Device], running[s.Device])
		if (s.Device && s.ID >= 2) || (!s.Device && s.ID >= 3) || s.ID < 0 {
			t.Errorf("slot %+v out of range", s)
		}
		mu.Unlock()
		for range 1000 { // a little work, so that slots overlap
		}
		mu.Lock()
		running[s.Device]--
		mu.Unlock()
	})
	if peak[false] > 3 || peak[true] > 2 {
		t.Errorf("peak concurrency %v, want ≤ 3 CPU and ≤ 2 device", peak)
	}
}

// TestRunCancel: after cancellation no job starts, and Run says how many
// did.
func TestRunCancel(t *testing.T) {
	jobs := make([]Job, 10)
	for i := range jobs {
		jobs[i] = Job{Index: i}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var ran []int
	n := Run(ctx, jobs, 1, 0, func(ctx context.Context, j Job, _ Slot) {
		ran = append(ran, j.Index)
		if len(ran) == 3 {
			cancel()
		}
	})
	if n != 3 || !slices.Equal(ran, []int{0, 1, 2}) {
		t.Errorf("started %d, ran %v; want 3, [0 1 2]", n, ran)
	}
	if n := Run(context.Background(), jobs[:2], 0, 0, func(context.Context, Job, Slot) {}); n != 2 {
		t.Errorf("no slots: started %d, want 2 (one CPU slot)", n)
	}
}

func TestParseList(t *testing.T) {
	const list = "\ufeff# pairs\n" +
		"g,h,n,size\n" +
		"a.A00,a.B00,10,5\n" +
		"\n" +
		"  # indented comment\n" +
		"/abs/x, y ,1,2\n" +
		"only,two\n" +
		"\"q,1\",r,3,4\n" +
		"\"open,r,3,4\n" +
		",r,1,1\n"
	got, err := ParseList(strings.NewReader(list), "l.csv", "/data", 2)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		line  int
		files string
		err   string
	}
	want := []row{
		{3, "/data/a.A00 /data/a.B00", ""},
		{6, "/abs/x /data/y", ""},
		{7, "", "l.csv:7: 2 fields, want 4 columns"},
		{8, "/data/q,1 /data/r", ""},
		{9, "", "l.csv:9: not a CSV line"},
		{10, "", "l.csv:10: field 1 is empty"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d entries %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Line != w.line || strings.Join(g.Files, " ") != w.files {
			t.Errorf("entry %d: line %d files %q, want line %d files %q", i, g.Line, g.Files, w.line, w.files)
		}
		if (g.Err == nil) != (w.err == "") || (g.Err != nil && !strings.Contains(g.Err.Error(), w.err)) {
			t.Errorf("entry %d: error %v, want %q", i, g.Err, w.err)
		}
	}
	// Without a header a line has exactly the fields asked for.
	got, err = ParseList(strings.NewReader("x.gr\ny.gr,extra\n"), "-", "", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Err != nil || got[0].Files[0] != "x.gr" || got[1].Err == nil || !strings.Contains(got[1].Err.Error(), "-:2: 2 fields, want one graph file") {
		t.Errorf("headerless list: %+v", got)
	}
	if _, err := ParseList(strings.NewReader("g\nx,y\n"), "l", "", 2); err == nil {
		t.Error("a header of one column for a two-column list was accepted")
	}
	if _, err := ParseList(strings.NewReader(strings.Repeat("x", maxLine+1)), "l", "", 1); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("an over-long line: %v", err)
	}
}

// FuzzParseList: whatever the input, no panic; every entry is either an
// error naming its line or exactly cols non-empty files; lines increase.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{"", "g,h\na,b\n", "a,b\n#c\n\"x,y\",z\n", "\"\n", "a,\"b\"\"c\",d\r\n", "file\n\ufeffx\n", ",,,\n"} {
		f.Add(s, 2)
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, cols int) {
		if cols < 1 || cols > 4 {
			return
		}
		got, err := ParseList(strings.NewReader(s), "l", "d", cols)
		if err != nil {
			return
		}
		last := 0
		for _, e := range got {
			if e.Line <= last {
				t.Fatalf("lines not increasing: %+v", got)
			}
			last = e.Line
			if e.Err != nil {
				if e.Files != nil || !strings.HasPrefix(e.Err.Error(), fmt.Sprintf("l:%d: ", e.Line)) {
					t.Fatalf("bad error entry %+v", e)
				}
				continue
			}
			if len(e.Files) != cols {
				t.Fatalf("entry %+v: %d files, want %d", e, len(e.Files), cols)
			}
			for _, p := range e.Files {
				if p == "" {
					t.Fatalf("entry %+v: an empty file name passed", e)
				}
			}
		}
	})
}

// TestRunHandOff: jobs a CPU slot hands on run again on a device slot,
// marked HandedOff, and every job ends exactly once; device slots wait for
// the CPU slots' last hand-offs rather than leaving early; with no device
// slot nothing is handed on.
func TestRunHandOff(t *testing.T) {
	var jobs []Job
	for i := range 200 {
		jobs = append(jobs, Job{Index: i, Bound: int64(i % 7)})
	}
	var mu sync.Mutex
	ended := map[int]int{}
	handedRan := 0
	n := RunHandOff(context.Background(), jobs, 3, 2, func(_ context.Context, j Job, s Slot) bool {
		if !s.Device && j.Index%5 == 0 {
			time.Sleep(50 * time.Microsecond) // the CPU slot's short try
			return true
		}
		if s.HandedOff && (!s.Device || j.Index%5 != 0) {
			t.Errorf("job %d handed off on %+v", j.Index, s)
		}
		if s.Device {
			// The device slots are slower, so that the CPU slots take
			// (and hand on) a good share of the jobs.
			time.Sleep(200 * time.Microsecond)
		}
		mu.Lock()
		ended[j.Index]++
		if s.HandedOff {
			handedRan++
		}
		mu.Unlock()
		return false
	})
	if n != len(jobs) || len(ended) != len(jobs) {
		t.Fatalf("%d ran to their end, %d distinct, want %d", n, len(ended), len(jobs))
	}
	for i, c := range ended {
		if c != 1 {
			t.Errorf("job %d ended %d times", i, c)
		}
	}
	if handedRan == 0 {
		t.Error("no handed-off job ran on a device slot")
	}
	calls := 0
	n = RunHandOff(context.Background(), jobs[:10], 2, 0, func(context.Context, Job, Slot) bool {
		mu.Lock()
		calls++
		mu.Unlock()
		return true
	})
	if n != 10 || calls != 10 {
		t.Fatalf("without device slots: %d done in %d calls, want 10 in 10", n, calls)
	}
}

// TestRunHandOffCancel: after ctx is cancelled nothing starts, a job handed
// on is not counted as done, and RunHandOff returns.
func TestRunHandOffCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	jobs := []Job{{Index: 0}, {Index: 1}, {Index: 2}}
	n := RunHandOff(ctx, jobs, 1, 1, func(_ context.Context, j Job, s Slot) bool {
		if !s.Device {
			cancel()
			return true
		}
		time.Sleep(time.Millisecond)
		return false
	})
	if n > 2 {
		t.Fatalf("%d done after the cancel, want the handed-off one missing", n)
	}
}

// TestDeviceSlotsGetTheLargest: however fast the CPU slots empty the list,
// each device slot runs one of the largest jobs (they take their first
// before any slot starts).
func TestDeviceSlotsGetTheLargest(t *testing.T) {
	var jobs []Job
	for i := range 50 {
		jobs = append(jobs, Job{Index: i, Bound: int64(i)})
	}
	for range 20 {
		var mu sync.Mutex
		var onDevice []int
		RunHandOff(context.Background(), jobs, 4, 2, func(_ context.Context, j Job, s Slot) bool {
			if s.Device {
				mu.Lock()
				onDevice = append(onDevice, j.Index)
				mu.Unlock()
			}
			return false
		})
		if !slices.Contains(onDevice, 49) || !slices.Contains(onDevice, 48) {
			t.Fatalf("the device slots ran %v, not the two largest jobs", onDevice)
		}
	}
}
